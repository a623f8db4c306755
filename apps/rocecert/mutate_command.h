#pragma once

#include <cstdint>
#include <string>

namespace rocecert::cli {

struct MutateArgs {
  std::string in;
  std::string out;
  std::string op;  // a kind of rocecert/mutate/mutations.def
  std::uint64_t seed = 1;
  bool list = false;  // print the kinds (kind, rule, description) and exit
};

// Applies one mutation (docs/mutate.md), printing what changed on stderr. Returns the process
// exit code: 0 written, 2 unusable input or unknown kind, 3 no eligible frame for the kind.
int run_mutate(const MutateArgs& args);

}  // namespace rocecert::cli
