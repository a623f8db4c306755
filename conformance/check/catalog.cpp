#include "rocecert/check/catalog.h"

namespace rocecert::check {

const std::array<RuleInfo, kRuleCount>& rules() {
  static constexpr std::array<RuleInfo, kRuleCount> kRules = {{
#define ROCECERT_RULE(name, id, severity, needs, statement, reference) \
  {RuleId::name, id, Severity::severity, Needs::needs, statement, reference},
#include "rocecert/check/rules.def"
#undef ROCECERT_RULE
  }};
  return kRules;
}

const RuleInfo& rule(RuleId r) {
  return rules()[static_cast<std::size_t>(r)];
}

std::optional<RuleId> find_rule(std::string_view id) {
  for (const RuleInfo& r : rules())
    if (r.id == id) return r.rule;
  return std::nullopt;
}

std::string_view to_string(Severity s) {
  return s == Severity::Error ? "error" : "advisory";
}

std::string_view to_string(Needs n) {
  switch (n) {
    case Needs::Frame:
      return "frame";
    case Needs::Stream:
      return "stream";
    case Needs::Pair:
      return "pair";
    case Needs::Timing:
      return "timing";
    case Needs::Endpoint:
      return "endpoint";
    case Needs::Events:
      return "events";
    case Needs::Setup:
      return "setup";
  }
  return "?";
}

}  // namespace rocecert::check
