// Long connections: the golden model's own traffic on a few QP pairs for hundreds of thousands
// of frames, across the PSN wrap, with and without faults on the link (tests/support/
// fixed_traffic.h). The checker must never FAIL it, and on a clean link every response is
// compared with the model's and agrees. Captures of the real tools are short (under 4,096 PSNs
// a connection), which is how a replay window that forgot its answers once full, and NAK
// triggers kept without bound, went unseen.
#include <gtest/gtest.h>

#include <string>

#include "conversation.h"
#include "fixed_traffic.h"
#include "rocecert/check/checker.h"

namespace rocecert::testing {
namespace {

check::Report check_traffic(const FixedTraffic& t, std::uint64_t* frames = nullptr) {
  check::Options o;
  o.profile = check::load_profile("rxe");
  check::Checker c(o);
  std::uint64_t n = 0;
  const std::uint64_t written = fixed_traffic(t, [&](std::int64_t ts,
                                                     std::span<const std::uint8_t> bytes) {
    c.add_frame(++n, ts, static_cast<std::uint32_t>(bytes.size()), bytes, wire::LinkType::Ethernet);
  });
  if (frames != nullptr) *frames = written;
  return c.finish("fixed traffic");
}

TEST(CheckLongConnections, TwoPairsForAQuarterMillionFramesPassAndEveryResponseAgrees) {
  std::uint64_t frames = 0;
  const check::Report r = check_traffic({2, 250'000, 0, 0}, &frames);
  EXPECT_GE(frames, 250'000u);
  EXPECT_EQ(r.verdict, check::Verdict::PASS) << describe(r);
  std::size_t replay_notes = 0;
  for (const check::Note& n : r.notes) {
    if (n.kind != check::NoteKind::Replay) continue;
    ++replay_notes;
    // "golden replay: N responses compared with the model's responder, N agreed" and
    // "golden requester replay: N requests compared with the model's requester (M messages
    // posted), N agreed", no resync.
    EXPECT_EQ(n.message.find("resync"), std::string::npos) << n.message;
    const bool requester = n.message.rfind("golden requester replay: ", 0) == 0;
    const std::string head = requester ? "golden requester replay: " : "golden replay: ";
    const auto compared = n.message.find(requester ? " requests compared" : " responses compared");
    ASSERT_EQ(n.message.rfind(head, 0), 0u) << n.message;
    ASSERT_NE(compared, std::string::npos) << n.message;
    const std::string c = n.message.substr(head.size(), compared - head.size());
    EXPECT_NE(n.message.find(", " + c + " agreed"), std::string::npos) << n.message;
    EXPECT_GT(std::stoul(c), 10'000u) << n.message;  // far past the replay's window of 4,096
  }
  EXPECT_EQ(replay_notes, 8u);  // both directions of both pairs, responder and requester
}

TEST(CheckLongConnections, DrawnTrafficUnderLossDuplicationAndReorderingIsNeverFail) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const FixedTraffic t{static_cast<unsigned>(1 + seed % 3), 60'000, seed,
                         seed % 2 == 0 ? 0.02 : 0.005};
    const check::Report r = check_traffic(t);
    EXPECT_NE(r.verdict, check::Verdict::FAIL) << "seed " << seed << "\n" << describe(r);
    // Not vacuous: the faults were there, and the replay had to start again after them.
    bool resynced = false;
    for (const check::Note& n : r.notes)
      resynced = resynced || (n.kind == check::NoteKind::Replay &&
                              n.message.find("resync") != std::string::npos);
    EXPECT_TRUE(resynced) << "seed " << seed << "\n" << describe(r);
  }
}

}  // namespace
}  // namespace rocecert::testing
