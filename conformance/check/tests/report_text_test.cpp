// write_text: the summary a reader sees (header, connections, first violation of each rule with
// the model's state, notes, rules table, verdict).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "rocecert/check/report_io.h"
#include "sample_report.h"

namespace rocecert::check {
namespace {

std::string text_of(const Report& r, bool verbose = false) {
  std::ostringstream out;
  write_text(r, out, TextOptions{verbose});
  return out.str();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportText, HeaderConnectionsAndVerdict) {
  const std::string t = text_of(testing::sample_report());
  EXPECT_EQ(t.rfind("rocecert check: 2 files, 5000000000 frames (4999999999 RoCEv2), profile rxe, "
                    "capture errors allowed per connection: 2\n",
                    0),
            0u)
      << t;
  EXPECT_NE(t.find("conn 0  RC  10.0.0.1:0x11 <-> 10.0.0.2:0x12  120 frames  FAIL\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("conn 1  UD  [fe80::1]:? <-> [fe80::2]:0xffffff  3 frames  INCONCLUSIVE\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("  rules: 4 checked, 2 violated (3 violations, 1 deviation); capture errors "
                   "assumed: 1 of 2\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("verdict: FAIL (3 connections: 1 FAIL, 1 INCONCLUSIVE, 1 DEVIATION)\n"),
            std::string::npos)
      << t;
}

TEST(ReportText, FirstViolationOfEachRuleWithTheModelState) {
  const std::string t = text_of(testing::sample_report());
  EXPECT_NE(t.find("    FAIL psn.sequence (skipped): frame 57 of captures/a.pcap, QP 0x12, PSN "
                   "1235\n      PSN 1235 after 1233: expected 1234\n      state: next PSN 1234, "
                   "oldest unacked 1200, outstanding 34 (1 READ/atomic), retries 2, RNR NAKs 1\n   "
                   "   expected: RC_SEND_ONLY with PSN 1234\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(occurrences(t, "PSN 1236 after 1235"), 0u) << "only the first of each rule";
  EXPECT_NE(t.find("    DEVIATION read.opcode (resumed_mid_read): frame 70 of captures/a.pcap"),
            std::string::npos);
  EXPECT_NE(t.find("    advisory wire.ackreq (response): frame 71"), std::string::npos);
  const std::string verbose = text_of(testing::sample_report(), true);
  EXPECT_EQ(occurrences(verbose, "PSN 1236 after 1235"), 1u);
  EXPECT_NE(verbose.find("state: expected PSN 0, MSN 16777215, outstanding 0, retries 0\n"),
            std::string::npos)
      << verbose;
}

TEST(ReportText, NotesUnderTheirConnectionOrTheCapture) {
  const std::string t = text_of(testing::sample_report());
  EXPECT_NE(t.find("  notes:\n    capture_error (frame 30 of captures/a.pcap): frame 30 assumed "
                   "duplicated by the tap\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("    gap (captures/a.pcap): the capture starts mid-connection\n"),
            std::string::npos);
  EXPECT_NE(t.find("notes on the capture:\n  one_direction (b <&> \"quoted\".pcapng): no response "
                   "seen from 10.0.0.9\n"),
            std::string::npos)
      << t;
}

TEST(ReportText, RulesTableListsEveryRule) {
  const std::string t = text_of(testing::sample_report());
  for (const RuleInfo& r : rules()) {
    std::string row = "\n";
    row.append(r.id).append(" ");
    EXPECT_NE(t.find(row), std::string::npos) << r.id;
  }
  EXPECT_NE(t.find("\npsn.sequence         error            100          2          0\n"),
            std::string::npos)
      << t;
}

TEST(ReportText, AnEmptyReportStillSaysItsVerdict) {
  const std::string t = text_of(Report{});
  EXPECT_NE(t.find("profile (none)"), std::string::npos);
  EXPECT_NE(t.find("verdict: PASS (0 connections)\n"), std::string::npos) << t;
}

}  // namespace
}  // namespace rocecert::check
