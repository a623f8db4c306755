// Writer round trips through the reader, the exact bytes of the formats, and editcap as an
// independent reader/writer of pcapng.
#include "rocecert/pcap/writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../tests/support/require_tool.h"
#include "rocecert/pcap/reader.h"
#include "test_support.h"

namespace rocecert::pcap {
namespace {

using testing::Bytes;
using testing::ByteWriter;
using testing::concat;
using testing::OwnedRecord;
using testing::pattern;
using testing::PcapTest;
using testing::read_all;
using testing::read_file;

struct Frame {
  std::int64_t ts_ns;
  Bytes data;
  std::uint32_t orig_len;
};

// Sizes around every padding remainder, an empty frame, jumbo; timestamps with sub-µs digits.
std::vector<Frame> sample_frames() {
  std::vector<Frame> frames;
  const std::size_t sizes[] = {0, 1, 2, 3, 4, 5, 60, 62, 1500, 4154, 9014};
  std::int64_t ts = 1'795'942'709'719'926'123;
  std::uint8_t seed = 0;
  for (const std::size_t size : sizes) {
    frames.push_back({ts, pattern(size, seed++), 0});
    ts += 1'000'000'007;
  }
  frames.push_back({ts, pattern(100, seed), 1500});  // orig_len above what was captured
  frames.push_back({0, pattern(64, seed), 0});       // the epoch itself
  return frames;
}

void write_frames(Writer& writer, const std::vector<Frame>& frames) {
  for (const Frame& f : frames) writer.write(f.ts_ns, f.data, f.orig_len);
}

std::string describe(Format format, Precision precision) {
  return std::string(format == Format::Pcap ? "pcap" : "pcapng") +
         (precision == Precision::Nano ? "/ns" : "/us");
}

TEST_F(PcapTest, RoundTripEveryFormatAndPrecision) {
  const std::vector<Frame> frames = sample_frames();
  for (const Format format : {Format::Pcap, Format::Pcapng}) {
    for (const Precision precision : {Precision::Micro, Precision::Nano}) {
      SCOPED_TRACE(describe(format, precision));
      const std::string path = dir_.file("rt.cap");
      {
        Writer writer(path, 1, precision, format);
        write_frames(writer, frames);
        writer.close();
      }
      Reader reader(path);
      EXPECT_EQ(reader.linktype(), 1);
      const std::vector<OwnedRecord> records = read_all(reader);
      ASSERT_EQ(records.size(), frames.size());
      for (std::size_t i = 0; i < frames.size(); ++i) {
        const Frame& f = frames[i];
        // A microsecond file keeps whole microseconds: the sub-µs digits are cut, not rounded.
        const std::int64_t expected_ts =
            precision == Precision::Nano ? f.ts_ns : f.ts_ns - f.ts_ns % 1000;
        EXPECT_EQ(records[i].ts_ns, expected_ts) << i;
        EXPECT_EQ(records[i].frame, i + 1);
        EXPECT_EQ(records[i].caplen, f.data.size()) << i;
        EXPECT_EQ(records[i].len, f.orig_len != 0 ? f.orig_len : f.data.size()) << i;
        EXPECT_EQ(records[i].data, f.data) << i;
      }
      if (precision == Precision::Micro) {
        EXPECT_EQ(records[0].ts_ns, 1'795'942'709'719'926'000);  // "...926123" lost its 123
      }
    }
  }
}

TEST_F(PcapTest, SnaplenCutsTheCapture) {
  for (const Format format : {Format::Pcap, Format::Pcapng}) {
    const std::string path = dir_.file("snap.cap");
    {
      Writer writer(path, 1, Precision::Nano, format, 64);
      writer.write(5, pattern(100, 1));
      writer.write(6, pattern(64, 2), 70);
    }
    const auto records = read_all(path);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].caplen, 64u);
    EXPECT_EQ(records[0].len, 100u);
    const Bytes first = pattern(100, 1);
    EXPECT_EQ(records[0].data, Bytes(first.begin(), first.begin() + 64));
    EXPECT_EQ(records[1].caplen, 64u);
    EXPECT_EQ(records[1].len, 70u);
  }
}

