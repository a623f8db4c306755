// The decode output: every string value of the JSON form is escaped (RFC 8259 §7), whatever
// the tables behind it hold, and ordinary frames keep their exact bytes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "frame_format.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert;
using nlohmann::json;

namespace {

std::string json_of(const wire::ParsedFrame& p) {
  fmt::memory_buffer out;
  cli::FrameContext c;
  c.frame = 1;
  c.len = c.caplen = static_cast<std::uint32_t>(p.bytes.size());
  cli::append_json(out, p, c);
  return fmt::to_string(out);
}

}  // namespace

TEST(FrameFormat, JsonStringsAreEscaped) {
  const auto frame =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_SEND_ONLY), {4, false, 8, 2}));
  wire::ParsedFrame p = wire::decode(frame);
  ASSERT_TRUE(p.has_bth);
  wire::OpcodeInfo odd = *p.op;
  odd.name = "SEND\"ONLY\\\n";
  p.op = &odd;
  std::string line = json_of(p);
  ASSERT_EQ(line.back(), '\n');
  line.pop_back();
  ASSERT_TRUE(json::accept(line)) << line;
  EXPECT_EQ(json::parse(line)["bth"]["opcode_name"], "SEND\"ONLY\\\n");
}

TEST(FrameFormat, OrdinaryJsonIsUnchanged) {
  const auto frame =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_SEND_ONLY), {4, false, 8, 2}));
  const std::string line = json_of(wire::decode(frame));
  EXPECT_NE(line.find(R"("opcode_name":"RC_SEND_ONLY")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("roce":true,"eth":{"src":")"), std::string::npos) << line;
  wire::ParsedFrame cut = wire::decode(wire::ByteSpan(frame).first(20));
  const std::string bad = json_of(cut);
  EXPECT_NE(
      bad.find(
          R"("error":{"code":"truncated_ipv4","offset":14,"message":"frame ends inside the IPv4 header"}})"),
      std::string::npos)
      << bad;
}
