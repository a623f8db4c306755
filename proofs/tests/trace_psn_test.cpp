// z3.psn's solver (proofs/trace_psn.cpp): which traces of responses and requests one history of
// the responder's expected PSN explains, the minimal cores it names when none does, and the
// fewest groups it sets aside as capture errors when a budget allows.
#include "rocecert/proofs/trace_psn.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../../tests/support/sanitized.h"

namespace rocecert::testing {
namespace {

using proofs::trace::judge_psn;
using proofs::trace::kPsnWindow;
using proofs::trace::PsnFact;
using proofs::trace::PsnObservation;
using Facts = std::vector<PsnObservation>;
using Groups = std::vector<std::size_t>;

// A response at capture position `at` that shows ePSN >= v (its own group: the frame).
void received(Facts& f, std::uint64_t at, std::int64_t v) {
  f.push_back({PsnFact::AT_LEAST, v, 0, at, at});
}
// A NAK PSN sequence error (or RNR NAK) at `at` carrying v, set off by a request at `trigger`.
void nak(Facts& f, std::uint64_t trigger, std::uint64_t at, std::int64_t v) {
  f.push_back({PsnFact::AT_MOST, v, 0, trigger, at});
  f.push_back({PsnFact::AT_LEAST, v, 0, at, at});
}
void request(Facts& f, std::uint64_t at, std::int64_t psn, std::int64_t acked) {
  f.push_back({PsnFact::REQUEST, psn, acked, at, at});
}

TEST(TracePsn, GoBackNUnderLossAndReorderingIsExplained) {
  // Requests 0-9 ACKed; 10 lost, 11 sets off NAK 10 (a copy of it too); the resend ACKed. An
  // RNR NAK at 13 after its request; a stale ACK overtaken on the way; and a NAK the network
  // delayed past the ACK of the resend: it was set off at position 12, before that ACK.
  Facts f;
  request(f, 1, 9, 0);
  received(f, 2, 10);
  request(f, 3, 11, 10);
  nak(f, 3, 4, 10);
  nak(f, 3, 5, 10);
  request(f, 6, 10, 10);
  received(f, 7, 12);
  request(f, 8, 13, 12);
  nak(f, 8, 9, 13);
  received(f, 10, 14);
  received(f, 11, 11);
  request(f, 12, 15, 14);
  received(f, 13, 16);
  nak(f, 12, 14, 14);  // displaced: its trigger came before the ACK at 13
  const auto j = judge_psn(f, 0);
  EXPECT_TRUE(j.decided);
  EXPECT_TRUE(j.consistent);
  EXPECT_TRUE(j.set_aside.empty());
}

TEST(TracePsn, NakBelowWhatWasAcknowledgedBeforeItsTriggerIsNamedWithIt) {
  // PSN 12 ACKed at position 50 (ePSN >= 13); only then was PSN 14 sent (position 60); the NAK
  // at 90 carries 10: the responder's ePSN went back.
  Facts f;
  for (std::uint64_t i = 0; i < 40; ++i) received(f, i, static_cast<std::int64_t>(i % 11));
  received(f, 50, 13);
  for (std::uint64_t i = 0; i < 20; ++i) request(f, 60 + i, 14 + static_cast<std::int64_t>(i), 13);
  nak(f, 60, 90, 10);
  const auto j = judge_psn(f, 0);
  EXPECT_TRUE(j.decided);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.groups, (Groups{50, 90}));  // the minimal core: exactly the two frames
}

TEST(TracePsn, ExpectedPsnNeverMovesBack) {
  Facts back;
  nak(back, 1, 2, 10);
  nak(back, 3, 4, 8);
  EXPECT_FALSE(judge_psn(back, 0).consistent);
  Facts forward;
  nak(forward, 1, 2, 8);
  nak(forward, 3, 4, 10);
  EXPECT_TRUE(judge_psn(forward, 0).consistent);
  // A second NAK whose trigger precedes the first NAK: it may have been sent before it.
  Facts crossed;
  nak(crossed, 1, 3, 10);
  nak(crossed, 1, 4, 8);
  EXPECT_TRUE(judge_psn(crossed, 0).consistent);
}

TEST(TracePsn, WrapIsNotAnIssueOnTheUnwrappedAxis) {
  const std::int64_t w = std::int64_t{1} << 24;
  Facts ok;
  received(ok, 1, w - 1);
  nak(ok, 2, 3, w - 1);
  received(ok, 4, w + 3);
  EXPECT_TRUE(judge_psn(ok, 0).consistent);
  Facts bad;
  received(bad, 1, w + 3);
  nak(bad, 2, 3, w - 1);
  EXPECT_FALSE(judge_psn(bad, 0).consistent);
}

TEST(TracePsn, RequesterWindow) {
  // 2^23 - 1 PSNs outstanding is the most: from acked 10, PSN 10 + 2^23 - 2 is the last allowed.
  Facts ok;
  request(ok, 1, 10 + kPsnWindow - 2, 10);
  EXPECT_TRUE(judge_psn(ok, 0).consistent);
  Facts over;
  request(over, 1, 10 + kPsnWindow - 1, 10);
  const auto j = judge_psn(over, 0);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.groups, (Groups{1}));
  // Within what the responses acknowledged, but not within the responder's ePSN: a NAK set off
  // after it shows the responder still expected PSN 5, so at most 5 was acknowledged.
  Facts behind;
  request(behind, 1, 5 + kPsnWindow, 100);
  nak(behind, 1, 2, 5);
  const auto k = judge_psn(behind, 0);
  EXPECT_FALSE(k.consistent);
  EXPECT_EQ(k.groups, (Groups{1, 2}));
}

