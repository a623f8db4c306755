// Reader against real captures, hand-built files and every kind of damage we could think of.
// The expected error texts are libpcap 1.10's own; they are asserted verbatim so that a libpcap
// upgrade that changes them shows up here rather than in a user's report.
#include "rocecert/pcap/reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "test_support.h"

namespace rocecert::pcap {
namespace {

using testing::Bytes;
using testing::concat;
using testing::Order;
using testing::pattern;
using testing::pcap_header;
using testing::pcap_record;
using testing::pcapng_block;
using testing::pcapng_epb;
using testing::pcapng_idb;
using testing::pcapng_shb;
using testing::PcapTest;
using testing::read_all;
using testing::read_file;
using testing::read_until_error;
using testing::write_file;

std::string real_capture(const std::string& name) {
  return std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + name + ".pcap";
}

// The header error a Reader constructor raises for these bytes.
CaptureError open_error(const std::string& path) {
  try {
    Reader reader(path);
  } catch (const CaptureError& e) {
    return e;
  }
  ADD_FAILURE() << path << " opened without error";
  return CaptureError(path, 99, 99, "none");
}

// Two good records at offsets 24 and 100; the next record starts at 177.
Bytes two_good_records(std::uint32_t snaplen = 262144) {
  return concat({pcap_header(1, snaplen), pcap_record(1, 2, pattern(60, 1)),
                 pcap_record(3, 4, pattern(61, 2))});
}
constexpr std::uint64_t kThirdRecordOffset = 24 + 16 + 60 + 16 + 61;

void expect_two_good_records(const std::vector<testing::OwnedRecord>& records) {
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].frame, 1u);
  EXPECT_EQ(records[0].file_offset, 24u);
  EXPECT_EQ(records[0].ts_ns, 1'000'002'000);
  EXPECT_EQ(records[0].data, pattern(60, 1));
  EXPECT_EQ(records[1].frame, 2u);
  EXPECT_EQ(records[1].file_offset, 100u);
  EXPECT_EQ(records[1].ts_ns, 3'000'004'000);
  EXPECT_EQ(records[1].data, pattern(61, 2));
}

// --- Real captures -----------------------------------------------------------------------------

TEST(RealCaptures, RcOpsMtu4096) {
  const std::string path = real_capture("rc_ops_mtu4096");
  Reader reader(path);
  EXPECT_EQ(reader.linktype(), 1);
  EXPECT_EQ(reader.link(), wire::LinkType::Ethernet);
  EXPECT_EQ(reader.path(), path);
  const auto records = read_all(reader);
  ASSERT_EQ(records.size(), 35u);
  EXPECT_EQ(reader.frames_read(), 35u);
  // pcap records sit back to back after the 24-byte file header.
  std::uint64_t offset = 24;
  std::int64_t previous_ts = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].frame, i + 1);
    EXPECT_EQ(records[i].file_offset, offset);
    EXPECT_EQ(records[i].caplen, records[i].len);  // taken with -s 9216, nothing cut
    EXPECT_EQ(records[i].data.size(), records[i].caplen);
    EXPECT_GE(records[i].ts_ns, previous_ts);
    EXPECT_EQ(records[i].ts_ns % 1000, 0);  // a microsecond file
    previous_ts = records[i].ts_ns;
    offset += 16 + records[i].caplen;
  }
  EXPECT_EQ(offset, std::filesystem::file_size(path));
  // Frame 1 as tshark shows it: 1795942709.719926000, 62 bytes.
  EXPECT_EQ(records[0].ts_ns, 1'795'942'709'719'926'000);
  EXPECT_EQ(records[0].caplen, 62u);
  EXPECT_EQ(records[4].caplen, 4154u);  // a full 4096-byte payload
  // A clean end stays clean.
  Record rec;
  EXPECT_FALSE(reader.next(rec));
  EXPECT_FALSE(reader.next(rec));
}

