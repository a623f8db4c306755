#include "simulate_command.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "rocecert/conformance/pcap_sink.h"
#include "rocecert/conformance/runner.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/trace/json_trace.h"

namespace rocecert::cli {

namespace {

constexpr const char* kPrefix = "rocecert simulate: ";

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};

}  // namespace

int run_simulate(const SimulateArgs& args) {
  conformance::Scenario scenario;
  try {
    scenario = conformance::load_scenario_file(args.file);
  } catch (const conformance::ScenarioError& e) {
    fmt::print(stderr, "{}{}\n", kPrefix, e.what());
    return 2;
  }
  std::unique_ptr<conformance::PcapSink> pcap;
  std::unique_ptr<std::FILE, FileCloser> trace_file;
  std::unique_ptr<trace::JsonTraceWriter> trace;
  conformance::RunOptions options;
  options.seed = args.seed.value_or(scenario.seed);
  options.out = stdout;
  options.quiet = args.quiet;
  try {
    if (!args.pcap.empty()) {
      pcap = std::make_unique<conformance::PcapSink>(args.pcap);
      options.observers.push_back(pcap.get());
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}{}\n", kPrefix, e.what());
    return 2;
  }
  if (!args.trace.empty()) {
    trace_file.reset(std::fopen(args.trace.c_str(), "wb"));
    if (!trace_file) {
      fmt::print(stderr, "{}{}: cannot create the trace file: {}\n", kPrefix, args.trace,
                 std::strerror(errno));
      return 2;
    }
    trace = std::make_unique<trace::JsonTraceWriter>(trace_file.get());
    options.observers.push_back(trace.get());
  }

  const conformance::RunResult result = conformance::run_scenario(scenario, options);
  std::fflush(stdout);

  try {
    if (pcap) pcap->close();
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}{}\n", kPrefix, e.what());
    return 2;
  }
  if (trace_file) {
    trace.reset();  // flushes
    std::FILE* f = trace_file.release();
    const bool failed = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || failed) {
      fmt::print(stderr, "{}{}: cannot write the trace file\n", kPrefix, args.trace);
      return 2;
    }
  }
  return result.exit_code();
}

}  // namespace rocecert::cli
