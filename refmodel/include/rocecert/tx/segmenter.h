// The requester's segmentation of one message into packets: opcode sequence
// (FIRST/MIDDLE/LAST/ONLY and their _WITH_IMMEDIATE / _WITH_INVALIDATE forms), PSN assignment
// with 24-bit wrap, payload slices of path-MTU size, pad counts, SE and AckReq.
// IBA Vol. 1 §9.4 (packet sequencing: C9-... opcode sequences), §9.7.1 (PSNs), rxe_req.c
// next_opcode_rc/uc/ud (docs/spec-notes.md §2.5, §3.2, §3.4).
// A pure function: the requester state machine keeps the state and calls it.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "rocecert/tx/work_request.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::tx {

// Where the requester sets BTH.AckReq. Implementations choose freely (IBA §9.7.6.1.1 only
// requires it on the last packet of a message for the responder to be obliged to ACK);
// the defaults are rxe's: every last/only packet, and a mid-message packet once more than
// RXE_MAX_PKT_PER_ACK (64) packets went out since the last AckReq.
struct AckReqPolicy {
  bool on_last_packet = true;
  std::uint32_t every_n_packets = 64;  // 0: never mid-message
};

struct SegmentRequest {
  wire::Transport transport = wire::Transport::RC;  // RC, UC, UD or XRC
  WrOpcode opcode = WrOpcode::SEND;
  std::uint64_t length = 0;  // message length in bytes
  std::uint32_t mtu = 1024;  // path MTU (RC/UC/XRC) or port MTU (UD), bytes
  bool solicited = false;    // IBV_SEND_SOLICITED
  std::uint32_t first_psn = 0;
  // Packets sent since the last AckReq, carried across messages by the requester (rxe
  // noack_pkts); the result gives the new value.
  std::uint32_t packets_since_ackreq = 0;
  AckReqPolicy ackreq{};
};

struct Segment {
  std::uint8_t opcode = 0;
  std::uint32_t psn = 0;
  std::uint64_t offset = 0;  // of this packet's payload within the message
  std::uint32_t length = 0;  // payload bytes
  std::uint8_t padcnt = 0;
  bool ackreq = false;
  bool se = false;
};

enum class SegmentError : std::uint8_t {
  NONE,
  NOT_A_WIRE_OPERATION,     // LOCAL_INV, BIND_MW, TSO, DRIVER1: no packet
  OPCODE_NOT_ON_TRANSPORT,  // e.g. RDMA_READ on UC, SEND_WITH_INV on UC/UD (docs/spec-notes.md
                            // §11.11)
  BAD_MTU,                  // not 256..4096 and a power of two
  MESSAGE_TOO_LONG,         // > 2^31 (IBA max message), or a UD message > MTU
  BAD_ATOMIC_LENGTH,        // atomics carry exactly 8 bytes (C9-...; rxe validate_send_wr)
};
std::string_view to_string(SegmentError e);

struct SegmentPlan {
  SegmentError error = SegmentError::NONE;
  std::vector<Segment> packets;
  std::uint32_t psn_count = 0;  // PSNs consumed: packets, or ceil(len/MTU) for a READ
  std::uint32_t packets_since_ackreq = 0;
};

SegmentPlan segment(const SegmentRequest& req);

// What wire_opcode() answers when the transport has no such packet (0xFF is a manufacturer
// specific opcode, never one the model sends).
inline constexpr std::uint8_t kNoOpcode = 0xFF;

// The wire opcode for one packet of a message, or kNoOpcode when the transport has no such
// operation. position: FIRST, MIDDLE, LAST or ONLY. Looked up in the wire opcode table
// (rocecert/wire/opcodes.def) by transport, operation, position and ImmDt/IETH flags.
std::uint8_t wire_opcode(wire::Transport transport, WrOpcode op, wire::Position position);

inline constexpr std::uint64_t kMaxMessageLength = 1ull << 31;  // IBA §9.4.1 (2^31 bytes)

}  // namespace rocecert::tx
