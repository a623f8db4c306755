// The checker's rules on hand-built conversations: each correct exchange passes, each broken one
// is caught by exactly the rule it breaks, and capture gaps are explained, never failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "conversation.h"
#include "rocecert/check/events.h"
#include "rocecert/check/report_io.h"

namespace rocecert::testing {
namespace {

using check::NoteKind;
using check::RuleId;
using check::Verdict;
using wire::Opcode;

std::size_t notes(const check::Report& r, NoteKind k) {
  std::size_t n = 0;
  for (const check::Note& x : r.notes) n += x.kind == k ? 1 : 0;
  return n;
}

// Three SENDs, ACKed one by one.
Conversation sends() {
  Conversation c;
  for (std::uint32_t i = 0; i < 3; ++i) {
    c.req(Opcode::RC_SEND_ONLY, 100 + i, 64);
    c.ack(100 + i, i + 1);
  }
  return c;
}

TEST(CheckRules, CleanSendsPass) {
  const check::Report r = sends().check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  ASSERT_EQ(r.connections.size(), 1u);
  EXPECT_EQ(r.connections[0].a.qpn, Conversation::kQpA);  // paired from the responses
  EXPECT_EQ(r.connections[0].b.qpn, Conversation::kQpB);
  EXPECT_EQ(r.connections[0].frames, 6u);
  EXPECT_GT(checked(r, RuleId::PsnSequence), 0u);
  EXPECT_GT(checked(r, RuleId::AckPsn), 0u);
  EXPECT_GT(checked(r, RuleId::AckMsn), 0u);
  EXPECT_GT(checked(r, RuleId::SeqOpcode), 0u);
  EXPECT_GT(checked(r, RuleId::WireIcrc), 0u);
}

// Two SENDs, the second ACKed with MSN 3 where one more message completed: MSN must be 2.
Conversation msn_off_by_one() {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 1);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.ack(101, 3);
  return c;
}

TEST(CheckRules, MsnOffByOneFails) {
  const check::Report r = msn_off_by_one().check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL);
  EXPECT_EQ(count(r, RuleId::AckMsn), 1u) << describe(r);
}

// Four SENDs across the PSN wrap, each ACKed, their MSNs from 0xFFFFFE on as `msn(i)` says.
template <typename Msn>
check::Report across_the_wrap(Msn msn) {
  Conversation c;
  for (std::uint32_t i = 0; i < 4; ++i) {
    const std::uint32_t psn = (0xFFFFFEu + i) & 0xFFFFFF;
    c.req(Opcode::RC_SEND_ONLY, psn, 16);
    c.ack(psn, msn(i));
  }
  return c.check(strict());
}

TEST(CheckRules, PsnAndMsnCountModulo2To24) {
  // Both wrap together: 0xFFFFFE, 0xFFFFFF, 0, 1.
  const check::Report wrap =
      across_the_wrap([](std::uint32_t i) { return (0xFFFFFEu + i) & 0xFFFFFF; });
  EXPECT_EQ(wrap.verdict, Verdict::PASS) << describe(wrap);
  EXPECT_GE(checked(wrap, RuleId::AckMsn), 3u);
  // An MSN that saturates at its top instead of wrapping: ack.msn, at each ACK after.
  const check::Report stuck =
      across_the_wrap([](std::uint32_t i) { return i == 0 ? 0xFFFFFEu : 0xFFFFFFu; });
  EXPECT_EQ(count(stuck, RuleId::AckMsn), 2u) << describe(stuck);
}

TEST(CheckRules, CoalescedAckCountsEveryMessage) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 1);
  c.req(Opcode::RC_SEND_FIRST, 101, 256);
  c.req(Opcode::RC_SEND_LAST, 102, 10);
  c.req(Opcode::RC_RDMA_WRITE_ONLY, 103, 8);
  c.ack(103, 3);  // SEND (2 packets) and WRITE: two messages
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
}

TEST(CheckRules, AckOfUnsentPsnFails) {
  Conversation c = sends();
  c.ack(5000, 4);
  const check::Report r = c.check(strict(4));
  EXPECT_EQ(count(r, RuleId::AckPsn), 1u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
}

TEST(CheckRules, AckJustPastWhatWasSentIsATapMissWithinBudget) {
  Conversation c = sends();
  c.ack(103, 4);  // PSN 103 never seen: the tap may have missed one request
  const check::Report strict0 = c.check(strict(0));
  EXPECT_EQ(strict0.verdict, Verdict::FAIL) << describe(strict0);
  const check::Report strict1 = c.check(strict(1));
  EXPECT_EQ(strict1.verdict, Verdict::INCONCLUSIVE) << describe(strict1);
  EXPECT_EQ(notes(strict1, NoteKind::CaptureError), 1u);
  EXPECT_EQ(strict1.connections[0].capture_errors, 1u);
}

TEST(CheckRules, LossBeforeTheTapThenNakAndResendPasses) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  // 102 lost before the tap
  c.req(Opcode::RC_SEND_ONLY, 103, 64);
  c.ack(101, 2);
  c.ack(102, 2, 0x60);  // NAK PSN sequence error, expecting 102
  c.req(Opcode::RC_SEND_ONLY, 102, 64);
  c.req(Opcode::RC_SEND_ONLY, 103, 64);
  c.ack(103, 4);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_GT(checked(r, RuleId::PsnRetransmit), 0u);
}

