#include "check_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <system_error>
#include <vector>

#include "rocecert/check/checker.h"
#include "rocecert/check/profile.h"
#include "rocecert/check/report_io.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/pcap/reader.h"

namespace rocecert::cli {

namespace {

using Writer = void (*)(const check::Report&, std::ostream&);

// Writes one report to `path` ("-": stdout). Returns false after a line on stderr when the file
// cannot be written.
bool write_report(const check::Report& report, const std::string& path, Writer writer) {
  if (path == "-") {
    writer(report, std::cout);
    std::cout.flush();
    if (!std::cout) fmt::print(stderr, "rocecert check: cannot write to stdout\n");
    return static_cast<bool>(std::cout);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    fmt::print(stderr, "rocecert check: {}: cannot create the report file: {}\n", path,
               std::strerror(errno));
    return false;
  }
  writer(report, out);
  out.close();
  if (!out) {
    fmt::print(stderr, "rocecert check: {}: cannot write the report file\n", path);
    return false;
  }
  return true;
}

// Before the check, which may take long: can the report file be created? Opened for appending,
// so an existing file is left as it is until the report replaces it. Files this creates are
// listed in `created`, to be removed if the check fails.
bool probe_report_file(const std::string& path, std::vector<std::string>& created) {
  if (path.empty() || path == "-") return true;
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  if (!std::ofstream(path, std::ios::binary | std::ios::app)) {
    fmt::print(stderr, "rocecert check: {}: cannot create the report file: {}\n", path,
               std::strerror(errno));
    return false;
  }
  if (!existed) created.push_back(path);
  return true;
}

void remove_files(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    std::error_code ec;
    std::filesystem::remove(p, ec);
  }
}

void write_text_default(const check::Report& report, std::ostream& out) {
  check::write_text(report, out);
}
void write_text_verbose(const check::Report& report, std::ostream& out) {
  check::write_text(report, out, check::TextOptions{.verbose = true});
}

}  // namespace

CLI::App* add_check_command(CLI::App& app, CheckArgs& args) {
  CLI::App* chk = app.add_subcommand(
      "check", "Certify the RoCEv2 traffic of captures against the rules (docs/check.md)");
  chk->add_option("CAPTURE", args.files, "Capture files (pcap or pcapng), checked one by one")
      ->required();
  chk->add_option("--profile", args.profile,
                  "DUT profile: a built-in name (rxe, iba) or a profile file (default rxe)");
  chk->add_option("--json", args.json, "Write the JSON report (docs/json.md) to FILE; - stdout")
      ->option_text("FILE|-");
  chk->add_option("--junit", args.junit, "Write a JUnit XML report to FILE; - stdout")
      ->option_text("FILE|-");
  chk->add_option_function<std::uint32_t>(
         "--max-capture-errors", [&args](const std::uint32_t& k) { args.max_capture_errors = k; },
         "Tap errors an explanation may assume per connection (overrides the profile's)")
      ->option_text("K");
  chk->add_flag("-v,--verbose", args.verbose, "List every violation, not only the first per rule");
  chk->add_flag("-q,--quiet", args.quiet, "No text report (the exit code still tells FAIL)");
  chk->add_option("--setup", args.setup,
                  "The DUT's MRs and QPs: a scenario file whose reg_mr/create_qp steps carry "
                  "dut_rkey/dut_qpn (docs/check.md); key enforcement is judged against it");
  chk->add_option("-j,--jobs", args.jobs,
                  "Threads: 2 or more shard a capture by connection (its streams and their "
                  "golden replay on N - 1 threads while the first decodes and pairs; 4 or more: "
                  "reading on one more), and check several captures side by side (default 1; "
                  "the report is the same)")
      ->check(CLI::Range(1u, 64u));
  chk->add_option("--events", args.events,
                  "The DUT's log while the capture was taken: JSON lines of work completions, QP "
                  "states and async events (docs/check.md); held against the wire (events.*)");
  chk->add_flag("--no-golden", args.no_golden,
                "Skip the golden replay (the RC requests fed to the model's responder, its "
                "answers compared with the device's, and the model's requester replayed in "
                "lockstep on the messages and responses: rules golden.response, golden.request, "
                "golden.requester)");
  chk->add_flag("--no-z3", args.no_z3,
                "Skip the invariants the Z3 solver checks over each connection (rules z3.*, "
                "docs/proofs.md)");
  return chk;
}

int run_check(const CheckArgs& args) {
  if (args.json == "-" && args.junit == "-") {
    fmt::print(stderr, "rocecert check: --json - and --junit - cannot both write to stdout\n");
    return 2;
  }
  if (!args.json.empty() && args.json == args.junit) {
    fmt::print(stderr, "rocecert check: --json and --junit name the same file: {}\n", args.json);
    return 2;
  }
  check::Options opts;
  try {
    opts.profile = check::load_profile(args.profile);
  } catch (const check::ProfileError& e) {
    fmt::print(stderr, "rocecert check: {}\n", e.what());
    return 2;
  }
  if (args.max_capture_errors) opts.profile.max_capture_errors = *args.max_capture_errors;
  opts.jobs = args.jobs;
  opts.golden = !args.no_golden;
  opts.z3 = !args.no_z3;
  if (!args.setup.empty()) {
    try {
      opts.setup = std::make_shared<const check::Setup>(check::load_setup(args.setup));
    } catch (const conformance::ScenarioError& e) {
      fmt::print(stderr, "rocecert check: --setup {}\n", e.what());
      return 2;
    }
  }
  if (!args.events.empty()) {
    try {
      opts.events = std::make_shared<const check::Events>(check::load_events(args.events));
    } catch (const check::EventsError& e) {
      fmt::print(stderr, "rocecert check: --events {}\n", e.what());
      return 2;
    }
  }
  std::vector<std::string> created;
  if (!probe_report_file(args.json, created) || !probe_report_file(args.junit, created)) {
    remove_files(created);
    return 2;
  }

  check::Report report;
  try {
    report = check::check_files(args.files, opts);
  } catch (const pcap::CaptureError& e) {
    // The message names the file, the frame and the byte offset, as `rocecert decode` prints it.
    remove_files(created);
    fmt::print(stderr, "rocecert check: {}\n", e.what());
    return 2;
  } catch (...) {
    remove_files(created);
    throw;
  }

  bool ok = true;
  if (!args.json.empty()) ok = write_report(report, args.json, check::write_json) && ok;
  if (!args.junit.empty()) ok = write_report(report, args.junit, check::write_junit) && ok;
  // The text report goes to stdout unless a machine-readable report took it.
  if (!args.quiet && args.json != "-" && args.junit != "-") {
    ok = write_report(report, "-", args.verbose ? write_text_verbose : write_text_default) && ok;
  }
  if (!ok) return 2;
  return report.verdict == check::Verdict::FAIL ? 1 : 0;
}

}  // namespace rocecert::cli
