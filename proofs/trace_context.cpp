#include "trace_context.h"

#include <cstddef>

#include "rocecert/proofs/trace_keys.h"  // kSolverResourceLimit

namespace rocecert::proofs::trace::detail {

z3::context& context() {
  thread_local z3::context c;
  return c;
}

namespace {

z3::solver make_solver(z3::context& c) {
  z3::solver made(c, "QF_LIA");
  z3::params limits(c);
  limits.set("rlimit", kSolverResourceLimit);
  // Z3 catches SIGINT while a check runs and cancels that check (parameter ctrl_c, on by
  // default): Ctrl-C on `rocecert check` would leave one decision undecided and go on instead
  // of stopping the program. Off, the signal reaches the program as it would anywhere else.
  limits.set("ctrl_c", false);
  made.set(limits);
  return made;
}

}  // namespace

z3::solver& lia_solver() {
  thread_local z3::solver s = make_solver(context());
  return s;
}

FreshSolver::FreshSolver() : solver(make_solver(context)) {}

std::vector<z3::expr> minimal_core(z3::solver& s, unsigned max_steps) {
  const z3::expr_vector core = s.unsat_core();
  std::vector<z3::expr> kept;
  for (unsigned i = 0; i < core.size(); ++i) kept.push_back(core[static_cast<int>(i)]);
  unsigned steps = 0;
  for (std::size_t i = 0; i < kept.size() && steps < max_steps; ++steps) {
    z3::expr_vector rest(s.ctx());
    for (std::size_t j = 0; j < kept.size(); ++j)
      if (j != i) rest.push_back(kept[j]);
    if (s.check(rest) == z3::unsat)
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
    else
      ++i;
  }
  return kept;
}

}  // namespace rocecert::proofs::trace::detail
