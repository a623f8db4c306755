// A capture that begins mid-conversation (docs/check.md, "A capture that begins
// mid-conversation"): what came before the tap started is a gap, never a FAIL; once the
// capture shows where the responder stands, every rule applies again.
#include <gtest/gtest.h>

#include "conversation.h"

namespace rocecert {
namespace {

using check::NoteKind;
using check::RuleId;
using check::Verdict;
using testing::Conversation;
using testing::count;
using testing::describe;
using testing::strict;
using wire::Opcode;

bool has_gap_note(const check::Report& r, std::string_view words) {
  for (const check::Note& n : r.notes)
    if (n.kind == NoteKind::Gap && n.message.find(words) != std::string::npos) return true;
  return false;
}

bool has_unpaired_note(const check::Report& r, std::string_view words) {
  for (const check::Note& n : r.notes)
    if (n.kind == NoteKind::Unpaired && n.message.find(words) != std::string::npos) return true;
  return false;
}

// An ACK or ATOMIC ACKNOWLEDGE (original value 5) from B to A's QP `dqpn`.
void answer(Conversation& c, Opcode op, std::uint32_t dqpn, std::uint32_t psn, std::uint32_t msn) {
  wire::FrameSpec s = c.make(false, op, dqpn, psn);
  s.aeth = {0x1F, msn};
  if (op == Opcode::RC_ATOMIC_ACKNOWLEDGE) s.atomicacketh = {5};
  c.send(s);
}
void atomic_ack(Conversation& c, std::uint32_t psn, std::uint32_t msn) {
  answer(c, Opcode::RC_ATOMIC_ACKNOWLEDGE, Conversation::kQpA, psn, msn);
}

// A READ of `len` bytes at `psn` from A, and a READ response from B carrying `msn`.
void read_request(Conversation& c, std::uint32_t psn, std::uint32_t len) {
  wire::FrameSpec rq = c.make(true, Opcode::RC_RDMA_READ_REQUEST, Conversation::kQpB, psn);
  rq.reth = {0x1000, 7, len};
  c.send(rq);
}
void read_response(Conversation& c, Opcode op, std::uint32_t psn, std::uint32_t payload,
                   std::uint32_t msn) {
  wire::FrameSpec s = c.make(false, op, Conversation::kQpA, psn, payload);
  s.aeth = {0x1F, msn};
  c.send(s);
}

void atomic(Conversation& c, Opcode op, std::uint32_t psn) {
  wire::FrameSpec s = c.make(true, op, Conversation::kQpB, psn);
  s.atomiceth = {0x2000, 7, 1, 0};
  c.send(s);
}

// SEND ONLYs from A at the PSNs of `acks`, each answered by an ACK of {PSN, MSN}.
Conversation sends(std::initializer_list<std::pair<std::uint32_t, std::uint32_t>> acks,
                   std::uint32_t first_psn) {
  Conversation c;
  std::uint32_t psn = first_psn;
  for (const auto& [ack_psn, msn] : acks) {
    c.req(Opcode::RC_SEND_ONLY, psn++, 64);
    c.ack(ack_psn, msn);
  }
  return c;
}

// The tap starts while the requester resends after a timeout (corpus seed 22 cut at frame 70):
// the responder had received through PSN 514 before, so it answers the resent atomics with
// their saved answers and the current MSN, and each resent WRITE with an ACK of 514.
Conversation mid_resend() {
  Conversation c;
  atomic(c, Opcode::RC_FETCH_ADD, 509);
  atomic_ack(c, 509, 6);
  atomic(c, Opcode::RC_COMPARE_SWAP, 510);
  atomic_ack(c, 510, 6);
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 511, 64);
  w.reth = {0x3000, 7, 64};
  c.send(w);
  c.ack(514, 6);
  c.req(Opcode::RC_SEND_FIRST, 512, 1024);
  c.ack(514, 6);
  c.req(Opcode::RC_SEND_MIDDLE, 513, 1024);
  c.ack(514, 6);
  c.req(Opcode::RC_SEND_LAST, 514, 100);
  c.ack(514, 6);
  c.req(Opcode::RC_SEND_ONLY, 515, 64);  // new: MSN 7
  c.ack(515, 7);
  return c;
}

TEST(CheckMidCapture, ACaptureThatBeginsMidResendIsAGapNotAFail) {
  const check::Report r = mid_resend().check(strict());
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckPsn), 0u) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckMsn), 0u) << describe(r);
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 0u) << describe(r);
  EXPECT_TRUE(has_gap_note(r, "the capture began while the responder held requests"))
      << describe(r);
}