TEST(CheckRules, PsnSkipAcknowledgedFails) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 99, 64);
  c.ack(99, 1);  // MSN 1 for the first message: the capture shows the connection's start
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.req(Opcode::RC_SEND_ONLY, 110, 64);  // 102..109 never sent
  c.ack(110, 4);
  const check::Report r = c.check(strict(4));
  EXPECT_EQ(count(r, RuleId::PsnSequence), 1u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
}

TEST(CheckRules, OpcodeSequenceBreakFails) {
  Conversation c;
  c.req(Opcode::RC_SEND_FIRST, 100, 256);
  c.req(Opcode::RC_RDMA_WRITE_MIDDLE, 101, 256);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::SeqOpcode), 1u) << describe(r);
}

TEST(CheckRules, MiddleOfWrongSizeFails) {
  Conversation c;
  c.req(Opcode::RC_SEND_FIRST, 100, 1024);
  c.req(Opcode::RC_SEND_MIDDLE, 101, 1000);
  c.req(Opcode::RC_SEND_LAST, 102, 10);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::SeqLength), 1u) << describe(r);
}

Conversation read3000(std::uint32_t last_len) {
  Conversation c;
  c.req(Opcode::RC_SEND_FIRST, 99, 1024);  // sets the path MTU
  wire::FrameSpec last = c.make(true, Opcode::RC_SEND_LAST, Conversation::kQpB, 100, 4);
  c.send(last);
  c.read_three(101, 3000, last_len, 2);
  c.req(Opcode::RC_SEND_ONLY, 104, 8);  // next PSN after the READ's three
  c.ack(104, 3);
  return c;
}

TEST(CheckRules, ReadResponsesOfTheRightLengthPass) {
  const check::Report r = read3000(952).check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_GT(checked(r, RuleId::ReadLength), 0u);
}

TEST(CheckRules, TruncatedReadResponseFails) {
  const check::Report r = read3000(900).check(strict());
  EXPECT_EQ(count(r, RuleId::ReadLength), 1u) << describe(r);
}

TEST(CheckRules, AtomicReplayWithAnotherValueFails) {
  Conversation c;
  wire::FrameSpec a = c.make(true, Opcode::RC_FETCH_ADD, Conversation::kQpB, 100);
  a.atomiceth = {0x2000, 9, 1, 0};
  c.send(a);
  wire::FrameSpec ack = c.make(false, Opcode::RC_ATOMIC_ACKNOWLEDGE, Conversation::kQpA, 100);
  ack.aeth = {0x1F, 1};
  ack.atomicacketh = {5};
  c.send(ack);
  c.send(a);  // resent (a new IP id: not a link duplicate)
  ack.atomicacketh = {6};
  c.send(ack);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::AtomicReplay), 1u) << describe(r);
}

TEST(CheckRules, AtomicReplayWithTheSameValuePasses) {
  Conversation c;
  wire::FrameSpec a = c.make(true, Opcode::RC_FETCH_ADD, Conversation::kQpB, 100);
  a.atomiceth = {0x2000, 9, 1, 0};
  c.send(a);
  wire::FrameSpec ack = c.make(false, Opcode::RC_ATOMIC_ACKNOWLEDGE, Conversation::kQpA, 100);
  ack.aeth = {0x1F, 1};
  ack.atomicacketh = {5};
  c.send(ack);
  c.send(a);
  c.send(ack);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::AtomicReplay), 1u);
}

Conversation fatal_nak_then_write(std::int64_t after_ns) {
  Conversation c;
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 100, 64);
  w.reth = {0x1000, 7, 64};
  c.send(w);
  c.ack(100, 0, 0x62);  // NAK remote access error
  w.bth.psn = 101;
  c.send(w, after_ns);
  return c;
}

TEST(CheckRules, RequestLongAfterFatalNakFails) {
  const check::Report r = fatal_nak_then_write(50'000'000).check(strict());
  EXPECT_EQ(count(r, RuleId::ErrAfterFatal), 1u) << describe(r);
}

TEST(CheckRules, RequestInFlightWhenTheFatalNakCamePasses) {
  const check::Report r = fatal_nak_then_write(20'000).check(strict());
  EXPECT_EQ(count(r, RuleId::ErrAfterFatal), 0u) << describe(r);
}

Conversation granted_then_refused(bool invalidate_between) {
  Conversation c;
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 100, 64);
  w.reth = {0x1000, 7, 64};
  c.send(w);
  c.ack(100, 1);
  std::uint32_t psn = 101;
  std::uint32_t msn = 1;
  if (invalidate_between) {
    wire::FrameSpec inv =
        c.make(true, Opcode::RC_SEND_ONLY_WITH_INVALIDATE, Conversation::kQpB, psn, 8);
    inv.ieth = {7};
    c.send(inv);
    c.ack(psn++, ++msn);
  }
  w.bth.psn = psn;
  c.send(w);
  c.ack(psn, msn, 0x62);
  return c;
}

TEST(CheckRules, RkeyGrantedThenRefusedFails) {
  const check::Report r = granted_then_refused(false).check(strict());
  EXPECT_EQ(count(r, RuleId::KeyStatic), 1u) << describe(r);
  EXPECT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);  // Z3 agrees
  // The static-table assumption is stated, by key.static and by z3.key.
  EXPECT_EQ(notes(r, NoteKind::Assumption), 2u);
}

