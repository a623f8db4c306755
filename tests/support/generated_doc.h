// Test support: a doc rendered from a table (docs/qp-state-machine.md, docs/errors.md) must be
// committed exactly as rendered. With ROCECERT_UPDATE_DOCS=1 in the environment the check
// rewrites the file instead.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace rocecert::testing {

inline void expect_committed_doc(const std::string& relative_path, const std::string& rendered) {
  const std::string path = std::string(ROCECERT_SOURCE_DIR) + "/" + relative_path;
  const char* update = std::getenv("ROCECERT_UPDATE_DOCS");
  if (update != nullptr && *update != '\0' && std::string(update) != "0") {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    ASSERT_TRUE(out) << "cannot write " << path;
    out << rendered;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run with ROCECERT_UPDATE_DOCS=1";
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), rendered)
      << path << " differs from its table; regenerate with ROCECERT_UPDATE_DOCS=1";
}

}  // namespace rocecert::testing
