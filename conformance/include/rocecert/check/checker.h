// `rocecert check`: judges the RoCEv2 traffic of a capture, one frame at a time, in one pass
// (docs/check.md). Memory grows with the number of live connections and their outstanding
// requests, not with the capture's length.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rocecert/check/events.h"
#include "rocecert/check/profile.h"
#include "rocecert/check/report.h"
#include "rocecert/check/setup.h"
#include "rocecert/wire/decode.h"

namespace rocecert::check {

struct Options {
  Profile profile;  // deviations and tolerances; its max_capture_errors is the budget
  bool verify_icrc = true;
  // Threads: with 2 or more, a Checker spreads the request streams (their rules and golden
  // replay) over jobs - 1 threads of their own, sharded by connection, while its caller's thread
  // decodes and pairs (and runs streams too when the others are busier); check_files also reads and
  // decodes on a thread of its own from 4 jobs on, and checks several captures side by side, one
  // thread each. The report does not change.
  unsigned jobs = 1;
  // Sharded checking, for tests: every `shard_drill` RoCE frames (0: never) the checker acts as
  // if the work leaned the other way from the last time, and half of the busy streams of one
  // side move to the other (the inline shard or the threads, shards.h). Streams then change
  // threads all the time: the report must still be the one of a single thread.
  std::uint32_t shard_drill = 0;
  // The DUT's MR table and QPs (--setup): key enforcement is judged against it (key.setup).
  std::shared_ptr<const Setup> setup;
  // Only reconstruct connections (no rule, no ICRC needed): what `rocecert split` runs first.
  bool reconstruct_only = false;
  // The golden replay (golden.response): RC requests fed to the model's responder.
  bool golden = true;
  // The Z3 invariants (z3.*, docs/proofs.md): one solver per connection, at its end.
  bool z3 = true;
  // The DUT's log (--events): its completions held against the wire (events.*).
  std::shared_ptr<const Events> events;
};

// A direction of traffic: (source IP, destination IP, destination QPN); IPv4 addresses are in
// the first 4 bytes.
struct FlowId {
  std::array<std::uint8_t, 16> src{}, dst{};
  std::uint32_t qpn = 0;
};

class Checker {
 public:
  explicit Checker(Options opts);
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // Frames of one capture, in capture order. `wire_len` is the original length; a frame with
  // fewer bytes captured is judged only on what it holds.
  void add_frame(std::uint64_t frame, std::int64_t ts_ns, std::uint32_t wire_len,
                 std::span<const std::uint8_t> data, wire::LinkType link);
  // The same, for a frame decoded already (with the ICRC verified if Options::verify_icrc).
  void add_decoded(std::uint64_t frame, std::int64_t ts_ns, std::uint32_t wire_len,
                   const wire::ParsedFrame& decoded);
  // Ends the capture (open requests become gaps) and builds the report; `file` names it.
  Report finish(const std::string& file);

  // After finish(): the flows that must stay in one file when a capture is split, so that each
  // part is judged as the whole would be (both directions of a QP pair, the streams an unpaired
  // response flow might belong to, the host pairs that carry CNPs).
  std::vector<std::vector<FlowId>> flow_groups() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Checks each capture on its own and merges the reports. Throws pcap::CaptureError for a file
// that cannot be read (it names the file, frame and byte offset).
Report check_files(const std::vector<std::string>& files, const Options& opts);

}  // namespace rocecert::check
