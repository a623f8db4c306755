// The golden replay (golden.response): the captured requests fed to the model's responder, each
// response of the device compared with the model's answer. What only the model's responder
// knows (a WRITE whose payload is not its DMA length, a misaligned atomic, an opcode sequence
// break) fails when the device answers otherwise; what the wire hides (the receive queue, loss
// after the tap, the MR table without --setup) is taken from the device, never failed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "conversation.h"
#include "rocecert/check/report_io.h"

namespace rocecert::testing {
namespace {

using check::RuleId;
using check::Verdict;
using wire::Opcode;

// A WRITE ONLY and its ACK.
Conversation write_only(std::uint32_t dmalen, std::uint32_t payload) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 1);
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 101, payload);
  w.reth = {0x1000, 7, dmalen};
  c.send(w);
  c.ack(101, 2);
  return c;
}

TEST(CheckGolden, EveryResponseOfACleanExchangeIsComparedAndAgrees) {
  const check::Report r = write_only(64, 64).check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenResponse), 2u);
  EXPECT_NE(replay_note(r).find("2 responses compared with the model's responder, 2 agreed"),
            std::string::npos)
      << replay_note(r);
}

TEST(CheckGolden, AWriteAckedThoughItsPayloadIsNotItsDmaLengthFails) {
  // IBA Vol. 1 §9.7.4: a WRITE ONLY carries exactly its DMA length; the responder NAKs it.
  const check::Report r = write_only(64, 32).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 1u) << describe(r);
  const check::Violation* v = first_of(r, RuleId::GoldenResponse);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->frame, 4u);
  EXPECT_NE(v->state.expected.find("NAK_INVALID_REQUEST"), std::string::npos) << v->state.expected;
}

TEST(CheckGolden, TheSameWriteNakedAsTheModelDoesPasses) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 1);
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 101, 32);
  w.reth = {0x1000, 7, 64};
  c.send(w);
  c.ack(101, 1, 0x61);  // NAK invalid request
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 0u) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenResponse), 2u);
}

TEST(CheckGolden, AMisalignedAtomicExecutedFails) {
  // IBA Vol. 1 §9.4.5: an atomic's VA is 8-byte aligned, else NAK invalid request.
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 1);
  wire::FrameSpec a = c.make(true, Opcode::RC_FETCH_ADD, Conversation::kQpB, 101);
  a.atomiceth = {0x2004, 9, 1, 0};
  c.send(a);
  wire::FrameSpec ack = c.make(false, Opcode::RC_ATOMIC_ACKNOWLEDGE, Conversation::kQpA, 101);
  ack.aeth = {0x1F, 2};
  c.send(ack);
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 1u) << describe(r);
}

TEST(CheckGolden, AnMsnThatJumpsFails) {
  Conversation c;
  for (std::uint32_t i = 0; i < 3; ++i) c.req(Opcode::RC_SEND_ONLY, 100 + i, 64);
  c.ack(100, 1);
  c.ack(101, 2);
  c.ack(102, 4);  // three messages: MSN 3
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 1u) << describe(r);
}

TEST(CheckGolden, AnRnrNakIsTheReceiveQueueSpeakingAndTheRetryIsCompared) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 1);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.ack(101, 1, 0x20 | 1);  // RNR NAK, timer code 1 (0.01 ms)
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.frames().back().ts += 1'000'000;
  c.ack(101, 2);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenResponse), 3u);
  EXPECT_NE(replay_note(r).find("RNR NAK"), std::string::npos) << replay_note(r);
}

TEST(CheckGolden, ARequestLostAfterTheTapIsASequenceNakNotAFailure) {
  // The tap sits before the loss: it shows PSN 101, which the responder never got.
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.req(Opcode::RC_SEND_ONLY, 102, 64);
  c.ack(100, 1);
  c.ack(101, 1, 0x60);  // NAK PSN sequence error: 101 expected
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.req(Opcode::RC_SEND_ONLY, 102, 64);
  c.ack(102, 3);
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 0u);
  EXPECT_NE(replay_note(r).find("lost after the tap"), std::string::npos) << replay_note(r);
}

