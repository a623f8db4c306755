// `rocecert vectors generate | run | coverage` (vectors/README.md).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace rocecert::cli {

struct VectorsArgs {
  std::string dir;        // the set (or one vector file for `run`)
  std::string scenarios;  // generate: the reliability area's scenarios (default DIR/scenarios)
  std::string filter;     // run: only vectors whose id contains it
  std::string junit;      // run: JUnit XML here ("-": stdout)
  std::string json;       // run, coverage: JSON here ("-": stdout)
  bool quiet = false;     // run: only failures and the summary
  std::string dut;        // run: "lib:PATH.so[,ARGS]" (a plugin) or "verbs:A[,B]"; empty: the model
  std::string dut_as = "A";  // run: the adapter of each vector the plugin plays
  bool wire_only = false;    // run: judge the plugin's frames only (docs/dut.md)
  std::string events;        // run, --dut verbs:: each vector's event log into this directory
  std::string profile;       // run: the DUT's profile (docs/profiles.md), FAILs it explains
                             // become DEVIATIONs
};

// Adds `vectors` with its three subcommands to `app`; returns it.
CLI::App* add_vectors_command(CLI::App& app, VectorsArgs& args);
// Runs whichever subcommand was given. Exit codes: generate 0 (2: a vector the model does not
// pass, or a file that cannot be written); run 0 no FAIL, 1 a FAIL, 2 unusable input; coverage
// 0 every cell covered or reasoned, 1 a cell missing, 2 unusable input.
int run_vectors(const CLI::App& vectors, const VectorsArgs& args);

}  // namespace rocecert::cli
