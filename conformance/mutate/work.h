// Internals of the mutation tool: the decoded view of a capture (flows of requests and
// responses, paired per QP) and the editable list of frames a mutation works on.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rocecert/mutate/mutate.h"
#include "rocecert/wire/decode.h"

namespace rocecert::mutate::detail {

// PSNs are 24-bit serial numbers (IBA Vol. 1 chapter 9; docs/spec-notes.md §3.1).
std::uint32_t psn_add(std::uint32_t psn, std::uint32_t delta);
// a - b as a signed distance, within ±2^23.
std::int32_t psn_diff(std::uint32_t a, std::uint32_t b);

// One direction of one QP's traffic: source and destination address and destination QP.
struct FlowKey {
  std::uint8_t ip_version = 4;
  std::array<std::uint8_t, 16> src{};
  std::array<std::uint8_t, 16> dst{};
  std::uint32_t dqpn = 0;
  auto operator<=>(const FlowKey&) const = default;
};

struct Flow {
  FlowKey key;
  bool request = true;  // requests (to the responder's QP) or responses (to the requester's)
  wire::Transport transport = wire::Transport::RC;
  std::vector<std::size_t> frames;  // input indices, capture order
  int peer = -1;                    // the other direction of the same QP pair, if found
};

struct Analysis {
  std::vector<wire::ParsedFrame> parsed;  // one per input frame, over the input's bytes
  std::vector<int> flow;                  // flow of each frame, -1 for none
  std::vector<Flow> flows;

  // A RoCEv2 frame that decoded whole, with a valid ICRC: the only frames mutations pick.
  bool usable(std::size_t i) const;
  bool is_request(std::size_t i) const;
  bool is_response(std::size_t i) const;
  const Flow* flow_of(std::size_t i) const;
  const Flow* peer_of(std::size_t i) const;
};

Analysis analyze(const Capture& c);

// Where the headers of a frame lie (taken from its decode before an edit).
struct Offsets {
  std::uint32_t ip_off = 0;
  std::uint32_t ip_header_len = 0;
  unsigned ip_version = 4;
  std::uint32_t udp_off = 0;
  std::uint32_t bth_off = 0;
};
Offsets offsets_of(const wire::ParsedFrame& p);

// Recomputes the IPv4 header checksum and (unless `icrc` is false) the ICRC, which lies at the
// end of the UDP payload.
void refresh(Frame& f, const Offsets& o, bool icrc = true);
// Replaces `erase` bytes at `at` with `insert` and moves the IP, UDP and wire lengths alike.
void splice(Frame& f, const Offsets& o, std::size_t at, std::size_t erase,
            std::span<const std::uint8_t> insert);
// A new frame: `tmpl`'s bytes up to its BTH (link, IP and UDP headers), then `transport` (BTH,
// extended headers, payload and pad), then the ICRC; lengths, checksum and ICRC computed.
Frame rebuild(const Frame& tmpl, const Offsets& o, std::span<const std::uint8_t> transport);

// The editable capture: input frames in order, each possibly edited or removed, and frames
// inserted after a given input frame.
struct Entry {
  Frame frame;
  std::int64_t origin = -1;
  bool removed = false;
  std::vector<Change> changes;  // frame numbers are filled in by finish()
};

class Work {
 public:
  explicit Work(const Capture& in);
  Entry& at(std::size_t input_index) { return entries_[input_index]; }
  void remove(std::size_t input_index, std::string what);
  // Inserts after input frame `after` (after earlier insertions there).
  Entry& insert_after(std::size_t after, Frame f, std::string what);
  // The last input index at or after `from` whose timestamp is <= ts.
  std::size_t anchor_for(std::size_t from, std::int64_t ts) const;
  Result finish() &&;

 private:
  const Capture& in_;
  std::vector<Entry> entries_;
  std::vector<std::string> removed_what_;
  std::vector<std::vector<Entry>> inserted_;  // per input index
};

// One line naming a frame's opcode and PSN, for change records.
std::string describe(const wire::ParsedFrame& p);

}  // namespace rocecert::mutate::detail
