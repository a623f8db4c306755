// Running a command from a test: its exit code, stdout and stderr, through temporary files
// named after the test process (so parallel ctest runs do not collide).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rocecert::testing {

struct CommandResult {
  int exit_code = -1;  // -1: the command did not exit normally
  std::string out;
  std::string err;
};

// A path in the temporary directory, unique to this process: "rocecert-<tag>-<pid>-<name>".
inline std::string temp_path(const std::string& tag, const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("rocecert-" + tag + "-" + std::to_string(getpid()) + "-" + name))
      .string();
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `command` with sh, capturing both output streams.
inline CommandResult run_command(const std::string& command) {
  const std::string out = temp_path("cmd", "stdout"), err = temp_path("cmd", "stderr");
  const int status = std::system((command + " > '" + out + "' 2> '" + err + "'").c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

}  // namespace rocecert::testing
