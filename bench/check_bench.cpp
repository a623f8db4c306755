// End-to-end benchmark of `rocecert check`: builds a large capture of real traffic by replaying
// the Soft-RoCE captures of vectors/real/ many times over (each copy on its own hosts, QPNs and
// PSNs, 16 copies interleaved at a time, ICRCs recomputed), then times the checker on it (every
// rule; one core, or --jobs), reports its peak RSS (the check runs in a child process), and with
// --tshark times `tshark -T fields -e infiniband.bth.psn` on the same file.
//   check_bench --frames 1000000 [--file F] [--only NAMES] [--jobs N] [--no-golden] [--no-z3]
//               [--tshark] [--keep]
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "fixed_traffic.h"
#include "huge_pages.h"
#include "rocecert/check/checker.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"

using namespace rocecert;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Frame {
  std::int64_t ts;  // since the capture's first frame
  std::vector<std::uint8_t> bytes;
  wire::LinkType link;
};

// The captures of vectors/real/, or those whose name holds one of `only` (comma-separated).
std::vector<std::vector<Frame>> load_captures(const std::string& only) {
  std::vector<std::string> files;
  const auto wanted = [&](const std::string& stem) {
    if (only.empty()) return true;
    for (std::size_t from = 0; from <= only.size();) {
      std::size_t to = only.find(',', from);
      if (to == std::string::npos) to = only.size();
      if (to > from && stem.find(only.substr(from, to - from)) != std::string::npos) return true;
      from = to + 1;
    }
    return false;
  };
  for (const auto& e : std::filesystem::directory_iterator(ROCECERT_SOURCE_DIR "/vectors/real"))
    if (e.path().extension() == ".pcap" && wanted(e.path().stem().string()))
      files.push_back(e.path().string());
  if (files.empty()) throw std::runtime_error("--only: no capture of vectors/real matches " + only);
  std::sort(files.begin(), files.end());
  std::vector<std::vector<Frame>> out;
  for (const std::string& f : files) {
    pcap::Reader r(f);
    pcap::Record rec;
    std::vector<Frame> frames;
    std::int64_t t0 = -1;
    while (r.next(rec)) {
      if (t0 < 0) t0 = rec.ts_ns;
      frames.push_back({rec.ts_ns - t0, {rec.data.begin(), rec.data.end()}, r.link()});
    }
    out.push_back(std::move(frames));
  }
  return out;
}

// Copy `n` of a frame: its hosts, QPNs and PSNs moved so that copies never meet.
std::vector<std::uint8_t> shifted(const Frame& f, std::uint32_t n) {
  const wire::ParsedFrame p = wire::decode(f.bytes, {f.link, true});
  if (!p.has_bth || !p.op || !p.op->known || p.has_error || f.link != wire::LinkType::Ethernet)
    return f.bytes;
  wire::FrameSpec s = wire::to_spec(p);
  // Each copy on its own pair of hosts: 10.<n low>.<n high>.x (IPv6: bytes 4-5).
  const std::size_t at = s.ip.version == 4 ? 1 : 4;
  s.ip.src[at] = s.ip.dst[at] = static_cast<std::uint8_t>(n & 0xFF);
  s.ip.src[at + 1] = s.ip.dst[at + 1] = static_cast<std::uint8_t>(n >> 8);
  s.bth.dqpn = (s.bth.dqpn + n * 0x100) & 0xFFFFFF;
  if (p.op->has(wire::Header::Deth)) s.deth.srcqp = (s.deth.srcqp + n * 0x100) & 0xFFFFFF;
  if (p.op->transport != wire::Transport::CNP) s.bth.psn = (s.bth.psn + n * 0x10000) & 0xFFFFFF;
  if (p.icrc_ok) s.icrc.reset();  // the frame netem corrupted stays corrupted
  wire::finalize(s);
  return wire::encode(s);
}

std::uint64_t generate(const std::string& file, std::uint64_t want, const std::string& only) {
  const auto caps = load_captures(only);
  pcap::Writer w(file);
  std::int64_t base = 1'800'000'000'000'000'000;
  std::uint64_t written = 0;
  std::uint32_t copy = 0;
  constexpr std::size_t kGroup = 16;
  while (written < want) {
    // One group: kGroup captures (cycling through the set), merged by time.
    struct Cursor {
      const std::vector<Frame>* frames;
      std::size_t next;
      std::uint32_t n;
    };
    std::vector<Cursor> group;
    for (std::size_t i = 0; i < kGroup; ++i, ++copy)
      group.push_back({&caps[copy % caps.size()], 0, copy});
    std::int64_t span = 0;
    while (written < want) {
      Cursor* best = nullptr;
      for (Cursor& c : group)
        if (c.next < c.frames->size() &&
            (!best || (*c.frames)[c.next].ts < (*best->frames)[best->next].ts))
          best = &c;
      if (!best) break;
      const Frame& f = (*best->frames)[best->next++];
      w.write(base + f.ts, shifted(f, best->n));
      span = std::max(span, f.ts);
      ++written;
    }
    base += span + 1'000'000;
  }
  w.close();
  return written;
}

