// ICRC known answers. The ConnectX-4 Lx CNP and the UC SEND_ONLY frame come from scapy's
// test/contrib/roce.uts (a frame captured from real NIC hardware, and one with scapy's ICRC and
// checksums written out). V1 is the Mellanox "RoCEv2 CNP Packet Format Example" (reproduced in the
// acsl-technion/libconntrack-cm tests); V2 and V3 were produced with scapy's contrib/roce.py and
// confirmed by an independent implementation (IBTA Vol. 1 §7.8, Annex A17.4; docs/spec-notes.md
// §1.8). Frames captured from Linux Soft-RoCE are checked in tests/real_captures_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/icrc.h"

using namespace rocecert::wire;

namespace {
std::vector<std::uint8_t> hex(const std::string& text) {
  std::vector<std::uint8_t> out;
  std::string digits;
  for (char c : text)
    if (c != ' ') digits.push_back(c);
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoul(digits.substr(i, 2), nullptr, 16)));
  return out;
}

ParsedFrame decode_ip(const std::vector<std::uint8_t>& packet) {
  return decode(packet, DecodeOptions{LinkType::RawIp, true});
}
}  // namespace

TEST(Icrc, Crc32IsTheIeeeCrc) {
  const std::string check = "123456789";
  const auto* p = reinterpret_cast<const std::uint8_t*>(check.data());
  EXPECT_EQ(crc32(0, ByteSpan(p, check.size())), 0xCBF43926u);  // the CRC-32 check value
}

TEST(Icrc, MellanoxCnpExample) {
  const auto v1 =
      hex("4589003C98C640002011692716161608 16161607 DBAE12B7 00280000 8100FFFF 400000D2 00000000 "
          "00000000000000000000000000000000 DAFC1BEF");
  const ParsedFrame p = decode_ip(v1);
  ASSERT_FALSE(p.has_error) << to_string(p.error.code);
  ASSERT_TRUE(p.roce);
  EXPECT_EQ(p.op->operation, Operation::CNP);
  EXPECT_TRUE(p.bth.becn);
  EXPECT_EQ(p.bth.dqpn, 0xD2u);
  EXPECT_EQ(p.payload_len, 0u);
  EXPECT_EQ(p.icrc, 0xEF1BFCDAu);  // carried least-significant byte first
  EXPECT_TRUE(p.icrc_ok);
}

TEST(Icrc, SendOnlyIpv4) {
  const auto v2 =
      hex("4502003412344000401114810A0000010A000002 C00012B700200000 0430FFFF0000001180000100 "
          "68656C6C6F000000 A987F0E0");
  const ParsedFrame p = decode_ip(v2);
  ASSERT_FALSE(p.has_error);
  EXPECT_EQ(p.bth.padcnt, 3);
  EXPECT_EQ(p.payload_len, 5u);
  EXPECT_TRUE(p.icrc_ok);
  EXPECT_EQ(p.icrc_computed, 0xE0F087A9u);
}

TEST(Icrc, SendOnlyIpv6) {
  const auto v3 =
      hex("6021234500201140 FE800000000000000000000000000001 FE800000000000000000000000000002 "
          "C00012B700200000 0430FFFF0000001180000100 68656C6C6F000000 ACBD1040");
  const ParsedFrame p = decode_ip(v3);
  ASSERT_FALSE(p.has_error);
  EXPECT_EQ(p.ip.version, 6);
  EXPECT_EQ(p.ip.flow_label, 0x12345u);
  EXPECT_TRUE(p.icrc_ok);
}

TEST(Icrc, VariantFieldsAreMaskedInvariantOnesAreNot) {
  auto v2 =
      hex("4502003412344000401114810A0000010A000002 C00012B700200000 0430FFFF0000001180000100 "
          "68656C6C6F000000 A987F0E0");
  // Variant: TOS (ECN set to CE by a switch), TTL, IP checksum, UDP checksum, FECN/BECN.
  for (std::size_t off : {1u, 8u, 10u, 11u, 26u, 27u, 32u}) {
    auto copy = v2;
    copy[off] ^= 0xC0;
    EXPECT_TRUE(decode_ip(copy).icrc_ok) << "offset " << off;
  }
  // Invariant: IP id, addresses, UDP ports, P_Key, DestQP, AckReq, PSN, payload, pad.
  for (std::size_t off : {4u, 12u, 19u, 20u, 21u, 30u, 33u, 36u, 38u, 40u, 45u, 47u}) {
    auto copy = v2;
    copy[off] ^= 0x01;
    EXPECT_FALSE(decode_ip(copy).icrc_ok) << "offset " << off;
  }
}