TEST(RealCaptures, FrameCountsMatchTheirReadme) {
  const std::pair<const char*, std::size_t> expected[] = {
      {"rc_pingpong_64_mtu1024", 40},
      {"ud_pingpong_1024", 20},
      {"err_write_bad_rkey", 2},
      {"rnr_nak_then_ok", 30},
      {"rc_read_bw_10000_mtu1024_resploss10", 2832},
      {"rc_pingpong_10000_mtu1024_v6", 220},
  };
  for (const auto& [name, frames] : expected) {
    EXPECT_EQ(read_all(real_capture(name)).size(), frames) << name;
  }
}

TEST(RealCaptures, FromMemoryMatchesTheFile) {
  const std::string path = real_capture("rc_pingpong_64_mtu1024");
  const auto from_file = read_all(path);
  std::optional<Reader> reader;
  {
    // The reader keeps its own copy: the caller's bytes may go away at once.
    const Bytes bytes = read_file(path);
    reader.emplace(Reader::from_memory(bytes, "memory.pcap"));
  }
  EXPECT_EQ(reader->path(), "memory.pcap");
  EXPECT_EQ(read_all(*reader), from_file);
}

// --- Files that cannot be opened ---------------------------------------------------------------

TEST_F(PcapTest, MissingFile) {
  const std::string path = dir_.file("missing.pcap");
  const CaptureError e = open_error(path);
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.frame(), 0u);
  EXPECT_EQ(e.offset(), 0u);
  EXPECT_EQ(e.reason(), "cannot open: No such file or directory");
  EXPECT_EQ(std::string(e.what()),
            path + ": frame 0, byte offset 0: cannot open: No such file or directory");
}

TEST_F(PcapTest, DirectoryInsteadOfFile) {
  const CaptureError e = open_error(dir_.file(""));
  EXPECT_EQ(e.frame(), 0u);
  EXPECT_EQ(e.reason(), "error reading dump file: Is a directory");
}

TEST_F(PcapTest, EmptyFile) {
  const std::string path = dir_.file("empty.pcap");
  write_file(path, {});
  const CaptureError e = open_error(path);
  EXPECT_EQ(e.frame(), 0u);
  EXPECT_EQ(e.offset(), 0u);
  EXPECT_EQ(e.reason(), "truncated dump file; tried to read 4 file header bytes, only got 0");
}

TEST_F(PcapTest, EmptyMemory) {
  try {
    Reader::from_memory({}, "nothing");
    FAIL() << "no error";
  } catch (const CaptureError& e) {
    EXPECT_EQ(e.file(), "nothing");
    EXPECT_EQ(e.frame(), 0u);
    EXPECT_EQ(e.reason(), "truncated dump file; tried to read 4 file header bytes, only got 0");
  }
}

TEST_F(PcapTest, TenByteFileWithPcapMagic) {
  const std::string path = dir_.file("ten.pcap");
  Bytes header = pcap_header();
  header.resize(10);
  write_file(path, header);
  const CaptureError e = open_error(path);
  EXPECT_EQ(e.frame(), 0u);
  EXPECT_EQ(e.offset(), 0u);
  // libpcap counts the 4 magic bytes separately: 20 more were wanted (24 in all), 6 came.
  EXPECT_EQ(e.reason(), "truncated dump file; tried to read 24 file header bytes, only got 6");
}