TEST(CheckMidCapture, AfterTheOpeningAnAckOfAnUnsentPsnFailsAgain) {
  // The same start; once PSN 515 was executed (MSN 7), the responder's place is known.
  Conversation c = mid_resend();
  c.req(Opcode::RC_SEND_ONLY, 516, 64);
  c.ack(530, 8);  // nothing was sent past 516
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckPsn), 1u) << describe(r);
}

TEST(CheckMidCapture, AnMsnBaselineOfZeroShowsTheStartAndLeavesNoOpening) {
  // The first ACK says one message completed, the first one seen: the connection's start (the
  // MSN is 0 after RESET), so an ACK past what was sent fails at once.
  const check::Report r = sends({{100, 1}, {105, 1}}, 100).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckPsn), 1u) << describe(r);
}

TEST(CheckMidCapture, DuplicatesOfRequestsTheResponderHadAreNotCountedAgain) {
  // The responder had 100 and 101 before the capture (their ACKs lost): their resends carry
  // the MSN of then, 9, and the first new message makes it 10. Without the opening, the second
  // ACK's MSN would be one short.
  // The last ACK, after the opening, is one short.
  const check::Report r = sends({{100, 9}, {101, 9}, {102, 10}, {103, 10}}, 100).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  ASSERT_EQ(count(r, RuleId::AckMsn), 1u) << describe(r);
  EXPECT_EQ(testing::first_of(r, RuleId::AckMsn)->frame, 8u) << describe(r);
  EXPECT_TRUE(has_gap_note(r, "which the requests the capture shows do not account for") ||
              has_gap_note(r, "shows it had received through"))
      << describe(r);
}

TEST(CheckMidCapture, AnswersToReadsAndAtomicsSentBeforeTheCaptureAreNotJudged) {
  // The first request seen is 100; an atomic ACK for 98 and a READ response for 99 answer
  // requests the tap never showed.
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  atomic_ack(c, 98, 4);
  read_response(c, Opcode::RC_RDMA_READ_RESPONSE_ONLY, 99, 8, 5);
  c.ack(100, 6);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE) << describe(r);
  EXPECT_EQ(r.violations.size(), 0u) << describe(r);
  EXPECT_TRUE(has_gap_note(r, "answers a request sent before the capture")) << describe(r);
}

TEST(CheckMidCapture, AFlowOfAnUnseenQpThatFitsAPairedStreamMakesItInconclusive) {
  // QP 0x33's requests are not in the capture, and their PSNs are QP 0x11's. Its answers came
  // first and were paired with 0x11's stream (the only one then); 0x11's own answers, left
  // unpaired, fit it as well: which flow answers it cannot be decided.
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);  // A:0x11 -> B:0x22
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x33, 100, 1);
  wire::FrameSpec other_atomic =
      c.make(false, Opcode::RC_ATOMIC_ACKNOWLEDGE, 0x33, 101);  // 101 is a SEND of 0x11
  other_atomic.aeth = {0x1F, 2};
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.send(other_atomic);
  c.ack(100, 1);
  c.ack(101, 2);
  const check::Report r = c.check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_unpaired_note(r, "never paired")) << describe(r);
}