// The golden model's traffic on a fixed set of connections (tests/support/fixed_traffic.h).
std::uint64_t generate_fixed(const std::string& file, std::uint64_t want, unsigned pairs,
                             std::uint64_t seed, double faults) {
  pcap::Writer w(file);
  const std::uint64_t n = testing::fixed_traffic(
      {pairs, want, seed, faults},
      [&](std::int64_t ts, std::span<const std::uint8_t> bytes) { w.write(ts, bytes); });
  w.close();
  return n;
}

struct Run {
  double seconds = 0;
  long max_rss_kb = 0;
  std::string verdict;
  std::uint64_t connections = 0, checked = 0, violations = 0;
};

// Checks the file in a child process so that its peak RSS is the checker's alone.
Run run_check(const std::string& file, unsigned jobs, bool golden, bool z3) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(2);
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    check::Options o;
    o.profile = check::load_profile("rxe");
    o.jobs = jobs;
    o.golden = golden;
    o.z3 = z3;
    const check::Report r = check::check_files({file}, o);
    std::uint64_t checked = 0, violations = 0;
    for (const check::RuleCount& c : r.rules) {
      checked += c.checked;
      violations += c.violations + c.deviations;
    }
    const std::string line = fmt::format("{} {} {} {}\n", check::to_string(r.verdict),
                                         r.connections.size(), checked, violations);
    if (write(fds[1], line.data(), line.size()) < 0) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  Run run;
  run.seconds = seconds_since(t0);
  run.max_rss_kb = ru.ru_maxrss;
  char buf[256] = {};
  const ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  char verdict[32] = {};
  if (n > 0)
    std::sscanf(buf, "%31s %lu %lu %lu", verdict, &run.connections, &run.checked, &run.violations);
  run.verdict = verdict;
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocecert check benchmark"};
  std::uint64_t frames = 1'000'000;
  std::string file =
      (std::filesystem::temp_directory_path() / "rocecert-check-bench.pcap").string();
  bool tshark = false, keep = false, reuse = false, no_golden = false, no_z3 = false;
  unsigned jobs = 1;
  app.add_option("--frames", frames, "Frames in the generated capture");
  app.add_option("--file", file, "Where to write the capture");
  app.add_option("--jobs", jobs, "Checker threads (1: one core)");
  app.add_flag("--reuse", reuse, "Use --file as it is (no generation)");
  app.add_flag("--tshark", tshark, "Also time tshark on the same file");
  app.add_flag("--keep", keep, "Keep the capture file");
  app.add_flag("--no-golden", no_golden, "Without the golden replay (rocecert check --no-golden)");
  app.add_flag("--no-z3", no_z3, "Without the Z3 invariants (rocecert check --no-z3)");
  unsigned qp_pairs = 0;
  app.add_option("--qp-pairs", qp_pairs,
                 "Instead of the real captures replayed, the golden model's traffic on this many "
                 "RC QP pairs, the same connections however many frames (memory flat in length)");
  double faults = 0;
  app.add_option("--faults", faults,
                 "With --qp-pairs: drop (and with half of it duplicate and reorder) frames with "
                 "this probability, the capture taken beside the first host");
  std::uint64_t seed = 0;
  app.add_option("--seed", seed,
                 "With --qp-pairs: 0 for the figures of docs/bench.md, others draw the MTU, the "
                 "message sizes, the first PSNs and the WRs per round");
  std::string only;
  app.add_option("--only", only,
                 "Replay only the captures of vectors/real whose name holds one of these "
                 "(comma-separated), e.g. the lossy ones where every connection needs the solver");
  CLI11_PARSE(app, argc, argv);
  // As `rocecert check` runs: its heap on huge pages (apps/rocecert/huge_pages.h).
  rocecert::cli::rerun_with_huge_pages(argv);
  rocecert::cli::keep_freed_heap();

  if (!reuse) {
    const auto t0 = Clock::now();
    frames = qp_pairs != 0 ? generate_fixed(file, frames, qp_pairs, seed, faults)
                           : generate(file, frames, only);
    fmt::print("generated {} frames ({:.1f} MB) in {:.1f} s: {}\n", frames,
               static_cast<double>(std::filesystem::file_size(file)) / 1e6, seconds_since(t0),
               file);
  }
  const Run r = run_check(file, jobs, !no_golden, !no_z3);
  fmt::print(
      "rocecert check (--jobs {}{}{}): {:.2f} s, {:.2f} M frames/s, peak RSS {:.1f} MB, verdict "
      "{}, {} connections, {} rule checks, {} violations/deviations\n",
      jobs, no_golden ? ", --no-golden" : "", no_z3 ? ", --no-z3" : "", r.seconds,
      static_cast<double>(frames) / r.seconds / 1e6, static_cast<double>(r.max_rss_kb) / 1024.0,
      r.verdict, r.connections, r.checked, r.violations);
  if (tshark) {
    const auto t0 = Clock::now();
    rocecert::cli::restore_tunables();  // tshark as a user runs it
    const std::string cmd =
        "tshark -n -r '" + file + "' -T fields -e infiniband.bth.psn > /dev/null 2>&1";
    const int rc = std::system(cmd.c_str());
    const double s = seconds_since(t0);
    fmt::print("tshark -T fields -e infiniband.bth.psn: {:.1f} s, {:.1f} k frames/s (exit {})\n", s,
               static_cast<double>(frames) / s / 1e3, rc);
    fmt::print("ratio check / tshark: {:.0f}x\n", s / r.seconds);
  }
  if (!keep && !reuse) std::filesystem::remove(file);
  return 0;
}
