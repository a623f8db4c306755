// Test vectors (vectors/README.md): a scenario of the existing format (docs/scenario.md) whose
// `expect` steps hold what an implementation must show — the frames' fixed fields, the
// completions, the QP states — written by the golden model, plus what a test bench needs to
// pick and cite it: a stable id, the IBTA clauses it exercises, the DUT capabilities it needs,
// the opcodes its frames carry. The expected frames are also written as a pcap beside it.
//
// generate() builds the set from the project's own tables (the opcode table for the `opcodes`
// area, the transition table for `transitions`) and its hand-written scenarios of recovery
// (`reliability`); run_golden() replays a vector on the model; coverage() says which cells of the
// matrices the set fills.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "rocecert/conformance/dut_plugin.h"
#include "rocecert/conformance/scenario.h"

namespace rocecert::vectors {

// The format version written. 2 added the scenario's `inject` step; a version-1 vector (none)
// is a version-2 vector and is still read.
inline constexpr int kFormatVersion = 2;
inline constexpr int kOldestFormatVersion = 1;

struct Vector {
  std::string id;         // "<area>/<objective>-NN": its path under the set, without ".json"
  std::string objective;  // one line
  std::vector<std::string> clauses;       // "IBA Vol. 1 §9.4.1", ...
  std::vector<std::string> capabilities;  // what the DUT must offer: "RC", "ATOMIC", ...
  std::vector<std::string> opcodes;       // the opcodes of its expected frames (coverage)
  std::vector<std::string> transitions;   // "RC RESET->INIT": the modify_qp it tries (coverage)
  std::vector<std::string> errors;        // "RESP_RKEY_VIOLATION IBA": error class and profile
  nlohmann::ordered_json scenario;        // the scenario, expectations included
};

// A vector with its expected frames (Ethernet, ns timestamps = simulated time).
struct Generated {
  Vector vector;
  struct Frame {
    std::int64_t t_ns = 0;
    std::vector<std::uint8_t> bytes;
  };
  std::vector<Frame> frames;
};

// An unusable vector file: names the file and the JSON path (or byte offset).
class VectorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The whole set, in id order; deterministic. `scenarios_dir`: the hand-written scenarios the
// `reliability` area records (vectors/scenarios; empty: that area is left out). Throws
// VectorError if the model does not pass a vector it just wrote (a generator bug) or a source
// scenario cannot be read.
std::vector<Generated> generate(const std::string& scenarios_dir);
// Writes DIR/<id>.json and DIR/<id>.pcap for each vector (directories created).
void write_set(const std::vector<Generated>& set, const std::string& dir);
// The vector as written: JSON text (2-space indent, a final newline).
std::string to_text(const Vector& v);

struct Loaded {
  Vector vector;
  std::string path;
  conformance::Scenario scenario;
};
// Reads a vector file; throws VectorError (file, JSON path) when it is not one.
Loaded load(const std::string& path);
// The same from text; `path` names it in messages.
Loaded parse(std::string_view text, const std::string& path);
// Every vector file under `dir` (recursively: *.json with a top-level "vector" key), sorted by
// path.
std::vector<std::string> find(const std::string& dir);

// DEVIATION: a FAIL the DUT's profile explains (`vectors run --profile`, docs/profiles.md).
enum class Verdict : std::uint8_t { PASS, FAIL, UNSUPPORTED, DEVIATION };
std::string_view to_string(Verdict v);
struct Result {
  std::string id;
  std::string path;
  Verdict verdict = Verdict::PASS;
  std::vector<std::string> differences;  // FAIL: "steps[20].frames[5]: psn: expected ..."
  std::string declared;  // DEVIATION: the profile's explanation (cause: justification (ref))
  std::uint64_t checks = 0;
  double seconds = 0;
};
// The golden model as the device under test: the vector's scenario run, every expectation
// checked.
Result run_golden(const Loaded& v);
// A device-under-test plugin (docs/dut.md) playing adapter `dut_as` of the vector, the model
// the others. UNSUPPORTED when the plugin lists capabilities and lacks one the vector needs, when
// the vector has no adapter `dut_as`, when a step needs a function the plugin does not export,
// or when the plugin refuses the adapter with a message starting "unsupported:". Throws
// conformance::DutError when the plugin refuses it otherwise.
// `wire_only`: the plugin is judged on its frames alone (rocecert/dut.h "Wire-only runs").
Result run_dut(const Loaded& v, const conformance::DutPlugin& dut, const std::string& dut_as,
               bool wire_only = false);

// Which cells of the coverage matrices the vectors fill; a cell without a vector has a written
// reason or is missing.
struct Coverage {
  struct Cell {
    std::string row, column;
    std::vector<std::string> vectors;  // ids
    std::string reason;                // why no vector (empty: none needed or missing)
  };
  struct Matrix {
    std::string name;  // "opcode x transport"
    std::vector<Cell> cells;
    std::size_t covered() const;
    std::size_t reasoned() const;
    std::vector<const Cell*> missing() const;
  };
  std::vector<Matrix> matrices;
};
Coverage coverage(const std::vector<Vector>& set);

}  // namespace rocecert::vectors
