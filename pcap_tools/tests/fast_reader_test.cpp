// The Classic backend (our own classic pcap parser) against libpcap, its oracle: for real
// captures, generated files of every shape it accepts, every error the reader tests build and
// many cut or damaged files, both must give the same records (frame, offset, timestamp,
// lengths, bytes), the same link type and the same error (frame, offset and text).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rocecert/pcap/reader.h"
#include "test_support.h"

namespace rocecert::pcap {
namespace {

using testing::Bytes;
using testing::ByteWriter;
using testing::concat;
using testing::kMagicMicro;
using testing::kMagicNano;
using testing::Order;
using testing::OwnedRecord;
using testing::pattern;
using testing::pcap_header;
using testing::pcap_record;
using testing::PcapTest;
using testing::read_all;
using testing::read_file;
using testing::write_file;

using Backend = Reader::Backend;

// Everything a reader makes of a file.
struct Outcome {
  std::optional<CaptureError> open_error;
  Backend backend = Backend::Libpcap;
  int linktype = 0;
  wire::LinkType link = wire::LinkType::Ethernet;
  std::vector<OwnedRecord> records;
  std::optional<CaptureError> error;
};

Outcome read_outcome(const std::string& path, bool libpcap) {
  Outcome out;
  std::optional<Reader> reader;
  try {
    reader.emplace(libpcap ? Reader::open_with_libpcap(path) : Reader(path));
  } catch (const CaptureError& e) {
    out.open_error = e;
    return out;
  }
  out.backend = reader->backend();
  out.linktype = reader->linktype();
  out.link = reader->link();
  const testing::ReadUntilError result = testing::read_until_error(*reader);
  out.records = result.records;
  out.error = result.error;
  return out;
}

std::string describe(const OwnedRecord& r) {
  return "frame " + std::to_string(r.frame) + " offset " + std::to_string(r.file_offset) + " ts " +
         std::to_string(r.ts_ns) + " caplen " + std::to_string(r.caplen) + " len " +
         std::to_string(r.len) + " data " + std::to_string(r.data.size()) + " bytes";
}

std::string describe(const std::optional<CaptureError>& e) {
  return e ? std::string(e->what()) : std::string("(none)");
}

// Empty when both agree, else what differs.
std::string difference(const Outcome& classic, const Outcome& libpcap) {
  if (describe(classic.open_error) != describe(libpcap.open_error)) {
    return "open: " + describe(classic.open_error) + " vs libpcap " + describe(libpcap.open_error);
  }
  if (classic.linktype != libpcap.linktype || classic.link != libpcap.link) {
    return "link type " + std::to_string(classic.linktype) + " vs libpcap " +
           std::to_string(libpcap.linktype);
  }
  const std::size_t common = std::min(classic.records.size(), libpcap.records.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (!(classic.records[i] == libpcap.records[i])) {
      return "record " + std::to_string(i + 1) + ": " + describe(classic.records[i]) +
             " vs libpcap " + describe(libpcap.records[i]);
    }
  }
  if (classic.records.size() != libpcap.records.size()) {
    return std::to_string(classic.records.size()) + " records vs libpcap " +
           std::to_string(libpcap.records.size());
  }
  // what() holds file, frame, offset and reason.
  if (describe(classic.error) != describe(libpcap.error)) {
    return "error: " + describe(classic.error) + " vs libpcap " + describe(libpcap.error);
  }
  return {};
}

// Reads path both ways, expects the same outcome, and returns the default reader's.
Outcome expect_same(const std::string& path, std::optional<Backend> backend,
                    const std::string& label) {
  const Outcome classic = read_outcome(path, false);
  const Outcome libpcap = read_outcome(path, true);
  EXPECT_EQ(difference(classic, libpcap), "") << label;
  if (backend && !classic.open_error) {
    EXPECT_EQ(classic.backend, *backend) << label;
  }
  EXPECT_EQ(libpcap.backend, Backend::Libpcap) << label;
  return classic;
}

Outcome expect_same_bytes(const testing::TempDir& dir, const Bytes& bytes,
                          std::optional<Backend> backend, const std::string& label) {
  const std::string path = dir.file("diff.pcap");
  write_file(path, bytes);
  return expect_same(path, backend, label);
}

std::vector<std::string> real_captures() {
  std::vector<std::string> names;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ROCECERT_SOURCE_DIR) + "/vectors/real")) {
    if (entry.path().extension() == ".pcap") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string real_capture(const std::string& name) {
  return std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + name + ".pcap";
}

// --- Real captures, whole and cut --------------------------------------------------------------

constexpr std::uint64_t kAroundHeader[] = {0, 1, 7, 8, 15, 16, 17};

class RealCapture : public ::testing::TestWithParam<std::string> {
 protected:
  testing::TempDir dir_;
};

TEST_P(RealCapture, SameAsLibpcap) {
  const Outcome outcome = expect_same(real_capture(GetParam()), Backend::Classic, GetParam());
  EXPECT_FALSE(outcome.open_error);
  EXPECT_FALSE(outcome.error);
  EXPECT_FALSE(outcome.records.empty());
}

// Cut at every byte of the file header and the first three records, at both sides of a sample
// of later record boundaries and at evenly spaced offsets. The file is cut from the longest to
// the shortest, so one copy serves every cut.
TEST_P(RealCapture, CutAnywhereSameAsLibpcap) {
  const Bytes bytes = read_file(real_capture(GetParam()));
  const std::vector<OwnedRecord> records = read_all(real_capture(GetParam()));
  ASSERT_GE(records.size(), 2u);
  std::set<std::uint64_t> cuts;
  const std::uint64_t first_three =
      records.size() > 3 ? records[3].file_offset : std::uint64_t{bytes.size()};
  for (std::uint64_t cut = 0; cut <= first_three; ++cut) cuts.insert(cut);
  const std::size_t stride = std::max<std::size_t>(1, records.size() / 24);
  for (std::size_t i = 3; i < records.size(); i += stride) {
    const std::uint64_t start = records[i].file_offset;
    // Inside and around the record header, and just short of the record's end.
    for (const std::uint64_t delta : kAroundHeader) cuts.insert(start + delta);
    const std::uint64_t end = start + 16 + records[i].caplen;
    cuts.insert(end - 1);
    cuts.insert(end - 2);
  }
  for (std::uint64_t k = 1; k < 64; ++k) cuts.insert(bytes.size() * k / 64);
  cuts.insert(bytes.size() - 1);

  RecordProperty("cuts", static_cast<int>(cuts.size()));
  const std::string path = dir_.file("cut.pcap");
  write_file(path, bytes);
  int failures = 0;
  for (auto it = cuts.rbegin(); it != cuts.rend() && failures < 5; ++it) {
    if (*it > bytes.size()) continue;
    std::filesystem::resize_file(path, *it);
    const Outcome classic = read_outcome(path, false);
    const Outcome libpcap = read_outcome(path, true);
    const std::string diff = difference(classic, libpcap);
    if (!diff.empty()) {
      ADD_FAILURE() << GetParam() << " cut at " << *it << ": " << diff;
      ++failures;
    }
    // Past the file header the fast path must be the one that answered.
    if (*it >= 24 && classic.backend != Backend::Classic) {
      ADD_FAILURE() << GetParam() << " cut at " << *it << ": not read by the Classic backend";
      ++failures;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Vectors, RealCapture, ::testing::ValuesIn(real_captures()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param;
                         });

// --- Generated files ---------------------------------------------------------------------------

// A file header with every field chosen.
Bytes header(std::uint32_t magic, Order order, std::uint16_t major, std::uint16_t minor,
             std::uint32_t snaplen, std::uint32_t linktype) {
  ByteWriter w(order);
  w.u32(magic).u16(major).u16(minor).u32(0).u32(0).u32(snaplen).u32(linktype);
  return w.bytes();
}

// Records of assorted sizes, lengths and timestamps.
Bytes assorted_records(Order order, std::uint8_t seed) {
  return concat(
      {pcap_record(1'700'000'000, 1, pattern(60, seed), std::nullopt, std::nullopt, order),
       pcap_record(1'700'000'001, 999'999, pattern(1514, seed), 1514, 9000, order),
       pcap_record(0, 0, {}, 0, 0, order),
       pcap_record(2, 3, pattern(4154, seed), std::nullopt, std::nullopt, order),
       pcap_record(0xFFFFFFFF, 0xFFFFFFFF, pattern(33, seed), 33, 10, order),
       pcap_record(0x80000000, 0x7FFFFFFF, pattern(1, seed), std::nullopt, std::nullopt, order)});
}

TEST_F(PcapTest, FastPathEveryMagicOrderAndLinkType) {
  const std::uint32_t linktypes[] = {
      1, 12, 14, 101, 113, 228, 229, 276, 0x10000001, 0xFC000000 | 101, 0x04000000 | 276};
  for (const std::uint32_t magic : {kMagicMicro, kMagicNano}) {
    for (const Order order : {Order::Little, Order::Big}) {
      for (const std::uint32_t linktype : linktypes) {
        const std::string label = "magic " + std::to_string(magic) + " big " +
                                  std::to_string(order == Order::Big) + " linktype " +
                                  std::to_string(linktype);
        const Outcome outcome = expect_same_bytes(
            dir_, concat({header(magic, order, 2, 4, 65535, linktype), assorted_records(order, 3)}),
            Backend::Classic, label);
        EXPECT_EQ(outcome.records.size(), 6u) << label;
      }
    }
  }
}

// Every link type value up to 300 and some beyond, with and without FCS bits: the ones we do
// not decode fail at open with libpcap's own message, which the Classic backend leaves to it.
TEST_F(PcapTest, FastPathAllLinkTypeValues) {
  std::vector<std::uint32_t> values;
  for (std::uint32_t v = 0; v <= 300; ++v) values.push_back(v);
  for (const std::uint32_t v : {0x03FFFFFFu, 0x04000000u, 0x80000001u, 0xFFFFFFFFu, 65535u, 65536u,
                                0x10000000u | 113u, 0x0C000000u | 1u}) {
    values.push_back(v);
  }
  for (const std::uint32_t linktype : values) {
    for (const Order order : {Order::Little, Order::Big}) {
      expect_same_bytes(
          dir_,
          concat({header(kMagicNano, order, 2, 4, 262144, linktype),
                  pcap_record(1, 2, pattern(20, 0), std::nullopt, std::nullopt, order)}),
          std::nullopt, "linktype " + std::to_string(linktype));
    }
  }
}

// Versions: 2.0-2.2 and 543.0 store len before caplen, 2.3 maybe; the others are refused.
TEST_F(PcapTest, FastPathVersions) {
  const std::pair<std::uint16_t, std::uint16_t> versions[] = {
      {2, 0}, {2, 1}, {2, 2},   {2, 3},   {2, 4}, {543, 0},         {2, 5},     {1, 0},
      {0, 0}, {3, 4}, {543, 1}, {542, 0}, {4, 0}, {0xFFFF, 0xFFFF}, {2, 0xFFFF}};
  for (const auto& [major, minor] : versions) {
    for (const Order order : {Order::Little, Order::Big}) {
      const bool accepted = (major == 2 && minor <= 4) || (major == 543 && minor == 0);
      const std::string label = "version " + std::to_string(major) + "." + std::to_string(minor);
      const Bytes file = concat({header(kMagicMicro, order, major, minor, 65535, 1),
                                 pcap_record(1, 2, pattern(60, 1), 60, 100, order),  // caplen < len
                                 pcap_record(3, 4, pattern(60, 2), 60, 20, order),   // caplen > len
                                 pcap_record(5, 6, pattern(20, 3), 20, 20, order),
                                 pcap_record(5, 6, pattern(20, 3), 20, 60, order)});
      const Outcome outcome = expect_same_bytes(
          dir_, file, accepted ? std::optional(Backend::Classic) : std::nullopt, label);
      EXPECT_EQ(outcome.open_error.has_value(), !accepted) << label;
    }
  }
}

TEST_F(PcapTest, FastPathTimestamps) {
  const std::uint32_t seconds[] = {0,          1,          1'800'000'000, 0x7FFFFFFF,
                                   0x80000000, 0xFFFFFFFE, 0xFFFFFFFF};
  const std::uint32_t fractions[] = {
      0, 1, 999'999, 1'000'000, 999'999'999, 1'000'000'000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF};
  for (const std::uint32_t magic : {kMagicMicro, kMagicNano}) {
    for (const Order order : {Order::Little, Order::Big}) {
      ByteWriter file(order);
      file.raw(header(magic, order, 2, 4, 262144, 1));
      for (const std::uint32_t sec : seconds) {
        for (const std::uint32_t frac : fractions) {
          file.raw(pcap_record(sec, frac, pattern(14, 1), std::nullopt, std::nullopt, order));
        }
      }
      const Outcome outcome =
          expect_same_bytes(dir_, file.bytes(), Backend::Classic, "magic " + std::to_string(magic));
      EXPECT_EQ(outcome.records.size(), std::size(seconds) * std::size(fractions));
    }
  }
}

// Records longer than the snaplen are cut to it up to the link type's maximum (262144) and are
// errors beyond; a zero or negative snaplen means the maximum, a larger one is kept.
TEST_F(PcapTest, FastPathSnaplenAndCaplenEdges) {
  const std::uint32_t snaplens[] = {
      0, 1, 14, 64, 100, 65535, 262143, 262144, 262145, 300000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF};
  for (const std::uint32_t snaplen : snaplens) {
    std::set<std::uint32_t> caplens = {0, 1, 13, 100, 262143, 262144, 262145, 300000};
    for (const std::int64_t delta : {-1, 0, 1, 5000}) {
      const std::int64_t c = std::int64_t{snaplen} + delta;
      if (c >= 0 && c <= 300000) caplens.insert(static_cast<std::uint32_t>(c));
    }
    for (const std::uint32_t caplen : caplens) {
      for (const Order order : {Order::Little, Order::Big}) {
        const std::string label =
            "snaplen " + std::to_string(snaplen) + " caplen " + std::to_string(caplen);
        const Bytes file = concat({header(kMagicMicro, order, 2, 4, snaplen, 1),
                                   pcap_record(1, 2, pattern(10, 1), 10, 10, order),
                                   pcap_record(3, 4, pattern(caplen, 2), caplen, caplen + 7, order),
                                   pcap_record(5, 6, pattern(12, 3), 12, 12, order)});
        expect_same_bytes(dir_, file, Backend::Classic, label);
        // The same record cut short: inside what would be kept, at the kept size, inside what
        // would be skipped, one byte short.
        const std::size_t record_start = 24 + 26;
        const std::uint32_t snapshot = snaplen == 0 || snaplen > 0x7FFFFFFF ? 262144 : snaplen;
        const std::uint64_t kept = std::min(caplen, snapshot);
        for (const std::uint64_t body : {std::uint64_t{0}, kept / 2, kept, kept + 1,
                                         (kept + caplen) / 2, std::uint64_t{caplen} - 1}) {
          if (body >= caplen) continue;
          Bytes cut(file.begin(),
                    file.begin() + static_cast<std::ptrdiff_t>(record_start + 16 + body));
          expect_same_bytes(dir_, cut, Backend::Classic, label + " cut " + std::to_string(body));
        }
      }
    }
  }
}

// The error cases of reader_test.cpp, with libpcap's texts asserted on the Classic backend too.
TEST_F(PcapTest, FastPathReaderTestErrors) {
  const Bytes good = concat({pcap_header(1, 262144), pcap_record(1, 2, pattern(60, 1)),
                             pcap_record(3, 4, pattern(61, 2))});
  struct Case {
    const char* name;
    Bytes tail;
    const char* reason;
  };
  Bytes half_header = pcap_record(5, 6, pattern(10, 3));
  half_header.resize(8);
  const Case cases[] = {
      {"header cut in half", half_header,
       "truncated dump file; tried to read 16 header bytes, only got 8"},
      {"caplen beyond end", pcap_record(5, 6, pattern(100, 4), 1000, 1000),
       "truncated dump file; tried to read 1000 captured bytes, only got 100"},
      {"caplen above maximum", pcap_record(5, 6, pattern(100, 4), 300000, 300000),
       "invalid packet capture length 300000, bigger than snaplen of 262144"},
  };
  for (const Case& c : cases) {
    const Outcome outcome =
        expect_same_bytes(dir_, concat({good, c.tail}), Backend::Classic, c.name);
    ASSERT_EQ(outcome.records.size(), 2u) << c.name;
    ASSERT_TRUE(outcome.error) << c.name;
    EXPECT_EQ(outcome.error->frame(), 3u) << c.name;
    EXPECT_EQ(outcome.error->offset(), 177u) << c.name;
    EXPECT_EQ(outcome.error->reason(), c.reason) << c.name;
  }
  // Cut short inside the part kept of a record above the snaplen: libpcap names the snaplen.
  const Bytes snap = concat({pcap_header(1, 100), pcap_record(1, 2, pattern(200, 2))});
  const Outcome outcome = expect_same_bytes(dir_, Bytes(snap.begin(), snap.begin() + 24 + 16 + 50),
                                            Backend::Classic, "snap cut");
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->reason(),
            "truncated dump file; tried to read 100 captured bytes, only got 50");
  const Outcome skipped = expect_same_bytes(dir_, Bytes(snap.begin(), snap.begin() + 24 + 16 + 150),
                                            Backend::Classic, "skip cut");
  ASSERT_TRUE(skipped.error);
  EXPECT_EQ(skipped.error->reason(),
            "truncated dump file; tried to read 200 captured bytes, only got 150");
  // A snaplen above the maximum is kept, so the other message of libpcap appears.
  const Outcome above = expect_same_bytes(
      dir_, concat({pcap_header(1, 1'000'000), pcap_record(1, 2, pattern(10, 1), 300000, 300000)}),
      Backend::Classic, "above maximum");
  ASSERT_TRUE(above.error);
  EXPECT_EQ(above.error->reason(),
            "invalid packet capture length 300000, bigger than maximum of 262144");
}

// Every prefix of a small file, the short file headers included.
TEST_F(PcapTest, FastPathEveryPrefix) {
  for (const Order order : {Order::Little, Order::Big}) {
    const Bytes file = concat({header(kMagicNano, order, 2, 4, 100, 113),
                               pcap_record(1, 2, pattern(30, 1), std::nullopt, 40, order),
                               pcap_record(3, 4, pattern(120, 2), std::nullopt, 140, order),
                               pcap_record(5, 6, pattern(5, 3), std::nullopt, 5, order)});
    for (std::size_t size = 0; size <= file.size(); ++size) {
      expect_same_bytes(dir_, Bytes(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(size)),
                        size >= 24 ? std::optional(Backend::Classic) : std::nullopt,
                        "prefix " + std::to_string(size));
    }
  }
}

// libpcap byte-swaps the CAN ID after a Linux cooked header in a file of the other byte order
// (swap_pseudo_headers); the Classic backend must hand over the same bytes.
TEST_F(PcapTest, FastPathSwappedCookedCanFrames) {
  // CAN, CAN FD, IPv4, and CAN written the other way round (not swapped).
  constexpr std::uint16_t kProtocols[] = {0x000C, 0x000D, 0x0800, 0x0C00};
  for (const std::uint32_t linktype : {113u, 276u}) {
    const std::size_t protocol_at = linktype == 113 ? 14 : 0;
    const std::uint32_t cooked = linktype == 113 ? 16 : 20;
    for (const Order order : {Order::Little, Order::Big}) {
      for (const std::uint16_t protocol : kProtocols) {
        ByteWriter file(order);
        file.raw(header(kMagicMicro, order, 2, 4, 262144, linktype));
        for (std::uint32_t caplen = cooked - 2; caplen <= cooked + 6; ++caplen) {
          for (const std::uint32_t len : {cooked - 1, cooked, cooked + 3, cooked + 4, 100u}) {
            Bytes data = pattern(caplen, static_cast<std::uint8_t>(caplen));
            if (caplen >= protocol_at + 2) {
              data[protocol_at] = static_cast<std::uint8_t>(protocol >> 8);
              data[protocol_at + 1] = static_cast<std::uint8_t>(protocol);
            }
            file.raw(pcap_record(1, 2, data, caplen, len, order));
          }
        }
        expect_same_bytes(
            dir_, file.bytes(), Backend::Classic,
            "linktype " + std::to_string(linktype) + " protocol " + std::to_string(protocol));
      }
    }
  }
  // And through the snaplen cut: the pseudo-header is fixed on the kept bytes.
  for (const Order order : {Order::Little, Order::Big}) {
    Bytes data = pattern(100, 9);
    data[14] = 0;
    data[15] = 0x0C;
    expect_same_bytes(dir_,
                      concat({header(kMagicMicro, order, 2, 4, 22, 113),
                              pcap_record(1, 2, data, 100, 100, order)}),
                      Backend::Classic, "cooked snaplen cut");
  }
}

// Files much larger than the read buffer, with records straddling every refill, the largest
// records the format allows among them.
TEST_F(PcapTest, FastPathLargeFiles) {
  std::mt19937 rng(20260101);
  for (const Order order : {Order::Little, Order::Big}) {
    ByteWriter file(order);
    file.raw(header(kMagicNano, order, 2, 4, 262144, 1));
    std::uniform_int_distribution<std::uint32_t> size(0, 9000);
    for (int i = 0; i < 2500; ++i) {
      const std::uint32_t caplen = i % 500 == 7 ? 262144 : size(rng);
      file.raw(pcap_record(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i * 3),
                           pattern(caplen, static_cast<std::uint8_t>(i)), std::nullopt, caplen + 4,
                           order));
    }
    const Outcome outcome = expect_same_bytes(dir_, file.bytes(), Backend::Classic, "large");
    EXPECT_EQ(outcome.records.size(), 2500u);
    EXPECT_FALSE(outcome.error);
  }
  // Back-to-back maximum-size records, and the same file cut inside its last record.
  ByteWriter big;
  big.raw(header(kMagicMicro, Order::Little, 2, 4, 262144, 1));
  for (int i = 0; i < 12; ++i)
    big.raw(pcap_record(1, 2, pattern(262144, static_cast<std::uint8_t>(i))));
  expect_same_bytes(dir_, big.bytes(), Backend::Classic, "maximum records");
  Bytes cut = big.bytes();
  cut.resize(cut.size() - 1000);
  expect_same_bytes(dir_, cut, Backend::Classic, "maximum records cut");
}

// Random damage to record headers and bodies (seeded, so a failure reproduces).
TEST_F(PcapTest, FastPathRandomDamage) {
  std::mt19937 rng(7);
  for (const Order order : {Order::Little, Order::Big}) {
    const Bytes base = concat({header(kMagicMicro, order, 2, 4, 2000, 1),
                               assorted_records(order, 5), assorted_records(order, 6)});
    for (int round = 0; round < 400; ++round) {
      Bytes file = base;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        const std::size_t at = 24 + rng() % (file.size() - 24);
        file[at] = static_cast<std::uint8_t>(rng());
      }
      if (rng() % 3 == 0) file.resize(24 + rng() % (file.size() - 24));
      expect_same_bytes(dir_, file, Backend::Classic, "round " + std::to_string(round));
    }
  }
}

// --- Left to libpcap ---------------------------------------------------------------------------

TEST_F(PcapTest, LibpcapKeepsWhatIsNotClassicPcapOnDisk) {
  // pcapng.
  const std::string ng = dir_.file("two.pcapng");
  write_file(ng, concat({testing::pcapng_shb(), testing::pcapng_idb(1, 65535, 9),
                         testing::pcapng_epb(1, pattern(60, 1))}));
  EXPECT_EQ(expect_same(ng, Backend::Libpcap, "pcapng").records.size(), 1u);
  // Kuznetsov's modified pcap: a longer record header only libpcap knows.
  for (const Order order : {Order::Little, Order::Big}) {
    ByteWriter kuznetsov(order);
    kuznetsov.raw(header(0xA1B2CD34, order, 2, 4, 65535, 1));
    kuznetsov.u32(1).u32(2).u32(20).u32(20).u32(7).u16(8).u8(1).u8(0).raw(pattern(20, 1));
    EXPECT_EQ(
        expect_same_bytes(dir_, kuznetsov.bytes(), Backend::Libpcap, "kuznetsov").records.size(),
        1u);
  }
  // In memory.
  const Bytes bytes = read_file(real_capture("rc_pingpong_64_mtu1024"));
  EXPECT_EQ(Reader::from_memory(bytes, "memory").backend(), Backend::Libpcap);
  // The same errors for what cannot be opened at all.
  expect_same(dir_.file("missing.pcap"), std::nullopt, "missing");
  expect_same(dir_.file(""), std::nullopt, "directory");
}

TEST_F(PcapTest, LibpcapReadsAFifo) {
  const std::string path = dir_.file("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const Bytes bytes = read_file(real_capture("rc_pingpong_64_mtu1024"));
  std::thread writer([&] {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  });
  Reader reader(path);
  EXPECT_EQ(reader.backend(), Backend::Libpcap);
  const auto records = read_all(reader);
  writer.join();
  const auto expected = read_all(real_capture("rc_pingpong_64_mtu1024"));
  ASSERT_EQ(records.size(), expected.size());
  for (std::size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].data, expected[i].data);
}

// --- Behaviour of the Classic backend itself ---------------------------------------------------

// A file that grows after it was opened (a capture still being written) is read to its new
// end, by both backends, even with records bigger than the buffer sized for the small file.
TEST_F(PcapTest, FastPathFileGrowingAfterOpen) {
  const std::string path = dir_.file("growing.pcap");
  write_file(path, concat({pcap_header(), pcap_record(1, 2, pattern(20, 1))}));
  Reader classic(path);
  Reader libpcap = Reader::open_with_libpcap(path);
  ASSERT_EQ(classic.backend(), Backend::Classic);
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    const Bytes more = concat({pcap_record(3, 4, pattern(200'000, 2)),
                               pcap_record(5, 6, pattern(262'144, 3)), pcap_record(7, 8, {})});
    out.write(reinterpret_cast<const char*>(more.data()),
              static_cast<std::streamsize>(more.size()));
  }
  const auto from_classic = read_all(classic);
  EXPECT_EQ(from_classic.size(), 4u);
  EXPECT_EQ(from_classic, read_all(libpcap));
}

TEST_F(PcapTest, FastPathErrorSticksAndMoveKeepsPosition) {
  const std::string path = dir_.file("sticky.pcap");
  write_file(path, concat({pcap_header(), pcap_record(1, 2, pattern(60, 1)),
                           pcap_record(3, 4, pattern(61, 2)),
                           pcap_record(5, 6, pattern(10, 3), 1000, 1000)}));
  Reader first(path);
  ASSERT_EQ(first.backend(), Backend::Classic);
  Record rec;
  ASSERT_TRUE(first.next(rec));
  Reader second(std::move(first));
  EXPECT_FALSE(first.next(rec));  // NOLINT(bugprone-use-after-move): documented behaviour
  ASSERT_TRUE(second.next(rec));
  EXPECT_EQ(rec.frame, 2u);
  EXPECT_EQ(rec.file_offset, 100u);
  Reader third = std::move(second);
  // The span handed out before the move still points at the record's bytes.
  EXPECT_EQ(Bytes(rec.data.begin(), rec.data.end()), pattern(61, 2));
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      third.next(rec);
      FAIL() << "no error";
    } catch (const CaptureError& e) {
      EXPECT_EQ(e.frame(), 3u);
      EXPECT_EQ(e.offset(), 177u);
      EXPECT_EQ(e.reason(), "truncated dump file; tried to read 1000 captured bytes, only got 10");
    }
  }
  EXPECT_EQ(third.frames_read(), 2u);
}

}  // namespace
}  // namespace rocecert::pcap