TEST(CheckRules, RkeyRefusedAfterSendWithInvalidatePasses) {
  const check::Report r = granted_then_refused(true).check(strict());
  EXPECT_EQ(count(r, RuleId::KeyStatic), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL);
}

// The same with the DUT's log saying how B's rkey 7 changed (--events, a "key" line).
check::Report granted_then_refused_with_log(const std::string& key_line) {
  check::Options o;
  o.profile = strict();
  o.profile.timing_tolerance_ns = 1'000;
  o.events = std::make_shared<const check::Events>(check::parse_events(key_line, "dut.log"));
  return granted_then_refused(false).check(o);
}

TEST(CheckRules, RkeyRefusedAfterALoggedKeyChangePasses) {
  // The frames are 10 µs apart from 1 s on: the second WRITE went out at 1.00003 s.
  const std::string change =
      R"({"event": "key", "host": "10.0.0.2", "rkey": 7, "change": "deregister", "t_ns": )";
  const check::Report between = granted_then_refused_with_log(change + "1000025000}");
  EXPECT_EQ(count(between, RuleId::KeyStatic), 0u) << describe(between);
  EXPECT_NE(between.verdict, Verdict::FAIL);
  bool stated = false;  // the assumption names the log
  for (const check::Note& n : between.notes)
    stated = stated || n.message.find("dut.log logs a change") != std::string::npos;
  EXPECT_TRUE(stated) << describe(between);
  // A change after both accesses, or of another key, explains nothing.
  EXPECT_EQ(count(granted_then_refused_with_log(change + "1000045000}"), RuleId::KeyStatic), 1u);
  EXPECT_EQ(count(granted_then_refused_with_log(
                      R"({"event": "key", "host": "10.0.0.2", "rkey": 8, "change": "bind", )"
                      R"("t_ns": 1000025000})"),
                  RuleId::KeyStatic),
            1u);
  // A change at no stated time: the key is not judged at all.
  const check::Report untimed = granted_then_refused_with_log(
      R"({"event": "key", "host": "10.0.0.2", "rkey": 7, "change": "invalidate"})");
  EXPECT_EQ(count(untimed, RuleId::KeyStatic), 0u) << describe(untimed);
  EXPECT_EQ(untimed.rules[static_cast<std::size_t>(RuleId::KeyStatic)].checked, 0u);
}

// Two WRITEs with B's rkey 7, at 1.00001 s and 1.00003 s, both ACKed; the log `lines`.
check::Report granted_twice_with_log(const std::string& lines) {
  Conversation c;
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 100, 64);
  w.reth = {0x1000, 7, 64};
  c.send(w);
  c.ack(100, 1);
  w.bth.psn = 101;
  c.send(w);
  c.ack(101, 2);
  check::Options o;
  o.profile = strict();
  o.profile.timing_tolerance_ns = 1'000;
  o.events = std::make_shared<const check::Events>(check::parse_events(lines, "dut.log"));
  return c.check(o);
}

TEST(CheckRules, AccessGrantedAfterALoggedDeregistrationFails) {
  // The stale-rkey class (docs/bug-classes.md): a static table explains both grants; only the
  // log says the key was gone.
  const std::string key = R"({"event": "key", "host": "10.0.0.2", "rkey": 7, "change": )";
  const check::Report stale = granted_twice_with_log(key + R"("deregister", "t_ns": 1000025000})");
  EXPECT_EQ(count(stale, RuleId::KeyInvalidated), 1u) << describe(stale);
  EXPECT_EQ(count(stale, RuleId::KeyStatic), 0u) << describe(stale);
  EXPECT_EQ(stale.verdict, Verdict::FAIL);
  for (const check::Violation& v : stale.violations)
    if (v.rule == RuleId::KeyInvalidated) {
      EXPECT_EQ(v.frame, 4u);
    }
  // Registered (or bound) again before the second access: granted rightly.
  const check::Report again =
      granted_twice_with_log(key + R"("deregister", "t_ns": 1000022000})" + "\n" + key +
                             R"("register", "t_ns": 1000025000})");
  EXPECT_EQ(count(again, RuleId::KeyInvalidated), 0u) << describe(again);
  EXPECT_EQ(again.rules[static_cast<std::size_t>(RuleId::KeyInvalidated)].checked, 0u);
  // Within the tap's tolerance of the access: which came first is not known.
  const check::Report near = granted_twice_with_log(key + R"("invalidate", "t_ns": 1000029500})");
  EXPECT_EQ(near.rules[static_cast<std::size_t>(RuleId::KeyInvalidated)].checked, 0u);
  // After both accesses, or another host's key of the same number: nothing to judge.
  EXPECT_EQ(count(granted_twice_with_log(key + R"("deregister", "t_ns": 1000045000})"),
                  RuleId::KeyInvalidated),
            0u);
  EXPECT_EQ(count(granted_twice_with_log(
                      R"({"event": "key", "host": "10.0.0.1", "rkey": 7, "change": "deregister", )"
                      R"("t_ns": 1000025000})"),
                  RuleId::KeyInvalidated),
            0u);
}

