#pragma once

#include <cstdint>
#include <string>

namespace rocecert::cli {

struct DecodeArgs {
  std::string file;
  bool json = false;
  bool verify_icrc = true;
  bool strict = false;      // exit 1 when a frame fails to decode or fails its ICRC
  bool stats = false;       // totals on stderr at the end
  std::uint64_t count = 0;  // stop after this many frames; 0 = all
};

// Streams the capture, printing one line per frame to stdout. Returns the process exit code:
// 0 done, 1 with --strict when a frame was malformed or failed its ICRC, 2 unusable capture.
int run_decode(const DecodeArgs& args);

}  // namespace rocecert::cli
