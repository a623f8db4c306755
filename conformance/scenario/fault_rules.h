// A link fault rule as a scenario writes it: a JSON object read by the strict reader
// (json_reader.h), so that every mistake is named with its JSON path (docs/faults.md, "Rules in
// a scenario"). The model's own text form (model::format_rule) only names rules in fault events.
#pragma once

#include <cstdint>
#include <optional>

#include "json_reader.h"
#include "rocecert/model/faults.h"

namespace rocecert::conformance::fault_rules {

inline constexpr std::uint64_t kMaxFaultNs = 1'000'000'000'000ull;  // fault timings: 1000 s
// Occurrences count from 1; the largest count a rule may name (kEveryOccurrence is "no end").
inline constexpr std::uint64_t kMaxOccurrence = model::kEveryOccurrence - 1;

struct RuleSpec {
  model::FaultRule rule;
  // "match.qp" given as the name of a scenario QP: its QPN is the DestQP to match, known only
  // when the scenario runs, so rule.match.dest_qp stays empty and the loader resolves the name.
  std::optional<json_input::Node> qp_name;
};

// Reads one rule object; throws a ScenarioError naming the JSON path of what is wrong.
RuleSpec read_rule(const json_input::Reader& in, const json_input::Node& n);

// The object form of a rule, the DestQP as a number; read_rule() reads it back to the same rule.
json_input::json to_json(const model::FaultRule& rule);

}  // namespace rocecert::conformance::fault_rules