// The tap starts with the resend of a READ of 512 bytes (PSN 45) the responder had answered;
// the CMP_SWAP at 46 it had executed too, and its resend comes after the new FETCH_ADD at 47
// (corpus seed 1790 cut at frame 28). With no path MTU seen, PSN 46 may be a slot of the READ.
Conversation read_then_atomics(bool with_read_response) {
  Conversation c;
  read_request(c, 45, 512);
  if (with_read_response) {
    read_response(c, Opcode::RC_RDMA_READ_RESPONSE_ONLY, 45, 512, 2);
  }
  atomic(c, Opcode::RC_FETCH_ADD, 47);
  atomic_ack(c, 47, 3);
  atomic(c, Opcode::RC_COMPARE_SWAP, 46);  // resent after its timeout
  atomic_ack(c, 46, 3);                    // the saved answer, the current MSN
  c.req(Opcode::RC_SEND_ONLY, 48, 64);
  c.ack(48, 4);
  return c;
}

TEST(CheckMidCapture, AReadResponseOnlyEndsTheReadsSpan) {
  // The READ RESPONSE ONLY shows the READ took one PSN: the ACK of 47 covers a PSN the capture
  // does not show sent (in the opening: sent before it), so the atomic answered at 46 is no
  // READ slot's answer.
  const check::Report r = read_then_atomics(true).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AtomicResponse), 0u) << describe(r);
}

TEST(CheckMidCapture, AnAtomicResentAfterItsPsnWasAcknowledgedIsAnAtomic) {
  // Without the READ's response, PSN 46 is taken for a READ slot and acknowledged by 47's
  // answer; the CMP_SWAP resent there shows what it was, and its answer is an atomic's.
  const check::Report r = read_then_atomics(false).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AtomicResponse), 0u) << describe(r);
}

TEST(CheckMidCapture, TwoPairingsEachPossibleTheOtherWayAreInconclusive) {
  // A:0x11 -> B:0x22 sends SENDs at 2..6; A:0x12 -> B:0x26, seen only later, an atomic at 5
  // and a SEND at 6. The answers to A's QP 0x13 start before 0x26's requests appear: with
  // 0x22's stream the only one seen, they pair with it, and its atomic answer at 4 (0x26's,
  // sent before the capture) looks like a wrong answer to a SEND. The answers to 0x11 then pair
  // with 0x26's stream. Each stream could have sent what the other's flow answers: which QP
  // answered which cannot be decided (corpus seed 1109 cut at frame 32).
  Conversation c;
  for (std::uint32_t psn = 2; psn <= 6; ++psn) c.req(Opcode::RC_SEND_ONLY, psn, 64);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x13, 3, 3);
  answer(c, Opcode::RC_ATOMIC_ACKNOWLEDGE, 0x13, 4, 4);
  wire::FrameSpec fa = c.make(true, Opcode::RC_FETCH_ADD, 0x26, 5);
  fa.atomiceth = {0x2000, 7, 1, 0};
  c.send(fa);
  c.send(c.make(true, Opcode::RC_SEND_ONLY, 0x26, 6, 64));
  answer(c, Opcode::RC_ATOMIC_ACKNOWLEDGE, 0x13, 5, 5);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x13, 6, 6);
  c.ack(5, 5);
  c.ack(6, 6);
  const check::Report r = c.check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_unpaired_note(r, "each fit both QPs' requests")) << describe(r);
}

TEST(CheckMidCapture, TheResponseThatSetsTheBaselineDoesNotEndTheOpening) {
  // The responder had both atomics before the capture (118 and 119 executed: MSN 8); the tap
  // shows their resends. The answer to 118 carries the current MSN, 8, not 7: the baseline it
  // sets is one too high, and only a later response can confirm a baseline (corpus seed 4080
  // cut at frame 35).
  Conversation c;
  read_response(c, Opcode::RC_RDMA_READ_RESPONSE_ONLY, 117, 8, 6);
  atomic(c, Opcode::RC_COMPARE_SWAP, 118);
  atomic(c, Opcode::RC_COMPARE_SWAP, 119);
  atomic_ack(c, 118, 8);
  atomic_ack(c, 119, 8);
  const check::Report r = c.check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckMsn), 0u) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckPsn), 0u) << describe(r);
}

