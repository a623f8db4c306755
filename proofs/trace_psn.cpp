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
#include <set>

#include "rocecert/proofs/trace_keys.h"  // kSolverResourceLimit, kMaxMinimisationSteps
#include "trace_context.h"

namespace rocecert::proofs::trace {

namespace {

// The facts of `observations` (only those of the groups in `only`, when given) added to `s`,
// each group under an assumption literal, with up to `capture_errors` of them allowed aside.
struct Built {
  std::vector<std::size_t> groups;
  std::vector<z3::expr> holds;  // what each group says
  z3::expr_vector literals, relaxed;
  z3::expr set_aside_count;
};

Built build(z3::solver& s, std::span<const PsnObservation> observations,
            const std::set<std::size_t>* only, std::uint32_t capture_errors) {
  z3::context& c = s.ctx();
  Built b{{}, {}, z3::expr_vector(c), z3::expr_vector(c), c.int_val(0)};
  const auto kept = [&](const PsnObservation& o) {
    return only == nullptr || only->count(o.group);
  };
  // e(t) at each capture position a fact names, in order: never lower than at the one before.
  // (Positions no kept fact names constrain nothing: a chain over fewer of them is the same.)
  std::map<std::uint64_t, z3::expr> epsn;
  for (const PsnObservation& o : observations)
    if (kept(o) && epsn.find(o.at) == epsn.end())
      epsn.emplace(o.at, c.int_const(fmt::format("e{}", epsn.size()).c_str()));
  const z3::expr* previous = nullptr;
  for (const auto& [at, e] : epsn) {
    if (previous != nullptr) s.add(*previous <= e);
    previous = &e;
  }
  std::map<std::size_t, z3::expr> says;
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const PsnObservation& o = observations[i];
    if (!kept(o)) continue;
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
  for (const auto& [group, fact] : says) {
    b.groups.push_back(group);
    b.holds.push_back(fact);
    const z3::expr lit = c.bool_const(fmt::format("g{}", b.literals.size()).c_str());
    b.literals.push_back(lit);
    if (capture_errors == 0) {
      s.add(z3::implies(lit, fact));
    } else {
      const z3::expr aside = c.bool_const(fmt::format("aside{}", b.relaxed.size()).c_str());
      b.relaxed.push_back(aside);
      s.add(z3::implies(lit, aside || fact));
      b.set_aside_count = b.set_aside_count + z3::ite(aside, c.int_val(1), c.int_val(0));
    }
  }
  if (capture_errors > 0) s.add(b.set_aside_count <= c.int_val(capture_errors));
  return b;
}

PsnJudgement judge_psn_on(z3::solver& s, std::span<const PsnObservation> observations,
                          std::uint32_t capture_errors) {
  PsnJudgement out;
  if (observations.empty()) return out;
  std::set<std::size_t> core;
  {
    const detail::Scope scope(s);
    const Built b = build(s, observations, nullptr, capture_errors);
    const z3::check_result r = s.check(b.literals);
    if (r == z3::unknown) {
      out.decided = false;
      return out;
    }
    if (r == z3::sat) {
      if (capture_errors == 0) return out;
      // The fewest set aside: raise the bound from 0 until the history exists.
      for (std::uint32_t most = 0; most <= capture_errors; ++most) {
        const detail::Scope bound(s);
        s.add(b.set_aside_count <= s.ctx().int_val(most));
        const z3::check_result fewest = s.check(b.literals);
        if (fewest == z3::unknown) break;  // report none rather than guess
        if (fewest != z3::sat) continue;
        const z3::model m = s.get_model();
        for (std::size_t i = 0; i < b.groups.size(); ++i)
          if (m.eval(b.relaxed[static_cast<int>(i)], true).is_true() &&
              !m.eval(b.holds[i], true).is_true())
            out.set_aside.push_back(b.groups[i]);
        break;
      }
      return out;
    }
    const z3::expr_vector lits = s.unsat_core();
    for (unsigned i = 0; i < lits.size(); ++i)
      for (std::size_t k = 0; k < b.groups.size(); ++k)
        if (z3::eq(lits[static_cast<int>(i)], b.literals[static_cast<int>(k)]))
          core.insert(b.groups[k]);
  }
  out.consistent = false;
  // The core, minimised by deletion; each check solves only the facts of the groups left (a
  // small problem, where the whole batch's would cost far more per check).
  std::vector<std::size_t> kept(core.begin(), core.end());
  unsigned steps = 0;
  for (std::size_t i = 0; i < kept.size() && steps < kMaxMinimisationSteps; ++steps) {
    std::set<std::size_t> rest(kept.begin(), kept.end());
    rest.erase(kept[i]);
    const detail::Scope scope(s);
    const Built b = build(s, observations, &rest, capture_errors);
    if (s.check(b.literals) == z3::unsat)
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
    else
      ++i;
  }
  out.groups = kept;
  return out;
}

}  // namespace

bool least_history_explains(std::span<const PsnObservation> observations) {
  // (position, bound, is an upper bound); at one position the lower bounds come first, so that
  // the running maximum includes them when the upper bounds there are compared with it.
  struct Bound {
    std::uint64_t at;
    bool upper;
    std::int64_t v;
  };
  std::vector<Bound> bounds;
  bounds.reserve(observations.size());
  for (const PsnObservation& o : observations) {
    switch (o.fact) {
      case PsnFact::AT_LEAST:
        bounds.push_back({o.at, false, o.psn});
        break;
      case PsnFact::AT_MOST:
        bounds.push_back({o.at, true, o.psn});
        break;
      case PsnFact::REQUEST:
        // Some a <= min(acked, e(t)) with psn + 1 - a < 2^23: min(acked, e(t)) >= psn + 2 - 2^23.
        if (o.acked < o.psn + 2 - kPsnWindow) return false;
        bounds.push_back({o.at, false, o.psn + 2 - kPsnWindow});
        break;
    }
  }
  std::sort(bounds.begin(), bounds.end(), [](const Bound& a, const Bound& b) {
    return a.at != b.at ? a.at < b.at : a.upper < b.upper;
  });
  bool any = false;
  std::int64_t least = 0;  // the least history's e at the current position
  for (const Bound& b : bounds) {
    if (!b.upper) {
      least = any ? std::max(least, b.v) : b.v;
      any = true;
    } else if (any && least > b.v) {
      return false;
    }
  }
  return true;
}

PsnJudgement judge_psn(std::span<const PsnObservation> observations, std::uint32_t capture_errors,
                       PsnMethod method) {
  // The least history is what the solver's fewest-set-aside search finds first when it holds:
  // consistent with nothing set aside.
  if (method == PsnMethod::DIRECT_FIRST && least_history_explains(observations)) return {};
  PsnJudgement out = judge_psn_on(detail::lia_solver(), observations, capture_errors);
  if (!out.decided || (out.consistent && out.set_aside.empty())) return out;
  // The answer names facts (the groups that clash, or those set aside): made again where no
  // earlier decision bears on the model or the core (FreshSolver).
  detail::FreshSolver fresh;
  return judge_psn_on(fresh.solver, observations, capture_errors);
}

}  // namespace rocecert::proofs::trace
