// The captures of `make live-smoke` under netem loss (vectors/live/README.md): rxe leaves a
// second NAK PSN sequence error to its retry timer while a retry it started is in progress.
// The rxe profile declares that (DEVIATION, psn.retransmit ignored_nak_in_retry); the strict
// IBA profile fails it. Nothing else in them is a violation.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string_view>
#include <vector>

#include "conversation.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/wire/icrc.h"

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

// The captures of `make live` (vectors/live/README.md): a vector played on rxe through the verbs
// DUT, with the event log and the setup (the vector's scenario with rxe's numbers) the run wrote.
struct LiveRun {
  explicit LiveRun(const std::string& name, bool with_events = true, bool with_setup = true) {
    const std::string base = std::string(ROCECERT_SOURCE_DIR) + "/vectors/live/vec_" + name;
    check::Options o;
    o.profile = check::load_profile("rxe");
    if (with_events)
      o.events = std::make_shared<const check::Events>(check::load_events(base + ".events.jsonl"));
    if (with_setup)
      o.setup = std::make_shared<const check::Setup>(check::load_setup(base + ".setup.json"));
    report = check::check_files({base + ".pcap"}, o);
  }
  bool noted(std::string_view text) const {
    for (const check::Note& n : report.notes)
      if (n.message.find(text) != std::string::npos) return true;
    return false;
  }
  check::Report report;
};

TEST(CheckLiveVectors, AResetLoggedBetweenTwoExchangesStartsTheConnectionAfresh) {
  // Both QPs reset and brought back with PSN 5000: the log says so, and the second exchange is
  // judged on its own. Without the log, a jump of 4,999 PSNs that the responder acknowledges is
  // what the wire shows: a FAIL.
  const LiveRun with("bugs_psn-not-kept-across-reconnect-00");
  EXPECT_EQ(with.report.verdict, Verdict::PASS) << describe(with.report);
  EXPECT_TRUE(with.noted("the connection is judged afresh from here")) << describe(with.report);
  const LiveRun without("bugs_psn-not-kept-across-reconnect-00", false, false);
  EXPECT_EQ(without.report.verdict, Verdict::FAIL) << describe(without.report);
  EXPECT_EQ(count(without.report, RuleId::PsnSequence), 1u) << describe(without.report);
}

TEST(CheckLiveVectors, RxeGrantingAWritePastItsWindowIsCaughtAgainstTheSetup) {
  // rxe checks an access through a memory window against the window's MR, not the window:
  // a WRITE one byte past the window's end is ACKed (docs/rxe-divergences.md).
  const LiveRun r("boundary_write-one-byte-past-mw-end-00");
  EXPECT_EQ(r.report.verdict, Verdict::FAIL) << describe(r.report);
  ASSERT_EQ(r.report.violations.size(), 2u) << describe(r.report);
  EXPECT_EQ(r.report.violations[0].rule, RuleId::KeySetup);
  EXPECT_EQ(r.report.violations[0].cause, "granted_outside_window");
  EXPECT_EQ(r.report.violations[1].rule, RuleId::Z3Key);
  EXPECT_EQ(r.report.violations[1].cause, "against_setup_window");
}

TEST(CheckLiveVectors, TheSetupAndTheRegistrationsJudgeEveryAccess) {
  // The log registers every key before its use: no change for the setup, so key.setup and the
  // golden replay (with the setup's MR table) judge the WRITE.
  const LiveRun r("opcodes_rc-rdma-write-1pkt-00");
  EXPECT_EQ(r.report.verdict, Verdict::PASS) << describe(r.report);
  EXPECT_EQ(r.report.rules[static_cast<std::size_t>(RuleId::KeySetup)].checked, 1u);
  EXPECT_TRUE(r.noted("1 responses compared with the model's responder, 1 agreed"))
      << describe(r.report);
}

TEST(CheckLiveVectors, AKeyDeregisteredInTheLogIsNoLongerTheSetups) {
  // The WRITE after the deregistration is refused; the setup still lists the key, so the golden
  // replay leaves the exchange there instead of expecting an ACK.
  const LiveRun r("bugs_stale-rkey-after-dereg-00");
  EXPECT_EQ(r.report.verdict, Verdict::PASS) << describe(r.report);
  EXPECT_TRUE(r.noted("the --events log changed rkey")) << describe(r.report);
  // The refusal is what key.invalidated asks.
  EXPECT_EQ(r.report.rules[static_cast<std::size_t>(RuleId::KeyInvalidated)].checked, 1u);
}