// A WRITE FIRST lost before the tap: its MIDDLE and LAST reach the tap, the NAK PSN sequence
// error brings the whole message again, an ACK covers it. A later WRITE with another rkey is
// refused and the link duplicates that NAK: the duplicate refuses nothing more. The first WRITE,
// whose LAST the tap showed before its FIRST, must not be taken for the refused access (a
// corpus seed once made key.static and z3.key fail this correct traffic).
TEST(CheckRules, ADuplicateNakDoesNotRefuseAWriteWhoseFirstCameAfterItsLast) {
  Conversation c;
  auto write = [&c](wire::Opcode op, std::uint32_t psn) {
    wire::FrameSpec w = c.make(true, op, Conversation::kQpB, psn, 1024);
    if (op == wire::Opcode::RC_RDMA_WRITE_FIRST) w.reth = {0x1000, 7, 3072};
    c.send(w);
  };
  // Two grants of rkey 7 on both sides of the first WRITE's range: a refusal of that range
  // would contradict them (z3.key).
  for (const auto& [psn, va] : {std::pair<std::uint32_t, std::uint64_t>{98, 0x800}, {99, 0x2000}}) {
    wire::FrameSpec w = c.make(true, wire::Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, psn, 64);
    w.reth = {va, 7, 64};
    c.send(w);
    c.ack(psn, psn - 97);
  }
  write(wire::Opcode::RC_RDMA_WRITE_MIDDLE, 101);  // the FIRST (100) lost before the tap
  write(wire::Opcode::RC_RDMA_WRITE_LAST, 102);
  c.ack(100, 2, 0x60);  // NAK PSN sequence error
  write(wire::Opcode::RC_RDMA_WRITE_FIRST, 100);
  write(wire::Opcode::RC_RDMA_WRITE_MIDDLE, 101);
  write(wire::Opcode::RC_RDMA_WRITE_LAST, 102);
  c.ack(102, 3);
  wire::FrameSpec bad = c.make(true, wire::Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 103, 64);
  bad.reth = {0x9000, 9, 64};
  c.send(bad);
  c.ack(103, 3, 0x62);  // NAK remote access error
  c.ack(103, 3, 0x62);  // the same NAK, duplicated by the link
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::KeyStatic), 0u) << describe(r);
  EXPECT_EQ(count(r, RuleId::Z3Key), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
}

// The tap misses the rest of a WRITE (its MIDDLE and LAST); the next WRITE, with another rkey,
// is refused and the link duplicates the NAK. The WRITE whose last packet is unknown holds only
// its first PSN for a refusal: the duplicate refuses nothing more.
TEST(CheckRules, ADuplicateNakDoesNotRefuseAWriteWhoseLastIsUnknown) {
  Conversation c;
  for (const auto& [psn, va] : {std::pair<std::uint32_t, std::uint64_t>{98, 0x800}, {99, 0x2000}}) {
    wire::FrameSpec w = c.make(true, wire::Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, psn, 64);
    w.reth = {va, 7, 64};
    c.send(w);
    c.ack(psn, psn - 97);
  }
  wire::FrameSpec first =
      c.make(true, wire::Opcode::RC_RDMA_WRITE_FIRST, Conversation::kQpB, 100, 1024);
  first.reth = {0x1000, 7, 3072};
  c.send(first);
  // PSNs 101 and 102 never reach the tap.
  wire::FrameSpec bad = c.make(true, wire::Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 103, 64);
  bad.reth = {0x9000, 9, 64};
  c.send(bad);
  c.ack(103, 3, 0x62);  // NAK remote access error
  c.ack(103, 3, 0x62);  // duplicated by the link
  check::Profile p = strict();
  p.max_capture_errors = 4;
  const check::Report r = c.check(p);
  EXPECT_EQ(count(r, RuleId::KeyStatic), 0u) << describe(r);
  EXPECT_EQ(count(r, RuleId::Z3Key), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
}

TEST(CheckRules, AccessRefusedAfterALoggedDeregistrationPasses) {
  const check::Report r = granted_then_refused_with_log(
      R"({"event": "key", "host": "10.0.0.2", "rkey": 7, "change": "deregister", )"
      R"("t_ns": 1000025000})");
  EXPECT_EQ(r.rules[static_cast<std::size_t>(RuleId::KeyInvalidated)].checked, 1u);
  EXPECT_EQ(count(r, RuleId::KeyInvalidated), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
}

// An RNR NAK with `timer_code` (IBA Vol. 1 Table 45; 14 = 1.28 ms), the resend `wait_ns` later.
Conversation rnr(std::int64_t wait_ns, std::uint8_t timer_code = 14) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 0, static_cast<std::uint8_t>(0x20 | timer_code));
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.frames().back().ts = c.frames()[1].ts + wait_ns;
  c.ack(100, 1);
  c.frames().back().ts = c.frames()[2].ts + 1000;
  return c;
}

TEST(CheckRules, ResendBeforeTheRnrTimerFails) {
  const check::Report r = rnr(100'000).check(strict());
  EXPECT_EQ(count(r, RuleId::AckRnrWait), 1u) << describe(r);
}

TEST(CheckRules, ResendAfterTheRnrTimerPasses) {
  const check::Report r = rnr(1'400'000).check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::AckRnrWait), 1u);
}

