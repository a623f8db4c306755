// Malformed and foreign input: every failure is reported with a code and a byte offset, and the
// decoder never reads outside the frame (this suite also runs under ASan/UBSan).
#include <gtest/gtest.h>

#include <vector>

#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert::wire;
using Bytes = std::vector<std::uint8_t>;

namespace {

constexpr std::size_t kIp = kEthLen;          // IPv4 header offset in an untagged frame
constexpr std::size_t kUdp = kIp + 20;        // UDP header offset
constexpr std::size_t kBth = kUdp + kUdpLen;  // BTH offset

Bytes frame_of(Opcode op, std::uint32_t payload = 16, unsigned ipv = 4, bool vlan = false) {
  return encode(sample_frame(to_u8(op), {ipv, vlan, payload, 5}));
}

void expect_error(const Bytes& f, DecodeErrc code, std::size_t offset) {
  const ParsedFrame p = decode(f);
  ASSERT_TRUE(p.has_error) << "expected " << to_string(code);
  EXPECT_EQ(p.error.code, code) << to_string(p.error.code);
  EXPECT_EQ(p.error.offset, offset) << to_string(p.error.code);
}

}  // namespace

TEST(Malformed, TruncationAtEveryByteOffsetOfEveryOpcode) {
  for (std::uint8_t opcode : known_opcodes()) {
    for (unsigned ipv : {4u, 6u}) {
      for (bool vlan : {false, true}) {
        const Bytes full = encode(sample_frame(opcode, {ipv, vlan, 9, 3}));
        const std::size_t ip = kEthLen + (vlan ? kVlanTagLen : 0);
        const std::size_t iphdr = ipv == 4 ? 20 : 40;
        for (std::size_t k = 0; k < full.size(); ++k) {
          const Bytes cut(full.begin(), full.begin() + static_cast<long>(k));
          const ParsedFrame p = decode(cut);
          ASSERT_TRUE(p.has_error) << opcode_info(opcode).name << " cut at " << k;
          EXPECT_LE(p.error.offset, k) << opcode_info(opcode).name << " cut at " << k;
          DecodeErrc expected;
          if (k < kEthLen)
            expected = DecodeErrc::truncated_link;
          else if (k < ip)
            expected = DecodeErrc::truncated_vlan;
          else if (k < ip + iphdr)
            expected = ipv == 4 ? DecodeErrc::truncated_ipv4 : DecodeErrc::truncated_ipv6;
          else
            expected =
                ipv == 4 ? DecodeErrc::bad_ipv4_total_length : DecodeErrc::bad_ipv6_payload_length;
          EXPECT_EQ(p.error.code, expected)
              << opcode_info(opcode).name << " cut at " << k << ": " << to_string(p.error.code);
        }
      }
    }
  }
}

TEST(Malformed, UdpLengthCuttingIntoEveryHeader) {
  // A consistent IP packet whose UDP length stops early: the error names the header cut short.
  for (std::uint8_t opcode : known_opcodes()) {
    const FrameSpec spec = sample_frame(opcode, {4, false, 0, 4});
    const OpcodeInfo& op = opcode_info(opcode);
    for (std::size_t n = 0; n < op.header_len + kIcrcLen; ++n) {
      Bytes f = encode(spec);
      store_be16(f, kUdp + 4, static_cast<std::uint32_t>(kUdpLen + n));
      const ParsedFrame p = decode(f);
      ASSERT_TRUE(p.has_error);
      if (n < kBthLen) {
        EXPECT_EQ(p.error.code, DecodeErrc::truncated_bth);
        EXPECT_EQ(p.error.offset, kBth);
        continue;
      }
      EXPECT_EQ(p.error.code, DecodeErrc::truncated_headers) << op.name << " n=" << n;
      std::size_t expected = kBth + op.header_len;  // the ICRC is what is missing
      for (std::size_t h = 0; h < kHeaderCount; ++h) {
        if (op.offset[h] && op.offset[h] + kHeaderSize[h] > n) {
          expected = kBth + op.offset[h];
          break;
        }
      }
      EXPECT_EQ(p.error.offset, expected) << op.name << " n=" << n;
    }
  }
}

