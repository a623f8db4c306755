// libFuzzer target for link fault rules (links rocecert_conformance and rocecert_model). The
// input is read twice: as one rule object of a scenario (conformance/scenario/fault_rules.h,
// docs/faults.md "Rules in a scenario") and as one rule of the model's text form. Besides "no
// crash, no UB" (ASan/UBSan):
//  1. An object that is refused gives a ScenarioError with a message; nothing else escapes.
//  2. A rule object that is read is written back by fault_rules::to_json() in a form that reads
//     back to the same rule, and its text form (format_rule) parses to the same rule.
//  3. A text rule that does not parse says what is wrong (an error naming the term); one that
//     parses is written back by format_rule() in its canonical text, which reads back to the
//     same rule and is a fixed point of format ∘ parse.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fault_rules.h"
#include "json_reader.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/model/faults.h"

namespace {

using namespace rocecert;

void object_form(std::string_view text) {
  const conformance::json_input::Reader in("rule.json");
  try {
    const conformance::json_input::json doc = in.parse(text);
    const conformance::fault_rules::RuleSpec spec =
        conformance::fault_rules::read_rule(in, conformance::json_input::Node{&doc, ""});
    const conformance::json_input::json again = conformance::fault_rules::to_json(spec.rule);
    const conformance::fault_rules::RuleSpec back =
        conformance::fault_rules::read_rule(in, conformance::json_input::Node{&again, ""});
    if (!(back.rule == spec.rule) || back.qp_name) __builtin_trap();
    const model::RuleParseResult t = model::parse_fault_rule(model::format_rule(spec.rule));
    if (!t.ok() || !(t.rule == spec.rule)) __builtin_trap();
  } catch (const conformance::ScenarioError& e) {
    if (e.file() != "rule.json" || e.message().empty()) __builtin_trap();
  }
}

void text_form(std::string_view text) {
  const model::RuleParseResult r = model::parse_fault_rule(text);
  if (!r.ok()) {
    if (r.error.front() != '"') __builtin_trap();  // errors start with the quoted term
    return;
  }
  const std::string canonical = model::format_rule(r.rule);
  const model::RuleParseResult again = model::parse_fault_rule(canonical);
  if (!again.ok()) __builtin_trap();
  if (!(again.rule == r.rule)) __builtin_trap();
  if (model::format_rule(again.rule) != canonical) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  object_form(text);
  text_form(text);
  return 0;
}
