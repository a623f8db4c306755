#include "split_merge_commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "rocecert/check/report_io.h"
#include "rocecert/check/split.h"
#include "rocecert/pcap/reader.h"

namespace rocecert::cli {

int run_split(const SplitArgs& args) {
  if (args.parts == 0) {
    fmt::print(stderr, "rocecert split: --parts must be at least 1\n");
    return 2;
  }
  std::string prefix = args.out;
  if (prefix.empty()) {
    prefix = args.file;
    for (const char* ext : {".pcapng", ".pcap"})
      if (prefix.size() > std::string_view(ext).size() && prefix.ends_with(ext)) {
        prefix.resize(prefix.size() - std::string_view(ext).size());
        break;
      }
  }
  try {
    const auto parts = check::split_capture(args.file, args.parts, prefix);
    for (const check::SplitPart& p : parts)
      fmt::print("{}: {} frames, {} connection group{}\n", p.file, p.frames, p.groups,
                 p.groups == 1 ? "" : "s");
  } catch (const pcap::CaptureError& e) {
    fmt::print(stderr, "rocecert split: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocecert split: {}\n", e.what());
    return 2;
  }
  return 0;
}

namespace {

bool write_to(const std::string& path, const std::string& what, const check::Report& r,
              void (*writer)(const check::Report&, std::ostream&)) {
  if (path == "-") {
    writer(r, std::cout);
    return true;
  }
  std::ofstream out(path);
  if (out) writer(r, out);
  if (!out) {
    fmt::print(stderr, "rocecert merge: cannot write the {} report to {}\n", what, path);
    return false;
  }
  return true;
}

}  // namespace

int run_merge(const MergeArgs& args) {
  std::vector<check::Report> parts;
  std::vector<std::filesystem::path> seen;
  for (const std::string& path : args.reports) {
    // One report given twice would count its frames, connections and violations twice.
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
    if (!ec && std::find(seen.begin(), seen.end(), canonical) != seen.end()) {
      fmt::print(stderr, "rocecert merge: {}: given twice (its counts would be added twice)\n",
                 path);
      return 2;
    }
    if (!ec) seen.push_back(canonical);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      fmt::print(stderr, "rocecert merge: {}: cannot open: {}\n", path, std::strerror(errno));
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    try {
      parts.push_back(check::read_json(text.str(), path));
    } catch (const check::ReportError& e) {
      fmt::print(stderr, "rocecert merge: {}\n", e.what());
      return 2;
    }
  }
  const check::Report r = check::merge(std::move(parts));
  if (!args.json.empty() && !write_to(args.json, "JSON", r, check::write_json)) return 2;
  if (!args.junit.empty() && !write_to(args.junit, "JUnit", r, check::write_junit)) return 2;
  if (!args.quiet && args.json != "-" && args.junit != "-") {
    check::TextOptions t;
    t.verbose = args.verbose;
    check::write_text(r, std::cout, t);
  }
  return r.verdict == check::Verdict::FAIL ? 1 : 0;
}

}  // namespace rocecert::cli
