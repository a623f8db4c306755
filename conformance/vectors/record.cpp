// Recording a vector (internal.h): the scenario run on the model with its frames, completions and
// QP states recorded, then written with those as its `expect` step and run once more.
#include <fmt/format.h>

#include <cctype>
#include <map>
#include <set>

#include "internal.h"
#include "rocecert/conformance/frame_rules.h"
#include "rocecert/conformance/runner.h"
#include "rocecert/cq/wc.h"
#include "rocecert/errors/async_event.h"
#include "rocecert/errors/error_table.h"
#include "rocecert/trace/observer.h"
#include "rocecert/wire/headers.h"

namespace rocecert::vectors::detail {

using wire::Transport;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string transport_name(Transport t) {
  switch (t) {
    case Transport::RC:
      return "RC";
    case Transport::UC:
      return "UC";
    case Transport::UD:
      return "UD";
    case Transport::RD:
      return "RD";
    case Transport::CNP:
      return "CNP";
    case Transport::XRC:
      return "XRC";
  }
  return "?";
}

json adapter(const char* name, const char* mac, const char* ip, const json& profile,
             std::uint32_t mtu) {
  json a = {{"name", name}, {"mac", mac}, {"ip", ip}, {"mtu", mtu}};
  if (!profile.empty()) a["profile"] = profile;
  return a;
}

json step(std::initializer_list<std::pair<const std::string, json>> fields) {
  json s = json::object();
  for (const auto& [k, v] : fields) s[k] = v;
  return s;
}

// Two adapters on one cable, a QP of the recipe's transport on each, brought to RTS; the
// work request posted on A; run to the end.
namespace {

// ------------------------------------------------------------------------------ recording

// What the run showed: every frame sent, and the state each QP ended in.
class Recorder final : public trace::Observer {
 public:
  struct Sent {
    std::int64_t t = 0;
    std::uint32_t adapter = 0;
    std::vector<std::uint8_t> bytes;
    wire::ParsedFrame parsed;
  };
  std::vector<Sent> sent;
  std::map<std::pair<std::uint32_t, std::uint32_t>, qp::QpState> state;  // (adapter, qpn)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> created;          // RESET -> INIT, in order

  bool needs_decoded_frames() const override { return true; }
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX || e.parsed == nullptr) return;
    Sent s;
    s.t = static_cast<std::int64_t>(e.t);
    s.adapter = e.adapter;
    s.bytes.assign(e.bytes.begin(), e.bytes.end());
    s.parsed = wire::decode(s.bytes, {wire::LinkType::Ethernet, true});
    on_wire.push_back({s.t, s.bytes});
    sent.push_back(std::move(s));
  }
  // An injected stimulus is in the vector's pcap (the wire as it was) but not among the frames
  // an implementation must send: the scenario's inject step holds it.
  void on_inject(const trace::FrameEvent& e) override {
    on_wire.push_back({static_cast<std::int64_t>(e.t), {e.bytes.begin(), e.bytes.end()}});
  }
  std::vector<Generated::Frame> on_wire;  // sent and injected frames, in order: the pcap
  void on_async_event(const trace::AsyncEvent& e) override {
    async[e.adapter].push_back(std::string(errors::to_string(e.kind)));
  }
  std::map<std::uint32_t, std::vector<std::string>> async;  // adapter -> event kinds, in order
  // The error classes the run met, with the error profile of the adapter that met them (for the
  // coverage matrix "error class x profile"): a QP forced to ERR names its class; the benign
  // classes that change no state show as the responder's RNR NAK or PSN sequence NAK.
  std::vector<std::string> profile_of;  // by adapter id
  std::set<std::string> errors_met;
  void met(std::uint32_t adapter, std::string_view error_class) {
    if (adapter < profile_of.size())
      errors_met.insert(fmt::format("{} {}", error_class, profile_of[adapter]));
  }
  // A receiver's silent drop names the errors-table class of the admission check that refused
  // the packet (refmodel/model/adapter.cpp, docs/spec-notes.md §1.9).
  void on_drop(const trace::DropEvent& e) override {
    if (!e.error_class.empty()) met(e.adapter, e.error_class);
  }
  void on_nak(const trace::NakEvent& e) override {
    const wire::AethKind k = wire::aeth_kind(e.syndrome);
    if (k == wire::AethKind::RNR_NAK) met(e.adapter, "RESP_RNR");
    if (k == wire::AethKind::NAK &&
        e.syndrome == wire::nak_syndrome(wire::NakCode::PSN_SEQUENCE_ERROR))
      met(e.adapter, "RESP_PSN_SEQUENCE");
  }
  void on_qp_transition(const trace::QpTransitionEvent& e) override {
    errors::ErrorClass cls{};
    if (e.to == qp::QpState::ERR && errors::error_class_from_name(e.cause, cls))
      met(e.adapter, e.cause);
    const auto key = std::make_pair(e.adapter, e.qpn);
    if (e.from == qp::QpState::RESET && e.to == qp::QpState::INIT && !state.count(key))
      created.push_back(key);
    state[key] = e.to;
  }
};

