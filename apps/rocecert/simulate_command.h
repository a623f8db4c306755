#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rocecert::cli {

struct SimulateArgs {
  std::string file;                   // the scenario (JSON)
  std::string pcap;                   // --pcap: every transmitted frame; empty: none
  std::string trace;                  // --trace: the event trace as JSON lines; empty: none
  std::optional<std::uint64_t> seed;  // --seed: overrides the scenario's "seed"
  bool quiet = false;                 // --quiet: no completion table
};

// Loads and validates the scenario, runs it on the golden model with the requested observers,
// prints the polled completions and the verdict on stdout. Returns the exit code: 0 every
// expectation met, 1 some failed, 2 unusable input (one line on stderr naming the file and the
// JSON path or byte offset of the problem) or an output file that cannot be written.
int run_simulate(const SimulateArgs& args);

}  // namespace rocecert::cli
