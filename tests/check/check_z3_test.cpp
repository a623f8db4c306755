// The z3.* rules of `rocecert check` (docs/proofs.md "Trace invariants"): what Z3 finds over a
// whole connection that no rule comparing two accesses can, the expected-PSN history (z3.psn,
// with its C++ twin ack.epsn) against a responder going back and a network reordering, and
// --no-z3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "conversation.h"

namespace rocecert::testing {
namespace {

using check::RuleId;

// Two WRITEs granted side by side, then one across their seam refused: each pair of the three is
// explainable (key.static compares pairs), the three together are not, since an rkey names one
// contiguous region.
Conversation seam() {
  Conversation c;
  std::uint32_t psn = 100;
  for (const std::uint64_t va : {4096ull, 4096ull + 64, 4096ull + 32}) {
    wire::FrameSpec w = c.make(true, wire::Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, psn, 64);
    w.reth = {va, 7, 64};
    c.send(w);
    if (va == 4096 + 32)
      c.ack(psn, psn - 100, 0x62);  // the MSN of the last message completed
    else
      c.ack(psn, psn - 99, 0x1f);
    ++psn;
  }
  return c;
}

check::Report run(Conversation c, bool z3) {
  check::Options o;
  o.profile = check::load_profile("rxe");
  o.z3 = z3;
  check::Checker k(o);
  std::uint64_t n = 0;
  for (const Conversation::Frame& f : c.frames())
    k.add_frame(++n, f.ts, static_cast<std::uint32_t>(f.bytes.size()), f.bytes,
                wire::LinkType::Ethernet);
  return k.finish("seam");
}

TEST(CheckZ3, ARefusalAcrossTwoGrantsHasNoKeyTable) {
  const check::Report r = run(seam(), true);
  EXPECT_EQ(r.verdict, check::Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::KeyStatic), 0u) << describe(r);
  ASSERT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);
  const check::Violation& v = *std::find_if(r.violations.begin(), r.violations.end(),
                                            [](const auto& x) { return x.rule == RuleId::Z3Key; });
  EXPECT_EQ(v.cause, "no_table");
  EXPECT_EQ(v.frame, 6u);  // the NAK: where the contradiction is complete
  // The minimal core: all three accesses, by their frames.
  for (const char* part : {"of frame 1 with rkey 0x7 on [0x1000, +64) granted at frame 2",
                           "of frame 3 with rkey 0x7 on [0x1040, +64) granted at frame 4",
                           "of frame 5 with rkey 0x7 on [0x1020, +64) refused at frame 6"})
    EXPECT_NE(v.message.find(part), std::string::npos) << v.message;
}

TEST(CheckZ3, NoZ3SkipsTheRules) {
  const check::Report r = run(seam(), false);
  EXPECT_EQ(r.verdict, check::Verdict::PASS) << describe(r);
  EXPECT_EQ(r.rules[static_cast<std::size_t>(RuleId::Z3Key)].checked, 0u);
  EXPECT_EQ(r.rules[static_cast<std::size_t>(RuleId::Z3Psn)].checked, 0u);
}

// SENDs 10-12 one at a time, each ACKed; then 13 and 14, and a NAK PSN sequence error carrying
// `nak_psn` after 14. With 13: the NAK a lost 13 sets off (correct). With 11: the responder's
// expected PSN went back: the ACK of 11 left the responder before 12 was even sent.
Conversation stop_and_wait(std::uint32_t nak_psn) {
  Conversation c;
  for (std::uint32_t psn = 10; psn <= 12; ++psn) {
    c.req(wire::Opcode::RC_SEND_ONLY, psn, 64);
    c.ack(psn, psn - 9);
  }
  c.req(wire::Opcode::RC_SEND_ONLY, 13, 64);
  c.req(wire::Opcode::RC_SEND_ONLY, 14, 64);
  c.ack(nak_psn, nak_psn - 10, 0x60);
  return c;
}

