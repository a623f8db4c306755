// z3.arbitration's solver (proofs/trace_errors.cpp): which logs of completions one history of
// QPs entering the error state explains, and the minimal cores it names when none does; and the
// direct check asked first (some_history_explains), against the solver alone.
#include "rocecert/proofs/trace_errors.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../../tests/support/sanitized.h"

namespace rocecert::testing {
namespace {

using proofs::trace::Completion;
using proofs::trace::CompletionFact;
using proofs::trace::judge_errors;
using proofs::trace::QpErrorFacts;
using Groups = std::vector<std::size_t>;

// Two QPs of one host: QP 0 fails (its own error completion), QP 1 has no error of its own. The
// isolation claims are groups 100 and 101; each completion's group is its log position.
struct Log {
  std::vector<QpErrorFacts> qps;
  std::vector<CompletionFact> wcs;
  Log() {
    qps.resize(2);
    qps[0] = {true, false, false, std::nullopt, 100};
    qps[1] = {false, false, true, std::nullopt, 101};
  }
  void wc(std::size_t qp, std::uint64_t line, Completion k) { wcs.push_back({qp, line, k, line}); }
};

TEST(TraceErrors, ErrorThenFlushesWithTheOtherQpUntouched) {
  Log l;
  l.wc(0, 1, Completion::SUCCESS);
  l.wc(1, 2, Completion::SUCCESS);
  l.wc(0, 3, Completion::ERROR);
  l.wc(0, 4, Completion::FLUSH);
  l.wc(1, 5, Completion::SUCCESS);
  l.wc(0, 6, Completion::FLUSH);
  const auto j = judge_errors(l.qps, l.wcs);
  EXPECT_TRUE(j.decided);
  EXPECT_TRUE(j.consistent);
}

TEST(TraceErrors, SuccessAfterTheErrorIsNamed) {
  Log l;
  l.wc(0, 1, Completion::ERROR);
  l.wc(1, 2, Completion::SUCCESS);
  l.wc(0, 3, Completion::FLUSH);
  l.wc(0, 4, Completion::SUCCESS);
  const auto j = judge_errors(l.qps, l.wcs);
  EXPECT_FALSE(j.consistent);
  // Either the error completion or the flush, with the success after it: each pair is minimal.
  EXPECT_EQ(j.groups.size(), 2u);
  EXPECT_EQ(j.groups.back(), 4u);
}

TEST(TraceErrors, OneErrorPerQpThenFlushes) {
  Log l;
  l.wc(0, 1, Completion::ERROR);
  l.wc(0, 2, Completion::ERROR);
  const auto j = judge_errors(l.qps, l.wcs);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.groups, (Groups{1, 2}));
  Log f;  // flushed first, then an error of its own
  f.wc(0, 1, Completion::FLUSH);
  f.wc(0, 2, Completion::ERROR);
  EXPECT_FALSE(judge_errors(f.qps, f.wcs).consistent);
}

TEST(TraceErrors, AnotherQpsErrorMustNotFlushThisOne) {
  Log l;
  l.wc(0, 1, Completion::ERROR);
  l.wc(1, 2, Completion::FLUSH);
  const auto j = judge_errors(l.qps, l.wcs);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.groups, (Groups{2, 101}));
  // A shared resource's error (an asynchronous event on the host) may take it.
  Log r = l;
  r.qps[1].resource_error = true;
  EXPECT_TRUE(judge_errors(r.qps, r.wcs).consistent);
  // So may the program, if it logged a state of the QP before the flush; not after.
  Log before = l;
  before.qps[1].program_state = 1;
  EXPECT_TRUE(judge_errors(before.qps, before.wcs).consistent);
  Log after = l;
  after.qps[1].program_state = 3;
  EXPECT_FALSE(judge_errors(after.qps, after.wcs).consistent);
  // With no other QP failed on the host, a flush is the program's doing.
  Log alone = l;
  alone.qps[1].others_failed = false;
  EXPECT_TRUE(judge_errors(alone.qps, alone.wcs).consistent);
}

TEST(TraceErrors, EmptyLogIsConsistent) {
  EXPECT_TRUE(judge_errors(std::vector<QpErrorFacts>{}, std::vector<CompletionFact>{}).consistent);
  EXPECT_TRUE(proofs::trace::some_history_explains({}, {}));
}

TEST(TraceErrors, TheDirectCheckAgreesWithTheSolverOnDrawnLogs) {
  // Logs drawn over a few QPs and positions, so that about half contradict themselves: each
  // QP's isolation causes and its program's first state drawn too, completions of every kind,
  // positions from ten values (so that facts meet at the edges of their bounds). The direct
  // check must say what the solver alone says, and judge_errors the same with it first, cores
  // included.
  std::mt19937 rng(20261206);
  const auto draw = [&](unsigned n) { return static_cast<std::uint64_t>(rng() % n); };
  // 400 logs; 100 under ASan/UBSan (tests/support/sanitized.h).
  const int rounds = full_or_sanitized(400, 100);
  int consistent = 0, not_consistent = 0;
  for (int round = 0; round < rounds; ++round) {
    std::vector<QpErrorFacts> qps(1 + draw(3));
    for (std::size_t q = 0; q < qps.size(); ++q) {
      QpErrorFacts& k = qps[q];
      k.own_error = draw(3) == 0;
      k.resource_error = draw(4) == 0;
      k.others_failed = draw(3) != 0;
      if (draw(3) == 0) k.program_state = draw(10);
      k.group = 1000 + q;
    }
    std::vector<CompletionFact> wcs;
    const std::size_t n = 1 + draw(6);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t kind = draw(5);
      const Completion c = kind < 2   ? Completion::SUCCESS
                           : kind < 4 ? Completion::FLUSH
                                      : Completion::ERROR;
      wcs.push_back(
          {static_cast<std::size_t>(draw(static_cast<unsigned>(qps.size()))), draw(10), c, i});
    }
    const bool direct = proofs::trace::some_history_explains(qps, wcs);
    const auto solver = judge_errors(qps, wcs, proofs::trace::ErrorsMethod::SOLVER_ONLY);
    ASSERT_TRUE(solver.decided);
    ASSERT_EQ(direct, solver.consistent) << "round " << round;
    const auto first = judge_errors(qps, wcs);
    EXPECT_EQ(first.consistent, solver.consistent);
    EXPECT_EQ(first.groups, solver.groups);
    (direct ? consistent : not_consistent)++;
  }
  EXPECT_GT(consistent, rounds / 5);
  EXPECT_GT(not_consistent, rounds / 5);
}

}  // namespace
}  // namespace rocecert::testing