// Timer code 0 is the longest wait, 655.36 ms, not none (a bug class: an engine that read it as
// zero and retried at once). A resend 100 ms after it is too early, though 100 ms is past the
// wait of every code from 1 to 27 (122.88 ms is 27's); one 700 ms after it is in time.
TEST(CheckRules, RnrTimerCodeZeroIsTheLongestWait) {
  const check::Report early = rnr(100'000'000, 0).check(strict());
  EXPECT_EQ(count(early, RuleId::AckRnrWait), 1u) << describe(early);
  EXPECT_EQ(early.verdict, Verdict::FAIL);
  const check::Report late = rnr(700'000'000, 0).check(strict());
  EXPECT_EQ(late.verdict, Verdict::PASS) << describe(late);
  EXPECT_EQ(checked(late, RuleId::AckRnrWait), 1u);
  // Code 31 is the next longest (491.52 ms): 100 ms is early there too, 500 ms is not.
  EXPECT_EQ(count(rnr(100'000'000, 31).check(strict()), RuleId::AckRnrWait), 1u);
  EXPECT_EQ(rnr(500'000'000, 31).check(strict()).verdict, Verdict::PASS);
}

TEST(CheckRules, ReservedNakCodeFails) {
  Conversation c = sends();
  c.ack(102, 3, 0x6A);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::AckSyndrome), 1u) << describe(r);
}

TEST(CheckRules, TwoQpsBetweenTheSameHostsArePairedByTheirPsns) {
  Conversation c;
  // QP 0x11 → 0x22 from PSN 100, QP 0x33 → 0x44 from PSN 90000, interleaved.
  for (std::uint32_t i = 0; i < 3; ++i) {
    c.send(c.make(true, Opcode::RC_SEND_ONLY, 0x22, 100 + i, 16));
    c.send(c.make(true, Opcode::RC_SEND_ONLY, 0x44, 90000 + i, 16));
  }
  for (std::uint32_t i = 0; i < 3; ++i) {
    wire::FrameSpec a = c.make(false, Opcode::RC_ACKNOWLEDGE, 0x33, 90000 + i);
    a.aeth = {0x1F, i + 1};
    c.send(a);
    wire::FrameSpec b = c.make(false, Opcode::RC_ACKNOWLEDGE, 0x11, 100 + i);
    b.aeth = {0x1F, i + 1};
    c.send(b);
  }
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  ASSERT_EQ(r.connections.size(), 2u);
  EXPECT_EQ(r.connections[0].a.qpn, 0x11u);
  EXPECT_EQ(r.connections[1].a.qpn, 0x33u);
}

TEST(CheckRules, AmbiguousPairingIsInconclusiveNeverGuessed) {
  Conversation c;
  // Two streams with the same PSNs: an ACK of PSN 100 fits both.
  c.send(c.make(true, Opcode::RC_SEND_ONLY, 0x22, 100, 16));
  c.send(c.make(true, Opcode::RC_SEND_ONLY, 0x44, 100, 16));
  wire::FrameSpec a = c.make(false, Opcode::RC_ACKNOWLEDGE, 0x11, 100);
  a.aeth = {0x1F, 7};  // MSN 7 would be wrong for either: it must not be judged
  c.send(a);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE) << describe(r);
  EXPECT_EQ(notes(r, NoteKind::Unpaired), 1u);
  EXPECT_EQ(r.violations.size(), 0u);
}

TEST(CheckRules, CorruptedFrameResentIsExplained) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  wire::FrameSpec bad = c.make(true, Opcode::RC_SEND_ONLY, Conversation::kQpB, 101, 64);
  bad.icrc = 0xDEADBEEF;
  c.send(bad);
  c.ack(100, 1);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.ack(101, 2);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(r.rules[static_cast<std::size_t>(RuleId::WireIcrc)].explained, 1u);
}

TEST(CheckRules, CorruptedFrameNeverResentFails) {
  Conversation c;
  wire::FrameSpec bad = c.make(true, Opcode::RC_SEND_ONLY, Conversation::kQpB, 100, 64);
  bad.icrc = 0xDEADBEEF;
  c.send(bad);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::WireIcrc), 1u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
}

TEST(CheckRules, PadCountMustBeMinimal) {
  Conversation c;
  wire::FrameSpec s = c.make(true, Opcode::RC_SEND_ONLY, Conversation::kQpB, 100, 5);
  wire::finalize(s);
  s.bth.padcnt = 0;  // 5 bytes need 3 pad bytes; the lengths shrink to match
  s.udp.length = static_cast<std::uint16_t>(s.udp.length - 3);
  s.ip.total_length = static_cast<std::uint16_t>(s.ip.total_length - 3);
  s.ip.checksum = 0;
  c.send_bytes(wire::encode(s));
  const check::Report r = c.check(strict());
  EXPECT_GE(count(r, RuleId::WirePad), 1u) << describe(r);
}

TEST(CheckRules, ReservedBthBitsMustBeZero) {
  // A PSN counter one bit too wide: 0x1000064 sent as PSN 0x000064 with Resv7 bit 0 set.
  Conversation c;
  wire::FrameSpec s = c.make(true, Opcode::RC_SEND_ONLY, Conversation::kQpB, 100, 8);
  s.bth.resv7 = 1;
  c.send(s);
  c.ack(100, 1);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::WireReserved), 1u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
  EXPECT_EQ(checked(sends().check(strict()), RuleId::WireReserved), 6u);
}

