// rocecert: the single command-line tool (its commands, options and exit codes are contracts).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <exception>

#include "check_command.h"
#include "decode_command.h"
#include "huge_pages.h"
#include "mutate_command.h"
#include "prove_command.h"
#include "simulate_command.h"
#include "split_merge_commands.h"
#include "vectors_command.h"

int main(int argc, char** argv) {
  CLI::App app{"rocecert: RoCEv2 conformance suite and golden model"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rocecert " ROCECERT_VERSION);

  rocecert::cli::DecodeArgs decode;
  CLI::App* dec = app.add_subcommand(
      "decode", "Decode every frame of a pcap/pcapng capture, validating each ICRC");
  dec->add_option("FILE", decode.file, "Capture file (pcap or pcapng)")->required();
  dec->add_flag("--json", decode.json, "One JSON object per frame (JSON lines)");
  dec->add_flag("--strict", decode.strict, "Exit 1 if any frame is malformed or fails its ICRC");
  dec->add_flag("--stats", decode.stats, "Print totals on stderr at the end");
  dec->add_option("-c,--count", decode.count, "Stop after this many frames");
  bool no_icrc = false;
  dec->add_flag("--no-icrc", no_icrc, "Do not validate ICRCs");

  rocecert::cli::SimulateArgs simulate;
  std::uint64_t seed = 0;
  CLI::App* sim = app.add_subcommand(
      "simulate", "Run a JSON scenario on the golden model and check its expectations");
  sim->add_option("SCENARIO", simulate.file, "Scenario file (JSON, see docs/scenario.md)")
      ->required();
  sim->add_option("--pcap", simulate.pcap, "Write every transmitted frame to this pcap file");
  sim->add_option("--trace", simulate.trace, "Write the event trace (JSON lines) to this file");
  CLI::Option* seed_opt =
      sim->add_option("--seed", seed, "Seed of the run (overrides the scenario's \"seed\")");
  sim->add_flag("-q,--quiet", simulate.quiet, "Print only failures and the verdict");

  rocecert::cli::CheckArgs check;
  CLI::App* chk = rocecert::cli::add_check_command(app, check);

  rocecert::cli::SplitArgs split;
  CLI::App* spl = app.add_subcommand(
      "split", "Cut a capture into N captures by connection, to check them on several machines");
  spl->add_option("CAPTURE", split.file, "Capture file (pcap or pcapng)")->required();
  spl->add_option("-n,--parts", split.parts, "Number of parts (default 2)");
  spl->add_option("-o,--out", split.out,
                  "Prefix of the parts: PREFIX-K-of-N.pcap (default: the capture's name)");

  rocecert::cli::MergeArgs mergeargs;
  CLI::App* mrg = app.add_subcommand(
      "merge", "Merge the JSON reports of `rocecert check --json` into one verdict");
  mrg->add_option("REPORT", mergeargs.reports, "JSON reports")->required();
  mrg->add_option("--json", mergeargs.json, "Write the merged JSON report here (- for stdout)");
  mrg->add_option("--junit", mergeargs.junit, "Write the merged JUnit XML here (- for stdout)");
  mrg->add_flag("-q,--quiet", mergeargs.quiet, "No text summary");
  mrg->add_flag("-v,--verbose", mergeargs.verbose, "Every violation in the text summary");

  rocecert::cli::MutateArgs mutate;
  CLI::App* mut = app.add_subcommand(
      "mutate", "Write a mutant of a capture that a rule of `rocecert check` must catch");
  mut->add_option("IN", mutate.in, "Capture to mutate (pcap or pcapng)");
  mut->add_option("OUT", mutate.out, "Mutant capture to write (pcap)");
  mut->add_option("--op", mutate.op, "Kind of mutation (see --list)");
  mut->add_option("--seed", mutate.seed, "Picks the frame among the eligible ones (default 1)");
  mut->add_flag("--list", mutate.list, "List the kinds: name, rule that must catch it, what");

  rocecert::cli::ProveArgs prove;
  CLI::App* prv = app.add_subcommand(
      "prove",
      "Prove with Z3 that the model's tables and functions say what the specification says");
  prv->add_option("ID", prove.only, "Only these proofs (default: all)");
  prv->add_flag("--json", prove.json, "A JSON report on stdout");
  prv->add_flag("--broken", prove.broken,
                "Run each proof's deliberately broken variant: each must be refuted");

  rocecert::cli::VectorsArgs vectors;
  CLI::App* vec = rocecert::cli::add_vectors_command(app, vectors);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // usage errors are exit 2, like unusable input
  }
  try {
    if (*dec) {
      decode.verify_icrc = !no_icrc;
      return rocecert::cli::run_decode(decode);
    }
    if (*chk) {
      rocecert::cli::rerun_with_huge_pages(argv);
      rocecert::cli::keep_freed_heap();
      return rocecert::cli::run_check(check);
    }
    if (*spl) return rocecert::cli::run_split(split);
    if (*mrg) return rocecert::cli::run_merge(mergeargs);
    if (*mut) return rocecert::cli::run_mutate(mutate);
    if (*prv) return rocecert::cli::run_prove(prove);
    if (*vec) return rocecert::cli::run_vectors(*vec, vectors);
    if (*sim) {
      if (seed_opt->count() > 0) simulate.seed = seed;
      return rocecert::cli::run_simulate(simulate);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocecert: {}\n", e.what());
    return 2;
  }
  return 2;
}
