// z3.arbitration's solver (proofs/trace_errors.cpp): which logs of completions one history of
// QPs entering the error state explains, and the minimal cores it names when none does.
#include "rocecert/proofs/trace_errors.h"

#include <gtest/gtest.h>

#include <vector>

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
}

}  // namespace
}  // namespace rocecert::testing
