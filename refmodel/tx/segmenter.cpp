#include "rocecert/tx/segmenter.h"

#include "rocecert/wire/headers.h"

#include <array>

namespace rocecert::tx {

namespace {

// What a WR opcode puts on the wire: the operation of its request packets and the flags only
// its LAST / ONLY packet carries (ImmDt, IETH); FIRST and MIDDLE packets carry neither (IBA
// Vol. 1 Table 38, the OpCode field: the _WITH_IMMEDIATE / _WITH_INVALIDATE forms are LAST and
// ONLY opcodes). The opcode numbers themselves come from the wire
// opcode table (rocecert/wire/opcodes.def), so a transport lacking an operation (UC READ, UD
// FIRST, UC SEND_WITH_INV ...) is simply not found there.
struct WireForm {
  bool on_wire = false;
  wire::Operation operation = wire::Operation::SEND;
  std::uint8_t last_flags = 0;  // wire::OpcodeFlag set of the LAST / ONLY packet
};

constexpr WireForm wire_form(WrOpcode op) {
  using wire::Operation;
  switch (op) {
    case WrOpcode::SEND:
      return {true, Operation::SEND, 0};
    case WrOpcode::SEND_WITH_IMM:
      return {true, Operation::SEND, wire::kImm};
    case WrOpcode::SEND_WITH_INV:
      return {true, Operation::SEND, wire::kInv};
    case WrOpcode::RDMA_WRITE:
      return {true, Operation::WRITE, 0};
    case WrOpcode::RDMA_WRITE_WITH_IMM:
      return {true, Operation::WRITE, wire::kImm};
    case WrOpcode::RDMA_READ:
      return {true, Operation::READ_REQUEST, 0};
    case WrOpcode::ATOMIC_CMP_AND_SWP:
      return {true, Operation::COMPARE_SWAP, 0};
    case WrOpcode::ATOMIC_FETCH_AND_ADD:
      return {true, Operation::FETCH_ADD, 0};
    case WrOpcode::FLUSH:
      return {true, Operation::FLUSH, 0};
    case WrOpcode::ATOMIC_WRITE:
      return {true, Operation::ATOMIC_WRITE, 0};
    case WrOpcode::LOCAL_INV:
    case WrOpcode::BIND_MW:
    case WrOpcode::TSO:
    case WrOpcode::DRIVER1:
      break;
  }
  return {};
}

// The request opcode of the table with these classes, or kNoOpcode.
constexpr std::uint8_t find_request_opcode(wire::Transport t, wire::Operation op,
                                           wire::Position pos, std::uint8_t flags) {
  for (const wire::OpcodeInfo& info : wire::kOpcodeTable) {
    if (info.known && info.is_request() && info.transport == t && info.operation == op &&
        info.position == pos && info.flags == flags)
      return info.value;
  }
  return kNoOpcode;
}

// The model's QPs are RC, UC, UD and XRC; RD is not modelled and CNP carries no message.
constexpr bool carries_messages(wire::Transport t) {
  return t == wire::Transport::RC || t == wire::Transport::UC || t == wire::Transport::UD ||
         t == wire::Transport::XRC;
}

constexpr std::size_t kWrOpcodeSlots = 16;  // enum ibv_wr_opcode values 0..15
constexpr std::size_t kTransportSlots = static_cast<std::size_t>(wire::Transport::XRC) + 1;
constexpr std::size_t kPositionSlots = static_cast<std::size_t>(wire::Position::ONLY) + 1;
using OpcodeChoice =
    std::array<std::array<std::array<std::uint8_t, kPositionSlots>, kTransportSlots>,
               kWrOpcodeSlots>;

// [WR opcode][transport][position] -> wire opcode, looked up once at compile time.
constexpr OpcodeChoice build_opcode_choice() {
  OpcodeChoice out{};
  for (std::size_t w = 0; w < kWrOpcodeSlots; ++w) {
    const WireForm form = wire_form(static_cast<WrOpcode>(w));
    for (std::size_t t = 0; t < kTransportSlots; ++t) {
      const auto transport = static_cast<wire::Transport>(t);
      for (std::size_t p = 0; p < kPositionSlots; ++p) {
        const auto pos = static_cast<wire::Position>(p);
        out[w][t][p] = kNoOpcode;
        if (!form.on_wire || !carries_messages(transport)) continue;
        const bool ends = pos == wire::Position::LAST || pos == wire::Position::ONLY;
        out[w][t][p] =
            find_request_opcode(transport, form.operation, pos, ends ? form.last_flags : 0);
      }
    }
  }
  return out;
}
constexpr OpcodeChoice kOpcodeChoice = build_opcode_choice();

bool is_atomic(WrOpcode op) {
  return op == WrOpcode::ATOMIC_CMP_AND_SWP || op == WrOpcode::ATOMIC_FETCH_AND_ADD;
}

bool valid_mtu(std::uint32_t mtu) {
  return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

}  // namespace

std::uint8_t wire_opcode(wire::Transport transport, WrOpcode op, wire::Position position) {
  const auto w = static_cast<std::size_t>(op);
  const auto t = static_cast<std::size_t>(transport);
  const auto p = static_cast<std::size_t>(position);
  if (w >= kWrOpcodeSlots || t >= kTransportSlots || p >= kPositionSlots) return kNoOpcode;
  return kOpcodeChoice[w][t][p];
}

std::string_view to_string(SegmentError e) {
  switch (e) {
    case SegmentError::NONE:
      return "none";
    case SegmentError::NOT_A_WIRE_OPERATION:
      return "not_a_wire_operation";
    case SegmentError::OPCODE_NOT_ON_TRANSPORT:
      return "opcode_not_on_transport";
    case SegmentError::BAD_MTU:
      return "bad_mtu";
    case SegmentError::MESSAGE_TOO_LONG:
      return "message_too_long";
    case SegmentError::BAD_ATOMIC_LENGTH:
      return "bad_atomic_length";
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
  if (wire_opcode(r.transport, r.opcode, wire::Position::ONLY) == kNoOpcode)
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
    if (packets > 1)
      pos = i == 0 ? wire::Position::FIRST : last ? wire::Position::LAST : wire::Position::MIDDLE;
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
