// FLUSH and ATOMIC WRITE (IBA release 1.5) through the checker: each is one request packet
// answered by an empty RDMA READ RESPONSE ONLY at its PSN (docs/spec-notes.md §2.1). Correct
// traffic passes every rule and both golden replays; a response of the wrong shape, a response
// at a PSN no FLUSH holds, and a resend that differs from the model's fail.
#include <gtest/gtest.h>

#include <string>

#include "conversation.h"

namespace rocecert::testing {
namespace {

using check::RuleId;
using check::Verdict;
using wire::Opcode;

// A FLUSH (global placement, range) at PSN 100 and an ATOMIC WRITE at 101 from A.
struct Placements {
  std::uint8_t resent_placement = 1;  // the FLUSH's FETH placement type in its resend
  bool resend = false;                // both resent after a timeout before any answer
  Opcode flush_answer = Opcode::RC_RDMA_READ_RESPONSE_ONLY;
  std::uint32_t flush_answer_bytes = 0;
};

Conversation placements(const Placements& o) {
  Conversation c;
  auto flush = [&](std::uint8_t placement, std::int64_t gap) {
    wire::FrameSpec f = c.make(true, Opcode::RC_FLUSH, Conversation::kQpB, 100);
    f.reth = {0x1000, 7, 4096};
    f.feth = {placement, 0};
    c.send(f, gap);
  };
  auto atomic_write = [&] {
    wire::FrameSpec w = c.make(true, Opcode::RC_ATOMIC_WRITE, Conversation::kQpB, 101, 8);
    w.reth = {0x2000, 7, 8};
    c.send(w);
  };
  flush(1, 10'000);
  atomic_write();
  if (o.resend) {
    // No answer for a while: the requester's timer goes back to PSN 100.
    flush(o.resent_placement, 20'000'000);
    atomic_write();
  }
  wire::FrameSpec r = c.make(false, o.flush_answer, Conversation::kQpA, 100, o.flush_answer_bytes);
  r.aeth = {0x1F, 1};
  c.send(r);
  wire::FrameSpec r2 = c.make(false, Opcode::RC_RDMA_READ_RESPONSE_ONLY, Conversation::kQpA, 101);
  r2.aeth = {0x1F, 2};
  c.send(r2);
  return c;
}

TEST(CheckPlacement, AFlushAndAnAtomicWriteAnsweredByEmptyReadResponsesPass) {
  const check::Report r = placements({}).check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::ReadLength), 2u) << describe(r);
  EXPECT_GT(checked(r, RuleId::GoldenResponse), 0u) << describe(r);
  EXPECT_NE(replay_note(r).find("2 agreed"), std::string::npos) << replay_note(r);
  EXPECT_NE(replay_note(r, "golden requester replay:").find("2 messages posted"), std::string::npos)
      << replay_note(r, "golden requester replay:");
}

TEST(CheckPlacement, ResentAfterATimeoutTheyAgreeWithTheModelsRequester) {
  Placements o;
  o.resend = true;
  const check::Report r = placements(o).check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenRequester), 2u) << describe(r);
  EXPECT_EQ(count(r, RuleId::GoldenRequester), 0u) << describe(r);
}

TEST(CheckPlacement, AFlushResentWithAnotherPlacementFails) {
  Placements o;
  o.resend = true;
  o.resent_placement = 2;  // persistent, where the first transmission asked for global
  const check::Report r = placements(o).check(strict());
  const check::Violation* v = first_of(r, RuleId::GoldenRequester);
  ASSERT_NE(v, nullptr) << describe(r);
  EXPECT_EQ(v->frame, 3u);
  EXPECT_NE(v->state.expected.find("FETH placement 1"), std::string::npos) << v->state.expected;
}

TEST(CheckPlacement, AnAnswerWithPayloadFails) {
  Placements o;
  o.flush_answer_bytes = 8;
  const check::Report r = placements(o).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  const check::Violation* v = first_of(r, RuleId::ReadLength);
  ASSERT_NE(v, nullptr) << describe(r);
  EXPECT_EQ(v->cause, "placement");
  EXPECT_EQ(v->frame, 3u);
}

TEST(CheckPlacement, AnAnswerThatIsNotOnlyFails) {
  Placements o;
  o.flush_answer = Opcode::RC_RDMA_READ_RESPONSE_LAST;
  const check::Report r = placements(o).check(strict());
  const check::Violation* v = first_of(r, RuleId::ReadOpcode);
  ASSERT_NE(v, nullptr) << describe(r);
  EXPECT_EQ(v->cause, "placement");
}

