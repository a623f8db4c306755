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

// The solver's last unsat core (of a check under assumption literals), minimised by deletion:
// each literal the rest stays unsatisfiable without is dropped. After max_steps checks the core
// is minimal only as far as it went.
std::vector<z3::expr> minimal_core(z3::solver& s, unsigned max_steps);

}  // namespace rocecert::proofs::trace::detail