TEST(Malformed, Ipv4HeaderLies) {
  Bytes f = frame_of(Opcode::RC_SEND_ONLY);
  Bytes bad = f;
  bad[kIp] = 0x44;  // IHL 4
  expect_error(bad, DecodeErrc::bad_ipv4_ihl, kIp);
  bad = f;
  bad[kIp] = 0x40;  // IHL 0
  expect_error(bad, DecodeErrc::bad_ipv4_ihl, kIp);
  bad = Bytes(f.begin(), f.begin() + kIp + 30);
  bad[kIp] = 0x4F;  // IHL 15 = 60 bytes, beyond the frame
  expect_error(bad, DecodeErrc::truncated_ipv4, kIp);
  bad = f;
  bad[kIp] = 0x65;  // version 6 behind EtherType 0x0800
  expect_error(bad, DecodeErrc::bad_ip_version, kIp);
  bad = f;
  store_be16(bad, kIp + 2, 19);  // total length below the header
  expect_error(bad, DecodeErrc::bad_ipv4_total_length, kIp + 2);
  bad = f;
  store_be16(bad, kIp + 2, static_cast<std::uint32_t>(f.size() - kIp + 1));  // one byte too many
  expect_error(bad, DecodeErrc::bad_ipv4_total_length, kIp + 2);
  bad = f;
  store_be16(bad, kIp + 2, 20 + 30);  // shorter than UDP claims
  expect_error(bad, DecodeErrc::bad_udp_length, kUdp + 4);
  bad = f;
  store_be16(bad, kIp + 6, 0x2000);  // More Fragments: RoCEv2 is never fragmented
  expect_error(bad, DecodeErrc::ipv4_fragment, kIp + 6);
}

TEST(Malformed, Ipv6PayloadLengthLies) {
  Bytes f = frame_of(Opcode::RC_SEND_ONLY, 16, 6);
  store_be16(f, kIp + 4, static_cast<std::uint32_t>(f.size() - kIp - 40 + 1));
  expect_error(f, DecodeErrc::bad_ipv6_payload_length, kIp + 4);
  f = frame_of(Opcode::RC_SEND_ONLY, 16, 6);
  f[kIp] = 0x45;
  expect_error(f, DecodeErrc::bad_ip_version, kIp);
}

TEST(Malformed, UdpLengthLies) {
  Bytes f = frame_of(Opcode::RC_SEND_ONLY);
  store_be16(f, kUdp + 4, 7);
  expect_error(f, DecodeErrc::bad_udp_length, kUdp + 4);
  f = frame_of(Opcode::RC_SEND_ONLY);
  store_be16(f, kUdp + 4, static_cast<std::uint32_t>(f.size() - kUdp + 1));
  expect_error(f, DecodeErrc::bad_udp_length, kUdp + 4);
  f = Bytes(f.begin(), f.begin() + kUdp + 4);  // IP says 4 bytes of payload
  store_be16(f, kIp + 2, 24);
  expect_error(f, DecodeErrc::truncated_udp, kUdp);
}

TEST(Malformed, PadCountLargerThanPayload) {
  Bytes f = frame_of(Opcode::RC_SEND_ONLY, 0);
  f[kBth + 1] |= 0x20;  // PadCnt 2 with nothing before the ICRC
  expect_error(f, DecodeErrc::pad_exceeds_payload, kBth + 1);
  f = frame_of(Opcode::RC_ACKNOWLEDGE, 0);
  f[kBth + 1] |= 0x30;
  expect_error(f, DecodeErrc::pad_exceeds_payload, kBth + 1);
}

TEST(Malformed, PayloadWhereTheOpcodeHasNone) {
  FrameSpec s = sample_frame(to_u8(Opcode::RC_ACKNOWLEDGE), {4, false, 0, 5});
  s.payload = {1, 2, 3, 4};
  finalize(s);
  expect_error(encode(s), DecodeErrc::unexpected_payload, kBth + 16);
  s = sample_frame(to_u8(Opcode::RC_ATOMIC_WRITE), {4, false, 0, 5});
  s.payload.resize(12);
  finalize(s);
  expect_error(encode(s), DecodeErrc::bad_atomic_write_length, kBth + 28);
}

