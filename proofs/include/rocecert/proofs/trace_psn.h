// PSN windows over a device's trace, with Z3 (rule z3.psn of `rocecert check`, docs/proofs.md
// "Trace invariants"): is there one history of the responder's expected PSN (ePSN), and of what
// the requester knew to be acknowledged, that explains every response and every new request of
// one RC connection?
//
// The history the solver may choose: e(t), the responder's ePSN at each capture position t
// (the time the tap showed a frame), never moving back (IBA Vol. 1 §9.7.5.1: the ePSN only
// advances). The facts, each at a capture position, on one unwrapped PSN axis (no mod 2^24):
//   AT_LEAST v  e(t) >= v: a response the tap showed at t left the responder before, with its
//               ePSN at least v then (an ACK, READ response or atomic acknowledge of PSN v - 1;
//               a NAK of PSN v);
//   AT_MOST v   e(t) <= v: a NAK PSN sequence error or an RNR NAK carrying v was sent after a
//               request the tap showed at t reached the responder (the first request that can
//               have set it off: no reordering network puts the NAK before it), so the ePSN was
//               still v after t;
//   REQUEST     a new request of PSN p at t: fewer than 2^23 PSNs outstanding (IBA Vol. 1
//               chapter 9, PSN window; docs/spec-notes.md §3.2), so the requester's
//               acknowledged frontier a holds p + 1 - a < 2^23, with a <= `acked` (what the
//               responses the tap showed before had acknowledged) and a <= e(t).
// Facts come in groups (one per frame that shows them: a NAK gives an AT_LEAST at its own
// position and an AT_MOST at its trigger's). Unsatisfiable means no history exists; the minimal
// unsat core names the groups that contradict each other. Up to `capture_errors` groups may be
// set aside as the tap's doing; the fewest that explain the trace are reported.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rocecert::proofs::trace {

enum class PsnFact : std::uint8_t { AT_LEAST, AT_MOST, REQUEST };

struct PsnObservation {
  PsnFact fact = PsnFact::AT_LEAST;
  std::int64_t psn = 0;    // AT_LEAST / AT_MOST: the ePSN bound; REQUEST: the request's PSN
  std::int64_t acked = 0;  // REQUEST: the oldest PSN the responses seen before left unacknowledged
  std::uint64_t at = 0;    // the capture position (frame number)
  std::size_t group = 0;   // facts of one group stand or fall (or are set aside) together
};

struct PsnJudgement {
  bool decided = true;  // false: the solver ran out of its resource limit (consistent is then true)
  bool consistent = true;
  // When not: a minimal set of groups that no history satisfies together, with at most
  // capture_errors of them set aside.
  std::vector<std::size_t> groups;
  // When consistent only with some set aside: those groups, as few as possible.
  std::vector<std::size_t> set_aside;
};

// The half window: a requester keeps fewer than 2^23 PSNs outstanding.
inline constexpr std::int64_t kPsnWindow = std::int64_t{1} << 23;

// Whether the least history explains every fact with none set aside: each e(t) the highest lower
// bound at or before t (AT_LEAST v, and v' + 2 - 2^23 for a REQUEST of PSN v'), which every
// history must lie above; it never moves back by construction, so the facts hold together iff
// it stays within every AT_MOST bound and each REQUEST's own `acked` allows its PSN. A direct
// check in one pass, exact for the case without capture errors.
bool least_history_explains(std::span<const PsnObservation> observations);

// DIRECT_FIRST asks the solver only when least_history_explains fails (a consistent trace needs
// no solver, and the answer is the same: nothing set aside); SOLVER_ONLY always asks it (the
// tests compare the two).
enum class PsnMethod : std::uint8_t { DIRECT_FIRST, SOLVER_ONLY };

PsnJudgement judge_psn(std::span<const PsnObservation> observations, std::uint32_t capture_errors,
                       PsnMethod method = PsnMethod::DIRECT_FIRST);

}  // namespace rocecert::proofs::trace