TEST(CheckMidCapture, AFlowWithEarlierAnswersPairedByAcksAloneIsInconclusive) {
  // The answers to A's QP 0x13 begin before any request seen (207, 211): another QP's requests,
  // all sent before the capture began. A:0x11's stream (212, 213) is the only one seen, and
  // ACKs, which any request takes, pair them; the ACK of 214, which 0x11 never sent, is what
  // such a pairing produces, not the device's fault (corpus seed 5524 cut at frame 27).
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 212, 64);
  c.req(Opcode::RC_SEND_ONLY, 213, 64);
  std::uint32_t msn = 1;
  for (const std::uint32_t psn : {207u, 211u, 212u, 213u, 214u}) {
    wire::FrameSpec a = c.make(false, Opcode::RC_ACKNOWLEDGE, 0x13, psn);
    a.aeth = {0x1F, msn++};
    c.send(a);
  }
  const check::Report r = c.check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_unpaired_note(r, "only ACKs paired them")) << describe(r);
}

TEST(CheckMidCapture, WithTheStartShownAnAckPairingStillFails) {
  // The same ACK past what was sent, after a NAK for a first request that came late (211,
  // sent after 212): every answer has a request the capture shows, and the first ACK's MSN
  // shows the connection's start, so the pairing stands and the ACK of 214 fails.
  Conversation c;
  wire::FrameSpec nak = c.make(false, Opcode::RC_ACKNOWLEDGE, Conversation::kQpA, 211);
  nak.aeth = {0x60, 0};
  c.req(Opcode::RC_SEND_ONLY, 212, 64);
  c.send(nak);
  c.req(Opcode::RC_SEND_ONLY, 211, 64);
  c.ack(211, 1);
  c.ack(212, 2);
  c.req(Opcode::RC_SEND_ONLY, 213, 64);
  c.ack(213, 3);
  c.ack(214, 4);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckPsn), 1u) << describe(r);
}

TEST(CheckMidCapture, AReadAtTheFirstPsnSeenMayBeTheRestOfAnEarlierOne) {
  // The connection's first message was a READ of 257 bytes at 211 (path MTU 256), its FIRST
  // response before the capture; the requester re-requests the last byte at 212, and the
  // responder answers with the original's LAST and MSN 1, which is also what the start of a
  // connection whose first READ is at 212 would carry (corpus seed 2439 cut at frame 15). It
  // is judged as a resumed READ (the rxe deviation), not a wrong opcode.
  Conversation c;
  read_request(c, 212, 1);
  c.req(Opcode::RC_SEND_FIRST, 213, 256);  // shows the path MTU
  c.req(Opcode::RC_SEND_LAST, 214, 10);
  read_response(c, Opcode::RC_RDMA_READ_RESPONSE_LAST, 212, 1, 1);
  c.ack(214, 2);
  const check::Report r = c.check(strict());
  ASSERT_EQ(count(r, RuleId::ReadOpcode), 1u) << describe(r);
  EXPECT_EQ(testing::first_of(r, RuleId::ReadOpcode)->cause, "resumed_mid_read") << describe(r);
}

TEST(CheckMidCapture, APsnBeforeTheFirstSeenIsEarlierEvenWithTheStartShown) {
  // The connection's first request (1) was held up on the link and reached the tap after 3
  // and 4; 2 passed the tap before the capture began. The first ACK's MSN shows the start, yet
  // 2 was sent: not a PSN the responder accepted unsent (corpus seed 8752 cut at frame 25).
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 3, 64);
  c.req(Opcode::RC_SEND_ONLY, 4, 64);
  c.req(Opcode::RC_SEND_ONLY, 1, 64);
  for (std::uint32_t psn = 1; psn <= 4; ++psn) c.ack(psn, psn);
  const check::Report r = c.check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::PsnSequence), 0u) << describe(r);
}

