// Inputs found by the fuzz targets (fuzz/), kept as unit tests so that they run in every build.
// Each one replays the property the target checks; the same bytes are also a seed of the fuzz
// corpus (fuzz/make_seeds.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert::wire;
using Bytes = std::vector<std::uint8_t>;

namespace {

// fuzz_decode: a raw-IP IPv6 frame carrying RC_SEND_MIDDLE with PadCnt 3 and a 13-byte payload.
// It decodes cleanly with a valid ICRC; encoding its own spec gave an Ethernet frame whose
// EtherType said IPv4 (the raw-IP link left the EtherType at its default), which no longer
// decoded (bad_ip_version).
const Bytes kRawIpv6SendMiddlePad3 = {
    0x6b, 0xf2, 0x04, 0x07, 0x00, 0x28, 0x11, 0xb5, 0xfd, 0x00, 0x4b, 0x81, 0xab, 0xff,
    0x82, 0x54, 0xfe, 0xb0, 0xc7, 0xab, 0xc0, 0x8d, 0x8f, 0xac, 0xfd, 0x00, 0xef, 0x81,
    0x53, 0x09, 0xae, 0xc2, 0x68, 0xda, 0xcb, 0x9f, 0x2f, 0xac, 0x22, 0x4a, 0xc5, 0xae,
    0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x01, 0x30, 0xb5, 0xbf, 0x00, 0x5e, 0x6a, 0x3c,
    0x00, 0x74, 0x93, 0xdf, 0x1d, 0xc1, 0x18, 0x56, 0xbd, 0xd1, 0x64, 0x8f, 0x3e, 0xda,
    0x25, 0x98, 0xd0, 0x00, 0x00, 0x00, 0x91, 0x67, 0x49, 0x52, 0x3a};

// The round-trip property of fuzz/fuzz_decode.cpp: spec → bytes → spec is stable.
void expect_stable(const Bytes& frame, LinkType link) {
  const ParsedFrame p = decode(frame, {link, true});
  ASSERT_FALSE(p.has_error) << to_string(p.error.code) << " at " << p.error.offset;
  ASSERT_TRUE(p.roce);
  const FrameSpec spec = to_spec(p);
  const Bytes bytes = encode(spec);
  const ParsedFrame again = decode(bytes);
  ASSERT_FALSE(again.has_error) << to_string(again.error.code) << " at " << again.error.offset;
  ASSERT_TRUE(again.roce);
  EXPECT_EQ(to_spec(again), spec);
  FrameSpec fresh = spec;
  fresh.icrc.reset();
  EXPECT_TRUE(decode(encode(fresh)).icrc_ok);
}

}  // namespace

TEST(FuzzRegression, RawIpv6SendMiddleWithPadCount3) {
  const ParsedFrame p = decode(kRawIpv6SendMiddlePad3, {LinkType::RawIp, true});
  ASSERT_FALSE(p.has_error);
  EXPECT_EQ(p.bth.opcode, to_u8(Opcode::RC_SEND_MIDDLE));
  EXPECT_EQ(p.bth.padcnt, 3);
  EXPECT_EQ(p.payload_len, 13u);
  EXPECT_TRUE(p.icrc_ok);
  EXPECT_EQ(p.eth.ethertype, kEtherTypeIpv6);
  expect_stable(kRawIpv6SendMiddlePad3, LinkType::RawIp);
}

TEST(FuzzRegression, RawIpFramesOfBothVersionsReEncode) {
  // The same frames as Ethernet and as raw IP (the Ethernet header cut off) give one spec.
  for (unsigned ipv : {4u, 6u}) {
    const Bytes eth = encode(sample_frame(to_u8(Opcode::RC_SEND_ONLY), {ipv, false, 21, 4}));
    const Bytes raw(eth.begin() + static_cast<long>(kEthLen), eth.end());
    const ParsedFrame p = decode(raw, {LinkType::RawIp, true});
    ASSERT_FALSE(p.has_error) << "ipv" << ipv;
    EXPECT_FALSE(p.has_eth) << "ipv" << ipv;
    EXPECT_EQ(p.eth.ethertype, ipv == 6 ? kEtherTypeIpv6 : kEtherTypeIpv4) << "ipv" << ipv;
    expect_stable(raw, LinkType::RawIp);
  }
}

TEST(FuzzRegression, PadCountIsCarriedAsIsOnEveryOpcodeThatHasAPayload) {
  // The codec is faithful: a PadCnt the opcode should not use (non-zero on a FIRST or MIDDLE
  // packet, see the comment on transport_len in refmodel/wire/encode.cpp) survives the trip, and
  // so does the payload length it implies.
  for (std::uint8_t opcode : known_opcodes()) {
    if (opcode_info(opcode).payload == Payload::NONE) continue;
    for (unsigned pad = 0; pad < 4; ++pad) {
      FrameSpec f = sample_frame(opcode, {6, false, 13, 8});
      if (opcode_info(opcode).payload == Payload::ATOMIC8) f.payload.resize(8);
      finalize(f);
      // finalize() computed the PadCnt the payload needs; ask for another one and move the
      // lengths by the difference.
      const int delta = static_cast<int>(pad) - int{f.bth.padcnt};
      f.bth.padcnt = static_cast<std::uint8_t>(pad);
      f.udp.length = static_cast<std::uint16_t>(f.udp.length + delta);
      f.ip.total_length = static_cast<std::uint16_t>(f.ip.total_length + delta);
      f.icrc.reset();
      const std::size_t payload = f.payload.size();
      const Bytes bytes = encode(f);
      const ParsedFrame p = decode(bytes);
      ASSERT_FALSE(p.has_error) << opcode_info(opcode).name << " pad " << pad << ": "
                                << to_string(p.error.code);
      EXPECT_EQ(p.bth.padcnt, pad) << opcode_info(opcode).name;
      EXPECT_EQ(p.payload_len, payload) << opcode_info(opcode).name;
      EXPECT_TRUE(p.icrc_ok) << opcode_info(opcode).name;
      expect_stable(bytes, LinkType::Ethernet);
    }
  }
}