std::string hex32(std::uint32_t v) {
  return fmt::format("{:#x}", v);
}

// The expect step that holds what the run showed.
json expectations(const conformance::Scenario& sc, const conformance::RunResult& res,
                  const Recorder& rec, std::vector<std::string>& opcodes) {
  // QP names by (adapter, qpn): the QPs reach INIT in the order of their modify_qp steps.
  std::vector<std::string> init_order;
  for (const conformance::Step& st : sc.steps)
    if (const auto* m = std::get_if<conformance::ModifyQpStep>(&st.body);
        m != nullptr && m->mask.has(qp::AttrBit::STATE) && m->attr.qp_state == qp::QpState::INIT &&
        !m->expect_error)
      init_order.push_back(sc.object(m->qp).name);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> qp_name;
  for (std::size_t i = 0; i < rec.created.size() && i < init_order.size(); ++i)
    qp_name[rec.created[i]] = init_order[i];
  auto name_of_qp = [&](std::uint32_t adapter, std::uint32_t qpn) -> json {
    const auto it = qp_name.find({adapter, qpn});
    return it != qp_name.end() ? json(it->second) : json(qpn);
  };

  // What earlier expect steps checked is not listed again: the runner compares what came since
  // the previous check (docs/scenario.md, expect), and those checks held on this run.
  std::size_t frames_seen = 0;
  std::map<std::size_t, std::size_t> async_seen;      // adapter index -> events checked
  std::map<conformance::ObjId, std::size_t> cq_seen;  // CQ -> completions checked
  for (const conformance::Step& st : sc.steps)
    if (const auto* x = std::get_if<conformance::ExpectStep>(&st.body)) {
      if (x->frames) frames_seen += x->frames->frames.size();
      for (const conformance::AsyncExpect& a : x->async_events)
        async_seen[a.adapter] += a.events.size();
      for (const conformance::CqExpect& c : x->completions) cq_seen[c.cq] += c.completions.size();
    }

  // The frames of this window, and which of them a responder may leave out: an ACK that a later
  // acknowledgement from the same sender to the same QP covers (an ACK, a NAK or a response with
  // an AETH at or after its PSN: IBA Vol. 1 §9.7.5.1.1, coalesced acknowledgements;
  // docs/spec-notes.md §3.4).
  std::vector<const Recorder::Sent*> window;
  for (std::size_t k = frames_seen; k < rec.sent.size(); ++k) {
    const wire::ParsedFrame& p = rec.sent[k].parsed;
    if (p.has_bth && p.op != nullptr) window.push_back(&rec.sent[k]);
  }
  const auto ack_view = [](const wire::ParsedFrame& p) {
    conformance::AckView v{p.bth.opcode, std::nullopt, p.bth.psn};
    if (p.op->has(wire::Header::Aeth)) v.syndrome = p.aeth.syndrome;
    return v;
  };
  std::vector<bool> optional(window.size(), false);
  for (std::size_t i = 0; i < window.size(); ++i)
    for (std::size_t j = i + 1; j < window.size() && !optional[i]; ++j)
      optional[i] =
          window[j]->adapter == window[i]->adapter &&
          window[j]->parsed.bth.dqpn == window[i]->parsed.bth.dqpn &&
          conformance::ack_covered_by(ack_view(window[i]->parsed), ack_view(window[j]->parsed));
  // The destination QP's name: a QP of another adapter with that number.
  const auto dest_qp = [&](std::uint32_t sender, std::uint32_t dqpn) -> std::optional<std::string> {
    for (const auto& [where, name] : qp_name)
      if (where.first != sender && where.second == dqpn) return name;
    return std::nullopt;
  };

  json frames = json::array();
  std::set<std::string> seen;
  for (std::size_t i = 0; i < window.size(); ++i) {
    const Recorder::Sent& s = *window[i];
    const wire::ParsedFrame& p = s.parsed;
    json f;
    f["from"] = sc.adapters.at(s.adapter).config.name;
    f["opcode"] = std::string(p.op->name);
    if (const auto q = dest_qp(s.adapter, p.bth.dqpn)) f["qp"] = *q;
    if (optional[i]) f["optional"] = true;
    seen.insert(std::string(p.op->name));
    if (p.op->transport != Transport::CNP) {
      f["psn"] = p.bth.psn;
      // Where inside an RC message a requester asks for an ACK is its own policy: FIRST and
      // MIDDLE packets leave AckReq unchecked.
      if (!p.op->ackreq_is_requesters_choice()) f["ackreq"] = p.bth.ackreq;
      f["payload_len"] = p.payload_len;
      if (p.op->has(wire::Header::Reth)) f["dmalen"] = p.reth.dmalen;
      if (p.op->has(wire::Header::Aeth)) {
        f["aeth"] = std::string(wire::aeth_name(p.aeth.syndrome));
        f["msn"] = p.aeth.msn;
      }
    }
    frames.push_back(std::move(f));
  }
  opcodes.assign(seen.begin(), seen.end());

  json completions = json::object();
  for (const conformance::NamedObject& o : sc.objects)
    if (o.kind == conformance::ObjectKind::CQ) completions[o.name] = json::array();
  std::map<conformance::ObjId, std::size_t> cq_index;
  for (const conformance::PolledCompletion& pc : res.completions) {
    if (cq_index[pc.cq]++ < cq_seen[pc.cq]) continue;
    const cq::Wc& wc = pc.wc;
    json c;
    c["wr_id"] = wc.wr_id;
    c["status"] = std::string(cq::to_string(wc.status));
    // Only what ibv_poll_cq(3) defines for the completion: the opcode of a success; byte_len
    // of a receive, a READ or an atomic; wc_flags and imm_data of a receive.
    const bool receive =
        wc.opcode == cq::WcOpcode::RECV || wc.opcode == cq::WcOpcode::RECV_RDMA_WITH_IMM;
    if (wc.status == cq::WcStatus::SUCCESS) {
      c["opcode"] = std::string(cq::to_string(wc.opcode));
      if (receive || wc.opcode == cq::WcOpcode::RDMA_READ || wc.opcode == cq::WcOpcode::COMP_SWAP ||
          wc.opcode == cq::WcOpcode::FETCH_ADD)
        c["byte_len"] = wc.byte_len;
      if (receive) {
        // WITH_INV: imm_data is the invalidated rkey, which the device allocates: not fixed.
        if ((wc.wc_flags & cq::kWcWithImm) != 0) c["imm_data"] = hex32(wc.imm_data);
        json flags = json::array();
        if (wc.wc_flags & cq::kWcGrh) flags.push_back("GRH");
        if (wc.wc_flags & cq::kWcWithImm) flags.push_back("WITH_IMM");
        if (wc.wc_flags & cq::kWcIpCsumOk) flags.push_back("IP_CSUM_OK");
        if (wc.wc_flags & cq::kWcWithInv) flags.push_back("WITH_INV");
        c["wc_flags"] = flags;
      }
    }
    const std::uint32_t adapter_id = static_cast<std::uint32_t>(pc.adapter);
    c["qp"] = name_of_qp(adapter_id, wc.qp_num);
    if (wc.opcode == cq::WcOpcode::RECV && wc.src_qp != 0) {
      // UD: the sender's QP, on the other adapter.
      for (const auto& [key, name] : qp_name)
        if (key.second == wc.src_qp && key.first != adapter_id) c["src_qp"] = name;
    }
    completions[sc.object(pc.cq).name].push_back(std::move(c));
  }

  json states = json::object();
  for (const auto& [key, name] : qp_name)
    states[name] = std::string(qp::to_string(rec.state.at(key)));

  json events = json::object();
  for (std::size_t i = 0; i < sc.adapters.size(); ++i) {
    const auto it = rec.async.find(static_cast<std::uint32_t>(i));
    json list = json::array();
    if (it != rec.async.end())
      for (std::size_t k = async_seen[i]; k < it->second.size(); ++k) list.push_back(it->second[k]);
    events[sc.adapters[i].config.name] = std::move(list);
  }

  json e;
  e["op"] = "expect";
  e["description"] = "What the golden model did (rocecert vectors generate).";
  e["frames"] = std::move(frames);
  e["completions"] = std::move(completions);
  e["qp_state"] = std::move(states);
  e["async_events"] = std::move(events);
  return e;
}

}  // namespace

