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

// The tap point: before the link's faults (EGRESS), after them (INGRESS), or one host's view
// (HOST: what it transmits and what it receives). A frame A sent that the link dropped is seen
// only at EGRESS; a duplicate only arrives twice.
TEST(PcapSink, TapPointChoosesWhichFramesAreRecorded) {
  const auto req =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_SEND_ONLY), {4, false, 10, 3}));
  const auto lost =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_SEND_ONLY), {4, false, 11, 3}));
  const auto ack =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE), {4, false, 0, 0}));
  // A (0) sends req and lost; the link drops lost and duplicates req; B (1) answers with ack.
  const std::vector<trace::FrameEvent> events = {
      {0, 0, trace::Direction::TX, req},    {5, 0, trace::Direction::TX, lost},
      {1000, 1, trace::Direction::RX, req}, {1000, 1, trace::Direction::RX, req},
      {1001, 1, trace::Direction::TX, ack}, {2001, 0, trace::Direction::RX, ack},
  };
  using P = conformance::Tap::Point;
  struct Case {
    conformance::Tap tap;
    std::vector<std::int64_t> ts;
  };
  const Case cases[] = {
      {{P::EGRESS, 0}, {0, 5, 1001}},
      {{P::INGRESS, 0}, {1000, 1000, 2001}},
      {{P::HOST, 0}, {0, 5, 2001}},
      {{P::HOST, 1}, {1000, 1000, 1001}},
  };
  for (const Case& c : cases) {
    const std::string path = temp_path("tap.pcap");
    {
      conformance::PcapSink sink(path, c.tap);
      for (const trace::FrameEvent& e : events) sink.on_frame(e);
      EXPECT_EQ(sink.frames(), c.ts.size());
      sink.close();
    }
    pcap::Reader reader(path);
    pcap::Record rec;
    std::vector<std::int64_t> ts;
    while (reader.next(rec)) ts.push_back(rec.ts_ns);
    EXPECT_EQ(ts, c.ts) << "tap point " << static_cast<int>(c.tap.point) << " adapter "
                        << c.tap.adapter;
    std::filesystem::remove(path);
  }
}
