// End-to-end decode benchmark over a capture file: generate a capture of N mixed frames, then
// stream it back through pcap::Reader + wire::decode with ICRC validation on one core, and
// report frames/s and GB/s. With --tshark, time `tshark -r FILE -T fields -e
// infiniband.bth.psn` on the same file and report the ratio.
//   capture_bench --frames 1000000 --file /tmp/rocecert-bench.pcap [--tshark] [--keep]
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "capture_mix.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/icrc.h"

using namespace rocecert;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Pass {
  double seconds = 0;
  std::uint64_t frames = 0, bytes = 0, icrc_ok = 0;
};

// The floor: what reading the capture (pcap_tools::Reader) plus one CRC-32 over each frame
// costs, with no decoding.
Pass floor_pass(const std::string& file) {
  Pass p;
  const auto t0 = Clock::now();
  pcap::Reader reader(file);
  pcap::Record rec;
  std::uint32_t crc = 0;
  while (reader.next(rec)) {
    crc ^= wire::crc32(0, rec.data);
    ++p.frames;
    p.bytes += rec.caplen;
  }
  p.icrc_ok = crc;  // keeps the work observable
  p.seconds = seconds_since(t0);
  return p;
}

Pass decode_pass(const std::string& file) {
  Pass p;
  const auto t0 = Clock::now();
  pcap::Reader reader(file);
  const wire::DecodeOptions opts{reader.link(), true};
  pcap::Record rec;
  while (reader.next(rec)) {
    const wire::ParsedFrame f = wire::decode(rec.data, opts);
    ++p.frames;
    p.bytes += rec.caplen;
    p.icrc_ok += f.icrc_ok ? 1 : 0;
  }
  p.seconds = seconds_since(t0);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocecert capture decode benchmark"};
  std::uint64_t frames = 1'000'000;
  std::string file = (std::filesystem::temp_directory_path() / "rocecert-bench.pcap").string();
  bool tshark = false, keep = false;
  int passes = 3;
  app.add_option("--frames", frames, "Frames in the generated capture");
  app.add_option("--file", file, "Where to write the capture");
  app.add_option("--passes", passes, "Decode passes (the best is reported)");
  app.add_flag("--tshark", tshark, "Also time tshark on the same file");
  app.add_flag("--keep", keep, "Keep the capture file");
  CLI11_PARSE(app, argc, argv);

  const auto pool = bench::make_frame_pool(4096, 2026);
  {
    const auto t0 = Clock::now();
    pcap::Writer w(file);
    std::int64_t ts = 1'800'000'000'000'000'000;
    for (std::uint64_t i = 0; i < frames; ++i) w.write(ts += 800, pool[i % pool.size()]);
    w.close();
    fmt::print("generated {} frames ({:.1f} MB) in {:.2f} s: {}\n", frames,
               static_cast<double>(std::filesystem::file_size(file)) / 1e6, seconds_since(t0),
               file);
  }

  Pass best, floor;
  for (int i = 0; i < passes; ++i) {
    const Pass f = floor_pass(file);
    if (floor.seconds == 0 || f.seconds < floor.seconds) floor = f;
    const Pass p = decode_pass(file);
    if (best.seconds == 0 || p.seconds < best.seconds) best = p;
  }
  fmt::print("floor, reading the capture + CRC-32 of each frame: {:.3f} s, {:.2f} M frames/s\n",
             floor.seconds, static_cast<double>(floor.frames) / floor.seconds / 1e6);
  if (best.icrc_ok != best.frames) {
    fmt::print(stderr, "ICRC failures in generated frames: {}\n", best.frames - best.icrc_ok);
    return 1;
  }
  const double fps = static_cast<double>(best.frames) / best.seconds;
  fmt::print(
      "rocecert read+decode+ICRC: {} frames, {:.3f} s, {:.2f} M frames/s, {:.2f} GB/s, "
      "avg frame {:.0f} B (best of {})\n",
      best.frames, best.seconds, fps / 1e6, static_cast<double>(best.bytes) / best.seconds / 1e9,
      static_cast<double>(best.bytes) / static_cast<double>(best.frames), passes);

  if (tshark) {
    const auto t0 = Clock::now();
    const std::string cmd =
        "tshark -n -r '" + file + "' -T fields -e infiniband.bth.psn > /dev/null 2>&1";
    const int rc = std::system(cmd.c_str());
    const double s = seconds_since(t0);
    fmt::print("tshark -T fields -e infiniband.bth.psn: {:.1f} s, {:.1f} k frames/s (exit {})\n", s,
               static_cast<double>(best.frames) / s / 1e3, rc);
    fmt::print("ratio rocecert / tshark: {:.0f}x\n", s / best.seconds);
  }
  if (!keep) std::filesystem::remove(file);
  return 0;
}
