// Test support: builds RoCEv2 conversations frame by frame with the project's encoder and runs
// them through the checker, so each rule can be shown to hold on correct traffic and to catch
// the one thing a test breaks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../support/command.h"
#include "rocecert/check/checker.h"
#include "rocecert/wire/encode.h"

namespace rocecert::testing {

// The real captures and their logs and setups.
inline const std::string kRealDir = ROCECERT_SOURCE_DIR "/vectors/real/";

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The real captures (vectors/real/*.pcap), sorted.
inline std::vector<std::string> real_captures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kRealDir))
    if (e.path().extension() == ".pcap") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

class Conversation {
 public:
  // Host A is 10.0.0.1, host B 10.0.0.2.
  struct Frame {
    std::vector<std::uint8_t> bytes;
    std::int64_t ts = 0;
  };

  // A packet from A (from_a) or B to `dqpn`. The returned spec can be edited before send().
  wire::FrameSpec make(bool from_a, wire::Opcode op, std::uint32_t dqpn, std::uint32_t psn,
                       std::uint32_t payload = 0) const {
    wire::FrameSpec s;
    s.ip.src[0] = s.ip.dst[0] = 10;
    s.ip.src[3] = from_a ? 1 : 2;
    s.ip.dst[3] = from_a ? 2 : 1;
    s.ip.id = ip_id_;
    s.bth.opcode = wire::to_u8(op);
    s.bth.dqpn = dqpn;
    s.bth.psn = psn & 0xFFFFFF;
    s.bth.ackreq = wire::opcode_info(s.bth.opcode).is_request() &&
                   wire::opcode_info(s.bth.opcode).transport == wire::Transport::RC &&
                   wire::opcode_info(s.bth.opcode).ends_message();
    s.aeth.syndrome = 0x1F;
    s.payload.assign(payload, 0xAB);
    // A single-packet RDMA WRITE or READ moves as many bytes as its RETH announces.
    if (wire::opcode_info(s.bth.opcode).has(wire::Header::Reth) &&
        wire::opcode_info(s.bth.opcode).position == wire::Position::ONLY)
      s.reth.dmalen = payload;
    return s;
  }

  // Appends a frame `gap_ns` after the previous one.
  void send(wire::FrameSpec s, std::int64_t gap_ns = 10'000) {
    ++ip_id_;
    wire::finalize(s);
    t_ += gap_ns;
    frames_.push_back({wire::encode(s), t_});
  }
  void send_bytes(std::vector<std::uint8_t> b, std::int64_t gap_ns = 10'000) {
    t_ += gap_ns;
    frames_.push_back({std::move(b), t_});
  }

  // Shorthands, A requester (QP 0x11) → B responder (QP 0x22).
  void req(wire::Opcode op, std::uint32_t psn, std::uint32_t payload = 0) {
    send(make(true, op, kQpB, psn, payload));
  }
  void ack(std::uint32_t psn, std::uint32_t msn, std::uint8_t syndrome = 0x1F) {
    wire::FrameSpec s = make(false, wire::Opcode::RC_ACKNOWLEDGE, kQpA, psn);
    s.aeth = {syndrome, msn};
    send(s);
  }

  // A READ of `dmalen` bytes at `psn` from A, answered by B with FIRST, MIDDLE (1024 bytes each:
  // a path MTU of 1024) and a LAST of `last_len` bytes, the AETHs carrying `msn`.
  void read_three(std::uint32_t psn, std::uint32_t dmalen, std::uint32_t last_len,
                  std::uint32_t msn) {
    wire::FrameSpec rq = make(true, wire::Opcode::RC_RDMA_READ_REQUEST, kQpB, psn);
    rq.reth = {0x1000, 7, dmalen};
    send(rq);
    wire::FrameSpec f = make(false, wire::Opcode::RC_RDMA_READ_RESPONSE_FIRST, kQpA, psn, 1024);
    f.aeth = {0x1F, msn};
    send(f);
    send(make(false, wire::Opcode::RC_RDMA_READ_RESPONSE_MIDDLE, kQpA, psn + 1, 1024));
    wire::FrameSpec l =
        make(false, wire::Opcode::RC_RDMA_READ_RESPONSE_LAST, kQpA, psn + 2, last_len);
    l.aeth = {0x1F, msn};
    send(l);
  }

  check::Report check(check::Profile profile) const {
    check::Options o;
    o.profile = std::move(profile);
    return check(o);
  }
  // With every option (--setup, --events, jobs).
  check::Report check(const check::Options& o) const {
    check::Checker c(o);
    std::uint64_t n = 0;
    for (const Frame& f : frames_)
      c.add_frame(++n, f.ts, static_cast<std::uint32_t>(f.bytes.size()), f.bytes,
                  wire::LinkType::Ethernet);
    return c.finish("conversation");
  }

  std::vector<Frame>& frames() { return frames_; }

  static constexpr std::uint32_t kQpA = 0x11;
  static constexpr std::uint32_t kQpB = 0x22;

 private:
  std::vector<Frame> frames_;
  std::int64_t t_ = 1'000'000'000;
  std::uint16_t ip_id_ = 1;
};

// A strict profile with a capture-error budget.
inline check::Profile strict(std::uint32_t k = 0) {
  check::Profile p;
  p.name = "test";
  p.max_capture_errors = k;
  return p;
}

inline std::size_t count(const check::Report& r, check::RuleId rule, bool deviation = false) {
  std::size_t n = 0;
  for (const check::Violation& v : r.violations)
    if (v.rule == rule && v.deviation == deviation && v.explained.empty()) ++n;
  return n;
}

// How many times `rule` was evaluated.
inline std::uint64_t checked(const check::Report& r, check::RuleId rule) {
  return r.rules[static_cast<std::size_t>(rule)].checked;
}

// The first replay note that begins with `head` ("golden replay:" for the responder's replay,
// "golden requester replay:" for the requester's); empty: none.
inline std::string replay_note(const check::Report& r, std::string_view head = "golden replay:") {
  for (const check::Note& n : r.notes)
    if (n.kind == check::NoteKind::Replay && n.message.rfind(head, 0) == 0) return n.message;
  return {};
}

// The first violation of `rule`, nullptr: none.
inline const check::Violation* first_of(const check::Report& r, check::RuleId rule) {
  for (const check::Violation& v : r.violations)
    if (v.rule == rule) return &v;
  return nullptr;
}

inline std::string describe(const check::Report& r) {
  std::string s = std::string(check::to_string(r.verdict)) + "\n";
  for (const check::Violation& v : r.violations)
    s += "  " + std::string(check::rule(v.rule).id) + "/" + v.cause + " frame " +
         std::to_string(v.frame) + ": " + v.message + (v.explained.empty() ? "" : " [explained]") +
         "\n";
  for (const check::Note& n : r.notes)
    s += "  note " + std::string(check::to_string(n.kind)) + " frame " + std::to_string(n.frame) +
         ": " + n.message + "\n";
  return s;
}

}  // namespace rocecert::testing
