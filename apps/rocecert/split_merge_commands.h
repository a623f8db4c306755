// `rocecert split` and `rocecert merge`: spread the check of a large capture over machines
// (docs/check.md, "Captures beyond one machine").
#pragma once

#include <string>
#include <vector>

namespace rocecert::cli {

struct SplitArgs {
  std::string file;
  unsigned parts = 2;
  std::string out;  // prefix of the parts; default: the capture's path without ".pcap"
};
// Writes the parts and prints one line per part. 0 done, 2 unusable input.
int run_split(const SplitArgs& args);

struct MergeArgs {
  std::vector<std::string> reports;  // JSON reports of `rocecert check --json`
  std::string json, junit;           // where to write the merged report ("-": stdout)
  bool quiet = false;
  bool verbose = false;
};
// Merges the reports and prints the text summary. 0 no FAIL, 1 FAIL, 2 unusable input.
int run_merge(const MergeArgs& args);

}  // namespace rocecert::cli