// A:0x11's stream sends a WRITE at 207 and a SEND at 208; the answers to A's QP 0x13 are an
// ATOMIC ACKNOWLEDGE for 207 and an ACK for 208. With `unanswered`, the capture also shows
// answers to A's QP 0x14 at PSNs no stream sent (corpus seed 14516 cut at frame 8).
Conversation atomic_answer_to_a_write(bool unanswered, std::uint32_t first_msn = 1,
                                      bool resent = false) {
  Conversation c;
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 207, 64);
  w.reth = {0x3000, 7, 64};
  c.send(w);
  c.req(Opcode::RC_SEND_ONLY, 208, 64);
  answer(c, Opcode::RC_ATOMIC_ACKNOWLEDGE, 0x13, 207, first_msn);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x13, 208, first_msn + 1);
  if (unanswered) {
    answer(c, Opcode::RC_ACKNOWLEDGE, 0x14, 9'000'000, 4);
  }
  if (resent) {
    // The requester sends both again after their answers, as if it had none.
    c.send(w);
    c.req(Opcode::RC_SEND_ONLY, 208, 64);
  }
  return c;
}

TEST(CheckMidCapture, AContradictedPairingInACaptureMissingSomeRequestsIsInconclusive) {
  // Paired at the end with the one stream that sent PSNs 207 and 208, the ATOMIC ACKNOWLEDGE
  // answers a WRITE: wrong, unless another QP, whose requests the capture lacks (it shows
  // answers no stream accounts for), had those PSNs.
  const check::Report r = atomic_answer_to_a_write(true).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_unpaired_note(r, "did not send at their PSNs")) << describe(r);
}

TEST(CheckMidCapture, AContradictedPairingInACaptureThatBeginsMidConnectionIsInconclusive) {
  // The same answers with MSNs 5 and 6: four messages came before the capture, whose requests,
  // another QP's among them, it does not show (corpus seed 32829 cut at frame 31).
  const check::Report r = atomic_answer_to_a_write(false, 5).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_unpaired_note(r, "does not show the connection's start")) << describe(r);
}

TEST(CheckMidCapture, AContradictedPairingWhoseRequesterResendsWhatItWasAnsweredIsInconclusive) {
  // The answers show the connection's start, but QP 0x22's requester sends PSNs 207 and 208
  // again after them: they answered another QP, whose requests are not in the capture (corpus
  // seed 55400 cut at frame 12: a QP with no peer shares that QP's PSNs).
  const check::Report r = atomic_answer_to_a_write(false, 1, true).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_unpaired_note(r, "resent PSNs they had acknowledged")) << describe(r);
}

TEST(CheckMidCapture, AContradictedPairingInACaptureWithEveryRequestFails) {
  // The same answers, and no response the capture's requests do not account for: the device
  // answered a WRITE with an ATOMIC ACKNOWLEDGE.
  const check::Report r = atomic_answer_to_a_write(false).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AtomicResponse), 1u) << describe(r);
}

// The capture begins during a go-back-N over the connection's first messages (corpus seed
// 41243 cut at frame 52): the READ at 195 is resent and answered with MSN 1 (the start: a
// baseline of 0), then the SEND from 196, of which the responder had received through 198
// before; each resend is answered with an ACK of 198 and the MSN before the SEND (`msn_at_198`),
// until its LAST completes it.
Conversation go_back_over_the_start(std::uint32_t msn_at_198) {
  Conversation c;
  read_request(c, 195, 1024);
  read_response(c, Opcode::RC_RDMA_READ_RESPONSE_ONLY, 195, 1024, 1);
  c.req(Opcode::RC_SEND_FIRST, 196, 1024);
  c.ack(198, msn_at_198);
  c.req(Opcode::RC_SEND_MIDDLE, 197, 1024);
  c.ack(198, msn_at_198);
  c.req(Opcode::RC_SEND_MIDDLE, 198, 1024);
  c.ack(198, msn_at_198);
  c.req(Opcode::RC_SEND_LAST, 199, 100);
  c.ack(199, 2);
  return c;
}

TEST(CheckMidCapture, AGoBackOverTheFirstMessagesIsAGapNotAFail) {
  const check::Report r = go_back_over_the_start(1).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckPsn), 0u) << describe(r);
  EXPECT_TRUE(has_gap_note(r, "the capture began while the responder held requests"))
      << describe(r);
}

