// The rules of `rocecert check` (rules.def), as a table the checker, reports, profiles and the
// docs generator all read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rocecert::check {

enum class RuleId : std::uint8_t {
#define ROCECERT_RULE(name, id, severity, needs, statement, reference) name,
#include "rocecert/check/rules.def"
#undef ROCECERT_RULE
};

inline constexpr std::size_t kRuleCount = 0
#define ROCECERT_RULE(name, id, severity, needs, statement, reference) +1
#include "rocecert/check/rules.def"
#undef ROCECERT_RULE
    ;

enum class Severity : std::uint8_t { Error, Advisory };
// What a rule must see to be evaluated (rules.def explains each).
enum class Needs : std::uint8_t { Frame, Stream, Pair, Timing, Endpoint, Events, Setup };

struct RuleInfo {
  RuleId rule;
  std::string_view id;  // "family.name"
  Severity severity;
  Needs needs;
  std::string_view statement;
  std::string_view reference;
  std::string_view family() const { return id.substr(0, id.find('.')); }
};

const std::array<RuleInfo, kRuleCount>& rules();
const RuleInfo& rule(RuleId r);
std::optional<RuleId> find_rule(std::string_view id);
std::string_view to_string(Severity s);
std::string_view to_string(Needs n);

}  // namespace rocecert::check
