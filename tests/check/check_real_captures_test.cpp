// The checker on the real Soft-RoCE captures (vectors/real/): with the rxe profile every one is
// PASS or a DEVIATION the profile documents, never a FAIL; the frame netem corrupted is reported
// by the ICRC rule alone, and explained by its resend.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "conversation.h"
#include "rocecert/check/checker.h"

namespace rocecert::testing {
namespace {

using check::RuleId;
using check::Verdict;

check::Options with(const std::string& profile) {
  check::Options o;
  o.profile = check::load_profile(profile);
  return o;
}

TEST(CheckRealCaptures, EveryCapturePassesOrDeviatesUnderRxe) {
  const auto files = real_captures();
  ASSERT_EQ(files.size(), 28u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const check::Report r = check::check_files({f}, with("rxe"));
    EXPECT_TRUE(r.verdict == Verdict::PASS || r.verdict == Verdict::DEVIATION) << describe(r);
    for (const check::Violation& v : r.violations)
      EXPECT_TRUE(v.deviation || !v.explained.empty() ||
                  check::rule(v.rule).severity == check::Severity::Advisory)
          << check::rule(v.rule).id << ": " << v.message;
    EXPECT_GT(r.rules[static_cast<std::size_t>(RuleId::WireIcrc)].checked, 0u);
  }
}

TEST(CheckRealCaptures, TheCorruptedFrameIsReportedByTheIcrcRuleAlone) {
  const check::Report r = check::check_files(
      {ROCECERT_SOURCE_DIR "/vectors/real/rc_send_bw_64_mtu1024_corrupt2.pcap"}, with("rxe"));
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  ASSERT_EQ(r.violations.size(), 1u) << describe(r);
  EXPECT_EQ(r.violations[0].rule, RuleId::WireIcrc);
  EXPECT_FALSE(r.violations[0].explained.empty());
  EXPECT_EQ(r.rules[static_cast<std::size_t>(RuleId::WireIcrc)].explained, 1u);
}

TEST(CheckRealCaptures, ResumedReadsAreTheRxeDeviationAndAFailUnderIba) {
  const std::string f =
      ROCECERT_SOURCE_DIR "/vectors/real/rc_read_bw_10000_mtu1024_resploss10.pcap";
  const check::Report rxe = check::check_files({f}, with("rxe"));
  EXPECT_EQ(rxe.verdict, Verdict::DEVIATION) << describe(rxe);
  const check::Report iba = check::check_files({f}, with("iba"));
  EXPECT_EQ(iba.verdict, Verdict::FAIL);
  for (const check::Violation& v : iba.violations) {
    EXPECT_EQ(v.rule, RuleId::ReadOpcode);
    EXPECT_EQ(v.cause, "resumed_mid_read");
  }
}

TEST(CheckRealCaptures, SeveralQpsAreAllPaired) {
  const check::Report r = check::check_files(
      {ROCECERT_SOURCE_DIR "/vectors/real/rc_write_bw_4096_mtu1024_q8.pcap"}, with("rxe"));
  ASSERT_EQ(r.connections.size(), 8u);
  for (const check::Connection& c : r.connections) {
    EXPECT_TRUE(c.a.qpn.has_value());
    EXPECT_EQ(c.frames, 50u);
    EXPECT_EQ(c.verdict, Verdict::PASS);
  }
}

}  // namespace
}  // namespace rocecert::testing