TEST_F(PcapTest, TenBytesOfGarbage) {
  const std::string path = dir_.file("ten.bin");
  write_file(path, {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9'});
  EXPECT_EQ(open_error(path).reason(), "unknown file format");
}

TEST_F(PcapTest, TextFile) {
  const std::string path = dir_.file("notes.txt");
  const std::string text = "this is not a capture file, just some words\n";
  write_file(path, Bytes(text.begin(), text.end()));
  const CaptureError e = open_error(path);
  EXPECT_EQ(e.frame(), 0u);
  EXPECT_EQ(e.reason(), "unknown file format");
}

TEST_F(PcapTest, UnsupportedLinkTypes) {
  const std::pair<std::uint32_t, const char*> cases[] = {
      {0, "unsupported link type 0 (NULL)"},
      {105, "unsupported link type 105 (IEEE802_11)"},
      {127, "unsupported link type 127 (IEEE802_11_RADIO)"},
      {147, "unsupported link type 147 (unknown)"},  // DLT_USER0 has no name in libpcap
  };
  for (const auto& [linktype, message] : cases) {
    const std::string path = dir_.file("lt" + std::to_string(linktype) + ".pcap");
    write_file(path, concat({pcap_header(linktype), pcap_record(1, 0, pattern(20, 0))}));
    const CaptureError e = open_error(path);
    EXPECT_EQ(e.frame(), 0u);
    EXPECT_EQ(e.offset(), 0u);
    EXPECT_EQ(e.reason(), message);
  }
}

TEST_F(PcapTest, SupportedLinkTypes) {
  struct Case {
    std::uint32_t in_file;
    int linktype;
    wire::LinkType link;
  };
  const Case cases[] = {
      {1, 1, wire::LinkType::Ethernet},      {113, 113, wire::LinkType::LinuxSll},
      {276, 276, wire::LinkType::LinuxSll2}, {101, 101, wire::LinkType::RawIp},
      {12, 101, wire::LinkType::RawIp},  // DLT_RAW as most systems number it
      {14, 101, wire::LinkType::RawIp},  // DLT_RAW as OpenBSD numbers it
      {228, 228, wire::LinkType::RawIp},     {229, 229, wire::LinkType::RawIp},
  };
  for (const Case& c : cases) {
    const std::string path = dir_.file("lt" + std::to_string(c.in_file) + ".pcap");
    write_file(path, concat({pcap_header(c.in_file), pcap_record(1, 0, pattern(20, 0))}));
    Reader reader(path);
    EXPECT_EQ(reader.linktype(), c.linktype) << c.in_file;
    EXPECT_EQ(reader.link(), c.link) << c.in_file;
    EXPECT_EQ(read_all(reader).size(), 1u);
  }
}

// --- Records cut short or corrupt --------------------------------------------------------------

TEST_F(PcapTest, RecordHeaderCutInHalf) {
  const std::string path = dir_.file("cut.pcap");
  Bytes third = pcap_record(5, 6, pattern(10, 3));
  third.resize(8);
  write_file(path, concat({two_good_records(), third}));
  Reader reader(path);
  const auto result = read_until_error(reader);
  expect_two_good_records(result.records);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->frame(), 3u);
  EXPECT_EQ(result.error->offset(), kThirdRecordOffset);
  EXPECT_EQ(result.error->reason(),
            "truncated dump file; tried to read 16 header bytes, only got 8");
  EXPECT_EQ(std::string(result.error->what()),
            path +
                ": frame 3, byte offset 177: "
                "truncated dump file; tried to read 16 header bytes, only got 8");
  EXPECT_EQ(reader.frames_read(), 2u);
  // The failure sticks: asking again reports the same frame and offset.
  Record rec;
  try {
    reader.next(rec);
    FAIL() << "no error on the second call";
  } catch (const CaptureError& again) {
    EXPECT_EQ(again.frame(), 3u);
    EXPECT_EQ(again.offset(), kThirdRecordOffset);
  }
}

TEST_F(PcapTest, CaplenBeyondEndOfFile) {
  const std::string path = dir_.file("short.pcap");
  write_file(path, concat({two_good_records(), pcap_record(5, 6, pattern(100, 4), 1000, 1000)}));
  Reader reader(path);
  const auto result = read_until_error(reader);
  expect_two_good_records(result.records);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->frame(), 3u);
  EXPECT_EQ(result.error->offset(), kThirdRecordOffset);
  EXPECT_EQ(result.error->reason(),
            "truncated dump file; tried to read 1000 captured bytes, only got 100");
}

