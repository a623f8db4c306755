// Test support: tests that need an external tool (tshark, editcap, Debian's python3 with
// jsonschema), all of which scripts/install-deps.sh installs.
//
// ROCECERT_REQUIRE_TOOL(available, what) at the top of a test body:
//   - the tool is there: the test runs;
//   - it is missing in CI (environment variable CI=true, as CI services set it): the test
//     FAILS, since the CI machine was set up by scripts/install-deps.sh and must have it;
//   - it is missing elsewhere: the test is skipped with a message naming the tool and how to
//     install it (gtest prints it, and ctest lists the test as "Skipped").
//
// Header-only; included by relative path from the test directories that have no include path
// to tests/support.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace rocecert::testing {

// True when the environment variable CI is "true" or "1".
inline bool running_in_ci() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr) return false;
  const std::string_view v(ci);
  return v == "true" || v == "1";
}

// True when an executable called `name` is in one of the directories of PATH.
inline bool tool_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  const std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// True when the shell command `cmd` exits with status 0 (its output is discarded).
inline bool command_succeeds(const std::string& cmd) {
  return std::system(("(" + cmd + ") > /dev/null 2>&1").c_str()) == 0;
}

// The message of a missing tool.
inline std::string missing_tool_message(std::string_view what) {
  return std::string(what) +
         " is missing: scripts/install-deps.sh installs it (Debian 12 packages)" +
         (running_in_ci() ? "; CI=true, so this is a failure" : "; skipped outside CI");
}

}  // namespace rocecert::testing

// `available`: whether the tool is there; `what`: what is missing, for the message.
#define ROCECERT_REQUIRE_TOOL(available, what)                           \
  do {                                                                   \
    if (!(available)) {                                                  \
      if (::rocecert::testing::running_in_ci()) {                        \
        FAIL() << ::rocecert::testing::missing_tool_message(what);       \
      } else {                                                           \
        GTEST_SKIP() << ::rocecert::testing::missing_tool_message(what); \
      }                                                                  \
    }                                                                    \
  } while (false)
