// Fault rules as JSON objects: reading them strictly, and writing them back (fault_rules.h).
#include "fault_rules.h"

#include <fmt/format.h>

#include "keys.h"
#include "names.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::conformance::fault_rules {

using json_input::json;
using json_input::Node;
using json_input::Reader;

namespace {

// A BTH opcode: a name from the opcode table (`rocecert decode` prints them) or 0..0xff.
std::uint8_t opcode(const Reader& in, const Node& n) {
  if (n->is_string() && !Reader::looks_numeric(n->get_ref<const std::string&>())) {
    std::uint8_t op = 0;
    const std::string& name = n->get_ref<const std::string&>();
    if (!wire::opcode_from_name(name, op))
      in.fail(n, fmt::format("unknown opcode \"{}\" (the names `rocecert decode` prints, e.g. "
                             "RC_RDMA_WRITE_MIDDLE, RC_ACKNOWLEDGE; or 0..0xff)",
                             name));
    return op;
  }
  return static_cast<std::uint8_t>(in.integer(n, 0, 0xFF));
}

void match(const Reader& in, const Node& n, RuleSpec& spec) {
  in.object(n, keys::kFaultMatch);
  model::FrameMatch& m = spec.rule.match;
  if (auto v = in.optional(n, "opcode")) m.opcode = opcode(in, *v);
  if (auto v = in.optional(n, "class"))
    m.opcode_class = in.enumerated<model::OpcodeClass>(*v, names::opcode_classes(), "opcode class");
  if (auto v = in.optional(n, "position"))
    m.position = in.enumerated<wire::Position>(*v, names::frame_positions(), "position");
  if (auto v = in.optional(n, "qp")) {
    if ((*v)->is_string() && !Reader::looks_numeric((*v)->get_ref<const std::string&>())) {
      spec.qp_name = *v;
    } else {
      m.dest_qp = static_cast<std::uint32_t>(in.integer(*v, 0, wire::kMask24));
    }
  }
  if (auto v = in.optional(n, "psn"))
    m.psn = static_cast<std::uint32_t>(in.integer(*v, 0, wire::kMask24));
  if (auto v = in.optional(n, "ackreq")) m.ackreq = in.boolean(*v);
}

// "nth" (one occurrence) or "from" / "to" (a range; "to" absent: no end). Neither: every one.
void occurrences(const Reader& in, const Node& n, model::FaultRule& r) {
  in.at_most_one(n, {"nth", "from"});
  in.at_most_one(n, {"nth", "to"});
  if (auto v = in.optional(n, "nth")) {
    r.first = r.last = in.integer(*v, 1, kMaxOccurrence);
    return;
  }
  if (auto v = in.optional(n, "from")) r.first = in.integer(*v, 1, kMaxOccurrence);
  if (auto v = in.optional(n, "to")) {
    r.last = in.integer(*v, 1, kMaxOccurrence);
    if (r.last < r.first)
      in.fail(*v, fmt::format("{} is below \"from\" ({}): the range is empty", r.last, r.first));
  }
}

void timing(const Reader& in, const Node& n, model::FaultRule& r) {
  const bool delay = r.action == model::FaultAction::DELAY;
  const bool reorder = r.action == model::FaultAction::REORDER;
  for (const char* key : {"delay_ns", "jitter_ns"})
    if (in.has(n, key) && !delay)
      in.fail(n.child(key), fmt::format("only a \"delay\" rule takes \"{}\"", key));
  for (const char* key : {"overtake", "max_hold_ns"})
    if (in.has(n, key) && !reorder)
      in.fail(n.child(key), fmt::format("only a \"reorder\" rule takes \"{}\"", key));
  model::FaultTiming& t = r.timing;
  if (auto v = in.optional(n, "delay_ns")) t.delay_ns = in.integer(*v, 0, kMaxFaultNs);
  if (auto v = in.optional(n, "jitter_ns")) t.jitter_ns = in.integer(*v, 0, kMaxFaultNs);
  if (auto v = in.optional(n, "overtake"))
    t.overtake = static_cast<std::uint32_t>(in.integer(*v, 1, UINT32_MAX));
  if (auto v = in.optional(n, "max_hold_ns")) t.max_hold_ns = in.integer(*v, 0, kMaxFaultNs);
}

}  // namespace

RuleSpec read_rule(const Reader& in, const Node& n) {
  in.object(n, keys::kFaultRule);
  RuleSpec spec;
  model::FaultRule& r = spec.rule;
  r.action =
      in.enumerated<model::FaultAction>(n.child("action"), names::fault_actions(), "fault action");
  if (auto v = in.optional(n, "direction"))
    r.match.direction =
        in.enumerated<model::LinkDirection>(*v, names::link_directions(), "link direction");
  if (auto v = in.optional(n, "match")) match(in, *v, spec);
  occurrences(in, n, r);
  timing(in, n, r);
  return spec;
}

json to_json(const model::FaultRule& r) {
  json j = json::object();
  j["action"] = names::name_of(names::fault_actions(), r.action);
  const model::FrameMatch& m = r.match;
  if (m.direction) j["direction"] = names::name_of(names::link_directions(), *m.direction);
  json mj = json::object();
  if (m.opcode) {
    const wire::OpcodeInfo& op = wire::opcode_info(*m.opcode);
    if (op.known) {
      mj["opcode"] = op.name;
    } else {
      mj["opcode"] = *m.opcode;
    }
  }
  if (m.opcode_class != model::OpcodeClass::ANY)
    mj["class"] = names::name_of(names::opcode_classes(), m.opcode_class);
  if (m.position) mj["position"] = names::name_of(names::frame_positions(), *m.position);
  if (m.dest_qp) mj["qp"] = *m.dest_qp;
  if (m.psn) mj["psn"] = *m.psn;
  if (m.ackreq) mj["ackreq"] = *m.ackreq;
  if (!mj.empty()) j["match"] = std::move(mj);
  if (r.first == r.last) {
    j["nth"] = r.first;
  } else {
    if (r.first != 1) j["from"] = r.first;
    if (r.last != model::kEveryOccurrence) j["to"] = r.last;
  }
  const model::FaultTiming def{};
  if (r.action == model::FaultAction::DELAY) {
    if (r.timing.delay_ns != def.delay_ns) j["delay_ns"] = r.timing.delay_ns;
    if (r.timing.jitter_ns != def.jitter_ns) j["jitter_ns"] = r.timing.jitter_ns;
  }
  if (r.action == model::FaultAction::REORDER) {
    if (r.timing.overtake != def.overtake) j["overtake"] = r.timing.overtake;
    if (r.timing.max_hold_ns != def.max_hold_ns) j["max_hold_ns"] = r.timing.max_hold_ns;
  }
  return j;
}

}  // namespace rocecert::conformance::fault_rules
