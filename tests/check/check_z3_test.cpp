// The z3.* rules of `rocecert check` (docs/proofs.md "Trace invariants"): what Z3 finds over a
// whole connection that no rule comparing two accesses can, and --no-z3.
#include <gtest/gtest.h>

#include <algorithm>

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
}

}  // namespace
}  // namespace rocecert::testing
