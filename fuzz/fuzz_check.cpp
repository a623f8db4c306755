// libFuzzer target for the capture checker (links rocecert_check): arbitrary frame sequences
// through check::Checker (add_frame ... finish), then the report through all three writers
// (docs/check.md). Input:
//   byte 0     options: bits 0-1 the link type (Ethernet, SLL, SLL2, raw IP), bit 2 skip the
//              ICRC check, bit 3 also write the reports when the input's length is a multiple
//              of 8 (the writers cost more than a short capture's check: under ASan and
//              coverage, writing every report was a third of the run), bits 4-7 the profile's
//              max_capture_errors (0-15)
//   the input's length, when odd: sharded checking (three jobs when bit 1 is set, else two;
//              when bit 2 is set, streams moved between threads every 1-8 frames, from bits 3-5);
//              when 7 mod 8, one job as well, and the two reports must be the same, byte for
//              byte in JSON; its remainder mod 3 picks what the DUT's side says (--setup,
//              --events), from the real captures' files: 0 nothing, 1 cq_overflow's setup and
//              completion log, 2 rnr_nak_then_ok's setup and multi_qp_errors' log (the seeds of
//              those captures then reach the QP attribute and events rules); its quotient by 24,
//              mod 4, how soon a silent QP pair is retired (Profile::retire_idle_ns: the
//              default 10 s, 1 ms, 30 ms, never), which happens without a log only.
//   then frames, each [dt] [len: 2 bytes, big endian] [wire: 2 bytes, only if dt bit 7]
//              [len bytes of frame, or what is left]
//   dt bits 0-6: the time since the previous frame: v < 64 is v µs, v in 64-126 is (v - 63)
//              MiB of nanoseconds (about 1 ms each, so RNR waits and retry timeouts are reached),
//              127 steps one millisecond back (taps do reorder timestamps).
//   dt bit 7:  the frame was cut by the capture; `wire` is its length on the wire.
// make_seeds.cpp writes the real captures of vectors/real/ in this form, whole and with frames
// mutated, dropped, duplicated and reordered.
// Properties, besides no crash, no undefined behaviour, no leak and no uncaught exception:
//  - the report is about what was fed: one file, as many frames, every violation and note in
//    range (file, frame, connection);
//  - a non-declared violation of an Error rule makes the verdict FAIL (docs/json.md §2);
//  - write_json writes one valid JSON document;
//  - sharded checking gives the report of one thread (on the inputs whose length is 7 mod 8).
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <sstream>
#include <streambuf>
#include <string>

#include "rocecert/check/checker.h"
#include "rocecert/check/events.h"
#include "rocecert/check/report_io.h"
#include "rocecert/check/setup.h"

