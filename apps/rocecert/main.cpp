// rocecert: the single command-line tool (DESIGN §5 fixes its contracts).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>

#include "decode_command.h"

int main(int argc, char** argv) {
  CLI::App app{"rocecert: RoCEv2 conformance suite and golden model"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rocecert 0.1.0");

  rocecert::cli::DecodeArgs decode;
  CLI::App* dec = app.add_subcommand(
      "decode", "Decode every frame of a pcap/pcapng capture, validating each ICRC");
  dec->add_option("FILE", decode.file, "Capture file (pcap or pcapng)")->required();
  dec->add_flag("--json", decode.json, "One JSON object per frame (JSON lines)");
  dec->add_flag("--strict", decode.strict,
                "Exit 1 if any frame is malformed or fails its ICRC");
  dec->add_flag("--stats", decode.stats, "Print totals on stderr at the end");
  dec->add_option("-c,--count", decode.count, "Stop after this many frames");
  bool no_icrc = false;
  dec->add_flag("--no-icrc", no_icrc, "Do not validate ICRCs");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // usage errors are exit 2 (DESIGN §5)
  }
  try {
    if (*dec) {
      decode.verify_icrc = !no_icrc;
      return rocecert::cli::run_decode(decode);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocecert: {}\n", e.what());
    return 2;
  }
  return 2;
}
