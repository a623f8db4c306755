// libFuzzer target for the scenario loader (links rocecert_conformance). Input: the scenario
// text. Properties (docs/scenario.md, conformance/include/rocecert/conformance/scenario.h):
//  1. Any input either loads or throws a ScenarioError whose what() starts with the file name
//     ("FILE: PATH: MESSAGE"); nothing else escapes (libFuzzer reports any other exception,
//     ASan/UBSan any crash or undefined behaviour). Nothing is simulated here.
//  2. A scenario that loads is consistent: every named object is found under its name, every
//     reference the steps and links hold is in range, and every fault rule's canonical text
//     (format_rule) reads back to the same rule.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "rocecert/conformance/scenario.h"
#include "rocecert/model/faults.h"

namespace {

using namespace rocecert;
using conformance::kNoObj;
using conformance::ObjId;
using conformance::Scenario;
using conformance::ScenarioError;

const std::string kFile = "fuzz.json";

void check_obj(const Scenario& sc, ObjId id) {
  if (id != kNoObj && id >= sc.objects.size()) __builtin_trap();
}

void check_loaded(const Scenario& sc) {
  if (sc.file != kFile) __builtin_trap();
  for (ObjId id = 0; id < sc.objects.size(); ++id) {
    const conformance::NamedObject& o = sc.objects[id];
    if (sc.find(o.name) != id) __builtin_trap();
    if (o.adapter >= sc.objects.size() || o.adapter_index >= sc.adapters.size()) __builtin_trap();
    if (o.step != SIZE_MAX && o.step >= sc.steps.size()) __builtin_trap();
  }
  for (const conformance::AdapterSpec& a : sc.adapters) check_obj(sc, a.object);
  for (const conformance::LinkSpec& l : sc.links) {
    if (l.a >= sc.adapters.size() || l.b >= sc.adapters.size()) __builtin_trap();
    for (const conformance::RuleQpRef& q : l.rule_qps) {
      if (q.rule >= l.faults.rules.size()) __builtin_trap();
      check_obj(sc, q.qp);
    }
    for (const model::FaultRule& rule : l.faults.rules) {
      const model::RuleParseResult again = model::parse_fault_rule(model::format_rule(rule));
      if (!again.ok() || !(again.rule == rule)) __builtin_trap();
    }
  }
  for (const conformance::Step& s : sc.steps) {
    if (s.op.empty()) __builtin_trap();
    // An inject step joins two different adapters by an existing link, within the payload limit.
    if (const auto* in = std::get_if<conformance::InjectStep>(&s.body)) {
      if (in->from >= sc.adapters.size() || in->to >= sc.adapters.size() || in->from == in->to ||
          in->link >= sc.links.size() || in->spec.payload.size() > 9000 ||
          (in->truncate && *in->truncate == 0))
        __builtin_trap();
      const conformance::LinkSpec& l = sc.links[in->link];
      if (!((l.a == in->from && l.b == in->to) || (l.a == in->to && l.b == in->from)))
        __builtin_trap();
      check_obj(sc, in->dest_qp.qp);
      check_obj(sc, in->src_qp.qp);
      check_obj(sc, in->rkey.object);
      check_obj(sc, in->invalidate_rkey.object);
    }
    if (const auto* e = std::get_if<conformance::ExpectStep>(&s.body)) {
      if (e->frames) {
        for (const conformance::FrameExpect& f : e->frames->frames) {
          if (f.from >= sc.adapters.size()) __builtin_trap();
          check_obj(sc, f.qp);
        }
      }
      for (const conformance::CqExpect& c : e->completions) check_obj(sc, c.cq);
      for (const conformance::QpStateExpect& q : e->qp_states) check_obj(sc, q.qp);
      for (const conformance::MemoryExpect& m : e->memory)
        if (m.adapter >= sc.adapters.size()) __builtin_trap();
      for (const conformance::AsyncExpect& a : e->async_events)
        if (a.adapter >= sc.adapters.size()) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const Scenario sc = conformance::parse_scenario(text, kFile);
    check_loaded(sc);
  } catch (const ScenarioError& e) {
    // The documented outcome for unusable input: "FILE: PATH: MESSAGE" on one line.
    const std::string_view what = e.what();
    if (e.file() != kFile || what.rfind(kFile + ": ", 0) != 0 || e.message().empty())
      __builtin_trap();
  }
  return 0;
}
