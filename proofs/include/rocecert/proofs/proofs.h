// Proofs over the model's own tables and functions (docs/proofs.md), with Z3: each property is
// stated as a bit-vector formula and its negation handed to the solver; "unsat" proves it for
// every input, "sat" gives a counterexample in concrete values.
//
// Tables are read as the model holds them (qp::transition_entries()). Functions are proved on a
// transcription into bit-vectors that a test checks against the compiled function on edge and
// random inputs (proofs/tests), so a change to the function that the transcription does not
// follow fails the build's tests.
//
// Every proof has a deliberately broken variant (an off-by-one window, a missing table cell, a
// wrapping end compare) that the tests show the solver rejecting with a counterexample.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace rocecert::proofs {

enum class Variant : std::uint8_t {
  MODEL,   // the model as it is
  BROKEN,  // the proof's deliberately broken variant (what `broken` says)
};

struct Proof {
  std::string_view id;         // "PSN.SERIAL_ORDER"
  std::string_view statement;  // the property, in words
  std::string_view reference;  // the IBTA clause (and docs/ section)
  std::string_view broken;     // what the broken variant changes
};

struct Outcome {
  const Proof* proof = nullptr;
  bool proved = false;
  std::string counterexample;  // concrete values, when not proved
  std::string evidence;        // what was shown when proved (e.g. a witness path), may be empty
  double seconds = 0;
};

// Every proof, in a fixed order.
std::span<const Proof> catalog();
// The proof of that id, or nullptr.
const Proof* find(std::string_view id);
struct Options {
  // The bounds proof on 16-bit words instead of 64 (the same transcription, generic in the word
  // width), for the unit tests. `rocecert prove` never sets it.
  bool quick = false;
};

// Runs one proof on the model (or on its broken variant).
Outcome prove(const Proof& p, Variant v = Variant::MODEL, const Options& options = {});

}  // namespace rocecert::proofs