// libpcap accepts a record longer than the file's snaplen (as long as it stays within the
// link type's maximum): it returns the first snaplen bytes as caplen, skips the rest, and
// carries on with the next record. Not an error.
TEST_F(PcapTest, CaplenAboveSnaplenIsCutToSnaplen) {
  const std::string path = dir_.file("snap.pcap");
  write_file(path, concat({pcap_header(1, 100), pcap_record(1, 2, pattern(60, 1)),
                           pcap_record(3, 4, pattern(200, 2)), pcap_record(5, 6, pattern(10, 3))}));
  const auto records = read_all(path);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].caplen, 100u);
  EXPECT_EQ(records[1].len, 200u);
  const Bytes second = pattern(200, 2);
  EXPECT_EQ(records[1].data, Bytes(second.begin(), second.begin() + 100));
  EXPECT_EQ(records[2].file_offset, 24u + 76 + 216);
  EXPECT_EQ(records[2].data, pattern(10, 3));
}

// Above the link type's maximum (262144 for Ethernet) it is corruption.
TEST_F(PcapTest, CaplenAboveMaximumIsAnError) {
  const std::string path = dir_.file("huge.pcap");
  write_file(path,
             concat({two_good_records(), pcap_record(5, 6, pattern(100, 4), 300000, 300000)}));
  Reader reader(path);
  const auto result = read_until_error(reader);
  expect_two_good_records(result.records);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->frame(), 3u);
  EXPECT_EQ(result.error->offset(), kThirdRecordOffset);
  EXPECT_EQ(result.error->reason(),
            "invalid packet capture length 300000, bigger than snaplen of 262144");
}

// A caplen above len is passed through as the file says.
TEST_F(PcapTest, CaplenAboveLenIsPassedThrough) {
  const std::string path = dir_.file("odd.pcap");
  write_file(path, concat({pcap_header(), pcap_record(1, 2, pattern(60, 1), 60, 10)}));
  const auto records = read_all(path);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].caplen, 60u);
  EXPECT_EQ(records[0].len, 10u);
}

// --- Byte orders, precisions, timestamps -------------------------------------------------------

TEST_F(PcapTest, BothByteOrdersAndBothMagics) {
  for (const Order order : {Order::Little, Order::Big}) {
    for (const bool nano : {false, true}) {
      const std::string path = dir_.file("order.pcap");
      const std::uint32_t frac = nano ? 123'456'789 : 123'456;
      write_file(
          path,
          concat({pcap_header(1, 65535, nano ? testing::kMagicNano : testing::kMagicMicro, order),
                  pcap_record(1'700'000'000, frac, pattern(42, 9), 42, 1500, order)}));
      const auto records = read_all(path);
      ASSERT_EQ(records.size(), 1u);
      EXPECT_EQ(records[0].ts_ns, nano ? 1'700'000'000'123'456'789 : 1'700'000'000'123'456'000);
      EXPECT_EQ(records[0].caplen, 42u);
      EXPECT_EQ(records[0].len, 1500u);
      EXPECT_EQ(records[0].data, pattern(42, 9));
    }
  }
}

// pcap seconds are unsigned 32-bit; libpcap 1.10 sign-extends them and the reader undoes it.
TEST_F(PcapTest, PcapSecondsPast2038) {
  const std::string path = dir_.file("late.pcap");
  write_file(path, concat({pcap_header(), pcap_record(0xFFFFFFFF, 999'999, pattern(20, 0)),
                           pcap_record(0x80000000, 0, pattern(20, 0))}));
  const auto records = read_all(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].ts_ns, 4'294'967'295'999'999'000);
  EXPECT_EQ(records[1].ts_ns, 2'147'483'648'000'000'000);
}

// --- pcapng ------------------------------------------------------------------------------------

// SHB (28) + IDB with if_tsresol (32) = 60: the first EPB starts there.
Bytes pcapng_two_packets(Order order = Order::Little) {
  return concat({pcapng_shb(order), pcapng_idb(1, 65535, 9, order),
                 pcapng_epb(1'000'000'000'123, pattern(60, 1), std::nullopt, order),
                 pcapng_epb(2'000'000'000'456, pattern(61, 2), 1500, order)});
}
constexpr std::uint64_t kFirstEpb = 28 + 32;
constexpr std::uint64_t kSecondEpb = kFirstEpb + 32 + 60;
constexpr std::uint64_t kThirdEpb = kSecondEpb + 32 + 64;

TEST_F(PcapTest, PcapngBothByteOrders) {
  for (const Order order : {Order::Little, Order::Big}) {
    const std::string path = dir_.file("two.pcapng");
    write_file(path, pcapng_two_packets(order));
    Reader reader(path);
    EXPECT_EQ(reader.linktype(), 1);
    const auto records = read_all(reader);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].file_offset, kFirstEpb);
    EXPECT_EQ(records[0].ts_ns, 1'000'000'000'123);
    EXPECT_EQ(records[0].data, pattern(60, 1));
    EXPECT_EQ(records[1].file_offset, kSecondEpb);
    EXPECT_EQ(records[1].ts_ns, 2'000'000'000'456);
    EXPECT_EQ(records[1].caplen, 61u);
    EXPECT_EQ(records[1].len, 1500u);
  }
}

// Blocks that carry no packet are skipped by libpcap inside one pcap_next_ex call; the offset
// must still be that of the packet block, not of the first block read.
TEST_F(PcapTest, PcapngOffsetsSkipOtherBlocks) {
  for (const Order order : {Order::Little, Order::Big}) {
    const Bytes custom = pcapng_block(0x00000BAD, pattern(13, 5), order);  // 28 bytes
    const Bytes second_idb = pcapng_idb(1, 65535, 9, order);               // 32 bytes
    const Bytes file =
        concat({pcapng_shb(order), pcapng_idb(1, 65535, 9, order),
                pcapng_epb(1, pattern(60, 1), std::nullopt, order), custom, second_idb,
                pcapng_epb(2, pattern(61, 2), std::nullopt, order), custom});
    const std::string path = dir_.file("blocks.pcapng");
    write_file(path, file);
    const auto records = read_all(path);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].file_offset, kFirstEpb);
    EXPECT_EQ(records[1].file_offset, kSecondEpb + custom.size() + second_idb.size());
    EXPECT_EQ(records[1].data, pattern(61, 2));
  }
}

