// docs/rules.md from the rule catalog: how verdicts and profiles use the rules, then one table
// per family (id, severity, needs, statement, reference).
#include "rules_doc.h"

#include <string_view>

#include "rocecert/check/catalog.h"

namespace rocecert::check {

namespace {

// A table cell: '|' would end it.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

constexpr std::string_view kIntro = R"(# The rules of `rocecert check`

Generated from the rule catalog, `conformance/include/rocecert/check/rules.def`, by
`conformance/check/rules_doc.cpp`; do not edit by hand. After changing the catalog, regenerate
with `ROCECERT_UPDATE_DOCS=1 ctest -R RulesDoc` in the build directory (`check_report_tests`
fails while this file and the catalog differ).

Each rule is one requirement of the IBTA specification (IBA Vol. 1, Annex A17 for RoCEv2) that a
capture can show broken. Its id (`family.name`) is stable: reports, profiles and CI jobs key on
it; rules are added, never renamed.

## How rules make a verdict

A rule is **checked** each time the capture holds what it needs and its outcome is decided; a
**violation** is a check that failed. Every connection gets a verdict, and the report an overall
one; each is the first of these that applies (`docs/json.md` §2):

| verdict | when |
|---|---|
| `FAIL` | a violation of an **error** rule that the profile does not declare |
| `INCONCLUSIVE` | a note says the capture cannot settle it: an explanation that assumes the tap missed or duplicated frames (`capture_error`), a PSN never seen (`gap`), frames cut short (`truncated`), one direction only (`one_direction`), requests and responses not paired (`unpaired`) |
| `UNSUPPORTED` | a note says the capture holds traffic the checker does not model (`unsupported`) |
| `DEVIATION` | every violation of an error rule is declared by the profile |
| `PASS` | none of the above |

A violation of an **advisory** rule is reported and counted but never changes a verdict. Notes
that belong to no connection count for the overall verdict only.

## How profiles use them

A profile (`docs/profiles.md`, `--profile`) lists the deviations a device is known to have, each
as a rule id and a cause (the case of the rule, or `*` for all of them) with a justification and
a reference. A violation a deviation covers is reported with `"deviation": true` and makes the
verdict `DEVIATION` instead of `FAIL`. A profile naming a rule id that is not below is refused.

## What a rule needs

| needs | the rule is evaluated on |
|---|---|
| `frame` | one frame on its own |
| `stream` | the request stream of one QP (PSNs, opcodes) |
| `pair` | both directions of a connection, requests paired with their responses |
| `timing` | `pair`, plus the capture's timestamps |
| `endpoint` | everything addressed to one host (keys are per responder) |
| `events` | the DUT's own log (`--events`: completions, QP states) against the wire |
)";

}  // namespace

std::string render_rules_doc() {
  std::string out(kIntro);
  // Families in catalog order, each with its count.
  std::string_view family;
  std::string index;
  for (const RuleInfo& r : rules()) {
    if (r.family() == family) continue;
    family = r.family();
    std::size_t n = 0;
    for (const RuleInfo& x : rules()) n += x.family() == family ? 1u : 0u;
    index += "- [`" + std::string(family) + "`](#" + std::string(family) + ") (" +
             std::to_string(n) + (n == 1 ? " rule" : " rules") + ")\n";
  }
  out += "\n## Rules (" + std::to_string(rules().size()) + ")\n\n" + index;
  family = {};
  for (const RuleInfo& r : rules()) {
    if (r.family() != family) {
      family = r.family();
      out += "\n### " + std::string(family) + "\n\n";
      out += "| id | severity | needs | statement | reference |\n";
      out += "|---|---|---|---|---|\n";
    }
    out += "| `" + std::string(r.id) + "` | " + std::string(to_string(r.severity)) + " | " +
           std::string(to_string(r.needs)) + " | " + cell(r.statement) + " | " + cell(r.reference) +
           " |\n";
  }
  return out;
}

}  // namespace rocecert::check
