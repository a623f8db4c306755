// Transport headers as plain values, with readers and writers at explicit offsets.
// Layouts: IBA Vol. 1 §9.2 (BTH) and §9.3 (extended headers); FETH from IBA 1.5 (FLUSH);
// byte-exact with Linux rxe_hdr.h.
#pragma once

#include <compare>
#include <cstdint>
#include <string_view>

#include "rocecert/wire/bytes.h"

namespace rocecert::wire {

inline constexpr std::uint32_t kMask24 = 0xFFFFFFu;

// Base Transport Header, 12 bytes (IBA §9.2).
struct Bth {
  std::uint8_t opcode = 0;
  bool se = false;           // solicited event
  bool m = false;            // MigReq
  std::uint8_t padcnt = 0;   // 2 bits
  std::uint8_t tver = 0;     // 4 bits, must be 0
  std::uint16_t pkey = 0xFFFF;
  bool fecn = false;         // variant: masked out of the ICRC
  bool becn = false;         // variant: set in a CNP (Annex A17.9.3)
  std::uint8_t resv6a = 0;   // 6 bits, variant
  std::uint32_t dqpn = 0;    // 24 bits
  bool ackreq = false;
  std::uint8_t resv7 = 0;    // 7 bits, invariant (covered by the ICRC)
  std::uint32_t psn = 0;     // 24 bits
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

// AETH syndrome classification (IBA §9.7.5.1; rxe_hdr.h enum aeth_syndrome).
enum class AethKind : std::uint8_t { ACK, RNR_NAK, RESERVED, NAK };
constexpr AethKind aeth_kind(std::uint8_t syndrome) {
  if (syndrome & 0x80) return AethKind::RESERVED;  // bit 7 is reserved and must be 0
  switch ((syndrome >> 5) & 0x3) {
    case 0: return AethKind::ACK;
    case 1: return AethKind::RNR_NAK;
    case 2: return AethKind::RESERVED;
    default: return AethKind::NAK;
  }
}
// NAK codes carried in syndrome bits 4:0 when the kind is NAK.
enum class NakCode : std::uint8_t {
  PSN_SEQUENCE_ERROR = 0, INVALID_REQUEST = 1, REMOTE_ACCESS_ERROR = 2,
  REMOTE_OPERATIONAL_ERROR = 3, INVALID_RD_REQUEST = 4
};
// "ACK", "RNR_NAK", "NAK_PSN_SEQUENCE_ERROR", "NAK_REMOTE_ACCESS_ERROR", ... "RESERVED" for an
// AETH syndrome: the names `rocecert decode` prints and scenarios use.
std::string_view aeth_name(std::uint8_t syndrome);

}  // namespace rocecert::wire
