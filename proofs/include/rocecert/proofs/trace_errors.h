// Error arbitration over a device's log, with Z3 (rule z3.arbitration of `rocecert check
// --events`, docs/proofs.md "Trace invariants"): is there one history of which QPs entered the
// error state, and when, that explains every completion the test program polled, with each QP
// taken to ERR only by what the declared policy allows?
//
// The history the solver may choose, per QP: whether it entered ERR and at which log position
// (the device moved it between two lines of the log). The facts, each at a log position:
//   SUCCESS  a completion without error: the QP was not in ERR yet (IBA Vol. 1 §10.3.1: a QP in
//            ERR completes every work request with WR_FLUSH_ERR);
//   ERROR    an error completion of its own (not a flush): it is what took the QP to ERR, so
//            the QP entered ERR exactly there (one error per QP: the rest are flushes);
//   FLUSH    WR_FLUSH_ERR: the QP was in ERR by then.
// Per QP, what may take it to ERR (errors::isolate(), docs/error-arbitration.md): an error of its
// own (a fatal NAK on the wire, an error completion other than a flush), an error of a resource
// it shares (an asynchronous event on its host, such as CQ_ERR: the RESOURCE tier), the program
// itself (a QP state it logged before), or, when no other QP of its host failed, anything the
// log does not show. A QP of a host where another QP failed, with none of those, may not enter
// ERR: one QP's error must not take another with it (isolation).
// Each log line and each QP's isolation claim is a group under its own assumption literal; an
// unsatisfiable check names the minimal core.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace rocecert::proofs::trace {

enum class Completion : std::uint8_t { SUCCESS, ERROR, FLUSH };

struct QpErrorFacts {
  // What may take the QP to ERR besides an error completion of its own.
  bool own_error = false;       // a fatal NAK on the wire, or an own error completion
  bool resource_error = false;  // an asynchronous event on its host
  bool others_failed = false;   // another QP of its host has an error of its own
  std::optional<std::uint64_t> program_state;  // the first QP state the program logged
  std::size_t group = 0;                       // the group of the QP's isolation claim
};

struct CompletionFact {
  std::size_t qp = 0;          // index into the QPs
  std::uint64_t position = 0;  // log position (line)
  Completion kind = Completion::SUCCESS;
  std::size_t group = 0;
};

struct ErrorsJudgement {
  bool decided = true;
  bool consistent = true;
  std::vector<std::size_t> groups;  // when not: a minimal set that no history satisfies
};

// Whether some history explains every fact: a direct check, exact. A QP's facts bind only its
// own two unknowns, so each QP is decided alone. Never in ERR explains it when it has no error
// completion and no flush. Otherwise it entered ERR at some position after its last success and
// no later than its first flush; with an error completion, exactly there (so all of them at one
// position); and, when isolation forbids the log's silence, no earlier than the program's first
// logged state. Each QP needs one pass over its facts.
bool some_history_explains(std::span<const QpErrorFacts> qps,
                           std::span<const CompletionFact> completions);

// DIRECT_FIRST asks the solver only when some_history_explains fails, for the minimal core (a
// consistent log needs no solver, and the answer is the same); SOLVER_ONLY always asks it (the
// tests compare the two).
enum class ErrorsMethod : std::uint8_t { DIRECT_FIRST, SOLVER_ONLY };

// Every CompletionFact's qp indexes `qps`.
ErrorsJudgement judge_errors(std::span<const QpErrorFacts> qps,
                             std::span<const CompletionFact> completions,
                             ErrorsMethod method = ErrorsMethod::DIRECT_FIRST);

}  // namespace rocecert::proofs::trace
