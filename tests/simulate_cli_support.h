// Running the rocecert binary from the simulate tests: exit code, stdout, stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/command.h"

namespace simulate_cli {

using CliRun = rocecert::testing::CommandResult;
using rocecert::testing::slurp;

inline std::string temp_path(const std::string& name) {
  return rocecert::testing::temp_path("sim", name);
}

inline CliRun run_cli(const std::string& args) {
  return rocecert::testing::run_command(std::string(ROCECERT_CLI) + " " + args);
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::stringstream ss(text);
  std::string l;
  while (std::getline(ss, l)) v.push_back(l);
  return v;
}

inline std::string source(const std::string& rel) {
  return std::string(ROCECERT_SOURCE_DIR) + "/" + rel;
}

}  // namespace simulate_cli
