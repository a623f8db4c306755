#include "rocecert/wire/decode.h"

#include <algorithm>

#include "rocecert/wire/icrc.h"

namespace rocecert::wire {

std::string_view to_string(DecodeErrc e) {
  switch (e) {
#define ROCECERT_X(name, text) \
  case DecodeErrc::name:       \
    return #name;
    ROCECERT_DECODE_ERRORS(ROCECERT_X)
#undef ROCECERT_X
  }
  return "?";
}

std::string_view describe(DecodeErrc e) {
  switch (e) {
#define ROCECERT_X(name, text) \
  case DecodeErrc::name:       \
    return text;
    ROCECERT_DECODE_ERRORS(ROCECERT_X)
#undef ROCECERT_X
  }
  return "?";
}

namespace {

constexpr std::size_t kSllLen = 16;   // Linux cooked capture v1 (LINKTYPE_LINUX_SLL)
constexpr std::size_t kSll2Len = 20;  // Linux cooked capture v2 (LINKTYPE_LINUX_SLL2)

void copy_mac(ByteSpan b, std::size_t off, MacAddr& mac) {
  std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(off), mac.size(), mac.begin());
}

struct Decoder {
  ByteSpan f;
  ParsedFrame& p;

  bool fail(DecodeErrc code, std::size_t offset) {
    p.has_error = true;
    p.error = {code, static_cast<std::uint32_t>(offset)};
    return false;
  }

  // Link layer: returns false on error or when the frame is not IP; sets `ethertype`, `off`.
  bool link(LinkType type, std::uint16_t& ethertype, std::size_t& off) {
    switch (type) {
      case LinkType::Ethernet: {
        if (f.size() < kEthLen) return fail(DecodeErrc::truncated_link, 0);
        p.has_eth = true;
        copy_mac(f, 0, p.eth.dst);
        copy_mac(f, 6, p.eth.src);
        ethertype = load_be16(f, 12);
        off = kEthLen;
        // 802.1Q (and an outer 802.1ad tag): the first tag is reported, all are skipped.
        for (int tags = 0; (ethertype == kEtherTypeVlan || ethertype == kEtherTypeQinQ) && tags < 2;
             ++tags) {
          if (f.size() < off + kVlanTagLen) return fail(DecodeErrc::truncated_vlan, off - 2);
          if (!p.eth.has_vlan) {
            const std::uint16_t tci = load_be16(f, off);
            p.eth.has_vlan = true;
            p.eth.vlan.pcp = static_cast<std::uint8_t>(tci >> 13);
            p.eth.vlan.dei = (tci & 0x1000) != 0;
            p.eth.vlan.vid = static_cast<std::uint16_t>(tci & 0x0FFF);
          }
          ethertype = load_be16(f, off + 2);
          off += kVlanTagLen;
        }
        p.eth.ethertype = ethertype;
        return true;
      }
      case LinkType::LinuxSll:
        // pkttype(2) hatype(2) halen(2) addr(8) protocol(2)
        if (f.size() < kSllLen) return fail(DecodeErrc::truncated_link, 0);
        ethertype = load_be16(f, 14);
        if (load_be16(f, 4) == 6) copy_mac(f, 6, p.eth.src);
        off = kSllLen;
        break;
      case LinkType::LinuxSll2:
        // protocol(2) reserved(2) ifindex(4) hatype(2) pkttype(1) halen(1) addr(8)
        if (f.size() < kSll2Len) return fail(DecodeErrc::truncated_link, 0);
        ethertype = load_be16(f, 0);
        if (f[11] == 6) copy_mac(f, 12, p.eth.src);
        off = kSll2Len;
        break;
      case LinkType::RawIp:
        if (f.empty()) return fail(DecodeErrc::truncated_link, 0);
        ethertype = (f[0] >> 4) == 6 ? kEtherTypeIpv6 : kEtherTypeIpv4;
        off = 0;
        // No link header (has_eth stays false), but the EtherType the IP version implies is
        // kept: to_spec() rebuilds the same IP packet on Ethernet from it.
        p.eth.ethertype = ethertype;
        return true;
    }
    p.has_eth = true;
    p.eth.ethertype = ethertype;
    return true;
  }

