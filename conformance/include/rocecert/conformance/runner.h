// Runs a loaded Scenario on the golden model (model::Simulation): executes its steps in order,
// polls every CQ after each run of simulated time and before each expectation, checks every
// expectation and collects every failure (never stopping at the first), and prints the polled
// completions as a table and a verdict. The model executes; this judges (docs/model.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "rocecert/conformance/scenario.h"
#include "rocecert/cq/wc.h"
#include "rocecert/sim/event_queue.h"
#include "rocecert/trace/observer.h"

namespace rocecert::conformance {

class DutPlugin;

struct RunOptions {
  std::uint64_t seed = 1;                   // the scenario's seed, or --seed
  std::vector<trace::Observer*> observers;  // added to the simulation before anything runs
  std::FILE* out = nullptr;                 // completion table, notes and verdict; nullptr: none
  bool quiet = false;                       // no completion table, only failures and the verdict
  // A device-under-test plugin (docs/dut.md) playing the adapter named `dut_as`; the model plays
  // the others. Not owned; nullptr: the model plays every adapter.
  const DutPlugin* dut = nullptr;
  std::string dut_as = "A";
  // Wire-only (rocecert/dut.h): the model plays `dut_as` too and keeps the vector's traffic going;
  // the plugin gets the same verbs (the model's numbers imposed) and frames, and the frames it
  // emits are compared with the model's.
  bool wire_only = false;
};

// One expectation that was not met, or a verb that failed unexpectedly.
struct Failure {
  std::string path;     // JSON path of the expectation or step ("steps[9].completions.cqA[1]")
  std::string message;  // "byte_len: expected 64, got 0"
};

struct PolledCompletion {
  sim::SimTime t = 0;       // when the completion entered its CQ
  std::size_t adapter = 0;  // index into Scenario::adapters
  ObjId cq = kNoObj;
  cq::Wc wc;
};

struct RunResult {
  std::vector<Failure> failures;
  std::uint64_t checks = 0;  // expectations checked (completions, memory ranges, QP states,
                             // expected verb errors)
  std::vector<PolledCompletion> completions;  // every completion, in polling order
  sim::SimTime end_time = 0;
  // Non-empty when a step needed what the device does not offer (a function its plugin does not
  // export): the run stopped there; the failures so far stand but the verdict is UNSUPPORTED.
  std::string unsupported;
  bool passed() const { return failures.empty(); }
  int exit_code() const { return passed() ? 0 : 1; }
};

RunResult run_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace rocecert::conformance
