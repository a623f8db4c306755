// rerun_with_huge_pages (apps/rocecert/huge_pages.h), through a probe program that calls it and
// prints its environment: the program runs again once, with its arguments, the tunable added to
// what the user set, and not at all when the user chose the tunable's value.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

namespace {

struct Seen {
  bool possible = false;
  std::string tunables, restored, args;
};

Seen probe(const std::string& env) {
  const std::string cmd = env + " " + HUGE_PAGES_PROBE + " 'two words' --x=1";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  EXPECT_NE(p, nullptr);
  Seen s;
  std::array<char, 512> line{};
  while (p && std::fgets(line.data(), line.size(), p.get()) != nullptr) {
    std::string l(line.data());
    if (!l.empty() && l.back() == '\n') l.pop_back();
    const auto eq = l.find('=');
    const std::string key = l.substr(0, eq), value = l.substr(eq + 1);
    if (key == "possible") s.possible = value == "1";
    if (key == "tunables") s.tunables = value;
    if (key == "restored") s.restored = value;
    if (key == "arg") s.args += "[" + value + "]";
  }
  return s;
}

TEST(HugePages, RunsAgainWithTheTunable) {
  const Seen s = probe("env -u GLIBC_TUNABLES -u ROCECERT_GLIBC_TUNABLES_BEFORE");
  EXPECT_EQ(s.args, "[two words][--x=1]");
  if (!s.possible) {
    EXPECT_EQ(s.tunables, "(unset)");  // nothing done where it cannot help
    GTEST_SKIP() << "no huge pages here (sanitizer build, or transparent huge pages off)";
  }
  EXPECT_EQ(s.tunables, "glibc.malloc.hugetlb=1");
  EXPECT_EQ(s.restored, "(unset)");
}

TEST(HugePages, KeepsWhatTheUserSet) {
  const Seen s = probe("env GLIBC_TUNABLES=glibc.malloc.arena_max=4");
  EXPECT_EQ(s.args, "[two words][--x=1]");
  if (!s.possible) GTEST_SKIP() << "no huge pages here";
  EXPECT_EQ(s.tunables, "glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1");
  EXPECT_EQ(s.restored, "glibc.malloc.arena_max=4");
}

TEST(HugePages, TheUsersChoiceWins) {
  // Set by the user (0: 4 KiB pages): the program is not run again and nothing changes.
  const Seen s = probe("env GLIBC_TUNABLES=glibc.malloc.hugetlb=0");
  EXPECT_EQ(s.tunables, "glibc.malloc.hugetlb=0");
  EXPECT_EQ(s.restored, "glibc.malloc.hugetlb=0");
  EXPECT_EQ(s.args, "[two words][--x=1]");
}

}  // namespace