TEST_F(PcapTest, PcapngTruncatedInsideABlock) {
  const std::string path = dir_.file("cut.pcapng");
  Bytes file = concat({pcapng_two_packets(), pcapng_epb(3, pattern(100, 3))});
  file.resize(file.size() - 10);
  write_file(path, file);
  Reader reader(path);
  const auto result = read_until_error(reader);
  ASSERT_EQ(result.records.size(), 2u);
  EXPECT_EQ(result.records[1].file_offset, kSecondEpb);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->frame(), 3u);
  EXPECT_EQ(result.error->offset(), kThirdEpb);
  // The 8-byte block header was read; the other 124 bytes of the 132-byte EPB were wanted.
  EXPECT_EQ(result.error->reason(),
            "truncated pcapng dump file; tried to read 124 bytes, only got 114");
}

TEST_F(PcapTest, PcapngTruncatedInsideABlockHeader) {
  const std::string path = dir_.file("cut.pcapng");
  Bytes file = concat({pcapng_two_packets(), pcapng_epb(3, pattern(100, 3))});
  file.resize(kThirdEpb + 3);
  write_file(path, file);
  Reader reader(path);
  const auto result = read_until_error(reader);
  ASSERT_EQ(result.records.size(), 2u);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->frame(), 3u);
  EXPECT_EQ(result.error->offset(), kThirdEpb);
  EXPECT_EQ(result.error->reason(),
            "truncated pcapng dump file; tried to read 8 bytes, only got 3");
}

TEST_F(PcapTest, PcapngTruncatedSectionHeader) {
  const std::string path = dir_.file("cut.pcapng");
  Bytes file = pcapng_two_packets();
  file.resize(20);
  write_file(path, file);
  const CaptureError e = open_error(path);
  EXPECT_EQ(e.frame(), 0u);
  EXPECT_EQ(e.offset(), 0u);
  // 12 bytes of the 28-byte SHB were read while recognising it; 16 more were wanted.
  EXPECT_EQ(e.reason(), "truncated pcapng dump file; tried to read 16 bytes, only got 8");
}

