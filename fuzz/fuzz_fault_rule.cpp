// libFuzzer target for the link fault rule language (links rocecert_model). Input: the rule
// text. Besides "no crash, no UB" (ASan/UBSan), two properties of docs/faults.md:
//  1. A rule that does not parse says what is wrong (a non-empty error naming the term).
//  2. A rule that parses is written back by format_rule() in its canonical text, which reads
//     back to the same rule, and is a fixed point of format ∘ parse.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rocecert/model/faults.h"

using rocecert::model::format_rule;
using rocecert::model::parse_fault_rule;
using rocecert::model::RuleParseResult;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const RuleParseResult r = parse_fault_rule(text);
  if (!r.ok()) {
    if (r.error.front() != '"') __builtin_trap();  // errors start with the quoted term
    return 0;
  }
  const std::string canonical = format_rule(r.rule);
  const RuleParseResult again = parse_fault_rule(canonical);
  if (!again.ok()) __builtin_trap();
  if (!(again.rule == r.rule)) __builtin_trap();
  if (format_rule(again.rule) != canonical) __builtin_trap();
  return 0;
}