Generated record(Vector v, json sc) {
  Generated g;
  const std::string file = v.id + ".json";
  // First run: what the model does.
  const conformance::Scenario first = conformance::parse_scenario(sc.dump(), file);
  Recorder rec;
  for (const conformance::AdapterSpec& a : first.adapters)
    rec.profile_of.emplace_back(errors::to_string(a.config.profile.error_profile));
  conformance::RunOptions opt;
  opt.observers.push_back(&rec);
  const conformance::RunResult res = conformance::run_scenario(first, opt);
  if (!res.passed())
    throw VectorError(fmt::format("{}: the model failed its own scenario: {}: {}", file,
                                  res.failures.front().path, res.failures.front().message));
  sc["steps"].push_back(expectations(first, res, rec, v.opcodes));
  // The classes the vector names (its area's recipe) and those the run met, once each, sorted.
  std::set<std::string> errors(v.errors.begin(), v.errors.end());
  errors.insert(rec.errors_met.begin(), rec.errors_met.end());
  v.errors.assign(errors.begin(), errors.end());
  v.scenario = std::move(sc);
  g.frames = std::move(rec.on_wire);
  // Second run: the vector as written must pass.
  const conformance::Scenario again = conformance::parse_scenario(v.scenario.dump(), file);
  const conformance::RunResult check = conformance::run_scenario(again, {});
  if (!check.passed())
    throw VectorError(fmt::format("{}: the generated vector fails on the model: {}: {}", file,
                                  check.failures.front().path, check.failures.front().message));
  // IBA Vol. 1 §9.7.5.1.1 lets a responder coalesce its ACKs. Run the vector again with every
  // adapter coalescing (unless its profile sets an ACK policy of its own): a vector that no longer
  // passes depends on ACKs sent at once for each AckReq (timing after a loss, an ACK that must
  // leave before an error takes the QP down), and says so with the capability ACK_EVERY_ACKREQ,
  // which a device that coalesces does not offer (docs/dut.md).
  json coalescing = v.scenario;
  bool changed = false;
  for (json& a : coalescing["adapters"]) {
    json& profile = a["profile"];
    if (profile.is_null()) profile = json::object();
    if (profile.contains("ack")) continue;
    profile["ack"] = {{"mode", "COALESCE"}};
    changed = true;
  }
  if (changed) {
    const conformance::Scenario c = conformance::parse_scenario(coalescing.dump(), file);
    if (!conformance::run_scenario(c, {}).passed()) v.capabilities.push_back("ACK_EVERY_ACKREQ");
  }
  g.vector = std::move(v);
  return g;
}

}  // namespace rocecert::vectors::detail