namespace {

using namespace rocecert;

// Discards what is written, so the writers' cost is formatting, not memory.
class NullBuf : public std::streambuf {
 protected:
  int overflow(int c) override { return c == traits_type::eof() ? 0 : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

constexpr std::size_t kMaxFrames = 8192;

struct DutSide {
  std::shared_ptr<const check::Setup> setup;
  std::shared_ptr<const check::Events> events;
};
DutSide dut_sides[3];

DutSide load_side(const std::string& setup, const std::string& events) {
  const std::string dir = ROCECERT_SOURCE_DIR "/vectors/real/";
  return {std::make_shared<const check::Setup>(check::load_setup(dir + "setup/" + setup)),
          std::make_shared<const check::Events>(check::load_events(dir + events))};
}
const std::string kFile = "fuzz.pcap";

std::int64_t time_step(std::uint8_t v) {
  if (v < 64) return std::int64_t{v} * 1000;
  if (v < 127) return std::int64_t{v - 63} << 20;
  return -1'000'000;
}

void check_report(const check::Report& r, std::uint64_t frames) {
  if (r.files.size() != 1 || r.files[0] != kFile) __builtin_trap();
  if (r.frames != frames || r.roce_frames > r.frames) __builtin_trap();
  for (const check::Violation& v : r.violations) {
    // Frame 0: an events.* violation that only the DUT's log shows (docs/json.md §2).
    const bool log_only = v.frame == 0 && check::rule(v.rule).needs == check::Needs::Events;
    if (v.file != 0 || (v.frame < 1 && !log_only) || v.frame > frames) __builtin_trap();
    if (v.connection >= r.connections.size() && v.connection != check::kNoConnection)
      __builtin_trap();
    if (!v.deviation && v.explained.empty() &&
        check::rule(v.rule).severity == check::Severity::Error && r.verdict != check::Verdict::FAIL)
      __builtin_trap();
  }
  for (const check::Note& n : r.notes) {
    if (n.file != 0 || n.frame > frames) __builtin_trap();
    if (n.connection && *n.connection >= r.connections.size()) __builtin_trap();
  }
  for (std::size_t i = 0; i < r.connections.size(); ++i)
    if (r.connections[i].id != i) __builtin_trap();
}

// The input's frames (see above) through a Checker with `opts`; `frames`: how many were fed.
check::Report run(const check::Options& opts, const std::uint8_t* data, std::size_t size,
                  wire::LinkType link, std::uint64_t& frames) {
  check::Checker checker(opts);
  std::size_t at = 1;
  std::int64_t ts = 1'600'000'000'000'000'000;
  while (at + 3 <= size && frames < kMaxFrames) {
    const std::uint8_t dt = data[at];
    std::size_t len = (std::size_t{data[at + 1]} << 8) | data[at + 2];
    at += 3;
    std::size_t wire_len = 0;
    if (dt & 0x80) {
      if (at + 2 > size) break;
      wire_len = (std::size_t{data[at]} << 8) | data[at + 1];
      at += 2;
    }
    if (len > size - at) len = size - at;
    if (wire_len < len) wire_len = len;
    ts += time_step(dt & 0x7f);
    checker.add_frame(++frames, ts, static_cast<std::uint32_t>(wire_len),
                      std::span<const std::uint8_t>(data + at, len), link);
    at += len;
  }
  return checker.finish(kFile);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  dut_sides[1] = load_side("cq_overflow.setup.json", "cq_overflow.events.jsonl");
  dut_sides[2] = load_side("rnr_nak_then_ok.setup.json", "multi_qp_errors.events.jsonl");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  constexpr wire::LinkType kLinks[] = {wire::LinkType::Ethernet, wire::LinkType::LinuxSll,
                                       wire::LinkType::LinuxSll2, wire::LinkType::RawIp};
  const wire::LinkType link = kLinks[data[0] & 3];
  check::Options opts;
  opts.verify_icrc = (data[0] & 4) == 0;
  opts.profile.name = "fuzz";
  opts.profile.max_capture_errors = data[0] >> 4;
  opts.jobs = (size & 1) == 0 ? 1 : (size & 2) != 0 ? 3 : 2;
  opts.shard_drill = (size & 4) != 0 ? static_cast<std::uint32_t>(1 + (size >> 3) % 8) : 0;
  constexpr std::uint64_t kRetireIdle[] = {10'000'000'000, 1'000'000, 30'000'000, 0};
  opts.profile.retire_idle_ns = kRetireIdle[(size / 24) % 4];
  opts.setup = dut_sides[size % 3].setup;
  opts.events = dut_sides[size % 3].events;

  std::uint64_t frames = 0;
  const check::Report report = run(opts, data, size, link, frames);
  check_report(report, frames);
  if ((size & 7) == 7) {
    // Sharded checking writes the report of one thread, byte for byte.
    check::Options one = opts;
    one.jobs = 1;
    std::uint64_t again = 0;
    std::ostringstream a, b;
    check::write_json(report, a);
    check::write_json(run(one, data, size, link, again), b);
    if (a.str() != b.str()) __builtin_trap();
  }
  if ((data[0] & 8) == 0 || (size & 7) != 0) return 0;

  NullBuf null_buf;
  std::ostream null(&null_buf);
  check::write_text(report, null);
  check::write_text(report, null, check::TextOptions{.verbose = true});
  check::write_junit(report, null);
  std::ostringstream json;
  check::write_json(report, json);
  if (!nlohmann::json::accept(json.str())) __builtin_trap();
  return 0;
}
