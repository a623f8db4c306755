// golden.requester: the model's requester replayed in lockstep on the messages and responses a
// capture shows (conformance/check/golden_requester.h). Correct go-back-N, READ resumption and
// timeout resends agree with it; a resend that differs from what the model sends at that PSN
// fails.
#include <gtest/gtest.h>

#include <string>

#include "conversation.h"

namespace rocecert::testing {
namespace {

using check::RuleId;
using check::Verdict;
using wire::Opcode;

std::string requester_note(const check::Report& r) {
  return replay_note(r, "golden requester replay:");
}

// A SEND of three packets (MTU 1024) whose MIDDLE is lost before the tap (or after it,
// `tap_saw_middle`): the responder NAKs it and the requester goes back to it. `resent_middle`:
// the MIDDLE's payload in the resend. `small_before`: one-packet SENDs of 64 bytes, each ACKed,
// ahead of it (the SEND then starts at PSN 100 + small_before; at 0 its MIDDLE is PSN 101).
Conversation send_with_loss(std::uint32_t resent_middle, bool tap_saw_middle = false,
                            std::uint32_t small_before = 0) {
  Conversation c;
  std::uint32_t psn = 100;
  for (std::uint32_t i = 0; i < small_before; ++i, ++psn) {
    c.req(Opcode::RC_SEND_ONLY, psn, 64);
    c.ack(psn, i + 1);
  }
  c.req(Opcode::RC_SEND_FIRST, psn, 1024);
  if (tap_saw_middle) c.req(Opcode::RC_SEND_MIDDLE, psn + 1, 1024);
  c.req(Opcode::RC_SEND_LAST, psn + 2, 8);
  c.ack(psn + 1, small_before, 0x60);  // NAK PSN sequence error: expecting the MIDDLE
  c.req(Opcode::RC_SEND_MIDDLE, psn + 1, resent_middle);
  c.req(Opcode::RC_SEND_LAST, psn + 2, 8);
  c.ack(psn + 2, small_before + 1);
  return c;
}

TEST(CheckGoldenRequester, AGoBackNAfterASequenceNakAgreesWithTheModel) {
  const check::Report r = send_with_loss(1024).check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenRequester), 2u) << describe(r);  // the two resends
  const std::string note = requester_note(r);
  EXPECT_NE(note.find("4 requests compared with the model's requester (1 messages posted), 4 "
                      "agreed; 1 model packets taken as lost before the tap"),
            std::string::npos)
      << note;
}

TEST(CheckGoldenRequester, AResendWithAnotherLengthFails) {
  // The MIDDLE resent with 512 bytes: the first transmission, which the tap showed, has 1024.
  const check::Report r = send_with_loss(512, true).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  const check::Violation* v = first_of(r, RuleId::GoldenRequester);
  ASSERT_NE(v, nullptr) << describe(r);
  EXPECT_EQ(v->frame, 5u);
  EXPECT_NE(v->state.expected.find("RC_SEND_MIDDLE PSN 0x000065 with 1024 bytes"),
            std::string::npos)
      << v->state.expected;
}

// A READ of 2148 bytes (three responses at MTU 1024) whose MIDDLE response is lost before the
// tap: the LAST response shows the gap (an implied NAK) and the requester asks again for the
// rest, from PSN 101: VA + 1024, 1124 bytes (IBA Vol. 1 §9.7.5.2; docs/spec-notes.md §5.3).
Conversation read_resumed(std::uint64_t resumed_va) {
  Conversation c;
  wire::FrameSpec rq = c.make(true, Opcode::RC_RDMA_READ_REQUEST, Conversation::kQpB, 100);
  rq.reth = {0x1000, 7, 2148};
  c.send(rq);
  wire::FrameSpec f =
      c.make(false, Opcode::RC_RDMA_READ_RESPONSE_FIRST, Conversation::kQpA, 100, 1024);
  f.aeth = {0x1F, 1};
  c.send(f);
  wire::FrameSpec l =
      c.make(false, Opcode::RC_RDMA_READ_RESPONSE_LAST, Conversation::kQpA, 102, 100);
  l.aeth = {0x1F, 1};
  c.send(l);
  wire::FrameSpec again = c.make(true, Opcode::RC_RDMA_READ_REQUEST, Conversation::kQpB, 101);
  again.reth = {resumed_va, 7, 1124};
  c.send(again);
  c.send(c.make(false, Opcode::RC_RDMA_READ_RESPONSE_FIRST, Conversation::kQpA, 101, 1024));
  wire::FrameSpec l2 =
      c.make(false, Opcode::RC_RDMA_READ_RESPONSE_LAST, Conversation::kQpA, 102, 100);
  l2.aeth = {0x1F, 2};
  c.send(l2);
  return c;
}

