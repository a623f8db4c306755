// z3.arbitration: one history of which QPs entered ERR, and when, for every completion a test
// program polled (proofs/include/rocecert/proofs/trace_errors.h). Each group of facts is
// asserted under an assumption literal of its own; an unsatisfiable check yields the groups that
// clash, minimised by deletion. A log that some history explains is recognised directly first
// (some_history_explains): the solver is asked only to name the clash (in a fuzz campaign with
// `--events`, the solver on consistent logs was a quarter of fuzz_check's time).
#include "rocecert/proofs/trace_errors.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "rocecert/proofs/trace_keys.h"  // kSolverResourceLimit, kMaxMinimisationSteps
#include "trace_context.h"

namespace rocecert::proofs::trace {

namespace {

ErrorsJudgement judge_errors_on(z3::solver& s, std::span<const QpErrorFacts> qps,
                                std::span<const CompletionFact> completions) {
  ErrorsJudgement out;
  if (completions.empty()) return out;
  z3::context& c = s.ctx();
  const detail::Scope scope(s);

  std::vector<z3::expr> in_err, at;
  for (std::size_t q = 0; q < qps.size(); ++q) {
    in_err.push_back(c.bool_const(fmt::format("err{}", q).c_str()));
    at.push_back(c.int_const(fmt::format("at{}", q).c_str()));
  }
  std::map<std::size_t, z3::expr> says;
  const auto add = [&](std::size_t group, const z3::expr& fact) {
    const auto it = says.find(group);
    if (it == says.end())
      says.emplace(group, fact);
    else
      it->second = it->second && fact;
  };
  for (const CompletionFact& f : completions) {
    const z3::expr pos = c.int_val(f.position);
    switch (f.kind) {
      case Completion::SUCCESS:
        add(f.group, !in_err[f.qp] || at[f.qp] > pos);
        break;
      case Completion::ERROR:
        add(f.group, in_err[f.qp] && at[f.qp] == pos);
        break;
      case Completion::FLUSH:
        add(f.group, in_err[f.qp] && at[f.qp] <= pos);
        break;
    }
  }
  for (std::size_t q = 0; q < qps.size(); ++q) {
    const QpErrorFacts& k = qps[q];
    // What may take the QP to ERR besides its own error completion (which the ERROR fact pins).
    z3::expr allowed = c.bool_val(k.own_error || k.resource_error || !k.others_failed);
    if (k.program_state) allowed = allowed || at[q] >= c.int_val(*k.program_state);
    add(k.group, z3::implies(in_err[q], allowed));
  }

  std::vector<std::size_t> groups;
  z3::expr_vector literals(c);
  for (const auto& [group, fact] : says) {
    groups.push_back(group);
    const z3::expr lit = c.bool_const(fmt::format("g{}", literals.size()).c_str());
    literals.push_back(lit);
    s.add(z3::implies(lit, fact));
  }
  const z3::check_result r = s.check(literals);
  if (r == z3::sat) return out;
  if (r == z3::unknown) {
    out.decided = false;
    return out;
  }
  out.consistent = false;
  const std::vector<z3::expr> kept = detail::minimal_core(s, kMaxMinimisationSteps);
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (std::any_of(kept.begin(), kept.end(),
                    [&](const z3::expr& l) { return z3::eq(l, literals[static_cast<int>(i)]); }))
      out.groups.push_back(groups[i]);
  return out;
}

}  // namespace

bool some_history_explains(std::span<const QpErrorFacts> qps,
                           std::span<const CompletionFact> completions) {
  // Per QP, what its completions require of the position `at` where it entered ERR.
  // An error completion or a flush says it entered ERR.
  struct Bounds {
    std::optional<std::uint64_t> last_success, first_flush, error;
    bool errors_apart = false;  // error completions at two positions
    bool in_err() const { return error || first_flush; }
  };
  std::vector<Bounds> b(qps.size());
  for (const CompletionFact& f : completions) {
    Bounds& q = b[f.qp];
    switch (f.kind) {
      case Completion::SUCCESS:
        q.last_success = std::max(q.last_success.value_or(0), f.position);
        break;
      case Completion::ERROR:
        if (q.error && *q.error != f.position) q.errors_apart = true;
        q.error = f.position;
        break;
      case Completion::FLUSH:
        q.first_flush = std::min(q.first_flush.value_or(f.position), f.position);
        break;
    }
  }
  for (std::size_t i = 0; i < qps.size(); ++i) {
    const Bounds& q = b[i];
    if (!q.in_err()) continue;  // never in ERR: every success holds
    if (q.errors_apart) return false;
    const QpErrorFacts& k = qps[i];
    const bool anything = k.own_error || k.resource_error || !k.others_failed;
    if (q.error) {  // entered ERR exactly at its error completion
      const std::uint64_t at = *q.error;
      if (q.last_success && !(*q.last_success < at)) return false;
      if (q.first_flush && at > *q.first_flush) return false;
      if (!anything && !(k.program_state && at >= *k.program_state)) return false;
      continue;
    }
    // Flushed with no error of its own: some `at` in (last success, first flush], and at or
    // after the program's first state when nothing else may have taken it there.
    if (q.last_success && !(*q.last_success < *q.first_flush)) return false;
    if (!anything && !(k.program_state && *k.program_state <= *q.first_flush)) return false;
  }
  return true;
}

ErrorsJudgement judge_errors(std::span<const QpErrorFacts> qps,
                             std::span<const CompletionFact> completions, ErrorsMethod method) {
  if (method == ErrorsMethod::DIRECT_FIRST && some_history_explains(qps, completions)) return {};
  ErrorsJudgement out = judge_errors_on(detail::lia_solver(), qps, completions);
  if (!out.decided || out.consistent) return out;
  // The clash names facts: made again where no earlier decision bears on the core (FreshSolver).
  detail::FreshSolver fresh;
  return judge_errors_on(fresh.solver, qps, completions);
}

}  // namespace rocecert::proofs::trace
