// z3.psn: one history of the responder's expected PSN for every response and new request of a
// connection (proofs/include/rocecert/proofs/trace_psn.h). Each group of facts is asserted under
// an assumption literal of its own, so that an unsatisfiable check yields the groups that clash;
// the core is then minimised by deletion. Linear integer arithmetic over the unwrapped PSN axis:
// the chain of ePSN values is a difference-logic problem Z3 decides quickly.
#include "rocecert/proofs/trace_psn.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <map>

#include "rocecert/proofs/trace_keys.h"  // kSolverTimeoutMs, kMaxMinimisationSteps
#include "trace_context.h"

namespace rocecert::proofs::trace {

PsnJudgement judge_psn(std::span<const PsnObservation> observations, std::uint32_t capture_errors) {
  PsnJudgement out;
  if (observations.empty()) return out;
  z3::context& c = detail::context();
  z3::solver s(c, "QF_LIA");
  z3::params limits(c);
  limits.set("timeout", kSolverTimeoutMs);
  s.set(limits);

  // e(t) at each capture position a fact names, in order: never lower than at the one before.
  std::map<std::uint64_t, z3::expr> epsn;
  for (const PsnObservation& o : observations)
    if (epsn.find(o.at) == epsn.end())
      epsn.emplace(o.at, c.int_const(fmt::format("e{}", epsn.size()).c_str()));
  const z3::expr* previous = nullptr;
  for (const auto& [at, e] : epsn) {
    if (previous != nullptr) s.add(*previous <= e);
    previous = &e;
  }

  // What each group says of the history.
  std::map<std::size_t, z3::expr> says;
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const PsnObservation& o = observations[i];
    const z3::expr& e = epsn.at(o.at);
    const z3::expr v = c.int_val(o.psn);
    z3::expr fact = c.bool_val(true);
    switch (o.fact) {
      case PsnFact::AT_LEAST:
        fact = e >= v;
        break;
      case PsnFact::AT_MOST:
        fact = e <= v;
        break;
      case PsnFact::REQUEST: {
        // Some acknowledged frontier a, a <= acked and a <= e(t), with p + 1 - a < 2^23.
        const z3::expr a = c.int_const(fmt::format("a{}", i).c_str());
        fact = a <= c.int_val(o.acked) && a <= e && v + 1 - a < c.int_val(kPsnWindow);
        break;
      }
    }
    const auto it = says.find(o.group);
    if (it == says.end())
      says.emplace(o.group, fact);
    else
      it->second = it->second && fact;
  }

  std::vector<std::size_t> groups;
  z3::expr_vector literals(c), relaxed(c);
  std::vector<z3::expr> holds;
  z3::expr set_aside_count = c.int_val(0);
  for (const auto& [group, fact] : says) {
    groups.push_back(group);
    holds.push_back(fact);
    const z3::expr lit = c.bool_const(fmt::format("g{}", literals.size()).c_str());
    literals.push_back(lit);
    if (capture_errors == 0) {
      s.add(z3::implies(lit, fact));
    } else {
      const z3::expr aside = c.bool_const(fmt::format("aside{}", relaxed.size()).c_str());
      relaxed.push_back(aside);
      s.add(z3::implies(lit, aside || fact));
      set_aside_count = set_aside_count + z3::ite(aside, c.int_val(1), c.int_val(0));
    }
  }
  if (capture_errors > 0) s.add(set_aside_count <= c.int_val(capture_errors));

  const z3::check_result r = s.check(literals);
  if (r == z3::unknown) {
    out.decided = false;
    return out;
  }
  if (r == z3::sat) {
    if (capture_errors == 0) return out;
    // The fewest set aside: raise the bound from 0 until the history exists.
    for (std::uint32_t most = 0; most <= capture_errors; ++most) {
      s.push();
      s.add(set_aside_count <= c.int_val(most));
      const z3::check_result fewest = s.check(literals);
      if (fewest == z3::sat) {
        const z3::model m = s.get_model();
        for (std::size_t i = 0; i < groups.size(); ++i)
          if (m.eval(relaxed[static_cast<int>(i)], true).is_true() &&
              !m.eval(holds[i], true).is_true())
            out.set_aside.push_back(groups[i]);
        s.pop();
        break;
      }
      s.pop();
      if (fewest == z3::unknown) break;  // report none rather than guess
    }
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

}  // namespace rocecert::proofs::trace
