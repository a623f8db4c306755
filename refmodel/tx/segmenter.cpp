#include "rocecert/tx/segmenter.h"

#include "rocecert/wire/headers.h"

#include <array>

namespace rocecert::tx {

namespace {

constexpr std::uint8_t kNone = 0xFF;

// Operation numbers (opcode bits 4:0, IBA Table 38) per WR opcode and packet position:
// FIRST, MIDDLE, LAST, ONLY. The transport's class bits are added by wire_opcode() and the
// result is checked against the wire opcode table, so a transport lacking an operation
// (UC READ, UD FIRST, UC SEND_WITH_INV ...) is found there, not listed twice.
struct OpRow {
  WrOpcode wr;
  std::array<std::uint8_t, 4> op;  // indexed by wire::Position
};
constexpr OpRow kOpRows[] = {
    {WrOpcode::SEND, {0x00, 0x01, 0x02, 0x04}},
    {WrOpcode::SEND_WITH_IMM, {0x00, 0x01, 0x03, 0x05}},
    {WrOpcode::SEND_WITH_INV, {0x00, 0x01, 0x16, 0x17}},
    {WrOpcode::RDMA_WRITE, {0x06, 0x07, 0x08, 0x0A}},
    {WrOpcode::RDMA_WRITE_WITH_IMM, {0x06, 0x07, 0x09, 0x0B}},
    {WrOpcode::RDMA_READ, {kNone, kNone, kNone, 0x0C}},
    {WrOpcode::ATOMIC_CMP_AND_SWP, {kNone, kNone, kNone, 0x13}},
    {WrOpcode::ATOMIC_FETCH_AND_ADD, {kNone, kNone, kNone, 0x14}},
    {WrOpcode::FLUSH, {kNone, kNone, kNone, 0x1C}},
    {WrOpcode::ATOMIC_WRITE, {kNone, kNone, kNone, 0x1D}},
};

std::uint8_t transport_bits(wire::Transport t) {
  switch (t) {
    case wire::Transport::RC: return 0x00;
    case wire::Transport::UC: return 0x20;
    case wire::Transport::RD: return 0x40;
    case wire::Transport::UD: return 0x60;
    case wire::Transport::CNP: return 0x80;
    case wire::Transport::XRC: return 0xA0;
  }
  return 0x00;
}

bool is_atomic(WrOpcode op) {
  return op == WrOpcode::ATOMIC_CMP_AND_SWP || op == WrOpcode::ATOMIC_FETCH_AND_ADD;
}

bool valid_mtu(std::uint32_t mtu) {
  return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

}  // namespace

std::uint8_t wire_opcode(wire::Transport transport, WrOpcode op, wire::Position position) {
  if (transport == wire::Transport::RD || transport == wire::Transport::CNP) return kNone;
  for (const OpRow& row : kOpRows) {
    if (row.wr != op) continue;
    const std::uint8_t number = row.op[static_cast<std::size_t>(position)];
    if (number == kNone) return kNone;
    const auto value = static_cast<std::uint8_t>(transport_bits(transport) | number);
    const wire::OpcodeInfo& info = wire::opcode_info(value);
    if (!info.known || info.transport != transport || info.position != position) return kNone;
    return value;
  }
  return kNone;
}

std::string_view to_string(SegmentError e) {
  switch (e) {
    case SegmentError::NONE: return "none";
    case SegmentError::NOT_A_WIRE_OPERATION: return "not_a_wire_operation";
    case SegmentError::OPCODE_NOT_ON_TRANSPORT: return "opcode_not_on_transport";
    case SegmentError::BAD_MTU: return "bad_mtu";
    case SegmentError::MESSAGE_TOO_LONG: return "message_too_long";
    case SegmentError::BAD_ATOMIC_LENGTH: return "bad_atomic_length";
  }
  return "?";
}

SegmentPlan segment(const SegmentRequest& r) {
  SegmentPlan plan;
  plan.packets_since_ackreq = r.packets_since_ackreq;
  auto fail = [&](SegmentError e) {
    plan.error = e;
    plan.packets.clear();
    plan.psn_count = 0;
    plan.packets_since_ackreq = r.packets_since_ackreq;
    return plan;
  };
  switch (r.opcode) {
    case WrOpcode::LOCAL_INV:
    case WrOpcode::BIND_MW:
    case WrOpcode::TSO:
    case WrOpcode::DRIVER1:
      return fail(SegmentError::NOT_A_WIRE_OPERATION);
    case WrOpcode::SEND:
    case WrOpcode::SEND_WITH_IMM:
    case WrOpcode::SEND_WITH_INV:
    case WrOpcode::RDMA_WRITE:
    case WrOpcode::RDMA_WRITE_WITH_IMM:
    case WrOpcode::RDMA_READ:
    case WrOpcode::ATOMIC_CMP_AND_SWP:
    case WrOpcode::ATOMIC_FETCH_AND_ADD:
    case WrOpcode::FLUSH:
    case WrOpcode::ATOMIC_WRITE:
      break;
  }
  if (wire_opcode(r.transport, r.opcode, wire::Position::ONLY) == kNone)
    return fail(SegmentError::OPCODE_NOT_ON_TRANSPORT);
  if (!valid_mtu(r.mtu)) return fail(SegmentError::BAD_MTU);
  if ((is_atomic(r.opcode) || r.opcode == WrOpcode::ATOMIC_WRITE) && r.length != 8)
    return fail(SegmentError::BAD_ATOMIC_LENGTH);
  if (r.length > kMaxMessageLength) return fail(SegmentError::MESSAGE_TOO_LONG);
  if (r.transport == wire::Transport::UD && r.length > r.mtu)
    return fail(SegmentError::MESSAGE_TOO_LONG);

  const bool reliable = r.transport == wire::Transport::RC || r.transport == wire::Transport::XRC;
  const bool data = r.opcode == WrOpcode::SEND || r.opcode == WrOpcode::SEND_WITH_IMM ||
                    r.opcode == WrOpcode::SEND_WITH_INV || r.opcode == WrOpcode::RDMA_WRITE ||
                    r.opcode == WrOpcode::RDMA_WRITE_WITH_IMM;
  // SE only on the last packet of a SEND or an RDMA WRITE with immediate (IBA §9.2.3).
  const bool se_capable = r.opcode == WrOpcode::SEND || r.opcode == WrOpcode::SEND_WITH_IMM ||
                          r.opcode == WrOpcode::SEND_WITH_INV ||
                          r.opcode == WrOpcode::RDMA_WRITE_WITH_IMM;

  std::uint64_t packets = 1;
  if (data && r.length > r.mtu) packets = (r.length + r.mtu - 1) / r.mtu;
  plan.packets.reserve(packets);
  std::uint32_t since = r.packets_since_ackreq;
  for (std::uint64_t i = 0; i < packets; ++i) {
    Segment s;
    const bool last = i + 1 == packets;
    wire::Position pos = wire::Position::ONLY;
    if (packets > 1) pos = i == 0 ? wire::Position::FIRST : last ? wire::Position::LAST : wire::Position::MIDDLE;
    s.opcode = wire_opcode(r.transport, r.opcode, pos);
    s.psn = static_cast<std::uint32_t>((r.first_psn + i) & wire::kMask24);
    if (data) {
      s.offset = i * r.mtu;
      s.length = static_cast<std::uint32_t>(last ? r.length - s.offset : r.mtu);
    } else if (r.opcode == WrOpcode::ATOMIC_WRITE) {
      s.length = 8;  // the 8 bytes travel as payload after the RETH
    }
    s.padcnt = static_cast<std::uint8_t>((4 - s.length % 4) % 4);
    s.se = last && se_capable && r.solicited;
    if (reliable) {
      // rxe init_req_packet: ack_req = end-of-message || noack_pkts++ > RXE_MAX_PKT_PER_ACK.
      if (last && r.ackreq.on_last_packet) {
        s.ackreq = true;
      } else if (r.ackreq.every_n_packets != 0) {
        s.ackreq = since > r.ackreq.every_n_packets;
        ++since;
      }
      if (s.ackreq) since = 0;
    }
    plan.packets.push_back(s);
  }
  // A READ request reserves one PSN per response packet (IBA §9.7.1; docs/spec-notes.md §3.2).
  if (r.opcode == WrOpcode::RDMA_READ) {
    const std::uint64_t responses = r.length == 0 ? 1 : (r.length + r.mtu - 1) / r.mtu;
    plan.psn_count = static_cast<std::uint32_t>(responses);
  } else {
    plan.psn_count = static_cast<std::uint32_t>(packets);
  }
  plan.packets_since_ackreq = since;
  return plan;
}

}  // namespace rocecert::tx
