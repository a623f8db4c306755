// docs/rules.md is rendered from the rule catalog and must never drift from it. With
// ROCECERT_UPDATE_DOCS=1 in the environment the test rewrites the file instead.
#include <gtest/gtest.h>

#include <string>

#include "generated_doc.h"
#include "rocecert/check/catalog.h"
#include "rules_doc.h"

namespace rocecert::check {
namespace {

TEST(RulesDoc, CommittedDocMatchesTheCatalog) {
  rocecert::testing::expect_committed_doc("docs/rules.md", render_rules_doc());
}

TEST(RulesDoc, EveryRuleHasARowAndEveryFamilyAHeading) {
  const std::string doc = render_rules_doc();
  for (const RuleInfo& r : rules()) {
    EXPECT_NE(doc.find("| `" + std::string(r.id) + "` | " + std::string(to_string(r.severity)) +
                       " | " + std::string(to_string(r.needs)) + " | "),
              std::string::npos)
        << r.id;
    EXPECT_NE(doc.find("\n### " + std::string(r.family()) + "\n"), std::string::npos) << r.id;
  }
  EXPECT_NE(doc.find("| `wire.ackreq` | advisory | frame | AckReq is 0 on responses"),
            std::string::npos);
}

}  // namespace
}  // namespace rocecert::check
