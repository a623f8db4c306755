// ICRC known answers. V1 is the Mellanox "RoCEv2 CNP Packet Format Example" (reproduced in the
// acsl-technion/libconntrack-cm tests); V2 and V3 were produced with scapy's contrib/roce.py and
// confirmed by an independent implementation (shared/spec/roce-digest.md §1.8). Frames captured
// from Linux Soft-RoCE are checked in tests/real_captures_test.cpp.
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
  const auto v1 = hex(
      "4589003C98C640002011692716161608 16161607 DBAE12B7 00280000 8100FFFF 400000D2 00000000 "
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
  const auto v2 = hex(
      "4502003412344000401114810A0000010A000002 C00012B700200000 0430FFFF0000001180000100 "
      "68656C6C6F000000 A987F0E0");
  const ParsedFrame p = decode_ip(v2);
  ASSERT_FALSE(p.has_error);
  EXPECT_EQ(p.bth.padcnt, 3);
  EXPECT_EQ(p.payload_len, 5u);
  EXPECT_TRUE(p.icrc_ok);
  EXPECT_EQ(p.icrc_computed, 0xE0F087A9u);
}

TEST(Icrc, SendOnlyIpv6) {
  const auto v3 = hex(
      "6021234500201140 FE800000000000000000000000000001 FE800000000000000000000000000002 "
      "C00012B700200000 0430FFFF0000001180000100 68656C6C6F000000 ACBD1040");
  const ParsedFrame p = decode_ip(v3);
  ASSERT_FALSE(p.has_error);
  EXPECT_EQ(p.ip.version, 6);
  EXPECT_EQ(p.ip.flow_label, 0x12345u);
  EXPECT_TRUE(p.icrc_ok);
}

TEST(Icrc, VariantFieldsAreMaskedInvariantOnesAreNot) {
  auto v2 = hex(
      "4502003412344000401114810A0000010A000002 C00012B700200000 0430FFFF0000001180000100 "
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
  const auto v2 = hex(
      "4502003412344000401114810A0000010A000002 C00012B700200000 0430FFFF0000001180000100 "
      "68656C6C6F000000 A987F0E0");
  ASSERT_EQ(frame.size(), kEthLen + v2.size());
  EXPECT_EQ(std::vector<std::uint8_t>(frame.begin() + kEthLen, frame.end()), v2);
}