TEST(CheckRules, CnpWithoutAnyMarkOnItsPathIsNotDecided) {
  Conversation c;
  wire::FrameSpec ect = c.make(true, Opcode::RC_SEND_ONLY, Conversation::kQpB, 100, 64);
  ect.ip.ecn = 2;  // ECT(0): a switch after the tap may have marked it
  c.send(ect);
  wire::FrameSpec cnp = c.make(false, Opcode::CNP_CNP, Conversation::kQpA, 0);
  cnp.bth.becn = true;
  c.send(cnp);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::CnpCeMarked), 0u) << describe(r);
  EXPECT_EQ(checked(r, RuleId::CnpCeMarked), 0u);
}

TEST(CheckRules, CnpToASenderOfNotEctPacketsFails) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);  // Not-ECT: no switch may mark it
  wire::FrameSpec cnp = c.make(false, Opcode::CNP_CNP, Conversation::kQpA, 0);
  cnp.bth.becn = true;
  c.send(cnp);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::CnpCeMarked), 1u) << describe(r);
}

TEST(CheckRules, CnpBeforeAnyMarkFailsWhenTheTapSeesMarks) {
  Conversation c;
  wire::FrameSpec cnp = c.make(false, Opcode::CNP_CNP, Conversation::kQpA, 0);
  cnp.bth.becn = true;
  c.send(cnp);
  wire::FrameSpec marked = c.make(true, Opcode::RC_SEND_ONLY, Conversation::kQpB, 100, 64);
  marked.ip.ecn = 3;
  c.send(marked);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::CnpCeMarked), 1u) << describe(r);
}

TEST(CheckRules, AckToAUdQpFails) {
  Conversation c;
  wire::FrameSpec d = c.make(true, Opcode::UD_SEND_ONLY, 0x22, 5, 32);
  d.deth = {0x11111111, 0x11};
  c.send(d);
  c.ack(5, 0);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::AckUnsolicited), 1u) << describe(r);
}

}  // namespace
}  // namespace rocecert::testing

namespace rocecert::testing {
namespace {

Conversation nak_then_new_psns(bool resend) {
  Conversation c;
  c.req(wire::Opcode::RC_SEND_ONLY, 100, 64);
  c.req(wire::Opcode::RC_SEND_ONLY, 101, 64);
  c.ack(101, 1, 0x60);  // expects 101
  if (resend) c.send(c.make(true, wire::Opcode::RC_SEND_ONLY, Conversation::kQpB, 101, 64), 10'000);
  c.send(c.make(true, wire::Opcode::RC_SEND_ONLY, Conversation::kQpB, 102, 64), 20'000'000);
  return c;
}

TEST(CheckRules, NewPsnsLongAfterANakWithoutResendFail) {
  const check::Report r = nak_then_new_psns(false).check(strict());
  EXPECT_EQ(count(r, check::RuleId::PsnRetransmit), 1u) << describe(r);
  EXPECT_EQ(r.violations.at(0).cause, "ignored_nak");
}

TEST(CheckRules, NewPsnsAfterTheResendPass) {
  const check::Report r = nak_then_new_psns(true).check(strict());
  EXPECT_EQ(count(r, check::RuleId::PsnRetransmit), 0u) << describe(r);
}

TEST(CheckRules, ZeroLengthReadRefusedForItsKeyFails) {
  Conversation c;
  wire::FrameSpec rd = c.make(true, wire::Opcode::RC_RDMA_READ_REQUEST, Conversation::kQpB, 100);
  rd.reth = {0, 0, 0};
  c.send(rd);
  c.ack(100, 0, 0x62);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, check::RuleId::KeyZeroLength), 1u) << describe(r);
}

}  // namespace
}  // namespace rocecert::testing

