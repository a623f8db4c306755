// decode(encode(x)) == x for every opcode, both IP versions, with and without a VLAN tag,
// over payload sizes that hit every pad count, with every field drawn from a seed.
#include <gtest/gtest.h>

#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert::wire;

namespace {

void expect_roundtrip(const FrameSpec& spec, const std::string& what) {
  const auto bytes = encode(spec);
  const ParsedFrame p = decode(bytes);
  ASSERT_FALSE(p.has_error) << what << ": " << to_string(p.error.code) << " at " << p.error.offset;
  ASSERT_TRUE(p.roce) << what;
  EXPECT_TRUE(p.icrc_ok) << what;
  EXPECT_EQ(p.icrc, p.icrc_computed) << what;
  FrameSpec back = to_spec(p);
  back.icrc.reset();
  EXPECT_EQ(back, spec) << what;
  // Re-encoding the decoded spec gives the same bytes.
  EXPECT_EQ(encode(back), bytes) << what;
}

}  // namespace

TEST(RoundTrip, EveryOpcodeBothIpVersionsVlanAndPadCounts) {
  int frames = 0;
  for (std::uint8_t opcode : known_opcodes()) {
    for (unsigned ipv : {4u, 6u}) {
      for (bool vlan : {false, true}) {
        for (std::uint32_t len : {0u, 1u, 2u, 3u, 4u, 255u, 1024u, 4093u, 4096u}) {
          SampleOptions o{ipv, vlan, len, 7u + len};
          const FrameSpec spec = sample_frame(opcode, o);
          expect_roundtrip(spec, std::string(opcode_info(opcode).name) + " ipv" +
                                     std::to_string(ipv) + (vlan ? " vlan" : "") + " len " +
                                     std::to_string(len));
          ++frames;
        }
      }
    }
  }
  EXPECT_GT(frames, 87 * 2 * 2 * 9 - 1);
}

TEST(RoundTrip, ManySeeds) {
  // A property test over random seeds: fields anywhere in their ranges survive the trip.
  SplitMix64 rng(2026);
  const auto ops = known_opcodes();
  for (int i = 0; i < 3000; ++i) {
    const std::uint8_t opcode = ops[rng.below(static_cast<std::uint32_t>(ops.size()))];
    SampleOptions o{rng.below(2) ? 6u : 4u, rng.below(2) == 1, rng.below(4200), rng.next()};
    expect_roundtrip(sample_frame(opcode, o), "seed " + std::to_string(o.seed));
  }
}

TEST(RoundTrip, EncodedLengthIsTheLengthOfTheEncoding) {
  // encoded_length() stands in for the encoding where nothing reads the bytes (a model without
  // a link, Adapter::transmit): every opcode, both IP versions, VLAN, IPv4 options, every pad.
  int frames = 0;
  for (std::uint8_t opcode : known_opcodes()) {
    for (unsigned ipv : {4u, 6u}) {
      for (bool vlan : {false, true}) {
        for (std::uint32_t len : {0u, 1u, 2u, 3u, 4u, 1024u, 4093u}) {
          FrameSpec spec = sample_frame(opcode, {ipv, vlan, len, 11u + len});
          EXPECT_EQ(encoded_length(spec), encode(spec).size()) << opcode_info(opcode).name;
          if (ipv == 4) {
            spec.ipv4_options.assign(len % 9 * 4, 0x01);  // NOPs, up to 32 bytes
            finalize(spec);
            EXPECT_EQ(encoded_length(spec), encode(spec).size()) << opcode_info(opcode).name;
          }
          ++frames;
        }
      }
    }
  }
  EXPECT_GT(frames, 87 * 2 * 2 * 7 - 1);
}

TEST(RoundTrip, Ipv4OptionsAreCarriedAndCoveredByTheIcrc) {
  FrameSpec s = sample_frame(to_u8(Opcode::RC_SEND_ONLY), {4, false, 17, 3});
  s.ipv4_options = {0x94, 0x04, 0x00, 0x00};  // Router Alert
  finalize(s);
  EXPECT_EQ(s.ip.ihl, 6);
  expect_roundtrip(s, "options");
  auto bytes = encode(s);
  bytes[kEthLen + 22] ^= 1;  // an option byte: invariant
  EXPECT_FALSE(decode(bytes).icrc_ok);
}

TEST(RoundTrip, EncoderHonoursExplicitIcrc) {
  FrameSpec s = sample_frame(to_u8(Opcode::RC_ACKNOWLEDGE), {4, false, 0, 9});
  s.icrc = 0xDEADBEEF;
  const ParsedFrame p = decode(encode(s));
  ASSERT_FALSE(p.has_error);
  EXPECT_EQ(p.icrc, 0xDEADBEEFu);
  EXPECT_FALSE(p.icrc_ok);
}

TEST(RoundTrip, EncodeIntoAppends) {
  const FrameSpec a = sample_frame(to_u8(Opcode::RC_SEND_ONLY), {4, false, 10, 1});
  const FrameSpec b = sample_frame(to_u8(Opcode::RC_ACKNOWLEDGE), {6, true, 0, 2});
  std::vector<std::uint8_t> buf;
  const std::size_t na = encode_into(a, buf);
  const std::size_t nb = encode_into(b, buf);
  EXPECT_EQ(buf.size(), na + nb);
  EXPECT_EQ(std::vector<std::uint8_t>(buf.begin(), buf.begin() + static_cast<long>(na)), encode(a));
  EXPECT_EQ(std::vector<std::uint8_t>(buf.begin() + static_cast<long>(na), buf.end()), encode(b));
}