TEST_F(PcapTest, LinkTypesRoundTrip) {
  struct Case {
    int linktype;
    wire::LinkType link;
  };
  const Case cases[] = {{1, wire::LinkType::Ethernet},    {113, wire::LinkType::LinuxSll},
                        {276, wire::LinkType::LinuxSll2}, {101, wire::LinkType::RawIp},
                        {228, wire::LinkType::RawIp},     {229, wire::LinkType::RawIp}};
  for (const Format format : {Format::Pcap, Format::Pcapng}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::to_string(c.linktype) + (format == Format::Pcap ? " pcap" : " pcapng"));
      const std::string path = dir_.file("lt.cap");
      {
        Writer writer(path, c.linktype, Precision::Nano, format);
        writer.write(1, pattern(40, 3));
      }
      // The value in the file is the LINKTYPE_ one (101 for raw IP, not DLT_RAW's 12).
      const Bytes bytes = read_file(path);
      if (format == Format::Pcap) {
        ASSERT_GE(bytes.size(), 24u);
        EXPECT_EQ(bytes[20] | (bytes[21] << 8), c.linktype);
      } else {
        ASSERT_GE(bytes.size(), 40u);
        EXPECT_EQ(bytes[36] | (bytes[37] << 8), c.linktype);
      }
      Reader reader(path);
      EXPECT_EQ(reader.linktype(), c.linktype);
      EXPECT_EQ(reader.link(), c.link);
      EXPECT_EQ(read_all(reader).size(), 1u);
    }
  }
}

