// The rules one frame decides on its own (rules.def: needs Frame).
#include <fmt/format.h>

#include "check_internal.h"

namespace rocecert::check::detail {
namespace {

// RFC 1071 one's-complement sum of 16-bit words.
std::uint32_t sum16(wire::ByteSpan b, std::uint32_t acc = 0) {
  std::size_t i = 0;
  for (; i + 1 < b.size(); i += 2) acc += static_cast<std::uint32_t>((b[i] << 8) | b[i + 1]);
  if (i < b.size()) acc += static_cast<std::uint32_t>(b[i] << 8);
  return acc;
}
std::uint16_t fold(std::uint32_t acc) {
  while (acc >> 16) acc = (acc & 0xFFFF) + (acc >> 16);
  return static_cast<std::uint16_t>(~acc & 0xFFFF);
}

bool ipv4_checksum_ok(const wire::ParsedFrame& f) {
  return fold(sum16(f.bytes.subspan(f.ip_off, f.ip_header_len))) == 0;
}

// The UDP checksum over the pseudo-header (RFC 768 / RFC 8200 §8.1); 0 means "none" on IPv4,
// and Annex A17.4.5.3 lets RoCEv2 senders put 0 on IPv6 too.
bool udp_checksum_ok(const wire::ParsedFrame& f) {
  if (f.udp.checksum == 0) return true;
  const wire::ByteSpan seg = f.bytes.subspan(f.udp_off, f.udp.length);
  std::uint32_t acc = 0;
  const std::size_t alen = f.ip.version == 4 ? 4 : 16;
  acc = sum16(wire::ByteSpan(f.ip.src.data(), alen), acc);
  acc = sum16(wire::ByteSpan(f.ip.dst.data(), alen), acc);
  acc += 17u + f.udp.length;
  acc = sum16(seg, acc);
  return fold(acc) == 0;
}

// The bytes the IP header says follow it: IPv4's total length less its header, IPv6's payload
// length (no extension headers on RoCEv2, Annex A17.4.1).
std::uint32_t ip_payload_length(const wire::ParsedFrame& f) {
  return f.ip.version == 4 ? f.ip.total_length - f.ip_header_len : f.ip.total_length;
}

// wire.udp's length case: the UDP datagram is the whole IP payload (Annex A17.4.5.3: the UDP
// length covers the BTH to the ICRC). Bytes in the IP payload after the datagram are not part
// of any RoCEv2 packet: a sender's length error, whatever its receiver makes of them.
void check_udp_length(Judge& j, const wire::ParsedFrame& f, const Pkt& p,
                      std::optional<ConnIndex> conn) {
  if (!f.has_ip || f.udp.length == ip_payload_length(f)) return;
  j.violation(RuleId::WireUdp, "length", p, conn,
              fmt::format("UDP length {} but the IP payload is {} bytes", f.udp.length,
                          ip_payload_length(f)));
}

}  // namespace

void check_frame_rules(Judge& j, const wire::ParsedFrame& f, const Pkt& p,
                       std::optional<ConnIndex> conn) {
  using wire::DecodeErrc;
  // A frame that fails its ICRC is dropped by its receiver whatever else it says, and the
  // damage may be anywhere in it: it is judged by the ICRC rule alone (Annex A17.4; §1.8).
  if (f.icrc_checked) {
    j.checked(RuleId::WireIcrc, conn);
    if (!f.icrc_ok) {
      j.violation(RuleId::WireIcrc, "mismatch", p, conn,
                  fmt::format("ICRC 0x{:08x} carried, 0x{:08x} computed", f.icrc, f.icrc_computed));
      return;
    }
  }
  // IP: the checksum is checked whenever the header was read whole (it is masked from the
  // ICRC, so a router may rewrite it, but never wrongly).
  if (f.has_ip && f.ip.version == 4 && f.ip_header_len >= 20 &&
      f.ip_off + f.ip_header_len <= f.bytes.size()) {
    j.checked(RuleId::WireIp, conn);
    if (!ipv4_checksum_ok(f))
      j.violation(RuleId::WireIp, "ipv4_checksum", p, conn,
                  fmt::format("IPv4 header checksum 0x{:04x} is wrong", f.ip.checksum));
  }
  if (f.has_error && f.error.code == DecodeErrc::ipv4_fragment) {
    j.violation(RuleId::WireIp, "fragment", p, conn,
                "a RoCEv2 packet arrived as an IPv4 fragment (it must be sent whole)");
    return;
  }
  if (!f.has_bth) {
    if (!f.has_udp) return;
    j.checked(RuleId::WireUdp, conn);
    if (f.has_error && f.error.code == DecodeErrc::bad_udp_length) {
      j.violation(RuleId::WireUdp, "length", p, conn,
                  fmt::format("UDP length {} does not fit the IP payload", f.udp.length));
    } else if (f.has_error && f.error.code == DecodeErrc::truncated_bth) {
      // A datagram to port 4791 too short for a BTH: no RoCEv2 packet at all. Either its UDP
      // length cut it (the length case) or the sender built it so (the headers rule).
      const auto n = static_cast<unsigned>(f.udp.length - wire::kUdpLen);
      if (f.has_ip && f.udp.length != ip_payload_length(f)) {
        check_udp_length(j, f, p, conn);
      } else {
        j.checked(RuleId::WireHeaders, conn);
        j.violation(RuleId::WireHeaders, "truncated_bth", p, conn,
                    fmt::format("a UDP datagram to port 4791 with {} bytes of payload, too few "
                                "for a BTH (12 bytes) and an ICRC (4)",
                                n));
      }
    }
    return;
  }
  if (f.has_udp) {
    j.checked(RuleId::WireUdp, conn);
    check_udp_length(j, f, p, conn);
    if (f.udp_off + f.udp.length <= f.bytes.size() && !udp_checksum_ok(f))
      j.violation(RuleId::WireUdp, "checksum", p, conn,
                  fmt::format("UDP checksum 0x{:04x} is neither 0 nor correct", f.udp.checksum));
  }
  j.checked(RuleId::WireTver, conn);
  if (f.bth.tver != 0)
    j.violation(RuleId::WireTver, "nonzero", p, conn,
                fmt::format("TVer is {}, must be 0", unsigned{f.bth.tver}));
  j.checked(RuleId::WireReserved, conn);
  if (f.bth.resv7 != 0)
    j.violation(
        RuleId::WireReserved, "bth_resv7", p, conn,
        fmt::format("BTH reserved bits (Resv7) are {:#04x}, must be 0{}", unsigned{f.bth.resv7},
                    (f.bth.resv7 & 1) != 0 ? " (bit 0 is where a PSN counter one bit "
                                             "wider than 24 bits would put its top bit)"
                                           : ""));
  j.checked(RuleId::WirePkey, conn);
  if ((f.bth.pkey & 0x7FFF) == 0)
    j.violation(RuleId::WirePkey, "invalid", p, conn,
                fmt::format("P_Key 0x{:04x} is the invalid partition key", f.bth.pkey));

  j.checked(RuleId::WireOpcode, conn);
  if (f.has_error && f.error.code == DecodeErrc::unknown_opcode) {
    j.violation(RuleId::WireOpcode, "unknown", p, conn,
                fmt::format("opcode 0x{:02x} is reserved or vendor specific", f.bth.opcode));
    return;
  }
  j.checked(RuleId::WireHeaders, conn);
  if (f.has_error) {
    switch (f.error.code) {
      case DecodeErrc::pad_exceeds_payload:
        j.checked(RuleId::WirePad, conn);
        j.violation(RuleId::WirePad, "exceeds_payload", p, conn,
                    fmt::format("PadCnt {} is larger than the bytes before the ICRC",
                                unsigned{f.bth.padcnt}));
        return;
      case DecodeErrc::truncated_headers:
      case DecodeErrc::unexpected_payload:
      case DecodeErrc::bad_atomic_write_length:
        j.violation(RuleId::WireHeaders, wire::to_string(f.error.code), p, conn,
                    fmt::format("{} ({}): {} at byte {}", f.op ? f.op->name : "?",
                                wire::to_string(f.error.code), wire::describe(f.error.code),
                                f.error.offset));
        return;
      case DecodeErrc::truncated_link:
      case DecodeErrc::truncated_vlan:
      case DecodeErrc::truncated_ipv4:
      case DecodeErrc::bad_ip_version:
      case DecodeErrc::bad_ipv4_ihl:
      case DecodeErrc::bad_ipv4_total_length:
      case DecodeErrc::ipv4_fragment:
      case DecodeErrc::truncated_ipv6:
      case DecodeErrc::bad_ipv6_payload_length:
      case DecodeErrc::truncated_udp:
      case DecodeErrc::bad_udp_length:
      case DecodeErrc::truncated_bth:
      case DecodeErrc::unknown_opcode:
        return;  // before the BTH: handled above
    }
  }
  const wire::OpcodeInfo& op = *f.op;
  j.checked(RuleId::WirePad, conn);
  const bool pad_ok =
      op.has_payload() ? ((f.payload_len + f.bth.padcnt) % 4 == 0) : f.bth.padcnt == 0;
  if (!pad_ok)
    j.violation(
        RuleId::WirePad, op.has_payload() ? "not_minimal" : "without_payload", p, conn,
        fmt::format("PadCnt {} with a payload of {} bytes (expected {})", unsigned{f.bth.padcnt},
                    f.payload_len, op.has_payload() ? (4 - f.payload_len % 4) % 4 : 0u));
  j.checked(RuleId::WireAckReq, conn);
  const bool may_ackreq = op.transport == wire::Transport::RC && op.is_request();
  if (f.bth.ackreq && !may_ackreq)
    j.violation(RuleId::WireAckReq, "set", p, conn, fmt::format("AckReq set on {}", op.name));
  if (op.has(wire::Header::Aeth)) {
    j.checked(RuleId::AckSyndrome, conn);
    const std::uint8_t s = f.aeth.syndrome;
    const wire::AethKind kind = wire::aeth_kind(s);
    const bool data_response = op.operation == wire::Operation::READ_RESPONSE ||
                               op.operation == wire::Operation::ATOMIC_ACK;
    if (kind == wire::AethKind::RESERVED)
      j.violation(RuleId::AckSyndrome, "reserved_type", p, conn,
                  fmt::format("AETH syndrome 0x{:02x} has a reserved type", s));
    else if (kind == wire::AethKind::NAK && !wire::nak_code(s))
      j.violation(RuleId::AckSyndrome, "reserved_nak_code", p, conn,
                  fmt::format("AETH syndrome 0x{:02x} is a reserved NAK code", s));
    else if (kind == wire::AethKind::NAK && op.transport == wire::Transport::RC &&
             *wire::nak_code(s) == wire::NakCode::INVALID_RD_REQUEST)
      j.violation(RuleId::AckSyndrome, "rd_nak_on_rc", p, conn,
                  "NAK invalid RD request (0x64) on an RC connection");
    else if (data_response && kind != wire::AethKind::ACK)
      j.violation(RuleId::AckSyndrome, "nak_in_data_response", p, conn,
                  fmt::format("{} carries the non-ACK syndrome 0x{:02x}", op.name, s));
  }
  if (op.transport == wire::Transport::CNP) {
    j.checked(RuleId::CnpFormat, conn);
    if (!f.bth.becn || f.bth.padcnt != 0)
      j.violation(RuleId::CnpFormat, "fields", p, conn,
                  fmt::format("CNP with BECN {} and PadCnt {} (expected BECN 1, PadCnt 0)",
                              f.bth.becn ? 1 : 0, unsigned{f.bth.padcnt}));
  }
}

}  // namespace rocecert::check::detail