// The tap shows PSN 103 before 102, with no response between them, and the responder's ACKs
// say it took them in order: a link after the tap (or the tap itself) reordered them. The ACK of
// 101 agreeing, before, does not settle that: only an answer at 103 or later does.
Conversation swapped_on_the_tap() {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 1);
  c.req(Opcode::RC_SEND_ONLY, 101, 64);
  c.req(Opcode::RC_SEND_ONLY, 103, 64);
  c.req(Opcode::RC_SEND_ONLY, 102, 64);
  c.ack(101, 2);
  c.ack(103, 4);
  return c;
}

TEST(CheckGolden, RequestsTheTapShowsSwappedThatTheResponderTookInOrderAreNotFailed) {
  const check::Report r = swapped_on_the_tap().check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 0u) << describe(r);
}

TEST(CheckGolden, AnAnswerAfterTheSwapIsSettledIsJudgedAgain) {
  Conversation c = swapped_on_the_tap();
  c.req(Opcode::RC_SEND_ONLY, 104, 64);
  c.ack(104, 5);
  c.req(Opcode::RC_SEND_ONLY, 105, 64);
  c.ack(105, 7);  // one message: MSN 6
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 1u) << describe(r);
  const check::Violation* v = first_of(r, RuleId::GoldenResponse);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->frame, c.frames().size());
}

TEST(CheckGolden, WithoutSetupARemoteAccessNakIsTheDevicesKeyTable) {
  Conversation c;
  wire::FrameSpec w = c.make(true, Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 100, 64);
  w.reth = {0x1000, 7, 64};
  c.send(w);
  c.ack(100, 0, 0x62);  // NAK remote access error
  const check::Report r = c.check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 0u) << describe(r);
  EXPECT_NE(replay_note(r).find("without --setup"), std::string::npos) << replay_note(r);
}

TEST(CheckGolden, ReadResponsesAreComparedPacketByPacket) {
  auto read = [](std::uint32_t last_len) {
    Conversation c;
    c.read_three(100, 2048 + 100, last_len, 1);
    // The path MTU shows on a multi-packet request as well.
    c.req(Opcode::RC_SEND_FIRST, 103, 1024);
    c.req(Opcode::RC_SEND_LAST, 104, 8);
    c.ack(104, 2);
    return c.check(strict());
  };
  const check::Report good = read(100);
  EXPECT_EQ(good.verdict, Verdict::PASS) << describe(good);
  EXPECT_EQ(checked(good, RuleId::GoldenResponse), 4u);
  const check::Report bad = read(96);
  EXPECT_EQ(count(bad, RuleId::GoldenResponse), 1u) << describe(bad);
}

// A READ of 2^31 bytes would have the model build 8 M response packets at MTU 256 (a hostile
// capture's one frame): it is not replayed, the replay starts again after it, and says so.
TEST(CheckGolden, AReadBeyondTheReplaysWindowIsNotReplayed) {
  Conversation c;
  c.req(Opcode::RC_SEND_ONLY, 100, 64);
  c.ack(100, 1);
  wire::FrameSpec rq = c.make(true, Opcode::RC_RDMA_READ_REQUEST, Conversation::kQpB, 101);
  rq.reth = {0x1000, 7, 0x8000'0000u};
  c.send(rq);
  wire::FrameSpec f =
      c.make(false, Opcode::RC_RDMA_READ_RESPONSE_FIRST, Conversation::kQpA, 101, 1024);
  f.aeth = {0, 2};
  c.send(f);
  const check::Report r = c.check(strict());
  EXPECT_NE(replay_note(r).find("beyond the replay's window"), std::string::npos) << describe(r);
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 0u) << describe(r);
}

TEST(CheckGolden, OffSwitchLeavesTheRuleUnchecked) {
  check::Options o;
  o.profile = strict();
  o.golden = false;
  check::Checker k(o);
  Conversation c = write_only(64, 32);
  std::uint64_t n = 0;
  for (const Conversation::Frame& f : c.frames())
    k.add_frame(++n, f.ts, static_cast<std::uint32_t>(f.bytes.size()), f.bytes,
                wire::LinkType::Ethernet);
  const check::Report r = k.finish("off");
  EXPECT_EQ(checked(r, RuleId::GoldenResponse), 0u);
}