TEST(Icrc, EncoderProducesTheKnownAnswer) {
  FrameSpec s;
  s.ip.version = 4;
  s.ip.dscp = 0;
  s.ip.ecn = 2;
  s.ip.id = 0x1234;
  s.ip.ttl = 64;
  s.ip.src = {10, 0, 0, 1};
  s.ip.dst = {10, 0, 0, 2};
  s.udp.sport = 0xC000;
  s.bth.opcode = 0x04;
  s.bth.dqpn = 0x11;
  s.bth.ackreq = true;
  s.bth.psn = 0x100;
  s.payload = {'h', 'e', 'l', 'l', 'o'};
  finalize(s);
  const auto frame = encode(s);
  const auto v2 =
      hex("4502003412344000401114810A0000010A000002 C00012B700200000 0430FFFF0000001180000100 "
          "68656C6C6F000000 A987F0E0");
  ASSERT_EQ(frame.size(), kEthLen + v2.size());
  EXPECT_EQ(std::vector<std::uint8_t>(frame.begin() + kEthLen, frame.end()), v2);
}

TEST(Icrc, CnpCapturedFromConnectX4Lx) {
  // scapy test/contrib/roce.uts, "RoCE CNP captured on ConnectX-4 Lx": a whole Ethernet frame.
  const auto frame = hex(
      "e41d2dab2bc27cfe90643b32080045c2003c718c400040119161 0a001101 0a001201 000012b7 00280000 "
      "8100ffff 40000118 00000000 00000000000000000000000000000000 82fd002a");
  const ParsedFrame p = decode(frame);
  ASSERT_FALSE(p.has_error) << to_string(p.error.code);
  EXPECT_EQ(p.op->operation, Operation::CNP);
  EXPECT_EQ(p.bth.dqpn, 0x118u);
  EXPECT_TRUE(p.bth.becn);
  EXPECT_EQ(p.ip.dscp, 0x30);  // TOS 0xC2: DSCP 48, ECT(0)
  EXPECT_EQ(p.udp.sport, 0);
  EXPECT_TRUE(p.icrc_ok);
  EXPECT_EQ(p.icrc, 0x2A00FD82u);  // scapy shows the wire bytes big-endian: 0x82fd002a
}

TEST(Icrc, ScapyUcSendOnly) {
  // scapy test/contrib/roce.uts, "RoCE layer": UC SEND_ONLY, MigReq, PadCnt 2, 20 bytes after
  // the BTH of which the last two are pad; scapy gives IP checksum 0xb4d5, ICRC 0x78f353f3.
  FrameSpec s;
  s.eth.dst = s.eth.src = {0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22};
  s.ip.dscp = 0;
  s.ip.ecn = 1;  // TOS 0x01
  s.ip.id = 1144;
  s.ip.ttl = 64;
  s.ip.src = {192, 168, 0, 7};
  s.ip.dst = {192, 168, 0, 7};
  s.udp.sport = 49152;
  s.bth.opcode = to_u8(Opcode::UC_SEND_ONLY);
  s.bth.m = true;
  s.bth.dqpn = 211;
  s.bth.psn = 13571856;
  s.payload = hex("4630818be28935d90e9a955054 01be885e50");
  finalize(s);
  EXPECT_EQ(s.bth.padcnt, 2);
  EXPECT_EQ(s.ip.total_length, 64);
  EXPECT_EQ(s.udp.length, 44);
  EXPECT_EQ(s.ip.checksum, 0xB4D5);
  const ParsedFrame p = decode(encode(s));
  ASSERT_FALSE(p.has_error);
  EXPECT_EQ(__builtin_bswap32(p.icrc), 0x78F353F3u);
}
