// The pcap sink writes each transmitted frame once, with the simulated time as its timestamp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "rocecert/conformance/pcap_sink.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert;

namespace {
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("rocecert-sink-" + std::to_string(getpid()) + "-" + name))
      .string();
}
}  // namespace

TEST(PcapSink, RecordsTransmittedFramesWithSimulatedTime) {
  const std::string path = temp_path("a.pcap");
  const auto send =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_SEND_ONLY), {4, false, 10, 3}));
  const auto ack =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE), {4, false, 0, 0}));
  {
    conformance::PcapSink sink(path);
    sink.on_frame({0, 0, trace::Direction::TX, send});
    sink.on_frame({1051, 1, trace::Direction::RX, send});  // the same frame arriving: not again
    sink.on_frame({1051, 1, trace::Direction::TX, ack});
    sink.on_frame({3'000'000'123, 0, trace::Direction::TX, send});
    EXPECT_EQ(sink.frames(), 3u);
    sink.close();
  }
  pcap::Reader reader(path);
  pcap::Record rec;
  std::vector<std::int64_t> ts;
  std::vector<std::vector<std::uint8_t>> frames;
  while (reader.next(rec)) {
    ts.push_back(rec.ts_ns);
    frames.emplace_back(rec.data.begin(), rec.data.end());
    const wire::ParsedFrame p = wire::decode(rec.data, {reader.link(), true});
    EXPECT_FALSE(p.has_error);
    EXPECT_TRUE(p.icrc_ok);
  }
  EXPECT_EQ(ts, (std::vector<std::int64_t>{0, 1051, 3'000'000'123}));
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0], send);
  EXPECT_EQ(frames[1], ack);
  std::filesystem::remove(path);
}

TEST(PcapSink, UnwritablePathThrowsNamingIt) {
  try {
    conformance::PcapSink sink("/nonexistent-dir/x.pcap");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.pcap"), std::string::npos) << e.what();
  }
}