// An ATOMIC WRITE is an access of the REMOTE_WRITE kind for the key rules: granted once, the
// same rkey and range refused later with no invalidation between is key.static's violation.
TEST(CheckPlacement, AnAtomicWriteGrantedThenRefusedBreaksTheStaticKeyTable) {
  Conversation c;
  auto atomic_write = [&](std::uint32_t psn) {
    wire::FrameSpec w = c.make(true, Opcode::RC_ATOMIC_WRITE, Conversation::kQpB, psn, 8);
    w.reth = {0x2000, 7, 8};
    c.send(w);
  };
  atomic_write(100);
  wire::FrameSpec r = c.make(false, Opcode::RC_RDMA_READ_RESPONSE_ONLY, Conversation::kQpA, 100);
  r.aeth = {0x1F, 1};
  c.send(r);
  atomic_write(101);
  c.ack(101, 1, 0x62);  // NAK remote access error
  const check::Report rep = c.check(strict());
  const check::Violation* v = first_of(rep, RuleId::KeyStatic);
  ASSERT_NE(v, nullptr) << describe(rep);
  EXPECT_EQ(v->frame, 4u);
}

// A FLUSH is an access of its own kind for the key rules, one right per placement it asks
// (docs/spec-notes.md §8.4): FLUSHes at PSN 100 and 101, the first answered by an empty READ
// RESPONSE ONLY, the second by `second_answer` (an AETH syndrome: 0x62 a NAK remote access error).
check::Report two_flushes(std::uint8_t first_placement, std::uint64_t second_va,
                          std::uint32_t second_len, std::uint8_t second_placement,
                          bool second_whole_region, std::uint8_t second_answer = 0x62) {
  Conversation c;
  wire::FrameSpec f = c.make(true, Opcode::RC_FLUSH, Conversation::kQpB, 100);
  f.reth = {0x1000, 7, 4096};
  f.feth = {first_placement, 0};
  c.send(f);
  wire::FrameSpec r = c.make(false, Opcode::RC_RDMA_READ_RESPONSE_ONLY, Conversation::kQpA, 100);
  r.aeth = {0x1F, 1};
  c.send(r);
  wire::FrameSpec g = c.make(true, Opcode::RC_FLUSH, Conversation::kQpB, 101);
  g.reth = {second_va, 7, second_len};
  g.feth = {second_placement, static_cast<std::uint8_t>(second_whole_region ? 1 : 0)};
  c.send(g);
  if (second_answer == 0x1F) {
    wire::FrameSpec r2 = c.make(false, Opcode::RC_RDMA_READ_RESPONSE_ONLY, Conversation::kQpA, 101);
    r2.aeth = {0x1F, 2};
    c.send(r2);
  } else {
    c.ack(101, 1, second_answer);
  }
  return c.check(strict());
}

TEST(CheckPlacement, AFlushGrantedThenRefusedInsideItsRangeBreaksTheKeyTable) {
  // Global visibility on [0x1000, +4096) granted, then on [0x1800, +16) refused.
  check::Report r = two_flushes(1, 0x1800, 16, 1, false);
  const check::Violation* v = first_of(r, RuleId::KeyStatic);
  ASSERT_NE(v, nullptr) << describe(r);
  EXPECT_EQ(v->frame, 4u);
  EXPECT_NE(v->message.find("FLUSH"), std::string::npos) << v->message;
  EXPECT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);
  // A zero-length FLUSH is key-checked too.
  r = two_flushes(1, 0x1800, 0, 1, false);
  EXPECT_EQ(count(r, RuleId::KeyStatic), 1u) << describe(r);
  EXPECT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);
  // One flushing the whole region is not saved by its range.
  r = two_flushes(1, 0x9000, 16, 1, true);
  EXPECT_EQ(count(r, RuleId::KeyStatic), 1u) << describe(r);
  EXPECT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);
}

TEST(CheckPlacement, AFlushRefusedForAnotherRightOrOutsideTheRangeIsExplained) {
  // Persistence refused where global visibility was granted: the key may lack that right.
  check::Report r = two_flushes(1, 0x1800, 16, 2, false);
  EXPECT_EQ(count(r, RuleId::KeyStatic), 0u) << describe(r);
  EXPECT_EQ(count(r, RuleId::Z3Key), 0u) << describe(r);
  EXPECT_GT(checked(r, RuleId::Z3Key), 0u) << describe(r);
  // Refused past the range granted: the region may end there.
  r = two_flushes(1, 0x2000, 16, 1, false);
  EXPECT_EQ(count(r, RuleId::KeyStatic), 0u) << describe(r);
  EXPECT_EQ(count(r, RuleId::Z3Key), 0u) << describe(r);
  // Granted both times: nothing to say, the FLUSHes pass.
  r = two_flushes(1, 0x1800, 16, 1, true, 0x1F);
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::KeyStatic), 2u) << describe(r);
}

TEST(CheckPlacement, AnEmptyReadResponseAtTheSendsPsnStillFails) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 8);
  wire::FrameSpec r = c.make(false, Opcode::RC_RDMA_READ_RESPONSE_ONLY, Conversation::kQpA, 100);
  r.aeth = {0x1F, 1};
  c.send(r);
  const check::Report rep = c.check(strict());
  const check::Violation* v = first_of(rep, RuleId::ReadResponse);
  ASSERT_NE(v, nullptr) << describe(rep);
  EXPECT_EQ(v->cause, "no_request");
}

}  // namespace
}  // namespace rocecert::testing