TEST(Malformed, UnknownOpcodes) {
  for (unsigned op : {0x15u, 0x18u, 0x1Eu, 0x2Cu, 0x56u, 0x63u, 0x66u, 0x80u, 0x82u, 0xB5u, 0xC0u,
                      0xE0u, 0xFFu}) {
    Bytes f = frame_of(Opcode::RC_SEND_ONLY);
    f[kBth] = static_cast<std::uint8_t>(op);
    const ParsedFrame p = decode(f);
    ASSERT_TRUE(p.has_error) << op;
    EXPECT_EQ(p.error.code, DecodeErrc::unknown_opcode);
    EXPECT_EQ(p.error.offset, kBth);
    EXPECT_TRUE(p.roce);
    EXPECT_TRUE(p.has_bth);  // the BTH itself is still reported
    EXPECT_EQ(p.bth.opcode, op);
  }
}

TEST(Malformed, ForeignFramesAreNotErrors) {
  Bytes f = frame_of(Opcode::RC_SEND_ONLY);
  Bytes arp = f;
  store_be16(arp, 12, 0x0806);
  ParsedFrame p = decode(arp);
  EXPECT_FALSE(p.has_error);
  EXPECT_FALSE(p.roce);
  EXPECT_FALSE(p.has_ip);

  Bytes tcp = f;
  tcp[kIp + 9] = 6;
  p = decode(tcp);
  EXPECT_FALSE(p.has_error);
  EXPECT_FALSE(p.roce);
  EXPECT_TRUE(p.has_ip);

  Bytes dns = f;
  store_be16(dns, kUdp + 2, 53);
  p = decode(dns);
  EXPECT_FALSE(p.has_error);
  EXPECT_FALSE(p.roce);
  EXPECT_TRUE(p.has_udp);

  Bytes v6 = frame_of(Opcode::RC_SEND_ONLY, 16, 6);
  v6[kIp + 6] = 58;  // ICMPv6
  p = decode(v6);
  EXPECT_FALSE(p.has_error);
  EXPECT_FALSE(p.roce);

  Bytes later_fragment = f;
  store_be16(later_fragment, kIp + 6, 0x0010);
  p = decode(later_fragment);
  EXPECT_FALSE(p.has_error);
  EXPECT_FALSE(p.roce);
}

TEST(Malformed, AnyUdpSourcePortIsRoce) {
  Bytes f = frame_of(Opcode::RC_SEND_ONLY);
  const std::uint32_t original = load_be16(f, kUdp);
  for (std::uint32_t port : {0u, 1u, 4791u, 0xC000u, 0xFFFFu, original}) {
    store_be16(f, kUdp, port);
    const ParsedFrame p = decode(f);
    EXPECT_TRUE(p.roce);
    EXPECT_FALSE(p.has_error);
    EXPECT_EQ(p.icrc_ok, port == original) << port;  // the source port is covered by the ICRC
  }
}

TEST(Malformed, CookedAndRawLinkTypes) {
  const Bytes eth = frame_of(Opcode::RC_RDMA_WRITE_FIRST, 256);
  const Bytes ip(eth.begin() + kEthLen, eth.end());
  // Linux cooked v1: pkttype, hatype, halen=6, address (8), protocol
  Bytes sll = {0, 4, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x08, 0x00};
  sll.insert(sll.end(), ip.begin(), ip.end());
  ParsedFrame p = decode(sll, {LinkType::LinuxSll, true});
  ASSERT_FALSE(p.has_error);
  EXPECT_TRUE(p.icrc_ok);
  EXPECT_EQ(p.eth.src, (MacAddr{1, 2, 3, 4, 5, 6}));
  // Linux cooked v2: protocol, reserved, ifindex, hatype, pkttype, halen, address (8)
  Bytes sll2 = {0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 4, 6, 1, 2, 3, 4, 5, 6, 0, 0};
  sll2.insert(sll2.end(), ip.begin(), ip.end());
  p = decode(sll2, {LinkType::LinuxSll2, true});
  ASSERT_FALSE(p.has_error);
  EXPECT_TRUE(p.icrc_ok);
  p = decode(ip, {LinkType::RawIp, true});
  ASSERT_FALSE(p.has_error);
  EXPECT_TRUE(p.icrc_ok);
  for (LinkType lt : {LinkType::LinuxSll, LinkType::LinuxSll2, LinkType::RawIp}) {
    p = decode(ByteSpan(), {lt, true});
    EXPECT_TRUE(p.has_error);
    EXPECT_EQ(p.error.code, DecodeErrc::truncated_link);
  }
}

