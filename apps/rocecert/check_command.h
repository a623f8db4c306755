#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace rocecert::cli {

struct CheckArgs {
  std::vector<std::string> files;
  std::string profile = "rxe";  // a built-in profile's name or a profile file (docs/check.md)
  std::string json;             // report file; "-" is stdout; empty: none
  std::string junit;            // the same for the JUnit XML report
  std::optional<std::uint32_t> max_capture_errors;  // overrides the profile's budget
  bool verbose = false;                             // every violation in the text report
  bool quiet = false;                               // no text report
  std::string setup;  // --setup: a scenario file describing the DUT's MRs and QPs; empty: none
  unsigned jobs = 1;  // threads: 2 or more pipeline decoding and rules, and take captures in turn
  bool no_golden = false;  // --no-golden: skip the golden replay (golden.*)
  bool no_z3 = false;      // --no-z3: skip the Z3 invariants (z3.*)
  std::string events;      // --events: the DUT's log (JSON lines); empty: none
};

// Registers the `check` subcommand of `app`, its options filling `args`.
CLI::App* add_check_command(CLI::App& app, CheckArgs& args);

// Checks the captures and writes the reports. Returns the process exit code (docs/check.md):
// 0 unless the verdict is FAIL (1); 2 for an unusable capture, profile or output file, after one
// line on stderr naming it (file, frame and byte offset; profile file and key).
int run_check(const CheckArgs& args);

}  // namespace rocecert::cli
