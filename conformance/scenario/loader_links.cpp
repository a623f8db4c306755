// The scenario loader: links and their fault plans (docs/faults.md).
#include <fmt/format.h>

#include <algorithm>

#include "fault_rules.h"
#include "loader_internal.h"

namespace rocecert::conformance::loader {

void Loader::link(const Node& n) {
  in_.object(n, keys::kLink);
  LinkSpec l;
  l.path = n.path;
  const Node a = in_.required(n, "a");
  const Node b = in_.required(n, "b");
  l.a = sc_.objects[ref(a, {ObjectKind::ADAPTER})].adapter_index;
  l.b = sc_.objects[ref(b, {ObjectKind::ADAPTER})].adapter_index;
  if (l.a == l.b) in_.fail(b, "a link joins two different adapters");
  for (const LinkSpec& other : sc_.links) {
    for (const auto& [end, node] : {std::pair{l.a, a}, std::pair{l.b, b}}) {
      if (other.a == end || other.b == end)
        in_.fail(node,
                 fmt::format("adapter \"{}\" already has a link ({}); an adapter has one port",
                             sc_.adapters[end].config.name, other.path));
    }
  }
  if (auto v = in_.optional(n, "latency_ns")) l.latency_ns = in_.u64(*v);
  if (auto v = in_.optional(n, "gbps")) l.gbps = in_.number(*v, 0, 1e6);
  if (auto f = in_.optional(n, "faults")) faults(*f, l);
  sc_.links.push_back(l);
}

void Loader::faults(const Node& n, LinkSpec& l) {
  in_.object(n, keys::kFaults);
  model::FaultPlan& plan = l.faults;
  if (auto v = in_.optional(n, "seed")) plan.seed = in_.u64(*v);
  if (auto v = in_.optional(n, "a_to_b")) rates(*v, plan.a_to_b);
  if (auto v = in_.optional(n, "b_to_a")) rates(*v, plan.b_to_a);
  if (auto r = in_.optional(n, "rules")) {
    for (const Node& e : in_.array(*r)) plan.rules.push_back(rule(e, l));
  }
}

void Loader::rates(const Node& n, model::FaultRates& r) {
  in_.object(n, keys::kFaultRates);
  const auto p = [&](std::string_view key, double& out) {
    if (auto v = in_.optional(n, key)) out = in_.number(*v, 0, 1);
  };
  p("drop", r.drop);
  p("duplicate", r.duplicate);
  p("reorder", r.reorder);
  p("delay", r.delay);
  p("corrupt", r.corrupt);
  p("ecn_ce", r.ecn_ce);
  if (auto v = in_.optional(n, "delay_ns"))
    r.timing.delay_ns = in_.integer(*v, 0, fault_rules::kMaxFaultNs);
  if (auto v = in_.optional(n, "jitter_ns"))
    r.timing.jitter_ns = in_.integer(*v, 0, fault_rules::kMaxFaultNs);
  if (auto v = in_.optional(n, "overtake"))
    r.timing.overtake = static_cast<std::uint32_t>(in_.integer(*v, 1, UINT32_MAX));
  if (auto v = in_.optional(n, "max_hold_ns"))
    r.timing.max_hold_ns = in_.integer(*v, 0, fault_rules::kMaxFaultNs);
}

// One rule object (docs/faults.md, fault_rules.h). A "match.qp" that names a scenario QP (on
// either end of the link) gets its QPN at run time; the name is checked after the steps.
model::FaultRule Loader::rule(const Node& n, const LinkSpec& l) {
  const fault_rules::RuleSpec spec = fault_rules::read_rule(in_, n);
  if (spec.qp_name) {
    pending_rule_qps_.push_back({sc_.links.size(), l.faults.rules.size(),
                                 (*spec.qp_name)->get<std::string>(), spec.qp_name->path, n.path,
                                 spec.rule.match.direction});
  }
  return spec.rule;
}

// After the steps: the QPs that rules name exist, on an end of their link.
void Loader::resolve_rule_qps() {
  for (const PendingRuleQp& p : pending_rule_qps_) {
    LinkSpec& l = sc_.links[p.link];
    const json_input::json name_value = p.name;
    const ObjId id = ref(Node{&name_value, p.path}, {ObjectKind::QP});
    const NamedObject& qp = sc_.objects[id];
    const std::string& a = sc_.adapters[l.a].config.name;
    const std::string& b = sc_.adapters[l.b].config.name;
    if (qp.adapter_index != l.a && qp.adapter_index != l.b)
      in_.fail(p.path, fmt::format("QP \"{}\" is on adapter \"{}\", which is not an end of "
                                   "this link ({} and {})",
                                   qp.name, adapter_name(qp), a, b));
    if (p.direction) {
      const bool to_b = *p.direction == model::LinkDirection::A_TO_B;
      if (qp.adapter_index != (to_b ? l.b : l.a))
        in_.fail(p.path,
                 fmt::format("QP \"{}\" (the DestQP to match) is on adapter \"{}\", but "
                             "\"{}\" frames go to adapter \"{}\"",
                             qp.name, adapter_name(qp), to_b ? "a_to_b" : "b_to_a", to_b ? b : a));
    }
    l.rule_qps.push_back({p.rule, id, p.rule_path});
    if (l.install_after_step == SIZE_MAX || qp.step > l.install_after_step)
      l.install_after_step = qp.step;
  }
}

}  // namespace rocecert::conformance::loader
