// Transport headers as plain values, with readers and writers at explicit offsets.
// Layouts: IBA Vol. 1 §9.2 (BTH) and §9.3 (extended headers); FETH from IBA 1.5 (FLUSH);
// byte-exact with Linux rxe_hdr.h.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>

#include "rocecert/wire/bytes.h"

namespace rocecert::wire {

inline constexpr std::uint32_t kMask24 = 0xFFFFFFu;

// Base Transport Header, 12 bytes (IBA §9.2).
struct Bth {
  std::uint8_t opcode = 0;
  bool se = false;          // solicited event
  bool m = false;           // MigReq
  std::uint8_t padcnt = 0;  // 2 bits
  std::uint8_t tver = 0;    // 4 bits, must be 0
  std::uint16_t pkey = 0xFFFF;
  bool fecn = false;        // variant: masked out of the ICRC
  bool becn = false;        // variant: set in a CNP (Annex A17.9.3)
  std::uint8_t resv6a = 0;  // 6 bits, variant
  std::uint32_t dqpn = 0;   // 24 bits
  bool ackreq = false;
  std::uint8_t resv7 = 0;  // 7 bits, invariant (covered by the ICRC)
  std::uint32_t psn = 0;   // 24 bits
  friend bool operator==(const Bth&, const Bth&) = default;
};

struct Rdeth {  // 4 bytes: reserved, EE context (24)
  std::uint32_t eecnxt = 0;
  friend bool operator==(const Rdeth&, const Rdeth&) = default;
};
struct Deth {  // 8 bytes: Q_Key, reserved, source QP (24)
  std::uint32_t qkey = 0;
  std::uint32_t srcqp = 0;
  friend bool operator==(const Deth&, const Deth&) = default;
};
struct Xrceth {  // 4 bytes: reserved, XRC SRQ number (24)
  std::uint32_t xrcsrq = 0;
  friend bool operator==(const Xrceth&, const Xrceth&) = default;
};
struct Feth {  // 4 bytes; byte 3: bits 3:0 placement type, bits 5:4 selectivity level
  std::uint8_t placement = 0;
  std::uint8_t selectivity = 0;
  friend bool operator==(const Feth&, const Feth&) = default;
};
struct Reth {  // 16 bytes
  std::uint64_t va = 0;
  std::uint32_t rkey = 0;
  std::uint32_t dmalen = 0;
  friend bool operator==(const Reth&, const Reth&) = default;
};
struct AtomicEth {  // 28 bytes
  std::uint64_t va = 0;
  std::uint32_t rkey = 0;
  std::uint64_t swap_add = 0;
  std::uint64_t compare = 0;
  friend bool operator==(const AtomicEth&, const AtomicEth&) = default;
};
struct Aeth {  // 4 bytes: syndrome, MSN (24)
  std::uint8_t syndrome = 0;
  std::uint32_t msn = 0;
  friend bool operator==(const Aeth&, const Aeth&) = default;
};
struct AtomicAckEth {  // 8 bytes
  std::uint64_t orig = 0;
  friend bool operator==(const AtomicAckEth&, const AtomicAckEth&) = default;
};
struct ImmDt {  // 4 bytes, opaque, kept in network order as a number
  std::uint32_t value = 0;
  friend bool operator==(const ImmDt&, const ImmDt&) = default;
};
struct Ieth {  // 4 bytes: the R_Key to invalidate
  std::uint32_t rkey = 0;
  friend bool operator==(const Ieth&, const Ieth&) = default;
};

// Readers take the span positioned at the header's first byte; the caller guarantees its size.
Bth read_bth(ByteSpan b);
Rdeth read_rdeth(ByteSpan b);
Deth read_deth(ByteSpan b);
Xrceth read_xrceth(ByteSpan b);
Feth read_feth(ByteSpan b);
Reth read_reth(ByteSpan b);
AtomicEth read_atomiceth(ByteSpan b);
Aeth read_aeth(ByteSpan b);
AtomicAckEth read_atomicacketh(ByteSpan b);
ImmDt read_immdt(ByteSpan b);
Ieth read_ieth(ByteSpan b);

void write_bth(MutableByteSpan b, const Bth& h);
void write_rdeth(MutableByteSpan b, const Rdeth& h);
void write_deth(MutableByteSpan b, const Deth& h);
void write_xrceth(MutableByteSpan b, const Xrceth& h);
void write_feth(MutableByteSpan b, const Feth& h);
void write_reth(MutableByteSpan b, const Reth& h);
void write_atomiceth(MutableByteSpan b, const AtomicEth& h);
void write_aeth(MutableByteSpan b, const Aeth& h);
void write_atomicacketh(MutableByteSpan b, const AtomicAckEth& h);
void write_immdt(MutableByteSpan b, const ImmDt& h);
void write_ieth(MutableByteSpan b, const Ieth& h);

// AETH syndrome layout (IBA Vol. 1 §9.3.5, §9.7.5.1; rxe_hdr.h enum aeth_syndrome): bit 7 is
// reserved and must be 0, bits 6:5 the type, bits 4:0 the value (ACK: credit count, RNR NAK:
// the RNR timer code, NAK: the NAK code). Every syndrome the model builds or reads is spelled
// with these constants and NakCode; no syndrome number is typed anywhere else.
inline constexpr std::uint8_t kAethReservedBit = 0x80;
inline constexpr std::uint8_t kAethTypeMask = 0x60;
inline constexpr std::uint8_t kAethTypeAck = 0x00;
inline constexpr std::uint8_t kAethTypeRnrNak = 0x20;
inline constexpr std::uint8_t kAethTypeReserved = 0x40;
inline constexpr std::uint8_t kAethTypeNak = 0x60;
inline constexpr std::uint8_t kAethValueMask = 0x1F;

enum class AethKind : std::uint8_t { ACK, RNR_NAK, RESERVED, NAK };
constexpr AethKind aeth_kind(std::uint8_t syndrome) {
  if (syndrome & kAethReservedBit) return AethKind::RESERVED;
  switch (syndrome & kAethTypeMask) {
    case kAethTypeAck:
      return AethKind::ACK;
    case kAethTypeRnrNak:
      return AethKind::RNR_NAK;
    case kAethTypeReserved:
      return AethKind::RESERVED;
    default:
      return AethKind::NAK;
  }
}
// Bits 4:0: the credit count, RNR timer code or NAK code.
constexpr std::uint8_t aeth_value(std::uint8_t syndrome) {
  return static_cast<std::uint8_t>(syndrome & kAethValueMask);
}

// The NAK codes (syndrome bits 4:0 when the type is NAK; IBA Vol. 1 §9.7.5.1, rxe_hdr.h
// AETH_NAK_*): X(NAME, code). Codes above the last one are reserved. aeth_name() prints
// "NAK_" NAME.
#define ROCECERT_NAK_CODES(X)    \
  X(PSN_SEQUENCE_ERROR, 0)       \
  X(INVALID_REQUEST, 1)          \
  X(REMOTE_ACCESS_ERROR, 2)      \
  X(REMOTE_OPERATIONAL_ERROR, 3) \
  X(INVALID_RD_REQUEST, 4)

enum class NakCode : std::uint8_t {
#define ROCECERT_X(name, code) name = code,
  ROCECERT_NAK_CODES(ROCECERT_X)
#undef ROCECERT_X
};
inline constexpr NakCode kAllNakCodes[] = {
#define ROCECERT_X(name, code) NakCode::name,
    ROCECERT_NAK_CODES(ROCECERT_X)
#undef ROCECERT_X
};
// "NAK_PSN_SEQUENCE_ERROR", ...: the name aeth_name() gives a NAK with this code.
constexpr std::string_view nak_name(NakCode c) {
  switch (c) {
#define ROCECERT_X(name, code) \
  case NakCode::name:          \
    return "NAK_" #name;
    ROCECERT_NAK_CODES(ROCECERT_X)
#undef ROCECERT_X
  }
  return "NAK_RESERVED";
}
// The first reserved NAK code (IBA Vol. 1 §9.7.5.1: the codes after Invalid RD Request).
inline constexpr std::uint8_t kFirstReservedNakCode =
    static_cast<std::uint8_t>(static_cast<std::uint8_t>(NakCode::INVALID_RD_REQUEST) + 1);

// The syndromes themselves.
constexpr std::uint8_t nak_syndrome(NakCode c) {
  return static_cast<std::uint8_t>(kAethTypeNak | static_cast<std::uint8_t>(c));
}
constexpr std::uint8_t rnr_nak_syndrome(std::uint8_t timer_code) {
  return static_cast<std::uint8_t>(kAethTypeRnrNak | (timer_code & kAethValueMask));
}
constexpr std::uint8_t ack_syndrome(std::uint8_t credits) {
  return static_cast<std::uint8_t>(kAethTypeAck | (credits & kAethValueMask));
}
// The NAK code of a NAK syndrome; nullopt for another type or a reserved code.
constexpr std::optional<NakCode> nak_code(std::uint8_t syndrome) {
  if (aeth_kind(syndrome) != AethKind::NAK) return std::nullopt;
  const std::uint8_t v = aeth_value(syndrome);
  for (NakCode c : kAllNakCodes)
    if (static_cast<std::uint8_t>(c) == v) return c;
  return std::nullopt;
}

// "ACK", "RNR_NAK", "NAK_PSN_SEQUENCE_ERROR", "NAK_REMOTE_ACCESS_ERROR", ... "RESERVED" for an
// AETH syndrome: the names `rocecert decode` prints and scenarios use.
std::string_view aeth_name(std::uint8_t syndrome);

}  // namespace rocecert::wire
