// What the trace invariants share (trace_keys.cpp, trace_psn.cpp): the Z3 context, and the
// minimisation of an unsat core.
#pragma once

#include <z3++.h>

#include <vector>

namespace rocecert::proofs::trace::detail {

// One context per thread, kept: making a context costs about 7 ms, the solving itself well under
// a millisecond on a typical stream. Terms are freed as their last reference goes; the names are
// drawn from a bounded set (indices), so the context does not grow with the capture.
z3::context& context();

// A QF_LIA solver of the thread's context, kept: making one costs about 1 ms, more than a
// typical stream's whole decision. Callers push() a scope, add their facts, check, and pop() it
// (Scope does both), so that nothing of one stream stays for the next.
z3::solver& lia_solver();
// A context and solver of their own, for one decision. Whether facts are satisfiable does not
// depend on what a kept context solved before, but which model or unsat core Z3 returns does:
// a decision whose answer names facts (the groups that clash, the frames set aside) made on a
// thread's kept solver could name others on another thread, after other decisions (the fuzz
// target found a capture whose z3.psn explanation set frame 25 aside with two jobs and frame 10
// with one). Those decisions are made again on a fresh context (about 2 ms): the same calls on a
// fresh context give the same answer. The common answer, consistent with nothing set aside,
// names nothing and stays on the kept solver.
struct FreshSolver {
  FreshSolver();
  z3::context context;
  z3::solver solver;
};

class Scope {
 public:
  explicit Scope(z3::solver& s) : s_(s) { s_.push(); }
  ~Scope() { s_.pop(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  z3::solver& s_;
};

// The solver's last unsat core (of a check under assumption literals), minimised by deletion:
// each literal the rest stays unsatisfiable without is dropped. After max_steps checks the core
// is minimal only as far as it went.
std::vector<z3::expr> minimal_core(z3::solver& s, unsigned max_steps);

}  // namespace rocecert::proofs::trace::detail