TEST(CheckGoldenRequester, AReadResumedWhereItsResponsesStoppedAgrees) {
  const check::Report r = read_resumed(0x1000 + 1024).check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenRequester), 0u) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenRequester), 1u) << describe(r);
  EXPECT_NE(requester_note(r).find("2 agreed"), std::string::npos) << requester_note(r);
}

TEST(CheckGoldenRequester, AReadResumedAtTheWrongAddressFails) {
  const check::Report r = read_resumed(0x1000).check(strict());
  const check::Violation* v = first_of(r, RuleId::GoldenRequester);
  ASSERT_NE(v, nullptr) << describe(r);
  EXPECT_EQ(v->frame, 4u);
  EXPECT_NE(v->message.find("RETH va 0x1400 rkey 0x7 length 1124"), std::string::npos)
      << v->message;
}

TEST(CheckGoldenRequester, AResendWithNoNakIsATimeoutTheModelMakesToo) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  // No response for a while: the requester's timer goes back to PSN 100.
  wire::FrameSpec s = c.make(true, Opcode::RC_SEND_ONLY, Conversation::kQpB, 100, 64);
  c.send(s, 20'000'000);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.ack(101, 2);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenRequester), 0u) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenRequester), 2u) << describe(r);
  EXPECT_NE(requester_note(r).find("1 go-backs with no NAK"), std::string::npos)
      << requester_note(r);
}

TEST(CheckGoldenRequester, AWriteResentWithAnotherKeyFails) {
  Conversation c;
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 100, 64);
  w.reth = {0x2000, 9, 64};
  c.send(w);
  w.reth.rkey = 10;
  c.send(w, 20'000'000);
  c.ack(100, 1);
  const check::Report r = c.check(strict());
  const check::Violation* v = first_of(r, RuleId::GoldenRequester);
  ASSERT_NE(v, nullptr) << describe(r);
  EXPECT_EQ(v->frame, 2u);
  EXPECT_NE(v->state.expected.find("rkey 0x9"), std::string::npos) << v->state.expected;
}

// The tap saw the ACK, the requester did not (lost after the tap): its timeout resend of an
// acknowledged PSN is compared with what the model sent there, and the model does not go back.
Conversation write_acked_then_resent(std::uint32_t resent_rkey) {
  Conversation c;
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 100, 64);
  w.reth = {0x2000, 9, 64};
  c.send(w);
  c.ack(100, 1);
  w.reth.rkey = resent_rkey;
  w.ip.id += 7;  // a resend, not a copy of the same frame
  c.send(w, 20'000'000);
  c.ack(100, 1);
  c.req(Opcode::RC_SEND_ONLY, 101, 8);
  c.ack(101, 2);
  return c;
}

TEST(CheckGoldenRequester, AResendOfAnAcknowledgedPsnIsComparedWithWhatTheModelSent) {
  const check::Report r = write_acked_then_resent(9).check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenRequester), 0u) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenRequester), 1u) << describe(r);
  const std::string note = requester_note(r);
  EXPECT_NE(note.find("3 agreed; 1 resends of PSNs the tap's responses had acknowledged"),
            std::string::npos)
      << note;
  EXPECT_EQ(note.find("resync"), std::string::npos) << note;
  const check::Report bad = write_acked_then_resent(10).check(strict());
  const check::Violation* v = first_of(bad, RuleId::GoldenRequester);
  ASSERT_NE(v, nullptr) << describe(bad);
  EXPECT_EQ(v->frame, 3u);
}

// 300 small SENDs (more than the replay waits for the path MTU), then send_with_loss's SEND:
// the model took the small ones at a guessed MTU, learns 1024 from the FIRST and replays the
// go-back-N without starting again.
TEST(CheckGoldenRequester, ThePathMtuLearntAfterSmallMessagesIsTakenInPlace) {
  const check::Report r = send_with_loss(1024, false, 300).check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenRequester), 2u) << describe(r);  // the two resends
  const std::string note = requester_note(r);
  EXPECT_EQ(note.find("resync"), std::string::npos) << note;
  EXPECT_NE(note.find("(301 messages posted)"), std::string::npos) << note;
  // And a resend that differs from the first transmission is caught there too.
  const check::Report bad = send_with_loss(512, true, 300).check(strict());
  const check::Violation* v = first_of(bad, RuleId::GoldenRequester);
  ASSERT_NE(v, nullptr) << describe(bad);
  EXPECT_NE(v->state.expected.find("with 1024 bytes"), std::string::npos) << v->state.expected;
}

TEST(CheckGoldenRequester, OffSwitchLeavesTheRuleUnchecked) {
  check::Options o;
  o.profile = strict();
  o.golden = false;
  const check::Report r = send_with_loss(512, true).check(o);
  EXPECT_EQ(checked(r, RuleId::GoldenRequester), 0u);
  EXPECT_EQ(count(r, RuleId::GoldenRequester), 0u);
}

}  // namespace
}  // namespace rocecert::testing
