// rocecert check --setup with the QPs' timing attributes (timeout, retry_cnt, rnr_retry,
// min_rnr_timer from the setup's modify_qp steps) and initiator depth (max_rd_atomic): the real
// retry and RNR captures pass with the attributes rxe_probe gave them; the same traffic judged
// against other attributes — what a device that ignores them would have put on the wire — fails the
// rule that owns each one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "conversation.h"
#include "rocecert/check/events.h"
#include "rocecert/check/setup.h"

namespace rocecert::testing {
namespace {

using check::RuleId;
using check::Verdict;

const std::string& kDir = kRealDir;

// The setup of `capture` with `from` replaced by `to` (once), through a file as a user gives it.
std::shared_ptr<const check::Setup> setup_of(const std::string& capture,
                                             const std::string& from = "",
                                             const std::string& to = "") {
  std::string text = read_text(kDir + "setup/" + capture + ".setup.json");
  if (!from.empty()) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  const std::string path = temp_path("check", "qp-attr-" + capture + ".json");
  std::ofstream(path) << text;
  auto s = std::make_shared<const check::Setup>(check::load_setup(path));
  std::filesystem::remove(path);
  return s;
}

check::Report check_capture(const std::string& capture, std::shared_ptr<const check::Setup> setup,
                            const std::string& profile = "rxe", const std::string& log = "") {
  check::Options o;
  o.profile = check::load_profile(profile);
  o.setup = std::move(setup);
  if (!log.empty())
    o.events = std::make_shared<const check::Events>(check::parse_events(log, "log"));
  return check::check_files({kDir + capture + ".pcap"}, o);
}

std::uint64_t deviations(const check::Report& r, RuleId id) {
  return r.rules[static_cast<std::size_t>(id)].deviations;
}

TEST(CheckQpAttributes, RealRetryAndRnrCapturesPassWithTheirAttributes) {
  // retry_exceeded_no_peer: timeout 14 (67.1 ms), retry_cnt 3; three resends ~67 ms apart. The
  // first is not timed (when the timer was armed is not on the wire), the next two are.
  const check::Report retry =
      check_capture("retry_exceeded_no_peer", setup_of("retry_exceeded_no_peer"));
  EXPECT_EQ(retry.verdict, Verdict::PASS) << describe(retry);
  EXPECT_EQ(checked(retry, RuleId::PsnTimeout), 2u);
  EXPECT_EQ(checked(retry, RuleId::PsnRetryCount), 3u);
  // rnr_nak_then_ok: B's min_rnr_timer 18 in its four RNR NAKs; A's rnr_retry 7.
  const check::Report rnr = check_capture("rnr_nak_then_ok", setup_of("rnr_nak_then_ok"));
  EXPECT_EQ(rnr.verdict, Verdict::PASS) << describe(rnr);
  EXPECT_EQ(checked(rnr, RuleId::AckRnrTimer), 4u);
  EXPECT_EQ(checked(rnr, RuleId::PsnRnrRetryCount), 4u);
}

TEST(CheckQpAttributes, ResendsSoonerThanTheTimeoutFail) {
  // The bug class of a timer that ignores the QP's timeout: resends every 67 ms with timeout
  // 15 (134.2 ms) configured.
  const check::Report r =
      check_capture("retry_exceeded_no_peer",
                    setup_of("retry_exceeded_no_peer", "\"timeout\": 14", "\"timeout\": 15"));
  EXPECT_EQ(r.verdict, Verdict::FAIL);
  EXPECT_EQ(count(r, RuleId::PsnTimeout), 2u) << describe(r);
  // timeout 0: no timer at all, so no resend after silence.
  const check::Report none =
      check_capture("retry_exceeded_no_peer",
                    setup_of("retry_exceeded_no_peer", "\"timeout\": 14", "\"timeout\": 0"));
  EXPECT_EQ(count(none, RuleId::PsnTimeout), 3u) << describe(none);
  EXPECT_EQ(none.violations.front().cause, "no_timer");
  // Under the strict profile (no timer slack) too: the timed resends are 68 ms apart.
  const check::Report strict =
      check_capture("retry_exceeded_no_peer", setup_of("retry_exceeded_no_peer"), "iba");
  EXPECT_EQ(count(strict, RuleId::PsnTimeout), 0u) << describe(strict);
}

TEST(CheckQpAttributes, MoreRetriesThanRetryCntFail) {
  const check::Report r =
      check_capture("retry_exceeded_no_peer",
                    setup_of("retry_exceeded_no_peer", "\"retry_cnt\": 3", "\"retry_cnt\": 2"));
  EXPECT_EQ(r.verdict, Verdict::FAIL);
  EXPECT_EQ(count(r, RuleId::PsnRetryCount), 1u) << describe(r);
}

TEST(CheckQpAttributes, RetryCntSevenIsSevenRetriesButRxeRetriesForever) {
  // Eight timeout resends of one SEND, 70 ms apart, to a QP with timeout 14 and retry_cnt 7.
  Conversation c;
  for (int i = 0; i < 9; ++i)
    c.send(c.make(true, wire::Opcode::RC_SEND_ONLY, Conversation::kQpB, 100, 64), 70'000'000);
  auto setup = setup_of("retry_exceeded_no_peer", "\"retry_cnt\": 3", "\"retry_cnt\": 7");
  setup = [&] {
    check::Setup s = *setup;
    s.qps.front().dest_qpn = Conversation::kQpB;
    return std::make_shared<const check::Setup>(std::move(s));
  }();
  auto run = [&](const std::string& profile) {
    check::Options o;
    o.profile = check::load_profile(profile);
    o.setup = setup;
    return c.check(o);
  };
  const check::Report iba = run("iba");
  EXPECT_EQ(count(iba, RuleId::PsnRetryCount), 1u) << describe(iba);
  EXPECT_EQ(iba.verdict, Verdict::FAIL);
  const check::Report rxe = run("rxe");
  EXPECT_EQ(deviations(rxe, RuleId::PsnRetryCount), 1u) << describe(rxe);
  EXPECT_NE(rxe.verdict, Verdict::FAIL) << describe(rxe);
}

TEST(CheckQpAttributes, RnrNaksAgainstTheirAttributes) {
  // B configured with min_rnr_timer 12 (0.64 ms): its RNR NAKs carry 18, not its own value.
  const check::Report timer =
      check_capture("rnr_nak_then_ok",
                    setup_of("rnr_nak_then_ok", "\"min_rnr_timer\": 18", "\"min_rnr_timer\": 12"));
  EXPECT_EQ(count(timer, RuleId::AckRnrTimer), 4u) << describe(timer);
  // A configured with rnr_retry 2: it retried after four RNR NAKs.
  const check::Report retry = check_capture(
      "rnr_nak_then_ok",
      setup_of("rnr_nak_then_ok",
               "\"timeout\": 14,\n        \"retry_cnt\": 7,\n        \"rnr_retry\": 7",
               "\"timeout\": 14,\n        \"retry_cnt\": 7,\n        \"rnr_retry\": 2"));
  EXPECT_EQ(count(retry, RuleId::PsnRnrRetryCount), 1u) << describe(retry);
  // rnr_retry 7 retries forever: a log that reports RNR_RETRY_EXC_ERR contradicts it (the bug
  // class of rnr_retry 7 not treated as infinite).
  const check::Report log = check_capture(
      "rnr_nak_then_ok", setup_of("rnr_nak_then_ok"), "rxe",
      "{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"qpn\": 55, \"wr_id\": 1, \"status\": "
      "\"RNR_RETRY_EXC_ERR\"}\n");
  EXPECT_EQ(count(log, RuleId::EventsWcStatus), 1u) << describe(log);
}

// read.rd_atomic_limit and windows on hand-built READs from A (QP 0x11) to B (QP 0x22): the
// setup of rnr_nak_then_ok renumbered to those QPs, A's max_rd_atomic `limit`, an MR of B's for
// the READs' rkey 7 (with `mr_access`), and `extra_steps` appended to its steps.
std::shared_ptr<const check::Setup> conversation_setup(int limit, const std::string& mr_access,
                                                       const std::string& extra_steps = "") {
  std::string text = read_text(kDir + "setup/rnr_nak_then_ok.setup.json");
  auto replace = [&](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("\"dut_qpn\": 55", "\"dut_qpn\": 17");
  replace("\"dut_qpn\": 55", "\"dut_qpn\": 34");
  replace("\"max_rd_atomic\": 4", "\"max_rd_atomic\": " + std::to_string(limit));
  replace("{\n      \"op\": \"create_qp\"",
          "{\"op\": \"reg_mr\", \"pd\": \"pdB\", \"as\": \"bufR\", \"addr\": \"0x1000\", "
          "\"length\": 65536, \"access\": [" +
              mr_access + "], \"dut_rkey\": 7},\n    {\n      \"op\": \"create_qp\"");
  if (!extra_steps.empty()) text.insert(text.rfind(']'), ", " + extra_steps + "\n  ");
  const std::string path = temp_path("check", "qp-attr-conversation.json");
  std::ofstream(path) << text;
  auto s = std::make_shared<const check::Setup>(check::load_setup(path));
  std::filesystem::remove(path);
  return s;
}

std::shared_ptr<const check::Setup> reads_setup(int limit) {
  return conversation_setup(limit, "\"LOCAL_WRITE\", \"REMOTE_READ\"");
}

// A READ of 16 bytes (one PSN) from A, and B's READ RESPONSE ONLY to it.
void read_req(Conversation& c, std::uint32_t psn, std::uint32_t rkey = 7,
              std::uint64_t va = 0x1000) {
  wire::FrameSpec rq = c.make(true, wire::Opcode::RC_RDMA_READ_REQUEST, Conversation::kQpB, psn);
  rq.reth = {va, rkey, 16};
  c.send(rq);
}
void read_resp(Conversation& c, std::uint32_t psn, std::uint32_t msn) {
  wire::FrameSpec r =
      c.make(false, wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY, Conversation::kQpA, psn, 16);
  r.aeth = {0x1F, msn};
  c.send(r);
}

// Three READs from A at PSNs 100-102, back to back.
void three_reads(Conversation& c) {
  for (std::uint32_t psn = 100; psn < 103; ++psn) read_req(c, psn);
}

check::Report check_reads(const Conversation& c, int limit, check::Profile profile) {
  check::Options o;
  o.profile = std::move(profile);
  o.setup = reads_setup(limit);
  return c.check(o);
}

// The setup of reads_setup with a type 2 window of B's over [0x2000, +256) of the MR, for
// REMOTE_READ, bound by `bound_by` (qpB, or qpC, another QP of B's) with the DUT's rkey 0x1234
// (a BIND_MW step's dut_rkey).
std::shared_ptr<const check::Setup> window_setup(const std::string& bound_by) {
  return conversation_setup(
      4, "\"LOCAL_WRITE\", \"REMOTE_READ\", \"MW_BIND\"",
      "{\"op\": \"create_qp\", \"pd\": \"pdB\", \"as\": \"qpC\", \"type\": \"RC\", "
      "\"send_cq\": \"cqB\"}, "
      "{\"op\": \"alloc_mw\", \"pd\": \"pdB\", \"as\": \"mwB\", \"type\": 2}, "
      "{\"op\": \"post_send\", \"qp\": \"" +
          bound_by +
          "\", \"wr\": {\"wr_id\": 9, \"opcode\": \"BIND_MW\", \"bind\": {\"mw\": \"mwB\", "
          "\"mr\": \"bufR\", \"offset\": 4096, \"length\": 256, \"access\": "
          "[\"REMOTE_READ\"], \"dut_rkey\": 4660}}}");
}

TEST(CheckQpAttributes, ReadsWithinMaxRdAtomicPass) {
  // Two in flight at most, with max_rd_atomic 2.
  Conversation c;
  read_req(c, 100);
  read_req(c, 101);
  read_resp(c, 100, 1);
  read_req(c, 102);
  read_resp(c, 101, 2);
  read_resp(c, 102, 3);
  const check::Report r = check_reads(c, 2, strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::ReadRdAtomicLimit), 3u);
}

TEST(CheckQpAttributes, ReadsBeyondMaxRdAtomicFail) {
  // A third READ while the first two are still unanswered (they are answered after it).
  Conversation c;
  three_reads(c);
  read_resp(c, 100, 1);
  read_resp(c, 101, 2);
  read_resp(c, 102, 3);
  const check::Report two = check_reads(c, 2, strict());
  EXPECT_EQ(two.verdict, Verdict::FAIL);
  ASSERT_EQ(count(two, RuleId::ReadRdAtomicLimit), 1u) << describe(two);
  EXPECT_EQ(two.violations.front().frame, 3u);
  EXPECT_EQ(two.violations.front().cause, "exceeded");
  // With max_rd_atomic 3 the same traffic is within the limit.
  EXPECT_EQ(check_reads(c, 3, strict()).verdict, Verdict::PASS);
}

TEST(CheckQpAttributes, AGoBackPastTheFirstReadShowsItWasAnsweredUnseen) {
  // The go-back starts at 101, past 100, though no response acknowledged 100: one the tap
  // never showed had, before the capture began (the three READs may be resends of requests
  // whose answers it missed; corpus seeds 19072 and 23851 cut mid-conversation). The third
  // READ is then not shown to exceed the limit: a gap, not a FAIL.
  Conversation c;
  three_reads(c);
  read_req(c, 101);
  read_req(c, 102);
  for (std::uint32_t psn = 100; psn < 103; ++psn) read_resp(c, psn, psn - 99);
  const check::Report r = check_reads(c, 2, strict());
  EXPECT_EQ(count(r, RuleId::ReadRdAtomicLimit), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  bool noted = false;
  for (const check::Note& n : r.notes)
    noted = noted || n.message.find("read.rd_atomic_limit not decided") != std::string::npos;
  EXPECT_TRUE(noted) << describe(r);
}

TEST(CheckQpAttributes, AGoBackAfterTheStartIsShownLeavesTheLimitJudged) {
  // The answer to 100 (MSN 1) shows the connection's start before the go-back from 102, past
  // 101: that answer came after the third READ, so the limit was exceeded whatever the tap
  // missed later.
  Conversation c;
  three_reads(c);
  read_resp(c, 100, 1);
  read_req(c, 102);
  read_resp(c, 101, 2);
  read_resp(c, 102, 3);
  const check::Report r = check_reads(c, 2, strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::ReadRdAtomicLimit), 1u) << describe(r);
}

TEST(CheckQpAttributes, MaxRdAtomicRoundedUpIsAnRxeDeviation) {
  // Four in flight with max_rd_atomic 3: rxe rounds 3 up to 4 (declared by its profile); a
  // fifth is beyond even that.
  Conversation c;
  for (std::uint32_t psn = 100; psn < 105; ++psn) read_req(c, psn);
  for (std::uint32_t psn = 100; psn < 105; ++psn) read_resp(c, psn, psn - 99);
  const check::Report rxe = check_reads(c, 3, check::load_profile("rxe"));
  EXPECT_EQ(deviations(rxe, RuleId::ReadRdAtomicLimit), 1u) << describe(rxe);
  EXPECT_EQ(count(rxe, RuleId::ReadRdAtomicLimit), 1u) << describe(rxe);
  EXPECT_EQ(rxe.verdict, Verdict::FAIL);  // the fifth
  EXPECT_EQ(count(check_reads(c, 3, strict()), RuleId::ReadRdAtomicLimit), 2u);
}

TEST(CheckQpAttributes, AResponseTheTapMissedIsACaptureErrorNotAFail) {
  // The tap missed B's answer to PSN 100: the requester may have had it before sending 102.
  // The answer to 101, after 102, shows 101 was still in flight, but one is within the limit.
  Conversation c;
  three_reads(c);
  read_resp(c, 101, 2);
  read_resp(c, 102, 3);
  const check::Report budget = check_reads(c, 2, strict(1));
  EXPECT_EQ(count(budget, RuleId::ReadRdAtomicLimit), 0u) << describe(budget);
  EXPECT_NE(budget.verdict, Verdict::FAIL) << describe(budget);
  // Without a budget for capture errors, the same trace fails.
  EXPECT_EQ(count(check_reads(c, 2, strict(0)), RuleId::ReadRdAtomicLimit), 1u);
  // A capture that ends before the answers decides nothing.
  Conversation cut;
  three_reads(cut);
  const check::Report open = check_reads(cut, 2, strict());
  EXPECT_EQ(count(open, RuleId::ReadRdAtomicLimit), 0u) << describe(open);
}

TEST(CheckQpAttributes, AccessesThroughABoundWindowAreJudgedAgainstIt) {
  // READs with the window's rkey 0x1234: inside it, then inside the MR but outside the window;
  // both answered.
  Conversation c;
  read_req(c, 100, 0x1234, 0x2000);
  read_resp(c, 100, 1);
  read_req(c, 101, 0x1234, 0x3000);
  read_resp(c, 101, 2);
  check::Options o;
  o.profile = strict();
  o.setup = window_setup("qpB");
  const check::Report r = c.check(o);
  EXPECT_EQ(checked(r, RuleId::KeySetup), 2u) << describe(r);
  ASSERT_EQ(count(r, RuleId::KeySetup), 1u) << describe(r);
  EXPECT_EQ(r.violations.front().frame, 4u);
  EXPECT_NE(r.violations.front().message.find("outside window mwB"), std::string::npos)
      << r.violations.front().message;
  // A type 2 window serves only the QP that bound it: bound by qpC, B's qpB must refuse it.
  Conversation inside;
  read_req(inside, 100, 0x1234, 0x2000);
  read_resp(inside, 100, 1);
  o.setup = window_setup("qpC");
  const check::Report other = inside.check(o);
  ASSERT_EQ(count(other, RuleId::KeySetup), 1u) << describe(other);
  EXPECT_NE(other.violations.front().message.find("bound to QP qpC, not QP qpB"), std::string::npos)
      << other.violations.front().message;
}

}  // namespace
}  // namespace rocecert::testing
