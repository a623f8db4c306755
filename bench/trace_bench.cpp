// The Z3 trace invariants on one stream (docs/bench.md): what one z3.key decision costs, as a
// function of the distinct accesses the stream answered. The check's own benchmark
// (check_bench) shows what a whole capture costs; this one, the solver's share per stream. Each
// decision is also checked: decided within the solver's resource limit, and the right one.
//   trace_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <vector>

#include "rocecert/proofs/trace_keys.h"
#include "rocecert/proofs/trace_psn.h"

namespace {

using rocecert::proofs::trace::AccessKind;
using rocecert::proofs::trace::KeyObservation;

// n WRITEs granted one after another in one MR, and one refused past its end: explainable.
std::vector<KeyObservation> consistent_stream(int n) {
  std::vector<KeyObservation> o;
  for (int i = 0; i < n; ++i)
    o.push_back({AccessKind::WRITE, true, 0x100, 0, 4096 + 64 * static_cast<std::uint64_t>(i), 64});
  o.push_back({AccessKind::WRITE, false, 0x100, 0, std::uint64_t{1} << 30, 64});
  return o;
}

void BM_JudgeKeysConsistent(benchmark::State& state) {
  const std::vector<KeyObservation> o = consistent_stream(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const auto j = rocecert::proofs::trace::judge_keys(o, {}, std::nullopt);
    if (!j.decided || !j.consistent) state.SkipWithError("not decided consistent");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_JudgeKeysConsistent)
    ->Arg(4)
    ->Arg(20)
    ->Arg(200)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);

// The same with a refusal inside the granted range: unsatisfiable, then the core minimised.
void BM_JudgeKeysContradiction(benchmark::State& state) {
  std::vector<KeyObservation> o = consistent_stream(static_cast<int>(state.range(0)));
  o.back().va = 4096 + 64;
  for (auto _ : state) {
    const auto j = rocecert::proofs::trace::judge_keys(o, {}, std::nullopt);
    if (!j.decided || j.consistent) state.SkipWithError("not decided a contradiction");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_JudgeKeysContradiction)
    ->Arg(4)
    ->Arg(20)
    ->Arg(200)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);

// z3.psn on a stream with n NAKs PSN sequence error, each with the bound before its trigger:
// a go-back-N every 10 PSNs (consistent), or the last NAK below an earlier ACK (contradiction).
std::vector<rocecert::proofs::trace::PsnObservation> naks(int n, bool back) {
  using rocecert::proofs::trace::PsnFact;
  std::vector<rocecert::proofs::trace::PsnObservation> o;
  std::uint64_t at = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t v = 10 * static_cast<std::int64_t>(i) + 5;
    const auto g = static_cast<std::size_t>(2 * i);
    o.push_back({PsnFact::AT_LEAST, v - 1, 0, at + 1, g});  // an ACK before the trigger
    o.push_back({PsnFact::AT_MOST, v, 0, at + 2, g + 1});   // the NAK's trigger
    o.push_back({PsnFact::AT_LEAST, back && i == n - 1 ? 0 : v, 0, at + 3, g + 1});
    at += 3;
  }
  if (back) o.push_back({PsnFact::AT_MOST, 0, 0, at + 1, static_cast<std::size_t>(2 * n)});
  return o;
}

void BM_JudgePsn(benchmark::State& state) {
  const auto o = naks(static_cast<int>(state.range(0)), state.range(1) != 0);
  for (auto _ : state) {
    const auto j = rocecert::proofs::trace::judge_psn(o, 0);
    if (!j.decided || j.consistent == (state.range(1) != 0)) state.SkipWithError("wrong decision");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_JudgePsn)
    ->Args({1, 0})
    ->Args({16, 0})
    ->Args({256, 0})
    ->Args({1365, 0})
    ->Args({16, 1})
    ->Args({1365, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