// The pcap bytes, field by field (the host is little-endian, so is libpcap's output).
TEST_F(PcapTest, PcapBytes) {
  for (const Precision precision : {Precision::Micro, Precision::Nano}) {
    const std::string path = dir_.file("one.pcap");
    {
      Writer writer(path, 1, precision, Format::Pcap, 9216);
      writer.write(1'700'000'000'123'456'789, Bytes{0xAA, 0xBB, 0xCC}, 60);
    }
    const bool nano = precision == Precision::Nano;
    ByteWriter expected;
    expected.u32(nano ? testing::kMagicNano : testing::kMagicMicro)
        .u16(2)
        .u16(4)
        .u32(0)
        .u32(0)
        .u32(9216)
        .u32(1)
        .u32(1'700'000'000)
        .u32(nano ? 123'456'789 : 123'456)
        .u32(3)
        .u32(60)
        .u8(0xAA)
        .u8(0xBB)
        .u8(0xCC);
    EXPECT_EQ(read_file(path), expected.bytes()) << describe(Format::Pcap, precision);
  }
}

// The pcapng bytes, block by block, as the specification lays them out.
TEST_F(PcapTest, PcapngBytes) {
  for (const Precision precision : {Precision::Micro, Precision::Nano}) {
    const std::string path = dir_.file("one.pcapng");
    {
      Writer writer(path, 276, precision, Format::Pcapng, 9216);
      writer.write(0x0000'0001'2345'6789LL * 1000 + 999, Bytes{0xAA, 0xBB, 0xCC, 0xDD, 0xEE}, 60);
    }
    const bool nano = precision == Precision::Nano;
    const std::uint64_t units =
        nano ? 0x0000'0001'2345'6789ULL * 1000 + 999 : 0x0000'0001'2345'6789ULL;
    ByteWriter expected;
    // SHB: type, length 28, byte-order magic, version 1.0, section length -1, length.
    expected.u32(0x0A0D0D0A)
        .u32(28)
        .u32(0x1A2B3C4D)
        .u16(1)
        .u16(0)
        .u32(0xFFFFFFFF)
        .u32(0xFFFFFFFF)
        .u32(28);
    // IDB: type 1, length 32, link type, reserved, snaplen, if_tsresol, opt_endofopt, length.
    expected.u32(1)
        .u32(32)
        .u16(276)
        .u16(0)
        .u32(9216)
        .u16(9)
        .u16(1)
        .u8(nano ? 9 : 6)
        .u8(0)
        .u8(0)
        .u8(0)
        .u16(0)
        .u16(0)
        .u32(32);
    // EPB: type 6, length 32 + 8, interface 0, timestamp high then low, caplen, len, data and
    // three bytes of padding, length.
    expected.u32(6)
        .u32(40)
        .u32(0)
        .u32(static_cast<std::uint32_t>(units >> 32))
        .u32(static_cast<std::uint32_t>(units))
        .u32(5)
        .u32(60)
        .u8(0xAA)
        .u8(0xBB)
        .u8(0xCC)
        .u8(0xDD)
        .u8(0xEE)
        .u8(0)
        .u8(0)
        .u8(0)
        .u32(40);
    EXPECT_EQ(read_file(path), expected.bytes()) << describe(Format::Pcapng, precision);
  }
}

// --- editcap as an independent implementation -------------------------------------------------

bool have_editcap() {
  return rocecert::testing::tool_on_path("editcap");
}

void editcap(const std::string& format, const std::string& in, const std::string& out) {
  const std::string command = "editcap -F " + format + " '" + in + "' '" + out + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

// Our pcapng and editcap's conversion of our pcap (which libpcap wrote) read back the same;
// and editcap can read our pcapng (converting it back to pcap loses nothing).
TEST_F(PcapTest, PcapngAgreesWithEditcap) {
  ROCECERT_REQUIRE_TOOL(have_editcap(), "editcap (Debian package wireshark-common)");
  const std::vector<Frame> frames = sample_frames();
  for (const Precision precision : {Precision::Micro, Precision::Nano}) {
    SCOPED_TRACE(describe(Format::Pcapng, precision));
    const bool nano = precision == Precision::Nano;
    const std::string pcap = dir_.file("ours.pcap");
    const std::string ours = dir_.file("ours.pcapng");
    const std::string theirs = dir_.file("editcap.pcapng");
    const std::string back = dir_.file("back.pcap");
    {
      Writer a(pcap, 1, precision, Format::Pcap);
      Writer b(ours, 1, precision, Format::Pcapng);
      write_frames(a, frames);
      write_frames(b, frames);
    }
    editcap("pcapng", pcap, theirs);
    editcap(nano ? "nsecpcap" : "pcap", ours, back);

    auto strip_offsets = [](std::vector<OwnedRecord> records) {
      for (OwnedRecord& r : records) r.file_offset = 0;  // the block layouts differ
      return records;
    };
    const auto from_ours = strip_offsets(read_all(ours));
    ASSERT_EQ(from_ours.size(), frames.size());
    EXPECT_EQ(strip_offsets(read_all(theirs)), from_ours);
    EXPECT_EQ(strip_offsets(read_all(back)), from_ours);
    EXPECT_EQ(strip_offsets(read_all(pcap)), from_ours);
  }
}

TEST_F(PcapTest, RealCaptureThroughEditcapAndBack) {
  ROCECERT_REQUIRE_TOOL(have_editcap(), "editcap (Debian package wireshark-common)");
  const std::string real = std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/rc_ops_mtu4096.pcap";
  const std::string theirs = dir_.file("editcap.pcapng");
  const std::string ours = dir_.file("ours.pcapng");
  editcap("pcapng", real, theirs);
  {
    Reader reader(real);
    Writer writer(ours, reader.linktype(), Precision::Micro, Format::Pcapng, 9216);
    Record rec;
    while (reader.next(rec)) writer.write(rec.ts_ns, rec.data, rec.len);
    writer.close();
  }
  auto strip_offsets = [](std::vector<OwnedRecord> records) {
    for (OwnedRecord& r : records) r.file_offset = 0;
    return records;
  };
  const auto expected = strip_offsets(read_all(real));
  ASSERT_EQ(expected.size(), 35u);
  EXPECT_EQ(strip_offsets(read_all(theirs)), expected);
  EXPECT_EQ(strip_offsets(read_all(ours)), expected);
}

// --- Failures and misuse -----------------------------------------------------------------------

TEST_F(PcapTest, CannotCreateNamesThePath) {
  const std::string path = dir_.file("no/such/dir/out.cap");
  for (const Format format : {Format::Pcap, Format::Pcapng}) {
    try {
      Writer writer(path, 1, Precision::Nano, format);
      FAIL() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
          << e.what();
    }
  }
}

TEST_F(PcapTest, LinkTypeLibpcapCannotWrite) {
  const std::string path = dir_.file("bad.pcap");
  try {
    Writer writer(path, -5);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": link-layer type -5 isn't supported in savefiles");
  }
  EXPECT_THROW(Writer(path, 70000, Precision::Nano, Format::Pcapng), std::invalid_argument);
}

TEST_F(PcapTest, InvalidArguments) {
  const std::string path = dir_.file("args.cap");
  EXPECT_THROW(Writer(path, 1, Precision::Nano, Format::Pcap, 0), std::invalid_argument);
  EXPECT_THROW(Writer(path, 1, Precision::Nano, Format::Pcap, 0x80000000u), std::invalid_argument);
  for (const Format format : {Format::Pcap, Format::Pcapng}) {
    Writer writer(path, 1, Precision::Nano, format);
    EXPECT_THROW(writer.write(-1, pattern(10, 0)), std::out_of_range);
    EXPECT_THROW(writer.write(1, pattern(10, 0), 9), std::invalid_argument);
    writer.close();
    writer.close();  // harmless
    EXPECT_THROW(writer.write(1, pattern(10, 0)), std::logic_error);
  }
}

TEST_F(PcapTest, PcapTimestampLimits) {
  const std::string path = dir_.file("late.pcap");
  constexpr std::int64_t kLast = 4'294'967'295'999'999'999;  // 2106-02-07 06:28:15.999999999
  {
    Writer writer(path);
    writer.write(kLast, pattern(20, 0));
    writer.write(2'147'483'648'000'000'000, pattern(20, 0));  // 2038-01-19 03:14:08
    EXPECT_THROW(writer.write(kLast + 1, pattern(20, 0)), std::out_of_range);
  }
  const auto records = read_all(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].ts_ns, kLast);
  EXPECT_EQ(records[1].ts_ns, 2'147'483'648'000'000'000);

  // pcapng holds any non-negative int64 nanosecond count.
  const std::string ng = dir_.file("late.pcapng");
  {
    Writer writer(ng, 1, Precision::Nano, Format::Pcapng);
    writer.write(INT64_MAX, pattern(20, 0));
  }
  const auto ng_records = read_all(ng);
  ASSERT_EQ(ng_records.size(), 1u);
  EXPECT_EQ(ng_records[0].ts_ns, INT64_MAX);
}

TEST_F(PcapTest, DestructorFlushes) {
  for (const Format format : {Format::Pcap, Format::Pcapng}) {
    const std::string path = dir_.file("flush.cap");
    {
      Writer writer(path, 1, Precision::Nano, format);
      writer.write(7, pattern(33, 1));
    }
    const auto records = read_all(path);
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].data, pattern(33, 1));
  }
}

TEST_F(PcapTest, MovedWriterKeepsWriting) {
  const std::string path = dir_.file("moved.pcapng");
  {
    Writer first(path, 1, Precision::Nano, Format::Pcapng);
    first.write(1, pattern(10, 1));
    Writer second(std::move(first));
    second.write(2, pattern(10, 2));
    // A moved-from writer refuses to write.
    // NOLINTNEXTLINE(bugprone-use-after-move)
    EXPECT_THROW(first.write(3, pattern(10, 3)), std::logic_error);
    Writer third(dir_.file("other.pcap"));
    third = std::move(second);
    third.write(4, pattern(10, 4));
  }
  const auto records = read_all(path);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].ts_ns, 4);
}

// /dev/full accepts the open and fails the writes: the error must surface at the latest in
// close().
TEST_F(PcapTest, WriteErrorsSurface) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const Format format : {Format::Pcap, Format::Pcapng}) {
    bool failed = false;
    try {
      Writer writer("/dev/full", 1, Precision::Nano, format);
      for (int i = 0; i < 1000; ++i) writer.write(i, pattern(1500, 0));
      writer.close();
    } catch (const std::runtime_error& e) {
      failed = true;
      EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(failed);
  }
}

}  // namespace
}  // namespace rocecert::pcap