TEST(CheckLiveVectors, AWriteGrantedAfterItsKeyWasDeregisteredFails) {
  // The stale-rkey bug (docs/bug-classes.md) planted in the correct run: rxe's NAK remote access
  // error for the WRITE after the deregistration becomes the ACK a buggy responder sends.
  const std::string base =
      std::string(ROCECERT_SOURCE_DIR) + "/vectors/live/vec_bugs_stale-rkey-after-dereg-00";
  for (const bool with_setup : {false, true}) {
    SCOPED_TRACE(with_setup ? "with the setup" : "the log alone");
    check::Options o;
    o.profile = check::load_profile("rxe");
    o.events = std::make_shared<const check::Events>(check::load_events(base + ".events.jsonl"));
    if (with_setup)
      o.setup = std::make_shared<const check::Setup>(check::load_setup(base + ".setup.json"));
    check::Checker k(o);
    pcap::Reader in(base + ".pcap");
    pcap::Record rec;
    std::size_t naks = 0;
    while (in.next(rec)) {
      std::vector<std::uint8_t> b(rec.data.begin(), rec.data.end());
      const wire::ParsedFrame f = wire::decode(b, {in.link(), true});
      if (f.has_bth && f.op->operation == wire::Operation::ACK && f.aeth.syndrome == 0x62) {
        ++naks;
        b[f.bth_off + 12] = 0x1F;  // AETH: ACK, and the WRITE counted as a message done
        const std::uint32_t msn = (f.aeth.msn + 1) & 0xFFFFFF;
        wire::store_be24(wire::MutableByteSpan(b), f.bth_off + 13, msn);
        const wire::ByteSpan packet = wire::ByteSpan(b).subspan(f.ip_off, f.icrc_off - f.ip_off);
        wire::store_le32(wire::MutableByteSpan(b), f.icrc_off,
                         wire::compute_icrc(packet, f.ip.version, f.ip_header_len));
      }
      k.add_frame(rec.frame, rec.ts_ns, rec.len, b, in.link());
    }
    ASSERT_EQ(naks, 1u);
    const check::Report r = k.finish(base + ".pcap");
    EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
    EXPECT_EQ(count(r, RuleId::KeyInvalidated), 1u) << describe(r);
  }
}

TEST(CheckLiveVectors, ARequestHeldUpAfterItsQpWentToErrDidNotIgnoreTheNak) {
  // netem delayed requests between rxe and the tap (make live-full, delay on va): PSN 2 reached
  // the tap 1.4 ms after a NAK, beyond rxe's 1 ms grace, but the log shows the program moved the
  // QP to ERR before the NAK even reached the tap: the packet left before, and no resend is due.
  const LiveRun with("bugs_sq-flushed-in-err-00_va_delay");
  EXPECT_EQ(with.report.verdict, Verdict::PASS) << describe(with.report);
  const LiveRun without("bugs_sq-flushed-in-err-00_va_delay", false, true);
  EXPECT_EQ(without.report.verdict, Verdict::FAIL) << describe(without.report);
  ASSERT_EQ(without.report.violations.size(), 1u) << describe(without.report);
  EXPECT_EQ(without.report.violations[0].rule, RuleId::PsnRetransmit);
  EXPECT_EQ(without.report.violations[0].cause, "ignored_nak");
}

// The live run of bugs/sq-flushed-in-err with its log edited by `edit` (line by line).
template <typename Edit>
check::Report flushed_run_with_log(Edit edit) {
  const std::string base =
      std::string(ROCECERT_SOURCE_DIR) + "/vectors/live/vec_bugs_sq-flushed-in-err-00_va_delay";
  std::ifstream in(base + ".events.jsonl");
  std::string line, text;
  while (std::getline(in, line)) text += edit(line);
  check::Options o;
  o.profile = check::load_profile("rxe");
  o.events = std::make_shared<const check::Events>(check::parse_events(text, "dut.log"));
  o.setup = std::make_shared<const check::Setup>(check::load_setup(base + ".setup.json"));
  return check::check_files({base + ".pcap"}, o);
}

TEST(CheckLiveVectors, AQpLeftInErrFlushesEveryMessageTheWireShowsUnacknowledged) {
  // The program moves the requester to ERR with three SENDs on the wire and none acknowledged;
  // rxe flushes all six work requests. With only two flush completions left, some were dropped.
  auto keep = [](const std::string& l) { return l + "\n"; };
  const check::Report all = flushed_run_with_log(keep);
  EXPECT_EQ(all.verdict, Verdict::PASS) << describe(all);
  EXPECT_EQ(all.rules[static_cast<std::size_t>(RuleId::EventsFlushAll)].checked, 1u);
  const check::Report dropped = flushed_run_with_log([](const std::string& l) {
    const bool flush = l.find("WR_FLUSH_ERR") != std::string::npos;
    const bool kept =
        l.find("\"wr_id\":2,") != std::string::npos || l.find("\"wr_id\":3,") != std::string::npos;
    return flush && !kept ? std::string() : l + "\n";
  });
  EXPECT_EQ(dropped.verdict, Verdict::FAIL) << describe(dropped);
  ASSERT_EQ(count(dropped, RuleId::EventsFlushAll), 1u) << describe(dropped);
  for (const check::Violation& v : dropped.violations)
    if (v.rule == RuleId::EventsFlushAll) {
      EXPECT_EQ(v.cause, "dropped_after_err");
    }
  // A RESET logged after the ERR starts a new life: nothing of the old one is judged here.
  const check::Report reset = flushed_run_with_log([](const std::string& l) {
    if (l.find("\"state\":\"ERR\"") == std::string::npos) return l + "\n";
    std::string r = l;
    r.replace(r.find("\"ERR\""), 5, "\"RESET\"");
    return l + "\n" + r + "\n";
  });
  EXPECT_EQ(reset.rules[static_cast<std::size_t>(RuleId::EventsFlushAll)].checked, 0u)
      << describe(reset);
}

TEST(CheckLiveVectors, NoResponderResourcesInTheSetupMeansEveryReadIsRefused) {
  // max_dest_rd_atomic 0: rxe NAKs the READ invalid request, and so does the golden replay.
  const LiveRun r("errors_rc-resp-no-resources-rd-atomic-rxe-00");
  EXPECT_EQ(r.report.verdict, Verdict::PASS) << describe(r.report);
  EXPECT_EQ(count(r.report, RuleId::GoldenResponse), 0u) << describe(r.report);
}

}  // namespace
}  // namespace rocecert::testing