TEST(Malformed, EthernetTrailerAfterThePacketIsIgnored) {
  Bytes f = frame_of(Opcode::RC_ACKNOWLEDGE, 0);
  f.insert(f.end(), {0xAA, 0xBB, 0xCC, 0xDD});  // e.g. an FCS kept by the capture
  const ParsedFrame p = decode(f);
  EXPECT_FALSE(p.has_error);
  EXPECT_TRUE(p.icrc_ok);
}

TEST(Malformed, AllByteValuesInTheBthNeverCrash) {
  // Exhaustive over opcode × flags byte; the fuzz target covers the rest.
  const Bytes base = frame_of(Opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 40);
  for (unsigned op = 0; op < 256; ++op) {
    for (unsigned flags = 0; flags < 256; ++flags) {
      Bytes f = base;
      f[kBth] = static_cast<std::uint8_t>(op);
      f[kBth + 1] = static_cast<std::uint8_t>(flags);
      const ParsedFrame p = decode(f);
      if (!p.has_error) {
        EXPECT_LE(p.payload_off + p.payload_len, f.size());
        EXPECT_LE(p.icrc_off + 4, f.size());
      }
    }
  }
}

TEST(Malformed, HasReportsOnlyHeadersWhoseBytesArePresent) {
  // A UDP length that stops at every byte of the transport: an extended header counts as
  // present only when all of its bytes are inside the UDP payload (IBA Vol. 1 §9.3 sizes), and
  // a present header carries the same value as in the whole frame. Covers RETH, AETH,
  // AtomicETH, AtomicAckETH, DETH, ImmDt, IETH (and every other header the table knows).
  for (std::uint8_t opcode : known_opcodes()) {
    const OpcodeInfo& op = opcode_info(opcode);
    const Bytes whole = encode(sample_frame(opcode, {4, false, 8, 6}));
    const ParsedFrame full = decode(whole);
    ASSERT_FALSE(full.has_error) << op.name;
    const std::size_t udp_payload = whole.size() - kBth;
    for (std::size_t n = 0; n <= udp_payload; ++n) {
      Bytes f = whole;
      store_be16(f, kUdp + 4, static_cast<std::uint32_t>(kUdpLen + n));
      const ParsedFrame p = decode(f);
      for (std::size_t h = 0; h < kHeaderCount; ++h) {
        const auto header = static_cast<Header>(h);
        const bool present = n >= kBthLen && op.has(header) && op.offset[h] + kHeaderSize[h] <= n;
        EXPECT_EQ(p.has(header), present)
            << op.name << " " << header_name(header) << " with " << n << " transport bytes";
      }
      const auto same = [&](Header h, const auto& got, const auto& want) {
        if (p.has(h)) {
          EXPECT_TRUE(got == want) << op.name << " " << header_name(h) << " n=" << n;
        }
      };
      same(Header::Reth, p.reth, full.reth);
      same(Header::Aeth, p.aeth, full.aeth);
      same(Header::AtomicEth, p.atomiceth, full.atomiceth);
      same(Header::AtomicAckEth, p.atomicacketh, full.atomicacketh);
      same(Header::Deth, p.deth, full.deth);
      same(Header::ImmDt, p.immdt, full.immdt);
      same(Header::Ieth, p.ieth, full.ieth);
    }
  }
}