// golden.request: a WRITE of `dmalen` bytes at MTU 1024 sent as the packets `payloads`.
Conversation write_message(std::uint32_t dmalen, const std::vector<std::uint32_t>& payloads) {
  Conversation c;
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    const bool first = i == 0, last = i + 1 == payloads.size();
    const Opcode op = first && last ? Opcode::RC_RDMA_WRITE_ONLY
                      : first       ? Opcode::RC_RDMA_WRITE_FIRST
                      : last        ? Opcode::RC_RDMA_WRITE_LAST
                                    : Opcode::RC_RDMA_WRITE_MIDDLE;
    wire::FrameSpec w =
        c.make(true, op, Conversation::kQpB, 100 + static_cast<std::uint32_t>(i), payloads[i]);
    if (first) w.reth = {0x1000, 7, dmalen};
    c.send(w);
  }
  return c;
}

TEST(CheckGolden, AMessageSegmentedAsTheModelDoesAgrees) {
  const check::Report r = write_message(3000, {1024, 1024, 952}).check(strict());
  EXPECT_EQ(checked(r, RuleId::GoldenRequest), 1u);
  EXPECT_EQ(count(r, RuleId::GoldenRequest), 0u) << describe(r);
}

TEST(CheckGolden, AWriteShorterThanItsRethFailsTheRequesterReplay) {
  // Each packet on its own is well formed (FIRST at the MTU, LAST within it); together they
  // carry 2024 of the 3000 bytes the RETH announces: the model sends FIRST, MIDDLE, LAST.
  const check::Report r = write_message(3000, {1024, 1000}).check(strict());
  EXPECT_EQ(count(r, RuleId::GoldenRequest), 1u) << describe(r);
  const check::Violation* v = first_of(r, RuleId::GoldenRequest);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("RC_RDMA_WRITE_MIDDLE PSN 0x000065 with 1024 bytes"), std::string::npos)
      << v->message;
}

// With two jobs the replay runs on a thread of its own; what it finds reaches the report at the
// end in the order it was found, so the report is the one a single thread writes.
check::Report run(Conversation& c, unsigned jobs, bool finish = true) {
  check::Options o;
  o.profile = strict();
  o.jobs = jobs;
  check::Checker k(o);
  std::uint64_t n = 0;
  for (int copy = 0; copy < 3; ++copy)
    for (const Conversation::Frame& f : c.frames())
      k.add_frame(++n, f.ts, static_cast<std::uint32_t>(f.bytes.size()), f.bytes,
                  wire::LinkType::Ethernet);
  if (!finish) return {};
  return k.finish("jobs");
}

TEST(CheckGolden, ALongConnectionWithRequestsInFlightAgreesPastTheAnswerWindow) {
  // 20,000 SEND ONLYs across the PSN wrap, 64 at a time, each batch ACKed (coalesced) only after
  // the next batch was sent, as a pipelining requester's traffic reaches the tap. The replay
  // remembers the model's answers for a window of 4,096 PSNs: when it slides, the answers to
  // the batch still waiting for its ACK must stay (they were once all forgotten there: a false
  // golden.response FAIL on every connection past 4,096 PSNs).
  Conversation c;
  constexpr std::uint32_t kFirst = 0xFFFFFF - 1000, kBatch = 64, kBatches = 20000 / kBatch;
  std::uint32_t msn = 0;
  for (std::uint32_t b = 0; b <= kBatches; ++b) {
    if (b < kBatches)
      for (std::uint32_t i = 0; i < kBatch; ++i)
        c.req(Opcode::RC_SEND_ONLY, kFirst + b * kBatch + i, 16);
    if (b > 0) {
      msn += kBatch;
      c.ack(kFirst + b * kBatch - 1, msn);
    }
  }
  const check::Report r = c.check(strict());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  EXPECT_EQ(checked(r, RuleId::GoldenResponse), kBatches);
  EXPECT_NE(replay_note(r).find(fmt::format("{0} responses compared with the model's responder, "
                                            "{0} agreed",
                                            kBatches)),
            std::string::npos)
      << replay_note(r);
}

TEST(CheckGolden, TheReplayOnItsOwnThreadGivesTheSameReport) {
  Conversation c = write_only(64, 32);
  const check::Report one = run(c, 1), two = run(c, 2);
  EXPECT_EQ(count(two, RuleId::GoldenResponse), 1u) << describe(two);
  std::ostringstream a, b;
  check::write_json(one, a);
  check::write_json(two, b);
  EXPECT_EQ(a.str(), b.str());
  // A checker dropped before the capture ends stops its thread first.
  run(c, 2, false);
}

}  // namespace
}  // namespace rocecert::testing