namespace rocecert::testing {
namespace {

TEST(CheckRules, BothDirectionsOfAQpPairAreOneConnection) {
  Conversation c;
  c.req(wire::Opcode::RC_SEND_ONLY, 100, 8);  // A (0x11) -> B (0x22)
  c.ack(100, 1);
  // B's own request to A's QP, answered by A.
  c.send(c.make(false, wire::Opcode::RC_SEND_ONLY, Conversation::kQpA, 500, 8));
  wire::FrameSpec a = c.make(true, wire::Opcode::RC_ACKNOWLEDGE, Conversation::kQpB, 500);
  a.aeth = {0x1F, 1};
  c.send(a);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, check::Verdict::PASS) << describe(r);
  ASSERT_EQ(r.connections.size(), 1u) << describe(r);
  EXPECT_EQ(r.connections[0].frames, 4u);
}

TEST(CheckRules, AConnectionsEndAIsTheSenderOfItsFirstRequest) {
  // Both QPs send before either is answered, and B's requests are answered first: the ends keep
  // their own QP numbers, and `a` is A, whose request the tap saw first.
  Conversation c;
  c.req(wire::Opcode::RC_SEND_ONLY, 100, 8);  // A (0x11) -> B (0x22)
  c.send(c.make(false, wire::Opcode::RC_SEND_ONLY, Conversation::kQpA, 500, 8));
  wire::FrameSpec a = c.make(true, wire::Opcode::RC_ACKNOWLEDGE, Conversation::kQpB, 500);
  a.aeth = {0x1F, 1};
  c.send(a);
  c.ack(100, 1);
  const check::Report r = c.check(strict());
  ASSERT_EQ(r.connections.size(), 1u) << describe(r);
  EXPECT_EQ(r.connections[0].a.ip, "10.0.0.1");
  EXPECT_EQ(r.connections[0].a.qpn, Conversation::kQpA);
  EXPECT_EQ(r.connections[0].b.ip, "10.0.0.2");
  EXPECT_EQ(r.connections[0].b.qpn, Conversation::kQpB);
  // And when A's request is answered before B sends at all.
  Conversation d;
  d.req(wire::Opcode::RC_SEND_ONLY, 100, 8);
  d.ack(100, 1);
  d.send(d.make(false, wire::Opcode::RC_SEND_ONLY, Conversation::kQpA, 500, 8));
  d.send(a);
  const check::Report q = d.check(strict());
  ASSERT_EQ(q.connections.size(), 1u) << describe(q);
  EXPECT_EQ(q.connections[0].a.ip, "10.0.0.1");
  EXPECT_EQ(q.connections[0].a.qpn, Conversation::kQpA);
  EXPECT_EQ(q.connections[0].b.qpn, Conversation::kQpB);
}

TEST(CheckRules, UcLossIsNotAGap) {
  Conversation c;
  c.send(c.make(true, wire::Opcode::UC_SEND_FIRST, Conversation::kQpB, 10, 256));
  // 11 lost before the tap: UC never resends it.
  c.send(c.make(true, wire::Opcode::UC_SEND_LAST, Conversation::kQpB, 12, 8));
  c.send(c.make(true, wire::Opcode::UC_SEND_ONLY, Conversation::kQpB, 13, 8));
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, check::Verdict::PASS) << describe(r);
}

TEST(CheckRules, XrcIsUnsupportedNotPassed) {
  Conversation c;
  wire::FrameSpec x = c.make(true, wire::Opcode::XRC_SEND_ONLY, 0x22, 10, 8);
  x.xrceth = {0x5};
  c.send(x);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, check::Verdict::UNSUPPORTED) << describe(r);
  EXPECT_GT(checked(r, RuleId::WireIcrc), 0u);  // its frames are still checked
}

TEST(CheckRules, FramesCutByTheSnapLengthAreNotJudged) {
  Conversation c;
  c.req(wire::Opcode::RC_SEND_ONLY, 100, 512);
  std::vector<std::uint8_t>& b = c.frames().back().bytes;
  check::Options o;
  o.profile = strict();
  check::Checker k(o);
  const auto len = static_cast<std::uint32_t>(b.size());
  k.add_frame(1, 0, len, std::span<const std::uint8_t>(b.data(), 96), wire::LinkType::Ethernet);
  const check::Report r = k.finish("cut");
  EXPECT_EQ(r.verdict, check::Verdict::INCONCLUSIVE) << describe(r);
  EXPECT_EQ(notes(r, NoteKind::Truncated), 1u);
  EXPECT_TRUE(r.violations.empty()) << describe(r);
}

// The IPv4 header of an Ethernet frame (no VLAN) given a new total length, its checksum redone.
void set_ipv4_total_length(std::vector<std::uint8_t>& b, std::size_t total) {
  constexpr std::size_t ip = 14;
  b[ip + 2] = static_cast<std::uint8_t>(total >> 8);
  b[ip + 3] = static_cast<std::uint8_t>(total);
  b[ip + 10] = b[ip + 11] = 0;
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < 20; i += 2)
    sum += static_cast<std::uint32_t>(b[ip + i] << 8 | b[ip + i + 1]);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  b[ip + 10] = static_cast<std::uint8_t>(~sum >> 8);
  b[ip + 11] = static_cast<std::uint8_t>(~sum);
}
constexpr std::size_t kUdpLengthAt = 14 + 20 + 4;

TEST(CheckRules, UdpLengthShorterThanTheIpPayloadFails) {
  // UDP length 8: the datagram ends at its header, the BTH and the rest sit after it in the IP
  // payload. Without a BTH it is no RoCEv2 packet, but it is the sender's error, not a gap.
  Conversation c = sends();
  std::vector<std::uint8_t>& b = c.frames().front().bytes;
  b[kUdpLengthAt] = 0;
  b[kUdpLengthAt + 1] = 8;
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::WireUdp), 1u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
}

TEST(CheckRules, UdpDatagramTooShortForABthFails) {
  // UDP and IP lengths agree, on 4 bytes of payload: too few for a BTH.
  Conversation c = sends();
  std::vector<std::uint8_t>& b = c.frames().front().bytes;
  b.resize(14 + 20 + 8 + 4);
  set_ipv4_total_length(b, 20 + 8 + 4);
  b[kUdpLengthAt] = 0;
  b[kUdpLengthAt + 1] = 12;
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::WireHeaders), 1u) << describe(r);
  EXPECT_EQ(count(r, RuleId::WireUdp), 0u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
}

TEST(CheckRules, IpTotalLengthShorterThanItsHeaderFails) {
  Conversation c = sends();
  set_ipv4_total_length(c.frames().front().bytes, 12);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::WireIp), 1u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
}