TEST(CheckZ3, ExpectedPsnMovingBackIsCaughtByBothAndNamed) {
  const check::Report ok = run(stop_and_wait(13), true);
  EXPECT_EQ(count(ok, RuleId::AckEpsn), 0u) << describe(ok);
  EXPECT_EQ(count(ok, RuleId::Z3Psn), 0u) << describe(ok);
  EXPECT_GT(ok.rules[static_cast<std::size_t>(RuleId::Z3Psn)].checked, 0u);

  const check::Report r = run(stop_and_wait(11), true);
  EXPECT_EQ(r.verdict, check::Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckEpsn), 1u) << describe(r);
  ASSERT_EQ(count(r, RuleId::Z3Psn), 1u) << describe(r);
  const check::Violation& v = *std::find_if(r.violations.begin(), r.violations.end(),
                                            [](const auto& x) { return x.rule == RuleId::Z3Psn; });
  EXPECT_EQ(v.cause, "no_history");
  EXPECT_EQ(v.frame, 9u);  // the NAK
  // The minimal core: the NAK, set off no earlier than the first request after PSN 11 (12, at
  // frame 5), and the ACK of 11 the tap showed before that request.
  EXPECT_NE(v.message.find("ACK of PSN 0x00000b at frame 4"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("NAK PSN sequence error at frame 9 carrying expected PSN 0x00000b, "
                           "set off no earlier than the request of frame 5"),
            std::string::npos)
      << v.message;
  EXPECT_EQ(v.message.find("frame 6"), std::string::npos) << v.message;
}

TEST(CheckZ3, ANakTheNetworkDelayedIsNoViolation) {
  // 10 and 11 sent back to back; 10 lost on the way: the responder NAKs 10 on 11; the resend of
  // 10 and 11 are ACKed; the NAK reaches the tap only after the ACK of 11 (reordered). Sent
  // before that ACK, set off by the first 11: nothing moved back.
  Conversation c;
  c.req(wire::Opcode::RC_SEND_ONLY, 10, 64);
  c.req(wire::Opcode::RC_SEND_ONLY, 11, 64);
  c.req(wire::Opcode::RC_SEND_ONLY, 10, 64);
  c.req(wire::Opcode::RC_SEND_ONLY, 11, 64);
  c.ack(11, 2);
  c.ack(10, 0, 0x60);
  const check::Report r = run(c, true);
  EXPECT_EQ(count(r, RuleId::AckEpsn), 0u) << describe(r);
  EXPECT_EQ(count(r, RuleId::Z3Psn), 0u) << describe(r);
}

// On every vector's pcap (vectors/**, the model's traffic for every packet type, transition,
// NAK and bug class), each Z3 invariant fails exactly when the C++ rules over the same facts
// fail: z3.key with key.static, z3.psn with ack.epsn or psn.window, z3.arbitration with
// events.flush or events.isolation (docs/proofs.md). The real captures and their mutants are
// held to the same in conformance/mutate/tests/mutation_score_test.cpp.
TEST(CheckZ3, AgreesWithTheCppRulesOnEveryVector) {
  namespace fs = std::filesystem;
  check::Options o;
  o.profile = check::load_profile("rxe");
  std::size_t judged = 0, z3_failed = 0;
  for (const auto& e :
       fs::recursive_directory_iterator(std::string(ROCECERT_SOURCE_DIR) + "/vectors")) {
    if (e.path().extension() != ".pcap" || e.path().parent_path().filename() == "real") continue;
    const check::Report r = check::check_files({e.path().string()}, o);
    SCOPED_TRACE(e.path().string());
    EXPECT_EQ(count(r, RuleId::Z3Key) > 0, count(r, RuleId::KeyStatic) > 0) << describe(r);
    EXPECT_EQ(count(r, RuleId::Z3Psn) > 0,
              count(r, RuleId::AckEpsn) + count(r, RuleId::PsnWindow) > 0)
        << describe(r);
    EXPECT_EQ(count(r, RuleId::Z3Arbitration) > 0,
              count(r, RuleId::EventsFlush) + count(r, RuleId::EventsIsolation) > 0)
        << describe(r);
    ++judged;
    if (count(r, RuleId::Z3Key) + count(r, RuleId::Z3Psn) > 0) ++z3_failed;
  }
  EXPECT_GT(judged, 100u);
  std::printf("%zu vector pcaps judged, %zu with a z3.* failure\n", judged, z3_failed);
}

}  // namespace
}  // namespace rocecert::testing
