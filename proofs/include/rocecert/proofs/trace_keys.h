// Key enforcement over a device's trace, with Z3 (rule z3.key of `rocecert check`,
// docs/proofs.md "Trace invariants"): is there one memory-key table that explains every RDMA
// access a responder granted or refused on one connection?
//
// The table the solver may choose: per (rkey, key epoch) one region [lo, hi) with hi <= 2^64,
// read / write / atomic rights, a FLUSH right per placement asked (global visibility,
// persistence, both), and whether the key is usable by this QP at all (its PD, or the QP a
// type-2 window is bound to); per access kind whether the QP's access flags allow it. An access
// is allowed when all of that holds (IBA Vol. 1 §10.6.3, §10.6.7, chapter 9 R_Key checks; IBA
// 1.5 FLUSH; docs/spec-notes.md §7.3-7.5, §8.4). With the DUT's setup, the table is the setup's.
// Unsatisfiable means no table explains the trace; the minimal unsat core names the accesses
// (and setup entries) that contradict each other.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rocecert::proofs::trace {

enum class AccessKind : std::uint8_t { READ, WRITE, ATOMIC, FLUSH };

// One access the responder answered: granted (an ACK, a READ response, an atomic
// acknowledgement) or refused with NAK remote access error. Zero-length READs and WRITEs are not
// key-checked and must not be given (a zero-length FLUSH is checked).
struct KeyObservation {
  AccessKind kind = AccessKind::WRITE;
  bool granted = true;
  std::uint32_t rkey = 0;
  std::uint32_t epoch = 0;  // the rkey's generation: an invalidation seen between starts a new one
  std::uint64_t va = 0;
  std::uint32_t length = 0;
  // FLUSH: its FETH placement bits (1 global visibility, 2 persistence, 3 both; 0 needs no
  // right), and whether it flushes the whole region (selectivity 1: its range is not checked).
  std::uint8_t placement = 0;
  bool whole_region = false;
};

// The FLUSH right an observation needs: 0 (none), 1, 2 or 3 (the placement bits it asks).
inline unsigned flush_right(const KeyObservation& o) {
  return o.kind == AccessKind::FLUSH ? o.placement & 3u : 0u;
}

// What the setup says of an rkey in epoch 0 (absent: the solver chooses).
struct KnownKey {
  std::uint32_t rkey = 0;
  std::string name;     // for the report
  bool exists = false;  // false: no MR or window of the setup has this rkey
  bool usable = false;  // same PD as the QP (and, for a type-2 window, bound to it)
  std::uint64_t base = 0, length = 0;
  bool read = false, write = false, atomic = false;
  // A FLUSH asking both placements needs both (rxe_mr.c lookup_mr and rxe_mw.c rxe_lookup_mw,
  // Linux 6.2 on: the rights asked must all be held; docs/spec-notes.md §8.4).
  bool flush_global = false, flush_persistent = false;
};
struct KnownQp {
  std::string name;
  bool read = false, write = false, atomic = false;     // qp_access_flags
  bool flush_global = false, flush_persistent = false;  // a FLUSH asking both needs both
};

struct KeyJudgement {
  bool decided = true;  // false: the solver ran out of its resource limit (consistent is then true)
  bool consistent = true;
  // When not: a minimal set of observations (indices into the input) and setup entries (names)
  // that no table satisfies together.
  std::vector<std::size_t> observations;
  std::vector<std::string> setup;
};

// Each solver call is limited to kSolverResourceLimit of Z3's resource units (its `rlimit`), not
// to a time: the verdict then does not depend on the machine's load, and no timer thread is woken
// for each call (Z3 4.8's scoped_timer). On the CI machine class Z3 spends 0.4-3.5 M units a
// second on QF_LIA, so the limit is 3-25 s of solving; the largest decisions bench/trace_bench
// makes (4,096 accesses, 1,365 NAKs; 0.15-0.4 s each) take at most 0.45 M units a call, which the
// benchmark checks by their outcome. The core's minimisation stops after kMaxMinimisationSteps
// calls (the core is then minimal only as far as it went).
inline constexpr unsigned kSolverResourceLimit = 10'000'000;
inline constexpr unsigned kMaxMinimisationSteps = 64;

// Whether the least table explains every observation: the QP's flags and each key as the setup
// says, else as little as the grants need (a key no access was granted on is unusable; one that
// was, usable with the rights granted on it and the hull of its granted ranges; the QP allowing
// the kinds granted anywhere). Every table that explains the grants allows at least what it
// allows, so the observations hold together iff it refuses every refused access. A direct check,
// exact: judge_keys asks the solver only when it fails.
bool least_table_explains(std::span<const KeyObservation> observations,
                          std::span<const KnownKey> known_keys, const std::optional<KnownQp>& qp);

// DIRECT_FIRST asks the solver only when least_table_explains fails; SOLVER_ONLY always (the
// tests compare the two).
enum class KeyMethod : std::uint8_t { DIRECT_FIRST, SOLVER_ONLY };

KeyJudgement judge_keys(std::span<const KeyObservation> observations,
                        std::span<const KnownKey> known_keys, const std::optional<KnownQp>& qp,
                        KeyMethod method = KeyMethod::DIRECT_FIRST);

}  // namespace rocecert::proofs::trace
