#include "mutate_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "rocecert/mutate/mutate.h"
#include "rocecert/pcap/reader.h"

namespace rocecert::cli {

int run_mutate(const MutateArgs& args) {
  if (args.list) {
    for (const mutate::KindInfo& k : mutate::kinds()) {
      fmt::print("{:<24} {:<16} {}\n", k.name, k.rule, k.description);
    }
    return 0;
  }
  if (args.in.empty() || args.out.empty() || args.op.empty()) {
    fmt::print(stderr, "rocecert mutate: IN, OUT and --op are required (--list shows kinds)\n");
    return 2;
  }
  const auto kind = mutate::find_kind(args.op);
  if (!kind) {
    fmt::print(stderr, "rocecert mutate: unknown kind \"{}\" (--list shows them)\n", args.op);
    return 2;
  }
  try {
    const mutate::Capture in = mutate::read_capture(args.in);
    const mutate::Result r = mutate::apply(in, *kind, args.seed);
    mutate::write_capture(r.capture, args.out);
    for (const mutate::Change& c : r.changes) {
      fmt::print(stderr, "{}: {}\n", args.op, mutate::to_string(c));
    }
    return 0;
  } catch (const mutate::NoEligibleFrame& e) {
    fmt::print(stderr, "rocecert mutate: {} in {}\n", e.what(), args.in);
    return 3;
  } catch (const pcap::CaptureError& e) {
    fmt::print(stderr, "rocecert mutate: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocecert mutate: {}\n", e.what());
    return 2;
  }
}

}  // namespace rocecert::cli
