#pragma once

#include <string>
#include <vector>

namespace rocecert::cli {

struct ProveArgs {
  bool json = false;    // a JSON report on stdout instead of the text
  bool broken = false;  // run each proof's deliberately broken variant (each must be refuted)
  std::vector<std::string> only;  // proof ids; empty: all
};

// Runs the proofs over the model (docs/proofs.md). Returns the process exit code: 0 every proof
// proved (with --broken: every variant refuted), 1 a counterexample (with --broken: a variant
// proved), 2 an unknown proof id.
int run_prove(const ProveArgs& args);

}  // namespace rocecert::cli
