// write_junit: one suite per connection, one test case per rule, failures for FAIL, skipped for
// rules not checked, deviations as properties; parsed back with python3's xml.etree when
// available, and checked structurally either way.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "command.h"
#include "require_tool.h"
#include "rocecert/check/report_io.h"
#include "sample_report.h"

namespace rocecert::check {
namespace {

std::string junit_of(const Report& r) {
  std::ostringstream out;
  write_junit(r, out);
  return out.str();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportJunit, Structure) {
  const std::string x = junit_of(testing::sample_report());
  // 3 connections x every rule, plus the overall verdict.
  const std::size_t tests = 3 * kRuleCount + 1;
  EXPECT_EQ(occurrences(x, "<testcase "), tests);
  // psn.sequence on conn 0, and the overall verdict; deviations and advisories do not fail.
  EXPECT_EQ(occurrences(x, "<failure "), 2u);
  EXPECT_NE(x.find("<testsuites name=\"rocecert check\" tests=\"" + std::to_string(tests) +
                   "\" failures=\"2\""),
            std::string::npos)
      << x.substr(0, 300);
  EXPECT_NE(x.find("<testsuite name=\"conn 0 RC 10.0.0.1:0x11 &lt;-&gt; 10.0.0.2:0x12\" tests=\"" +
                   std::to_string(kRuleCount) + "\" failures=\"1\" errors=\"0\" skipped=\"" +
                   std::to_string(kRuleCount - 4) + "\">"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testcase classname=\"psn\" name=\"psn.sequence\">\n      <failure "
                   "message=\"PSN 1235 after 1233: expected 1234\" type=\"psn.sequence\">"),
            std::string::npos);
  // Escaped: the second violation's message and the second file's name.
  EXPECT_NE(x.find("PSN 1236 after 1235 &amp; &lt;tab&gt;\there"), std::string::npos);
  EXPECT_NE(x.find("b &lt;&amp;&gt; &quot;quoted&quot;.pcapng"), std::string::npos);
  EXPECT_NE(x.find("<property name=\"deviation read.opcode\" value=\"frame 70 of captures/a.pcap, "
                   "QP 0x0, PSN 0 (resumed_mid_read): READ response"),
            std::string::npos);
  EXPECT_EQ(x.find("<skipped message=\"verdict FAIL\"/>"), std::string::npos)
      << "FAIL is a failure, not a skip";
}

TEST(ReportJunit, ControlBytesAndInvalidUtf8NeverReachTheXml) {
  Report r;
  r.files = {"a\x01\xff\xc3\xa9.pcap"};
  r.frames = r.roce_frames = 1;  // so that the gap note alone makes it INCONCLUSIVE
  r.notes = {{NoteKind::Gap, std::nullopt, 0, 0, "bell\x07"}};
  r.settle();
  const std::string x = junit_of(r);
  EXPECT_NE(x.find("a??\xc3\xa9.pcap"), std::string::npos) << x;
  EXPECT_NE(x.find("bell?"), std::string::npos);
  EXPECT_NE(x.find("<skipped message=\"verdict INCONCLUSIVE\"/>"), std::string::npos) << x;
}

// Parses the XML with python3 and prints "tests failures skipped" of the root and of each suite
// (from the attributes) and of the test cases actually present.
constexpr const char* kCounter = R"(import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def counts(e):
    cases = e.iter("testcase")
    t = f = s = 0
    for c in cases:
        t += 1
        f += c.find("failure") is not None
        s += c.find("skipped") is not None
    return t, f, s
print(root.get("tests"), root.get("failures"), root.get("skipped"), *counts(root))
for suite in root.findall("testsuite"):
    print(suite.get("tests"), suite.get("failures"), suite.get("skipped"), *counts(suite))
    for c in suite.findall("testcase"):
        f = c.find("failure")
        if f is not None:
            print("failure", c.get("name"), len((f.text or "").splitlines()), f.get("message"))
)";

TEST(ReportJunit, Python3ParsesItAndTheCountsAddUp) {
  ROCECERT_REQUIRE_TOOL(rocecert::testing::command_succeeds("/usr/bin/python3 -c 'import xml'"),
                        "python3");
  using rocecert::testing::temp_path;
  const std::string script = temp_path("junit", "count.py"), xml = temp_path("junit", "r.xml");
  std::ofstream(script) << kCounter;
  std::ofstream(xml) << junit_of(testing::sample_report());
  const rocecert::testing::CommandResult r =
      rocecert::testing::run_command("/usr/bin/python3 '" + script + "' '" + xml + "'");
  std::filesystem::remove(script);
  std::filesystem::remove(xml);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t n = kRuleCount;
  const std::string expected =
      std::to_string(3 * n + 1) + " 2 " + std::to_string(3 * n - 6) + " " +
      std::to_string(3 * n + 1) + " 2 " + std::to_string(3 * n - 6) + "\n" +
      // conn 0: 4 rules checked; conn 1: 1 rule; conn 2: 1 rule.
      std::to_string(n) + " 1 " + std::to_string(n - 4) + " " + std::to_string(n) + " 1 " +
      std::to_string(n - 4) + "\n" + "failure psn.sequence 2 PSN 1235 after 1233: expected 1234\n" +
      std::to_string(n) + " 0 " + std::to_string(n - 1) + " " + std::to_string(n) + " 0 " +
      std::to_string(n - 1) + "\n" + std::to_string(n) + " 0 " + std::to_string(n - 1) + " " +
      std::to_string(n) + " 0 " + std::to_string(n - 1) + "\n" + "1 1 0 1 1 0\n" +
      "failure verdict 0 verdict FAIL\n";
  EXPECT_EQ(r.out, expected);
}

}  // namespace
}  // namespace rocecert::check