  // IP layer: on success [l4_begin, l4_end) is the IP payload. Returns false on error or when
  // the packet is not UDP.
  bool ipv4(std::size_t off, std::size_t& l4_begin, std::size_t& l4_end) {
    if (f.size() < off + kIpv4MinLen) return fail(DecodeErrc::truncated_ipv4, off);
    if ((f[off] >> 4) != 4) return fail(DecodeErrc::bad_ip_version, off);
    const std::size_t ihl = f[off] & 0xFu;
    if (ihl < 5) return fail(DecodeErrc::bad_ipv4_ihl, off);
    if (f.size() < off + ihl * 4) return fail(DecodeErrc::truncated_ipv4, off);
    IpHeader& ip = p.ip;
    ip.version = 4;
    ip.ihl = static_cast<std::uint8_t>(ihl);
    ip.dscp = static_cast<std::uint8_t>(f[off + 1] >> 2);
    ip.ecn = static_cast<std::uint8_t>(f[off + 1] & 0x3);
    ip.total_length = load_be16(f, off + 2);
    ip.id = load_be16(f, off + 4);
    ip.frag = load_be16(f, off + 6);
    ip.ttl = f[off + 8];
    ip.next_header = f[off + 9];
    ip.checksum = load_be16(f, off + 10);
    std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(off + 12), 4, ip.src.begin());
    std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(off + 16), 4, ip.dst.begin());
    p.has_ip = true;
    p.ip_off = static_cast<std::uint32_t>(off);
    p.ip_header_len = static_cast<std::uint32_t>(ihl * 4);
    if (ip.total_length < ihl * 4 || f.size() < off + ip.total_length)
      return fail(DecodeErrc::bad_ipv4_total_length, off + 2);
    if (ip.next_header != kIpProtoUdp) return false;
    if ((ip.frag & 0x1FFF) != 0) return false;  // a later fragment: no UDP header to look at
    l4_begin = off + ihl * 4;
    l4_end = off + ip.total_length;
    return true;
  }

  bool ipv6(std::size_t off, std::size_t& l4_begin, std::size_t& l4_end) {
    if (f.size() < off + kIpv6Len) return fail(DecodeErrc::truncated_ipv6, off);
    if ((f[off] >> 4) != 6) return fail(DecodeErrc::bad_ip_version, off);
    IpHeader& ip = p.ip;
    ip.version = 6;
    ip.ihl = 0;
    ip.frag = 0;
    const std::uint32_t vtf = load_be32(f, off);
    const auto tclass = static_cast<std::uint8_t>((vtf >> 20) & 0xFF);
    ip.dscp = static_cast<std::uint8_t>(tclass >> 2);
    ip.ecn = static_cast<std::uint8_t>(tclass & 0x3);
    ip.flow_label = vtf & 0xFFFFF;
    ip.total_length = load_be16(f, off + 4);
    ip.next_header = f[off + 6];
    ip.ttl = f[off + 7];
    std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(off + 8), 16, ip.src.begin());
    std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(off + 24), 16, ip.dst.begin());
    p.has_ip = true;
    p.ip_off = static_cast<std::uint32_t>(off);
    p.ip_header_len = kIpv6Len;
    if (f.size() < off + kIpv6Len + ip.total_length)
      return fail(DecodeErrc::bad_ipv6_payload_length, off + 4);
    // Extension headers are not walked: RoCEv2 senders do not emit them (Annex A17.4.1).
    if (ip.next_header != kIpProtoUdp) return false;
    l4_begin = off + kIpv6Len;
    l4_end = l4_begin + ip.total_length;
    return true;
  }

  bool udp(std::size_t off, std::size_t end, std::size_t& bth_end) {
    if (end - off < kUdpLen) return fail(DecodeErrc::truncated_udp, off);
    p.has_udp = true;
    p.udp_off = static_cast<std::uint32_t>(off);
    p.udp.sport = load_be16(f, off);
    p.udp.dport = load_be16(f, off + 2);
    p.udp.length = load_be16(f, off + 4);
    p.udp.checksum = load_be16(f, off + 6);
    if (p.udp.dport != kRoceV2Port) return false;
    p.roce = true;
    if (p.udp.length < kUdpLen || p.udp.length > end - off)
      return fail(DecodeErrc::bad_udp_length, off + 4);
    // A first fragment of a RoCEv2 packet: the transport cannot be decoded.
    if ((p.ip.version == 4) && (p.ip.frag & 0x2000))
      return fail(DecodeErrc::ipv4_fragment, p.ip_off + 6);
    bth_end = off + p.udp.length;
    return true;
  }

  void transport(std::size_t bth, std::size_t end, bool verify_icrc) {
    const std::size_t n = end - bth;
    p.bth_off = static_cast<std::uint32_t>(bth);
    if (n < kBthLen) {
      fail(DecodeErrc::truncated_bth, bth);
      return;
    }
    const ByteSpan t = f.subspan(bth, n);
    p.bth = read_bth(t);
    p.op = &opcode_info(p.bth.opcode);
    p.has_bth = true;
    const OpcodeInfo& op = *p.op;
    if (!op.known) {
      fail(DecodeErrc::unknown_opcode, bth);
      return;
    }
    // Every extended header whose bytes are all there is decoded, also in a frame cut short
    // further on; `headers` records which (the headers follow the BTH in a fixed order, IBA
    // Vol. 1 §9.3, so the present ones are a leading run of the opcode's).
    if (n >= op.header_len) {
      p.headers = op.headers;
    } else {
      for (std::size_t i = 0; i < kHeaderCount; ++i) {
        const auto h = static_cast<Header>(i);
        if (op.has(h) && op.offset[i] + kHeaderSize[i] <= n)
          p.headers = static_cast<std::uint16_t>(p.headers | header_bit(h));
      }
    }
    auto at = [&](Header h) { return t.subspan(op.offset[static_cast<std::size_t>(h)]); };
    if (p.has(Header::Rdeth)) p.rdeth = read_rdeth(at(Header::Rdeth));
    if (p.has(Header::Deth)) p.deth = read_deth(at(Header::Deth));
    if (p.has(Header::Xrceth)) p.xrceth = read_xrceth(at(Header::Xrceth));
    if (p.has(Header::Feth)) p.feth = read_feth(at(Header::Feth));
    if (p.has(Header::Reth)) p.reth = read_reth(at(Header::Reth));
    if (p.has(Header::AtomicEth)) p.atomiceth = read_atomiceth(at(Header::AtomicEth));
    if (p.has(Header::Aeth)) p.aeth = read_aeth(at(Header::Aeth));
    if (p.has(Header::AtomicAckEth)) p.atomicacketh = read_atomicacketh(at(Header::AtomicAckEth));
    if (p.has(Header::ImmDt)) p.immdt = read_immdt(at(Header::ImmDt));
    if (p.has(Header::Ieth)) p.ieth = read_ieth(at(Header::Ieth));
    if (n < op.header_len + kIcrcLen) {
      std::size_t cut = op.header_len;
      for (std::size_t h = 0; h < kHeaderCount; ++h) {
        if (op.offset[h] != 0 && op.offset[h] + kHeaderSize[h] > n) {
          cut = op.offset[h];
          break;
        }
      }
      fail(DecodeErrc::truncated_headers, bth + cut);
      return;
    }

    const std::size_t icrc = n - kIcrcLen;
    p.has_icrc = true;
    p.icrc_off = static_cast<std::uint32_t>(bth + icrc);
    p.icrc = load_le32(t, icrc);
    p.payload_off = static_cast<std::uint32_t>(bth + op.header_len);
    if (verify_icrc) {
      p.icrc_computed =
          compute_icrc(f.subspan(p.ip_off, bth + icrc - p.ip_off), p.ip.version, p.ip_header_len);
      p.icrc_checked = true;
      p.icrc_ok = p.icrc_computed == p.icrc;
    }

    // PadCnt is taken as the frame carries it, whatever the opcode: see transport_len() in
    // refmodel/wire/encode.cpp for why a pad on a FIRST or MIDDLE packet is not a framing error.
    const std::size_t rest = icrc - op.header_len;  // payload + pad
    if (p.bth.padcnt > rest) {
      fail(DecodeErrc::pad_exceeds_payload, bth + 1);
      return;
    }
    p.payload_len = static_cast<std::uint32_t>(rest - p.bth.padcnt);
    if (op.payload == Payload::NONE && rest != 0) {
      fail(DecodeErrc::unexpected_payload, p.payload_off);
      return;
    }
    if (op.payload == Payload::ATOMIC8 && p.payload_len != 8) {
      fail(DecodeErrc::bad_atomic_write_length, p.payload_off);
      return;
    }
  }
};

}  // namespace

ParsedFrame decode(ByteSpan frame, const DecodeOptions& opts) {
  ParsedFrame p;
  p.bytes = frame;
  p.link = opts.link;
  Decoder d{frame, p};
  std::uint16_t ethertype = 0;
  std::size_t off = 0;
  if (!d.link(opts.link, ethertype, off)) return p;
  std::size_t l4 = 0, l4_end = 0;
  if (ethertype == kEtherTypeIpv4) {
    if (!d.ipv4(off, l4, l4_end)) return p;
  } else if (ethertype == kEtherTypeIpv6) {
    if (!d.ipv6(off, l4, l4_end)) return p;
  } else {
    return p;
  }
  std::size_t end = 0;
  if (!d.udp(l4, l4_end, end)) return p;
  d.transport(l4 + kUdpLen, end, opts.verify_icrc);
  return p;
}

}  // namespace rocecert::wire