TEST(CheckMidCapture, AnAckAheadThatCompletesTheOpenMessageStillFails) {
  // The same ACK of 198 carrying MSN 2: the SEND would be complete before its LAST was sent.
  const check::Report r = go_back_over_the_start(2).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_GE(count(r, RuleId::AckPsn), 1u) << describe(r);
}

// A's requests at 197 and 198 (to B's QP 0x22), and answers to A's QP 0x14 by ACKs alone, one
// of them for 202, which 0x22's stream never sent; with `unanswered`, the capture also shows
// answers to QP 0x13 that no stream accounts for (corpus seeds 26599, 29067, 56200 and 56413
// cut mid-conversation: the requests of 0x14's own QP all came before the capture, with the
// PSNs of a QP whose peer never answers).
Conversation acks_past_the_stream(bool unanswered) {
  Conversation c;
  if (unanswered) {
    answer(c, Opcode::RC_ATOMIC_ACKNOWLEDGE, 0x13, 5000, 1);
    answer(c, Opcode::RC_ACKNOWLEDGE, 0x13, 5001, 2);
  }
  c.req(Opcode::RC_SEND_ONLY, 197, 64);
  c.req(Opcode::RC_SEND_ONLY, 198, 64);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x14, 197, 1);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x14, 198, 2);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x14, 202, 3);
  return c;
}

TEST(CheckMidCapture, AcksPastThePairedStreamInACaptureMissingSomeRequestsAreInconclusive) {
  const check::Report r = acks_past_the_stream(true).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_unpaired_note(r, "answer PSNs it never sent")) << describe(r);
}

TEST(CheckMidCapture, AcksPastThePairedStreamInACaptureWithEveryRequestFail) {
  // Every response accounted for: the device acknowledged a PSN never sent.
  const check::Report r = acks_past_the_stream(false).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckPsn), 1u) << describe(r);
}

TEST(CheckMidCapture, AnAckPastRequestsAfterALongReadIsNotTheReadsSpan) {
  // A READ of 4 KiB while the path MTU is unknown, then two more requests; the ACK of 215 shows
  // the responder had received past them (a SEND from 213, sent before the capture began).
  // Its PSN is within what the READ could span, but requests followed the READ: the ACK is the
  // opening's lead, and the SEND resent from 213, its MIDDLE at 215 lost before the tap, ends
  // at 216 (corpus seed 51134 cut at frame 22). Taken for the READ's span, 213 and 214 were
  // resends and the LAST at 216 a LAST without a FIRST.
  Conversation c;
  read_request(c, 210, 4096);
  c.req(Opcode::RC_SEND_ONLY, 211, 64);
  c.req(Opcode::RC_SEND_ONLY, 212, 64);
  c.ack(215, 4);
  c.req(Opcode::RC_SEND_FIRST, 213, 1024);
  c.req(Opcode::RC_SEND_MIDDLE, 214, 1024);
  c.req(Opcode::RC_SEND_LAST, 216, 100);
  c.ack(216, 5);
  const check::Report r = c.check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::SeqOpcode), 0u) << describe(r);
}

TEST(CheckMidCapture, AnAnswerAtAPsnBeforeTheFirstRequestSeenIsNotJudged) {
  // The first requests seen are at 102 and 103; a copy of the one at 98, sent before the
  // capture, comes late and the window grows back to it. The ATOMIC ACKNOWLEDGE for 100 answers
  // an atomic sent before the capture, which the tap never showed: not judged, like an answer
  // before the first PSN of the window (corpus seeds 69337 and 98910 cut mid-conversation).
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 102, 64);
  c.req(Opcode::RC_SEND_ONLY, 103, 64);
  c.req(Opcode::RC_SEND_ONLY, 98, 64);
  atomic_ack(c, 100, 3);
  c.ack(103, 5);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::AtomicResponse), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_gap_note(r, "answers a request sent before the capture")) << describe(r);
}

