// Opcode classification and header layout, derived at compile time from opcodes.def.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rocecert::wire {

// Transport service, from BTH OpCode bits 7:5 (IBA Vol. 1 Table 38).
enum class Transport : std::uint8_t { RC, UC, RD, UD, CNP, XRC };

enum class Payload : std::uint8_t { NONE, DATA, ATOMIC8 };
enum class Position : std::uint8_t { FIRST, MIDDLE, LAST, ONLY };
enum class Direction : std::uint8_t { REQ, RESP, CNP };
enum class Operation : std::uint8_t {
  SEND,
  WRITE,
  READ_REQUEST,
  READ_RESPONSE,
  ACK,
  ATOMIC_ACK,
  COMPARE_SWAP,
  FETCH_ADD,
  RESYNC,
  FLUSH,
  ATOMIC_WRITE,
  CNP
};

// The extended transport headers, in the order they follow the BTH on the wire.
enum class Header : std::uint8_t {
  Rdeth,
  Deth,
  Xrceth,
  Feth,
  Reth,
  AtomicEth,
  Aeth,
  AtomicAckEth,
  ImmDt,
  Ieth,
  CnpReserved,
  kCount
};
inline constexpr std::size_t kHeaderCount = static_cast<std::size_t>(Header::kCount);

inline constexpr std::size_t kBthLen = 12;
inline constexpr std::size_t kIcrcLen = 4;
// Sizes in bytes (IBA Vol. 1 §9.3; FETH from IBA 1.5; CNP body from Annex A17.9.3).
inline constexpr std::array<std::uint8_t, kHeaderCount> kHeaderSize = {
    4 /*RDETH*/, 8 /*DETH*/,         4 /*XRCETH*/, 4 /*FETH*/, 16 /*RETH*/, 28 /*AtomicETH*/,
    4 /*AETH*/,  8 /*AtomicAckETH*/, 4 /*ImmDt*/,  4 /*IETH*/, 16 /*CNP reserved*/};

enum HeaderBit : std::uint16_t {
  kRdeth = 1u << 0,
  kDeth = 1u << 1,
  kXrceth = 1u << 2,
  kFeth = 1u << 3,
  kReth = 1u << 4,
  kAtomicEth = 1u << 5,
  kAeth = 1u << 6,
  kAtomicAckEth = 1u << 7,
  kImmDt = 1u << 8,
  kIeth = 1u << 9,
  kCnpReserved = 1u << 10
};
enum OpcodeFlag : std::uint8_t { kImm = 1u << 0, kInv = 1u << 1 };

constexpr std::uint16_t header_bit(Header h) {
  return static_cast<std::uint16_t>(1u << static_cast<unsigned>(h));
}

struct OpcodeInfo {
  std::uint8_t value = 0;
  bool known = false;
  std::string_view name;  // e.g. "RC_SEND_FIRST"
  Transport transport = Transport::RC;
  std::uint16_t headers = 0;  // HeaderBit set
  Payload payload = Payload::NONE;
  Position position = Position::ONLY;
  Direction direction = Direction::REQ;
  Operation operation = Operation::SEND;
  std::uint8_t flags = 0;
  // Offset of each extended header from the start of the BTH; 0 when absent.
  std::array<std::uint8_t, kHeaderCount> offset{};
  std::uint8_t header_len = 0;  // BTH + all extended headers

  constexpr bool has(Header h) const { return (headers & header_bit(h)) != 0; }
  constexpr bool has_payload() const { return payload != Payload::NONE; }
  constexpr bool is_request() const { return direction == Direction::REQ; }
  constexpr bool is_response() const { return direction == Direction::RESP; }
  constexpr bool starts_message() const {
    return position == Position::FIRST || position == Position::ONLY;
  }
  constexpr bool ends_message() const {
    return position == Position::LAST || position == Position::ONLY;
  }
  // Whether AckReq on this packet is the requester's own policy: an RC request packet inside a
  // message (FIRST, MIDDLE). rxe asks on a message's last packet and on every 64th inside it
  // (docs/spec-notes.md §3.4); what vectors check is that the last packet asks.
  constexpr bool ackreq_is_requesters_choice() const {
    return transport == Transport::RC && is_request() &&
           (position == Position::FIRST || position == Position::MIDDLE);
  }
  // Whether the responder takes a receive WQE for this packet (docs/spec-notes.md §2.1 "RWQE"):
  // SEND FIRST/ONLY, and RDMA WRITE with immediate at LAST/ONLY.
  constexpr bool takes_recv_wqe() const {
    if (operation == Operation::SEND) return starts_message();
    return operation == Operation::WRITE && (flags & kImm) != 0 && ends_message();
  }
};

namespace detail {
constexpr OpcodeInfo make_opcode(std::uint8_t value, std::string_view name, Transport t,
                                 std::uint16_t headers, Payload p, Position pos, Direction d,
                                 Operation op, std::uint8_t flags) {
  OpcodeInfo info{};
  info.value = value;
  info.known = true;
  info.name = name;
  info.transport = t;
  info.headers = headers;
  info.payload = p;
  info.position = pos;
  info.direction = d;
  info.operation = op;
  info.flags = flags;
  std::size_t off = kBthLen;
  for (std::size_t h = 0; h < kHeaderCount; ++h) {
    if (headers & (1u << h)) {
      info.offset[h] = static_cast<std::uint8_t>(off);
      off += kHeaderSize[h];
    }
  }
  info.header_len = static_cast<std::uint8_t>(off);
  return info;
}

constexpr std::array<OpcodeInfo, 256> build_opcode_table() {
  std::array<OpcodeInfo, 256> table{};
  for (std::size_t i = 0; i < table.size(); ++i) table[i].value = static_cast<std::uint8_t>(i);
#define ROCE_OPCODE(value, NAME, transport, headers, payload, position, direction, operation, \
                    flags)                                                                    \
  table[value] =                                                                              \
      make_opcode(value, #NAME, Transport::transport, headers, Payload::payload,              \
                  Position::position, Direction::direction, Operation::operation, flags);
#include "rocecert/wire/opcodes.def"
#undef ROCE_OPCODE
  return table;
}
}  // namespace detail

inline constexpr std::array<OpcodeInfo, 256> kOpcodeTable = detail::build_opcode_table();

// The table entry of an opcode; `known` is false for reserved and vendor opcodes.
constexpr const OpcodeInfo& opcode_info(std::uint8_t opcode) {
  return kOpcodeTable[opcode];
}

// Named opcode constants, e.g. Opcode::RC_SEND_ONLY, generated from the same table.
enum class Opcode : std::uint8_t {
#define ROCE_OPCODE(value, NAME, ...) NAME = value,
#include "rocecert/wire/opcodes.def"
#undef ROCE_OPCODE
};
constexpr std::uint8_t to_u8(Opcode op) {
  return static_cast<std::uint8_t>(op);
}

std::string_view to_string(Transport t);
std::string_view to_string(Operation op);
std::string_view to_string(Position p);
std::string_view header_name(Header h);

// Look up an opcode by its table name ("RC_SEND_ONLY"); false if there is none.
bool opcode_from_name(std::string_view name, std::uint8_t& out);

}  // namespace rocecert::wire
