// The scenario name tables (scenario/names.cpp) are read off the model's own lists, never typed
// a second time: each holds exactly the model's entries, in the model's order, under the
// model's names.
#include <gtest/gtest.h>

#include <iterator>
#include <string>

#include "names.h"

using namespace rocecert;
namespace names = rocecert::conformance::names;

TEST(ScenarioNames, PostErrorsAreTheModelList) {
  const auto t = names::post_errors();
  ASSERT_EQ(t.size(), std::size(model::kAllPostErrors));
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].value, model::kAllPostErrors[i]);
    EXPECT_EQ(t[i].name, model::to_string(model::kAllPostErrors[i]));
    EXPECT_EQ(static_cast<std::size_t>(t[i].value), i);  // the enum follows post_errors.def
  }
  // The names scenarios already use.
  EXPECT_EQ(names::name_of(t, model::PostError::NO_SUCH_QP), "NO_SUCH_QP");
  EXPECT_EQ(names::name_of(t, model::PostError::SRQ_ATTACHED), "SRQ_ATTACHED");
}

TEST(ScenarioNames, AccessFlagsAreTheMemList) {
  const auto t = names::access_flags();
  ASSERT_EQ(t.size(), std::size(mem::kAccessFlags));
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].name, mem::kAccessFlags[i].name);
    EXPECT_EQ(t[i].value, mem::kAccessFlags[i].flag);
    EXPECT_EQ(std::string(t[i].name), mem::to_string(t[i].value));
  }
}