// The link reordered the requester's packets before the tap: the atomic at 410 overtook the
// WRITE at 409 and passed the tap before the capture began, while 409 and 411 came after (corpus
// seeds 37937, 63349 and 77361 cut mid-conversation). With `start`, an ACK of 409 carrying MSN
// 1 first shows the connection's start, and with it that the tap missed 410.
Conversation overtaken_atomic(bool start) {
  Conversation c;
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 409, 64);
  w.reth = {0x3000, 7, 64};
  c.send(w);
  if (start) c.ack(409, 1);
  c.req(Opcode::RC_SEND_ONLY, 411, 64);
  atomic_ack(c, 410, start ? 2 : 3);
  c.ack(411, start ? 3 : 4);
  return c;
}

TEST(CheckMidCapture, AnAnswerToARequestThatOvertookTheFirstOnesSeenIsNotJudged) {
  const check::Report r = overtaken_atomic(false).check(strict());
  EXPECT_EQ(count(r, RuleId::AtomicResponse), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_gap_note(r, "the capture does not show sent")) << describe(r);
}

TEST(CheckMidCapture, OnceTheStartIsShownAnAnswerToAnUnseenPsnIsJudged) {
  const check::Report r = overtaken_atomic(true).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AtomicResponse), 1u) << describe(r);
}

// The capture begins with a SEND at 377 and a NAK PSN sequence error for 376, and the go-back
// from 372 that follows; the responder had received through 375 before (the ACK of 375 shows
// it), and the zero-length READ at 374, resent, comes to the tap after 375's: a responder
// executes a repeated READ again, and answers it (corpus seeds 12905, 19387 and 63166 cut
// mid-conversation). With `write`, what came at 374 is a WRITE, which no READ response answers.
Conversation late_read_resend(bool write) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 377, 64);
  c.ack(376, 4, 0x60);  // NAK PSN sequence error
  atomic(c, Opcode::RC_FETCH_ADD, 372);
  atomic_ack(c, 372, 4);
  atomic(c, Opcode::RC_COMPARE_SWAP, 373);
  atomic_ack(c, 373, 4);
  c.req(Opcode::RC_SEND_FIRST, 375, 1024);
  c.ack(375, 4);
  if (write) {
    wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 374, 64);
    w.reth = {0x3000, 7, 64};
    c.send(w);
  } else {
    read_request(c, 374, 0);
  }
  read_response(c, Opcode::RC_RDMA_READ_RESPONSE_ONLY, 374, 0, 4);
  c.req(Opcode::RC_SEND_LAST, 376, 100);
  c.ack(376, 5);
  c.req(Opcode::RC_SEND_ONLY, 377, 64);
  c.ack(377, 6);
  return c;
}

TEST(CheckMidCapture, AReadResentAfterItsPsnWasAcknowledgedIsAnsweredAsARead) {
  const check::Report r = late_read_resend(false).check(strict());
  EXPECT_EQ(count(r, RuleId::ReadResponse), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
}

TEST(CheckMidCapture, AReadResponseToAWriteResentThereStillFails) {
  const check::Report r = late_read_resend(true).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::ReadResponse), 1u) << describe(r);
}

// The capture begins during a go-back-N from a READ of 4,095 bytes at 209 (path MTU unknown);
// the READ RESPONSE ONLY for 213, a READ sent before the go-back, comes late, and then the
// READ's own answer (corpus seed 85125 cut mid-conversation). An ONLY response past the READ's
// PSN begins another READ's answer: it is none of this READ's span, and the 4,096 bytes it
// carries are not this READ's length.
TEST(CheckMidCapture, AnOnlyResponsePastAReadIsNotItsSpan) {
  Conversation c;
  read_request(c, 209, 4095);
  read_response(c, Opcode::RC_RDMA_READ_RESPONSE_ONLY, 213, 4096, 5);
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 210, 64);
  w.reth = {0x3000, 7, 64};
  c.send(w);
  read_response(c, Opcode::RC_RDMA_READ_RESPONSE_ONLY, 209, 4095, 1);
  c.ack(210, 2);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::ReadLength), 0u) << describe(r);
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
}

}  // namespace
}  // namespace rocecert