TEST(TracePsn, CaptureErrorsSetAsideAsFewAsPossible) {
  // One early ACK of PSN 99 contradicts three later NAKs: setting the ACK aside is enough.
  Facts early;
  received(early, 1, 100);
  nak(early, 2, 3, 50);
  nak(early, 4, 5, 51);
  nak(early, 6, 7, 52);
  EXPECT_FALSE(judge_psn(early, 0).consistent);
  const auto fewest = judge_psn(early, 1);
  EXPECT_TRUE(fewest.consistent);
  EXPECT_EQ(fewest.set_aside, (Groups{1}));
  // Two independent contradictions need two.
  Facts two;
  received(two, 1, 20);
  nak(two, 2, 3, 10);
  received(two, 4, 40);
  nak(two, 5, 6, 30);
  EXPECT_FALSE(judge_psn(two, 1).consistent);
  const auto both = judge_psn(two, 2);
  EXPECT_TRUE(both.consistent);
  EXPECT_EQ(both.set_aside.size(), 2u);
}

TEST(TracePsn, EmptyTraceIsConsistent) {
  EXPECT_TRUE(judge_psn(Facts{}, 0).consistent);
  EXPECT_TRUE(proofs::trace::least_history_explains(Facts{}));
}

TEST(TracePsn, TheDirectCheckAgreesWithTheSolverOnDrawnTraces) {
  // Facts drawn over a few positions and a narrow PSN range, so that about half the traces
  // contradict themselves; requests near the edge of their window. The direct check (the least
  // history) must say what the solver alone says, and judge_psn the same with it first, with a
  // budget of capture errors too.
  std::mt19937 rng(20261204);
  const auto draw = [&](int n) {
    return static_cast<std::int64_t>(rng() % static_cast<unsigned>(n));
  };
  // 300 traces; 100 under ASan/UBSan (tests/support/sanitized.h).
  const int rounds = full_or_sanitized(300, 100);
  int consistent = 0, not_consistent = 0;
  for (int round = 0; round < rounds; ++round) {
    Facts f;
    const int n = 1 + static_cast<int>(draw(7));
    for (int k = 0; k < n; ++k) {
      const auto at = static_cast<std::uint64_t>(draw(8));
      switch (draw(3)) {
        case 0:
          received(f, at, draw(12));
          break;
        case 1:
          nak(f, at, at + static_cast<std::uint64_t>(draw(3)), draw(12));
          break;
        default:
          request(f, at, draw(12) + kPsnWindow - 2, draw(12));
          break;
      }
      f.back().group = static_cast<std::size_t>(k);  // a NAK's two facts: one group
      if (f.size() >= 2 && f[f.size() - 2].fact == PsnFact::AT_MOST)
        f[f.size() - 2].group = f.back().group;
    }
    const bool direct = proofs::trace::least_history_explains(f);
    const auto solver = judge_psn(f, 0, proofs::trace::PsnMethod::SOLVER_ONLY);
    ASSERT_TRUE(solver.decided);
    ASSERT_EQ(direct, solver.consistent) << "round " << round;
    const auto first = judge_psn(f, 0);
    EXPECT_EQ(first.consistent, solver.consistent);
    EXPECT_EQ(first.groups, solver.groups);
    if (round % 5 != 0) {
      (direct ? consistent : not_consistent)++;
      continue;
    }
    const auto budget = judge_psn(f, 2, proofs::trace::PsnMethod::SOLVER_ONLY);
    const auto budget_first = judge_psn(f, 2);
    EXPECT_EQ(budget_first.consistent, budget.consistent);
    EXPECT_EQ(budget_first.set_aside, budget.set_aside);
    EXPECT_EQ(budget_first.groups, budget.groups);
    (direct ? consistent : not_consistent)++;
  }
  EXPECT_GT(consistent, rounds / 5);
  EXPECT_GT(not_consistent, rounds / 5);
}

}  // namespace
}  // namespace rocecert::testing