TEST(CheckRules, FrameShorterThanItsIpLengthIsNotJudged) {
  // The frame ends 60 bytes in, and the capture says that is all it had on the wire: a mirror
  // port that truncates, or a sender's IP length. Either way not the transport's to judge.
  Conversation c = sends();
  c.frames().front().bytes.resize(60);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.roce_frames, 6u);
  EXPECT_EQ(notes(r, NoteKind::Truncated), 1u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE) << describe(r);
  for (const check::Violation& v : r.violations) EXPECT_NE(v.rule, RuleId::WireIp) << describe(r);
}

TEST(CheckRules, ACaptureWithoutRoceFramesIsInconclusive) {
  const check::Report r = Conversation().check(strict());
  EXPECT_EQ(r.roce_frames, 0u);
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE);
  // Every report says why: the text in its summary, JUnit in the skipped verdict's message.
  std::ostringstream text, junit;
  check::write_text(r, text);
  check::write_junit(r, junit);
  EXPECT_NE(text.str().find("no RoCEv2 frame in the capture"), std::string::npos) << text.str();
  EXPECT_NE(junit.str().find("<skipped message=\"verdict INCONCLUSIVE: no RoCEv2 frame in the "
                             "capture: nothing was judged\"/>"),
            std::string::npos)
      << junit.str();
}

TEST(CheckRules, EachDeviationAppliedIsNotedWithItsJustification) {
  const Conversation c = msn_off_by_one();
  check::Profile p = strict();
  p.name = "mine";
  p.deviations.push_back(
      {RuleId::AckMsn, "count", "our engine counts a coalesced MSN twice", "erratum 7"});
  // The model's answer differs in the same frame.
  p.deviations.push_back({RuleId::GoldenResponse, "*", "see ack.msn", ""});
  const check::Report r = c.check(p);
  EXPECT_EQ(r.verdict, Verdict::DEVIATION) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckMsn, true), 1u) << describe(r);
  ASSERT_EQ(notes(r, NoteKind::Deviation), 2u) << describe(r);
  bool seen = false;
  for (const check::Note& n : r.notes) {
    if (n.kind != NoteKind::Deviation || n.message.find("ack.msn") != 0) continue;
    seen = true;
    EXPECT_EQ(n.message.find("ack.msn (count): 1 violation reported as DEVIATION, as profile "
                             "mine declares: our engine counts a coalesced MSN twice (erratum 7)"),
              0u)
        << n.message;
    EXPECT_EQ(n.frame, 4u);
  }
  EXPECT_TRUE(seen) << describe(r);
  // Declared but never used: no note.
  p.deviations.push_back({RuleId::WirePad, "*", "never seen", ""});
  EXPECT_EQ(notes(c.check(p), NoteKind::Deviation), 2u);
}

TEST(CheckRules, UdQkeyChangeIsAdvisoryOnly) {
  Conversation c;
  wire::FrameSpec d = c.make(true, wire::Opcode::UD_SEND_ONLY, 0x22, 5, 32);
  d.deth = {0x1111, 0x11};
  c.send(d);
  d.deth.qkey = 0x2222;
  d.bth.psn = 6;
  c.send(d);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, check::Verdict::PASS) << describe(r);
  EXPECT_EQ(r.rules[static_cast<std::size_t>(RuleId::UdQkey)].violations, 1u);
}

// More connections' notes than a report lists (10,000): every connection seen one way only is
// still INCONCLUSIVE, listed or not, on any number of jobs, and a note on the whole capture (a
// frame cut short by the capture, noted at the end) is listed all the same.
TEST(CheckRules, NotesPastTheReportsBoundStillDecideTheVerdicts) {
  Conversation c;
  constexpr std::uint32_t kConnections = 10'500;
  for (std::uint32_t q = 0; q < kConnections; ++q)
    for (std::uint32_t i = 0; i < 2; ++i)
      c.send(c.make(true, wire::Opcode::RC_SEND_ONLY, 0x100 + q, 10 + i, 8));
  const auto run = [&](unsigned jobs) {
    check::Options o;
    o.profile = strict();
    o.golden = false;
    o.z3 = false;
    o.jobs = jobs;
    check::Checker k(o);
    std::uint64_t n = 0;
    for (const Conversation::Frame& f : c.frames())
      k.add_frame(++n, f.ts, static_cast<std::uint32_t>(f.bytes.size()), f.bytes,
                  wire::LinkType::Ethernet);
    const Conversation::Frame& last = c.frames().back();
    k.add_frame(++n, last.ts + 1, static_cast<std::uint32_t>(last.bytes.size() + 100), last.bytes,
                wire::LinkType::Ethernet);
    return k.finish("conversation");
  };
  const check::Report r = run(1);
  ASSERT_EQ(r.connections.size(), kConnections);
  std::size_t listed = 0, global = 0;
  for (const check::Note& n : r.notes) {
    if (n.kind == NoteKind::OneDirection) ++listed;
    if (!n.connection && n.kind == NoteKind::Truncated) ++global;
  }
  EXPECT_EQ(listed, 10'000u);  // the bound
  EXPECT_EQ(global, 1u);
  for (const check::Connection& k : r.connections)
    EXPECT_EQ(k.verdict, Verdict::INCONCLUSIVE) << k.id;
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE);
  std::ostringstream one, two;
  check::write_json(r, one);
  check::write_json(run(2), two);
  EXPECT_EQ(one.str(), two.str());
}

}  // namespace
}  // namespace rocecert::testing
