// Shared by the proofs' files: the transcriptions of the model's functions, and one proof's
// entry point per file.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "rocecert/errors/arbitration.h"
#include "rocecert/proofs/proofs.h"

namespace rocecert::proofs::detail {

// qp::psn_diff (refmodel/include/rocecert/qp/ids.h) on 32-bit bit-vectors: the signed serial
// distance a - b of two 24-bit PSNs. BROKEN: the half-window boundary one further (2^23 + 1).
z3::expr psn_diff(z3::context& c, const z3::expr& a, const z3::expr& b, Variant v);
// mem::range_within (refmodel/include/rocecert/mem/range.h) on bit-vectors of the operands'
// width (64 for the model's words). BROKEN: the naive end compare start + length <= base +
// base_length, which wraps.
z3::expr range_within(z3::context& c, const z3::expr& start, const z3::expr& length,
                      const z3::expr& base, const z3::expr& base_length, Variant v);

// errors::precedence_compare (refmodel/errors/arbitration.cpp) evaluated through its
// transcription in arbitration.cpp: -1, 0 or 1.
int eval_precedence(const errors::ErrorEvent& a, const errors::ErrorEvent& b);

// The same transcriptions evaluated on numbers (for the tests that hold them to the C++).
std::int32_t eval_psn_diff(std::uint32_t a, std::uint32_t b);
bool eval_range_within(std::uint64_t start, std::uint64_t length, std::uint64_t base,
                       std::uint64_t base_length);

// Looks for a counterexample to `claim` (true for every value of its constants): none means it
// is proved; otherwise the solver's model of one.
std::optional<z3::model> refute(z3::context& c, const z3::expr& claim);
// The outcome of proving `claim`: proved, or the counterexample `describe` makes of the model.
Outcome settle(z3::context& c, const z3::expr& claim,
               const std::function<std::string(const z3::model&)>& describe);

// One proof per function (psn.cpp, bounds.cpp, transitions.cpp).
Outcome prove_psn_serial_order(Variant v, const Options& options);
Outcome prove_psn_responder_regions(Variant v, const Options& options);
Outcome prove_range_within(Variant v, const Options& options);
Outcome prove_transitions_reachable(Variant v, const Options& options);
Outcome prove_err_exits(Variant v, const Options& options);
Outcome prove_attrs_disjoint(Variant v, const Options& options);
Outcome prove_arbitration_order(Variant v, const Options& options);

// "0x1234" for a bit-vector value of a model.
std::string hex_of(const z3::model& m, const z3::expr& e);

}  // namespace rocecert::proofs::detail