TEST_F(PcapTest, PcapngWithoutInterface) {
  const std::string path = dir_.file("noidb.pcapng");
  write_file(path, pcapng_shb());
  EXPECT_EQ(open_error(path).reason(), "the capture file has no Interface Description Blocks");
}

TEST_F(PcapTest, PcapngCaplenAboveSnaplenIsAnError) {
  // Unlike pcap, libpcap's pcapng reader refuses a packet longer than the interface's snaplen.
  const std::string path = dir_.file("snap.pcapng");
  write_file(path, concat({pcapng_shb(), pcapng_idb(1, 64, 9), pcapng_epb(1, pattern(60, 1)),
                           pcapng_epb(2, pattern(100, 2))}));
  Reader reader(path);
  const auto result = read_until_error(reader);
  ASSERT_EQ(result.records.size(), 1u);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->frame(), 2u);
  EXPECT_EQ(result.error->offset(), kSecondEpb);
  EXPECT_EQ(result.error->reason(), "invalid packet capture length 100, bigger than snaplen of 64");
}

TEST_F(PcapTest, PcapngBlockLengthsDisagree) {
  const std::string path = dir_.file("bad.pcapng");
  Bytes file = pcapng_two_packets();
  file[kSecondEpb + 32 + 60] ^= 0x40;  // the second EPB's trailing length
  write_file(path, file);
  Reader reader(path);
  const auto result = read_until_error(reader);
  ASSERT_EQ(result.records.size(), 1u);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->frame(), 2u);
  EXPECT_EQ(result.error->offset(), kSecondEpb);
  EXPECT_EQ(result.error->reason(), "block total length in header and trailer don't match");
}

// A 64-bit nanosecond count beyond int64 nanoseconds (year 2262) cannot be represented.
TEST_F(PcapTest, PcapngTimestampOutOfRange) {
  const std::string path = dir_.file("future.pcapng");
  write_file(path, concat({pcapng_shb(), pcapng_idb(1, 65535, 9), pcapng_epb(1, pattern(60, 1)),
                           pcapng_epb(~std::uint64_t{0}, pattern(60, 2))}));
  Reader reader(path);
  const auto result = read_until_error(reader);
  ASSERT_EQ(result.records.size(), 1u);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->frame(), 2u);
  EXPECT_EQ(result.error->offset(), kSecondEpb);
  EXPECT_EQ(result.error->reason(), "timestamp out of range (18446744073 s since the epoch)");
}

TEST_F(PcapTest, PcapngMicrosecondDefault) {
  // No if_tsresol: microseconds.
  const std::string path = dir_.file("us.pcapng");
  write_file(path, concat({pcapng_shb(), pcapng_idb(113, 65535, std::nullopt),
                           pcapng_epb(1'700'000'000'123'456, pattern(60, 1))}));
  Reader reader(path);
  EXPECT_EQ(reader.link(), wire::LinkType::LinuxSll);
  const auto records = read_all(reader);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].ts_ns, 1'700'000'000'123'456'000);
  EXPECT_EQ(records[0].file_offset, 28u + 20);
}

// --- Ownership ---------------------------------------------------------------------------------

TEST(ReaderMove, ContinuesWhereItLeftOff) {
  Reader first(real_capture("rc_pingpong_64_mtu1024"));
  Record rec;
  ASSERT_TRUE(first.next(rec));
  ASSERT_TRUE(first.next(rec));
  Reader second(std::move(first));
  EXPECT_EQ(second.frames_read(), 2u);
  ASSERT_TRUE(second.next(rec));
  EXPECT_EQ(rec.frame, 3u);
  EXPECT_FALSE(first.next(rec));  // NOLINT(bugprone-use-after-move): documented behaviour

  Reader third(real_capture("err_write_bad_rkey"));
  third = std::move(second);
  EXPECT_EQ(read_all(third).size(), 40u - 3);
}

}  // namespace
}  // namespace rocecert::pcap
