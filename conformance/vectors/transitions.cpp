// The `transitions` area (vectors/README.md), from the QP transition table
// (refmodel/include/rocecert/qp/transitions.h, docs/spec-notes.md §6.2): one vector per QP type
// and starting state. Each brings a QP per case to that state by legal steps, then tries one
// modify_qp: every target state, with the cell's required attributes when it is legal (the QP
// must then be in the target state) or with the state alone when it is not
// (ILLEGAL_TRANSITION, the QP unchanged); and for every legal cell, its required attributes
// less one (MISSING_REQUIRED_ATTR) and plus one it does not allow (UNEXPECTED_ATTR). The
// expected errors come from the table; the model must agree, or generation fails.
#include <fmt/format.h>

#include <optional>

#include "internal.h"
#include "rocecert/qp/transitions.h"

namespace rocecert::vectors::detail {
namespace {

using qp::AttrBit;
using qp::AttrMask;
using qp::QpState;
using qp::QpType;

// A value for each attribute the vectors set (docs/scenario.md, modify_qp).
std::optional<std::pair<std::string, json>> attr_value(AttrBit b) {
  switch (b) {
    case AttrBit::PKEY_INDEX:
      return std::pair{"pkey_index", json(0)};
    case AttrBit::PORT:
      return std::pair{"port_num", json(1)};
    case AttrBit::ACCESS_FLAGS:
      return std::pair{"qp_access_flags", json::array({"REMOTE_WRITE"})};
    case AttrBit::QKEY:
      return std::pair{"qkey", json(kQkey)};
    case AttrBit::AV:
      return std::pair{"ah_attr", json{{"peer", "B"}}};
    case AttrBit::PATH_MTU:
      return std::pair{"path_mtu", json(1024)};
    case AttrBit::DEST_QPN:
      return std::pair{"dest_qp_num", json("0x99")};
    case AttrBit::RQ_PSN:
      return std::pair{"rq_psn", json(0)};
    case AttrBit::SQ_PSN:
      return std::pair{"sq_psn", json(0)};
    case AttrBit::MAX_DEST_RD_ATOMIC:
      return std::pair{"max_dest_rd_atomic", json(1)};
    case AttrBit::MAX_QP_RD_ATOMIC:
      return std::pair{"max_rd_atomic", json(1)};
    case AttrBit::MIN_RNR_TIMER:
      return std::pair{"min_rnr_timer", json(12)};
    case AttrBit::TIMEOUT:
      return std::pair{"timeout", json(14)};
    case AttrBit::RETRY_CNT:
      return std::pair{"retry_cnt", json(7)};
    case AttrBit::RNR_RETRY:
      return std::pair{"rnr_retry", json(7)};
    case AttrBit::PATH_MIG_STATE:
      return std::pair{"path_mig_state", json("MIGRATED")};
    case AttrBit::EN_SQD_ASYNC_NOTIFY:
      return std::pair{"en_sqd_async_notify", json(false)};
    case AttrBit::STATE:
    case AttrBit::CUR_STATE:
    case AttrBit::ALT_PATH:
    case AttrBit::CAP:
    case AttrBit::RATE_LIMIT:
      break;
  }
  return std::nullopt;
}

// The attributes of `mask` (STATE aside) as modify_qp's "attr", with the target state.
json attrs(QpState to, AttrMask mask) {
  json a = {{"qp_state", std::string(qp::to_string(to))}};
  for (AttrBit b : qp::kAllAttrBits) {
    if (b == AttrBit::STATE || !mask.has(b)) continue;
    if (const auto v = attr_value(b)) a[v->first] = v->second;
  }
  return a;
}

// Bits the vectors can set, tried in this order for the "plus one" case.
constexpr AttrBit kExtraCandidates[] = {AttrBit::SQ_PSN,        AttrBit::RQ_PSN,
                                        AttrBit::TIMEOUT,       AttrBit::PATH_MTU,
                                        AttrBit::DEST_QPN,      AttrBit::QKEY,
                                        AttrBit::PORT,          AttrBit::AV,
                                        AttrBit::MIN_RNR_TIMER, AttrBit::MAX_QP_RD_ATOMIC,
                                        AttrBit::RETRY_CNT,     AttrBit::PKEY_INDEX,
                                        AttrBit::ACCESS_FLAGS};

// The legal steps from RESET to `state` (SQE: RTS, then a send that fails locally).
std::vector<QpState> path_to(QpState state) {
  switch (state) {
    case QpState::RESET:
      return {};
    case QpState::INIT:
      return {QpState::INIT};
    case QpState::RTR:
      return {QpState::INIT, QpState::RTR};
    case QpState::RTS:
    case QpState::SQE:
      return {QpState::INIT, QpState::RTR, QpState::RTS};
    case QpState::SQD:
      return {QpState::INIT, QpState::RTR, QpState::RTS, QpState::SQD};
    case QpState::ERR:
      return {QpState::INIT, QpState::ERR};
  }
  return {};
}

Generated vector_for(QpType type, QpState from) {
  const std::string tname(qp::to_string(type));
  Vector v;
  v.id = fmt::format("transitions/{}-from-{}-00", lower(tname), lower(qp::to_string(from)));
  v.objective = fmt::format(
      "{} QP in {}: modify_qp to every state, legal (required attributes) or not, and each legal "
      "one with an attribute missing and one too many",
      tname, qp::to_string(from));
  v.clauses = {"IBA Vol. 1 §10.3 (QP state transitions), §11.2.5.2 (Modify QP)",
               "docs/spec-notes.md §6.1-6.2 (Linux ib_modify_qp_is_ok)"};
  v.capabilities = {tname};

  json sc;
  sc["description"] = v.objective;
  sc["seed"] = 1;
  // SQE is reached by a send that fails locally, which takes the IBA error profile (rxe moves
  // the QP to ERR instead: docs/errors.md).
  json profile = json::object();
  if (from == QpState::SQE) profile["error_profile"] = "IBA";
  sc["adapters"] = json::array({adapter("A", "02:00:00:00:00:01", "10.0.0.1", profile),
                                adapter("B", "02:00:00:00:00:02", "10.0.0.2", json::object())});
  sc["links"] = json::array({{{"a", "A"}, {"b", "B"}, {"latency_ns", 1000}}});
  json steps = json::array();
  steps.push_back(step({{"op", "alloc_pd"}, {"adapter", "A"}, {"as", "pdA"}}));
  steps.push_back(step({{"op", "create_cq"}, {"adapter", "A"}, {"as", "cqA"}, {"cqe", 64}}));

  struct Case {
    std::string name;
    QpState to;
    AttrMask mask;
    std::optional<std::string> error;
  };
  std::vector<Case> cases;
  for (QpState to : qp::kAllQpStates) {
    const qp::TransitionRule rule = qp::transition_rule(type, from, to);
    const std::string base = fmt::format("q{}", lower(qp::to_string(to)));
    v.transitions.push_back(transition_name(type, from, to));
    if (!rule.valid) {
      cases.push_back({base, to, AttrMask(AttrBit::STATE), "ILLEGAL_TRANSITION"});
      continue;
    }
    cases.push_back({base, to, rule.required | AttrBit::STATE, std::nullopt});
    for (AttrBit b : qp::kAllAttrBits)
      if (rule.required.has(b) && b != AttrBit::STATE) {
        cases.push_back({fmt::format("{}_missing", base), to,
                         AttrMask::from_raw((rule.required | AttrBit::STATE).raw() &
                                            ~static_cast<std::uint32_t>(b)),
                         "MISSING_REQUIRED_ATTR"});
        break;
      }
    for (AttrBit b : kExtraCandidates)
      if (!rule.required.has(b) && !rule.optional.has(b)) {
        cases.push_back({fmt::format("{}_extra", base), to, rule.required | AttrBit::STATE | b,
                         "UNEXPECTED_ATTR"});
        break;
      }
  }

  const char* type_str = type == QpType::RC ? "RC" : type == QpType::UC ? "UC" : "UD";
  for (const Case& c : cases)
    steps.push_back(step({{"op", "create_qp"},
                          {"pd", "pdA"},
                          {"as", c.name},
                          {"type", type_str},
                          {"send_cq", "cqA"}}));
  // Every QP to the starting state, step by step.
  QpState at = QpState::RESET;
  for (QpState next : path_to(from)) {
    const qp::TransitionRule rule = qp::transition_rule(type, at, next);
    for (const Case& c : cases)
      steps.push_back(
          step({{"op", "modify_qp"}, {"qp", c.name}, {"attr", attrs(next, rule.required)}}));
    at = next;
  }
  if (from == QpState::SQD) steps.push_back(step({{"op", "run"}}));
  if (from == QpState::SQE) {
    for (const Case& c : cases) {
      json wr = {{"wr_id", 1},
                 {"opcode", "SEND"},
                 {"send_flags", json::array({"SIGNALED"})},
                 {"sg_list", json::array({{{"lkey", 4660}, {"addr", "0x10000"}, {"length", 16}}})}};
      if (type == QpType::UD) {
        wr["ah"] = {{"peer", "B"}};
        wr["remote_qpn"] = "0x99";
        wr["remote_qkey"] = kQkey;
      }
      steps.push_back(step({{"op", "post_send"},
                            {"qp", c.name},
                            {"description", "an lkey that does not exist: the send queue errs"},
                            {"wr", wr}}));
    }
    steps.push_back(step({{"op", "run"}}));
  }
  // The transition each case tries.
  for (const Case& c : cases) {
    json s = step({{"op", "modify_qp"}, {"qp", c.name}, {"attr", attrs(c.to, c.mask)}});
    if (c.error) s["expect_error"] = *c.error;
    steps.push_back(std::move(s));
  }
  steps.push_back(step({{"op", "run"}}));
  json states = json::object();
  for (const Case& c : cases) states[c.name] = std::string(qp::to_string(c.error ? from : c.to));
  steps.push_back(step({{"op", "expect"},
                        {"description", "Each QP where the transition table puts it"},
                        {"qp_state", states}}));
  sc["steps"] = std::move(steps);
  return record(std::move(v), std::move(sc));
}

// Two RC or UC QPs, A's and B's, connected and in RTS (the steps of the opcodes area, shorter).
json connected_pair(QpType type, const json& profile_a) {
  json sc;
  sc["seed"] = 1;
  sc["adapters"] = json::array({adapter("A", "02:00:00:00:00:01", "10.0.0.1", profile_a),
                                adapter("B", "02:00:00:00:00:02", "10.0.0.2", json::object())});
  sc["links"] = json::array({{{"a", "A"}, {"b", "B"}, {"latency_ns", 1000}, {"gbps", 25}}});
  const char* t = type == QpType::RC ? "RC" : "UC";
  json steps = json::array();
  for (const char* h : {"A", "B"}) {
    const std::string pd = fmt::format("pd{}", h), mr = fmt::format("mr{}", h),
                      cq = fmt::format("cq{}", h), q = fmt::format("qp{}", h);
    steps.push_back(step({{"op", "alloc_pd"}, {"adapter", h}, {"as", pd}}));
    steps.push_back(step({{"op", "reg_mr"},
                          {"pd", pd},
                          {"as", mr},
                          {"addr", "0x10000"},
                          {"length", 0x4000},
                          {"access", json::array({"LOCAL_WRITE", "REMOTE_WRITE"})}}));
    steps.push_back(step({{"op", "create_cq"}, {"adapter", h}, {"as", cq}, {"cqe", 16}}));
    steps.push_back(
        step({{"op", "create_qp"}, {"pd", pd}, {"as", q}, {"type", t}, {"send_cq", cq}}));
  }
  for (const auto& [q, peer] : {std::pair{"qpA", "qpB"}, std::pair{"qpB", "qpA"}}) {
    steps.push_back(step({{"op", "modify_qp"},
                          {"qp", q},
                          {"attr",
                           {{"qp_state", "INIT"},
                            {"pkey_index", 0},
                            {"port_num", 1},
                            {"qp_access_flags", json::array({"REMOTE_WRITE"})}}}}));
    json rtr = {{"qp_state", "RTR"},
                {"path_mtu", 1024},
                {"dest_qp_num", peer},
                {"rq_psn", 0},
                {"ah_attr", {{"peer", peer}}}};
    json rts = {{"qp_state", "RTS"}, {"sq_psn", 0}};
    if (type == QpType::RC) {
      rtr["max_dest_rd_atomic"] = 1;
      rtr["min_rnr_timer"] = 12;
      rts["timeout"] = 14;
      rts["retry_cnt"] = 7;
      rts["rnr_retry"] = 7;
      rts["max_rd_atomic"] = 1;
    }
    steps.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", rtr}}));
    steps.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", rts}}));
  }
  sc["steps"] = std::move(steps);
  return sc;
}

json write_wr(std::uint64_t wr_id, std::uint32_t length, std::optional<std::uint32_t> lkey = {}) {
  json sge = {{"lkey", "mrA"}, {"length", length}};
  if (lkey) sge = {{"lkey", *lkey}, {"addr", "0x10000"}, {"length", length}};
  return {{"wr_id", wr_id},
          {"opcode", "RDMA_WRITE"},
          {"send_flags", json::array({"SIGNALED"})},
          {"sg_list", json::array({sge})},
          {"rkey", "mrB"},
          {"remote_offset", 0}};
}

// SQD: a WRITE in flight finishes, the WR posted after the drain request waits, SQ_DRAINED is
// raised once all is acknowledged, and SQD -> RTS sends the waiting WR.
Generated sqd_drain(QpType type) {
  const std::string tname(qp::to_string(type));
  Vector v;
  v.id = fmt::format("transitions/{}-sqd-drain-00", lower(tname));
  v.objective = fmt::format(
      "{} send queue drain: RTS -> SQD with a WRITE in flight; the WRITE completes, a WR posted "
      "meanwhile waits, SQ_DRAINED is raised, SQD -> RTS sends it",
      tname);
  v.clauses = {"IBA Vol. 1 §10.3.1 (SQD: send queue drain), §11.6.3 (SQ drained event)",
               "docs/spec-notes.md §6.6"};
  v.capabilities = {tname};
  v.transitions = {transition_name(type, QpState::RTS, QpState::SQD),
                   transition_name(type, QpState::SQD, QpState::RTS)};
  json sc = connected_pair(type, json::object());
  sc["description"] = v.objective;
  json& steps = sc["steps"];
  steps.push_back(step({{"op", "post_send"}, {"qp", "qpA"}, {"wr", write_wr(1, 3072)}}));
  steps.push_back(
      step({{"op", "run"},
            {"for_ns", 200},
            {"description", "the WRITE's packets leave; its ACK is a round trip away"}}));
  steps.push_back(step({{"op", "modify_qp"},
                        {"qp", "qpA"},
                        {"description", "the drain starts with the WRITE's packets on the wire"},
                        {"attr", {{"qp_state", "SQD"}, {"en_sqd_async_notify", true}}}}));
  steps.push_back(step({{"op", "post_send"},
                        {"qp", "qpA"},
                        {"description", "queued: it must not start while the QP is in SQD"},
                        {"wr", write_wr(2, 64)}}));
  steps.push_back(step({{"op", "run"}}));
  steps.push_back(step(
      {{"op", "expect"},
       {"description", "drained: the first WRITE done, the second not started"},
       {"qp_state", {{"qpA", "SQD"}}},
       {"completions",
        {{"cqA", json::array({{{"wr_id", 1}, {"status", "SUCCESS"}, {"opcode", "RDMA_WRITE"}}})}}},
       {"async_events", {{"A", json::array({"SQ_DRAINED"})}}}}));
  steps.push_back(step({{"op", "modify_qp"}, {"qp", "qpA"}, {"attr", {{"qp_state", "RTS"}}}}));
  steps.push_back(step({{"op", "run"}}));
  return record(std::move(v), std::move(sc));
}

// SQE (UC; the IBA error profile, rxe has no SQE): a send that fails locally completes in error,
// the WR behind it is flushed, the receive side and the QP's peer are untouched; SQE -> RTS
// recovers and the next send goes out.
Generated sqe_recovery() {
  Vector v;
  v.id = "transitions/uc-sqe-recovery-00";
  v.objective =
      "UC send queue error: a bad lkey completes LOC_PROT_ERR and moves the QP to SQE, the WR "
      "behind it is flushed; SQE -> RTS recovers and the next WRITE goes out";
  v.clauses = {"IBA Vol. 1 §10.3.1 (SQE), §10.8.3 (send queue errors), §11.6.2 (completions)",
               "docs/spec-notes.md §6.6, §5.5"};
  v.capabilities = {"UC"};
  v.transitions = {transition_name(QpType::UC, QpState::RTS, QpState::SQE),
                   transition_name(QpType::UC, QpState::SQE, QpState::RTS)};
  json sc = connected_pair(QpType::UC, json{{"error_profile", "IBA"}});
  sc["description"] = v.objective;
  json& steps = sc["steps"];
  steps.push_back(step({{"op", "post_send"},
                        {"qp", "qpA"},
                        {"description", "an lkey that does not exist"},
                        {"wr", write_wr(1, 64, 4660)}}));
  steps.push_back(step({{"op", "post_send"}, {"qp", "qpA"}, {"wr", write_wr(2, 64)}}));
  steps.push_back(step({{"op", "run"}}));
  steps.push_back(step({{"op", "expect"}, {"qp_state", {{"qpA", "SQE"}, {"qpB", "RTS"}}}}));
  steps.push_back(step({{"op", "modify_qp"}, {"qp", "qpA"}, {"attr", {{"qp_state", "RTS"}}}}));
  steps.push_back(step({{"op", "post_send"}, {"qp", "qpA"}, {"wr", write_wr(3, 64)}}));
  steps.push_back(step({{"op", "run"}}));
  return record(std::move(v), std::move(sc));
}

}  // namespace

std::string transition_name(QpType type, QpState from, QpState to) {
  return fmt::format("{} {}->{}", qp::to_string(type), qp::to_string(from), qp::to_string(to));
}

std::string no_transition_reason(QpType type, QpState from, QpState) {
  if (type == QpType::RC && from == QpState::SQE)
    return "an RC QP never enters SQE (IBA Vol. 1 §10.3.1: errors take it to ERR)";
  return {};
}

std::vector<Generated> transition_vectors() {
  std::vector<Generated> out;
  for (QpType type : qp::kAllQpTypes)
    for (QpState from : qp::kAllQpStates)
      if (!(type == QpType::RC && from == QpState::SQE)) out.push_back(vector_for(type, from));
  out.push_back(sqd_drain(QpType::RC));
  out.push_back(sqd_drain(QpType::UC));
  out.push_back(sqe_recovery());
  return out;
}

}  // namespace rocecert::vectors::detail
