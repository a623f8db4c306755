// The captures of `make live-smoke` under netem loss (vectors/live/README.md): rxe leaves a
// second NAK PSN sequence error to its retry timer while a retry it started is in progress.
// The rxe profile declares that (DEVIATION, psn.retransmit ignored_nak_in_retry); the strict
// IBA profile fails it. Nothing else in them is a violation.
#include <gtest/gtest.h>

#include "conversation.h"

namespace rocecert::testing {
namespace {

using check::RuleId;
using check::Verdict;

TEST(CheckLiveCaptures, ASecondNakDuringARetryIsRxesDeclaredDeviation) {
  for (const char* name : {"rc_write_bw_4096_mtu1024_loss5_a", "rc_write_bw_4096_mtu1024_loss5_b",
                           "rc_write_bw_4096_mtu1024_loss5_c"}) {
    SCOPED_TRACE(name);
    const std::string path = std::string(ROCECERT_SOURCE_DIR) + "/vectors/live/" + name + ".pcap";
    for (const char* profile : {"rxe", "iba"}) {
      SCOPED_TRACE(profile);
      check::Options o;
      o.profile = check::load_profile(profile);
      const check::Report r = check::check_files({path}, o);
      const bool rxe = std::string(profile) == "rxe";
      EXPECT_EQ(r.verdict, rxe ? Verdict::DEVIATION : Verdict::FAIL) << describe(r);
      ASSERT_EQ(r.violations.size(), 1u) << describe(r);
      EXPECT_EQ(r.violations[0].rule, RuleId::PsnRetransmit);
      EXPECT_EQ(r.violations[0].cause, "ignored_nak_in_retry");
      EXPECT_EQ(r.violations[0].deviation, rxe);
    }
  }
}

}  // namespace
}  // namespace rocecert::testing
