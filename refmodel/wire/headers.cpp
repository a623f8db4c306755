// Field layouts: IBA Vol. 1 §9.2-§9.3, byte-exact with Linux rxe_hdr.h.
#include "rocecert/wire/headers.h"

namespace rocecert::wire {

Bth read_bth(ByteSpan b) {
  Bth h;
  h.opcode = b[0];
  h.se = (b[1] & 0x80) != 0;
  h.m = (b[1] & 0x40) != 0;
  h.padcnt = static_cast<std::uint8_t>((b[1] >> 4) & 0x3);
  h.tver = static_cast<std::uint8_t>(b[1] & 0xF);
  h.pkey = load_be16(b, 2);
  h.fecn = (b[4] & 0x80) != 0;
  h.becn = (b[4] & 0x40) != 0;
  h.resv6a = static_cast<std::uint8_t>(b[4] & 0x3F);
  h.dqpn = load_be24(b, 5);
  h.ackreq = (b[8] & 0x80) != 0;
  h.resv7 = static_cast<std::uint8_t>(b[8] & 0x7F);
  h.psn = load_be24(b, 9);
  return h;
}

void write_bth(MutableByteSpan b, const Bth& h) {
  b[0] = h.opcode;
  b[1] = static_cast<std::uint8_t>((h.se ? 0x80 : 0) | (h.m ? 0x40 : 0) | ((h.padcnt & 0x3) << 4) |
                                   (h.tver & 0xF));
  store_be16(b, 2, h.pkey);
  b[4] = static_cast<std::uint8_t>((h.fecn ? 0x80 : 0) | (h.becn ? 0x40 : 0) | (h.resv6a & 0x3F));
  store_be24(b, 5, h.dqpn & kMask24);
  b[8] = static_cast<std::uint8_t>((h.ackreq ? 0x80 : 0) | (h.resv7 & 0x7F));
  store_be24(b, 9, h.psn & kMask24);
}

Rdeth read_rdeth(ByteSpan b) {
  return {load_be24(b, 1)};
}
void write_rdeth(MutableByteSpan b, const Rdeth& h) {
  b[0] = 0;
  store_be24(b, 1, h.eecnxt & kMask24);
}

Deth read_deth(ByteSpan b) {
  return {load_be32(b, 0), load_be24(b, 5)};
}
void write_deth(MutableByteSpan b, const Deth& h) {
  store_be32(b, 0, h.qkey);
  b[4] = 0;
  store_be24(b, 5, h.srcqp & kMask24);
}

Xrceth read_xrceth(ByteSpan b) {
  return {load_be24(b, 1)};
}
void write_xrceth(MutableByteSpan b, const Xrceth& h) {
  b[0] = 0;
  store_be24(b, 1, h.xrcsrq & kMask24);
}

// FETH: bytes 0-2 reserved; byte 3 bits 3:0 placement type, bits 5:4 selectivity level.
Feth read_feth(ByteSpan b) {
  return {static_cast<std::uint8_t>(b[3] & 0xF), static_cast<std::uint8_t>((b[3] >> 4) & 0x3)};
}
void write_feth(MutableByteSpan b, const Feth& h) {
  b[0] = b[1] = b[2] = 0;
  b[3] = static_cast<std::uint8_t>((h.placement & 0xF) | ((h.selectivity & 0x3) << 4));
}

Reth read_reth(ByteSpan b) {
  return {load_be64(b, 0), load_be32(b, 8), load_be32(b, 12)};
}
void write_reth(MutableByteSpan b, const Reth& h) {
  store_be64(b, 0, h.va);
  store_be32(b, 8, h.rkey);
  store_be32(b, 12, h.dmalen);
}

AtomicEth read_atomiceth(ByteSpan b) {
  return {load_be64(b, 0), load_be32(b, 8), load_be64(b, 12), load_be64(b, 20)};
}
void write_atomiceth(MutableByteSpan b, const AtomicEth& h) {
  store_be64(b, 0, h.va);
  store_be32(b, 8, h.rkey);
  store_be64(b, 12, h.swap_add);
  store_be64(b, 20, h.compare);
}

Aeth read_aeth(ByteSpan b) {
  return {b[0], load_be24(b, 1)};
}
void write_aeth(MutableByteSpan b, const Aeth& h) {
  b[0] = h.syndrome;
  store_be24(b, 1, h.msn & kMask24);
}

AtomicAckEth read_atomicacketh(ByteSpan b) {
  return {load_be64(b, 0)};
}
void write_atomicacketh(MutableByteSpan b, const AtomicAckEth& h) {
  store_be64(b, 0, h.orig);
}

ImmDt read_immdt(ByteSpan b) {
  return {load_be32(b, 0)};
}
void write_immdt(MutableByteSpan b, const ImmDt& h) {
  store_be32(b, 0, h.value);
}

Ieth read_ieth(ByteSpan b) {
  return {load_be32(b, 0)};
}
void write_ieth(MutableByteSpan b, const Ieth& h) {
  store_be32(b, 0, h.rkey);
}

std::string_view aeth_name(std::uint8_t syndrome) {
  switch (aeth_kind(syndrome)) {
    case AethKind::ACK:
      return "ACK";
    case AethKind::RNR_NAK:
      return "RNR_NAK";
    case AethKind::RESERVED:
      return "RESERVED";
    case AethKind::NAK:
      break;
  }
  const std::optional<NakCode> code = nak_code(syndrome);
  return code ? nak_name(*code) : "NAK_RESERVED";
}

}  // namespace rocecert::wire
