// Coverage of a vector set (vectors.h): the opcode x transport matrix, from the opcode table.
#include <initializer_list>
#include <map>

#include "internal.h"
#include "rocecert/cq/wc.h"
#include "rocecert/errors/error_table.h"
#include "rocecert/qp/transitions.h"
#include "rocecert/vectors/vectors.h"
#include "rocecert/wire/headers.h"

namespace rocecert::vectors {
namespace {

// Why no vector shows a NAK code or a completion status: what the model's own peers can never
// make happen (each is an answer to a peer that misbehaves, or belongs to RD or to a vendor
// offload). rocecert check judges such captures.
std::string no_nak_reason(wire::NakCode c) {
  if (c == wire::NakCode::INVALID_RD_REQUEST)
    return "Invalid RD Request is answered on RD only (IBA Vol. 1 §9.7.5.2.5), not used on RoCE";
  return {};
}

std::string no_status_reason(cq::WcStatus s) {
  using S = cq::WcStatus;
  if (s == S::LOC_EEC_OP_ERR || s == S::LOC_RDD_VIOL_ERR || s == S::REM_INV_RD_REQ_ERR ||
      s == S::REM_ABORT_ERR || s == S::INV_EECN_ERR || s == S::INV_EEC_STATE_ERR)
    return "RD (reliable datagram) only: not used on RoCE";
  if (s == S::TM_ERR || s == S::TM_RNDV_INCOMPLETE)
    return "tag matching, a vendor offload outside IBA";
  if (s == S::RESP_TIMEOUT_ERR || s == S::GENERAL_ERR)
    return "no class of the errors table (docs/errors.md) completes with it";
  return {};
}

// Why no vector meets an error class under a profile. The stimuli a conforming peer never sends
// (malformed, misaddressed or out-of-sequence requests, wrong responses) are inject steps
// (docs/scenario.md); what is left is what neither the verbs nor the wire can make.
std::string no_error_reason(const errors::ErrorRow& row) {
  if (row.error == errors::ErrorClass::RESP_MALFORMED_RECV_WQE)
    return "a malformed SRQ WQE cannot exist: post_srq_recv refuses num_sge above the SRQ's "
           "max_sge (EINVAL) in the model as in rxe, and no frame writes an SRQ (rxe's check "
           "guards a queue mapped into user space)";
  return {};
}

constexpr cq::WcStatus kStatuses[] = {
#define ROCECERT_X(name, value) cq::WcStatus::name,
    ROCECERT_WC_STATUSES(ROCECERT_X)
#undef ROCECERT_X
};

}  // namespace

std::size_t Coverage::Matrix::covered() const {
  std::size_t n = 0;
  for (const Cell& c : cells)
    if (!c.vectors.empty()) ++n;
  return n;
}
std::size_t Coverage::Matrix::reasoned() const {
  std::size_t n = 0;
  for (const Cell& c : cells)
    if (c.vectors.empty() && !c.reason.empty()) ++n;
  return n;
}
std::vector<const Coverage::Cell*> Coverage::Matrix::missing() const {
  std::vector<const Cell*> out;
  for (const Cell& c : cells)
    if (c.vectors.empty() && c.reason.empty()) out.push_back(&c);
  return out;
}

Coverage coverage(const std::vector<Vector>& set) {
  std::map<std::string, std::vector<std::string>> by_opcode;
  for (const Vector& v : set)
    for (const std::string& op : v.opcodes) by_opcode[op].push_back(v.id);
  Coverage c;
  Coverage::Matrix m;
  m.name = "opcode x transport";
  for (const wire::OpcodeInfo& op : wire::kOpcodeTable) {
    if (!op.known) continue;
    Coverage::Cell cell;
    cell.row = std::string(op.name);
    const std::string_view t = op.name.substr(0, op.name.find('_'));
    cell.column = std::string(t);
    if (const auto it = by_opcode.find(cell.row); it != by_opcode.end()) cell.vectors = it->second;
    if (cell.vectors.empty()) cell.reason = detail::no_vector_reason(op);
    m.cells.push_back(std::move(cell));
  }
  c.matrices.push_back(std::move(m));

  std::map<std::string, std::vector<std::string>> by_transition;
  for (const Vector& v : set)
    for (const std::string& t : v.transitions) by_transition[t].push_back(v.id);
  Coverage::Matrix tm;
  tm.name = "transition x QP type";
  for (const qp::TransitionEntry& e : qp::transition_entries()) {
    Coverage::Cell cell;
    cell.row = detail::transition_name(e.type, e.from, e.to);
    cell.column = detail::transport_name(e.type == qp::QpType::RC   ? wire::Transport::RC
                                         : e.type == qp::QpType::UC ? wire::Transport::UC
                                                                    : wire::Transport::UD);
    if (const auto it = by_transition.find(cell.row); it != by_transition.end())
      cell.vectors = it->second;
    if (cell.vectors.empty()) cell.reason = detail::no_transition_reason(e.type, e.from, e.to);
    tm.cells.push_back(std::move(cell));
  }
  c.matrices.push_back(std::move(tm));

  // What the expect steps show: the AETH of every expected frame, the status of every expected
  // completion.
  std::map<std::string, std::vector<std::string>> by_aeth, by_status;
  for (const Vector& v : set) {
    const auto steps = v.scenario.find("steps");
    if (steps == v.scenario.end() || !steps->is_array()) continue;
    for (const auto& st : *steps) {
      if (!st.is_object() || st.value("op", "") != "expect") continue;
      if (const auto f = st.find("frames"); f != st.end() && f->is_array())
        for (const auto& fr : *f)
          if (fr.is_object() && fr.contains("aeth") && fr["aeth"].is_string()) {
            auto& ids = by_aeth[fr["aeth"].get<std::string>()];
            if (ids.empty() || ids.back() != v.id) ids.push_back(v.id);
          }
      if (const auto cs = st.find("completions"); cs != st.end() && cs->is_object())
        for (const auto& [cq, list] : cs->items())
          if (list.is_array())
            for (const auto& wc : list)
              if (wc.is_object() && wc.contains("status") && wc["status"].is_string()) {
                auto& ids = by_status[wc["status"].get<std::string>()];
                if (ids.empty() || ids.back() != v.id) ids.push_back(v.id);
              }
    }
  }
  Coverage::Matrix nm;
  nm.name = "NAK code";
  for (const std::string_view name : {std::string_view("RNR_NAK")}) {
    Coverage::Cell cell{std::string(name), "RC", {}, {}};
    if (const auto it = by_aeth.find(cell.row); it != by_aeth.end()) cell.vectors = it->second;
    nm.cells.push_back(std::move(cell));
  }
  for (const wire::NakCode code : wire::kAllNakCodes) {
    Coverage::Cell cell{std::string(wire::nak_name(code)), "RC", {}, {}};
    if (const auto it = by_aeth.find(cell.row); it != by_aeth.end()) cell.vectors = it->second;
    if (cell.vectors.empty()) cell.reason = no_nak_reason(code);
    nm.cells.push_back(std::move(cell));
  }
  c.matrices.push_back(std::move(nm));

  Coverage::Matrix wm;
  wm.name = "WC status";
  for (const cq::WcStatus st : kStatuses) {
    Coverage::Cell cell{std::string(cq::to_string(st)), "any", {}, {}};
    if (const auto it = by_status.find(cell.row); it != by_status.end()) cell.vectors = it->second;
    if (cell.vectors.empty()) cell.reason = no_status_reason(st);
    wm.cells.push_back(std::move(cell));
  }
  c.matrices.push_back(std::move(wm));

  std::map<std::string, std::vector<std::string>> by_error;
  for (const Vector& v : set)
    for (const std::string& e : v.errors) by_error[e].push_back(v.id);
  Coverage::Matrix em;
  em.name = "error class x profile";
  for (const errors::ErrorRow& row : errors::kErrorTable) {
    for (const errors::ErrorProfile p : {errors::ErrorProfile::IBA, errors::ErrorProfile::RXE}) {
      Coverage::Cell cell{std::string(row.name), std::string(errors::to_string(p)), {}, {}};
      if (const auto it = by_error.find(cell.row + " " + cell.column); it != by_error.end())
        cell.vectors = it->second;
      if (cell.vectors.empty()) cell.reason = no_error_reason(row);
      em.cells.push_back(std::move(cell));
    }
  }
  c.matrices.push_back(std::move(em));
  return c;
}

}  // namespace rocecert::vectors
