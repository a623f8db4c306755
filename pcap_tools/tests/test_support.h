// Shared helpers for the pcap_tools tests: a per-test scratch directory, hand-built pcap and
// pcapng bytes (so that the reader is checked against files this code did not write), and
// reading a whole capture into owned records.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "rocecert/pcap/reader.h"

namespace rocecert::pcap::testing {

using Bytes = std::vector<std::uint8_t>;

// A directory of its own for each test; ctest may run the test processes in parallel, so the
// name carries the process id as well as a counter.
class TempDir {
 public:
  TempDir() {
    static std::atomic<unsigned> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("rocecert-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

class PcapTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

inline void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

inline Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Byte order of the file being built.
enum class Order { Little, Big };

class ByteWriter {
 public:
  explicit ByteWriter(Order order = Order::Little) : order_(order) {}
  ByteWriter& u8(std::uint8_t v) {
    bytes_.push_back(v);
    return *this;
  }
  ByteWriter& u16(std::uint16_t v) { return uint(v, 2); }
  ByteWriter& u32(std::uint32_t v) { return uint(v, 4); }
  ByteWriter& raw(const Bytes& b) {
    bytes_.insert(bytes_.end(), b.begin(), b.end());
    return *this;
  }
  ByteWriter& pad4() {
    while (bytes_.size() % 4 != 0) bytes_.push_back(0);
    return *this;
  }
  const Bytes& bytes() const { return bytes_; }
  std::size_t size() const { return bytes_.size(); }

 private:
  ByteWriter& uint(std::uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) {
      const unsigned shift = order_ == Order::Little ? 8 * i : 8 * (width - 1 - i);
      bytes_.push_back(static_cast<std::uint8_t>(v >> shift));
    }
    return *this;
  }
  Order order_;
  Bytes bytes_;
};

constexpr std::uint32_t kMagicMicro = 0xA1B2C3D4;
constexpr std::uint32_t kMagicNano = 0xA1B23C4D;

// pcap file header: magic, version 2.4, thiszone, sigfigs, snaplen, link type.
inline Bytes pcap_header(std::uint32_t linktype = 1, std::uint32_t snaplen = 262144,
                         std::uint32_t magic = kMagicMicro, Order order = Order::Little) {
  ByteWriter w(order);
  w.u32(magic).u16(2).u16(4).u32(0).u32(0).u32(snaplen).u32(linktype);
  return w.bytes();
}

// One pcap record; caplen and len default to the data size.
inline Bytes pcap_record(std::uint32_t sec, std::uint32_t frac, const Bytes& data,
                         std::optional<std::uint32_t> caplen = std::nullopt,
                         std::optional<std::uint32_t> len = std::nullopt,
                         Order order = Order::Little) {
  const auto size = static_cast<std::uint32_t>(data.size());
  ByteWriter w(order);
  w.u32(sec).u32(frac).u32(caplen.value_or(size)).u32(len.value_or(size)).raw(data);
  return w.bytes();
}

// pcapng blocks. body is everything between the total length fields; it is padded to 32 bits.
inline Bytes pcapng_block(std::uint32_t type, const Bytes& body, Order order = Order::Little) {
  ByteWriter padded;
  padded.raw(body).pad4();
  const auto total = static_cast<std::uint32_t>(12 + padded.size());
  ByteWriter w(order);
  w.u32(type).u32(total).raw(padded.bytes()).u32(total);
  return w.bytes();
}

inline Bytes pcapng_shb(Order order = Order::Little) {
  ByteWriter body(order);
  body.u32(0x1A2B3C4D).u16(1).u16(0).u32(0xFFFFFFFF).u32(0xFFFFFFFF);
  return pcapng_block(0x0A0D0D0A, body.bytes(), order);
}

// tsresol: the if_tsresol byte (6 = µs, 9 = ns), or nullopt for none (µs by default).
inline Bytes pcapng_idb(std::uint16_t linktype, std::uint32_t snaplen,
                        std::optional<std::uint8_t> tsresol, Order order = Order::Little) {
  ByteWriter body(order);
  body.u16(linktype).u16(0).u32(snaplen);
  if (tsresol) body.u16(9).u16(1).u8(*tsresol).pad4().u16(0).u16(0);
  return pcapng_block(1, body.bytes(), order);
}

inline Bytes pcapng_epb(std::uint64_t ts_units, const Bytes& data,
                        std::optional<std::uint32_t> len = std::nullopt,
                        Order order = Order::Little) {
  const auto size = static_cast<std::uint32_t>(data.size());
  ByteWriter body(order);
  body.u32(0)
      .u32(static_cast<std::uint32_t>(ts_units >> 32))
      .u32(static_cast<std::uint32_t>(ts_units))
      .u32(size)
      .u32(len.value_or(size))
      .raw(data);
  return pcapng_block(6, body.bytes(), order);
}

inline Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline Bytes pattern(std::size_t size, std::uint8_t seed) {
  Bytes out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::uint8_t>(seed + i * 7);
  return out;
}

// A record with its bytes copied out of the reader's buffer.
struct OwnedRecord {
  std::uint64_t frame = 0;
  std::uint64_t file_offset = 0;
  std::int64_t ts_ns = 0;
  std::uint32_t caplen = 0;
  std::uint32_t len = 0;
  Bytes data;
  bool operator==(const OwnedRecord&) const = default;
};

inline std::vector<OwnedRecord> read_all(Reader& reader) {
  std::vector<OwnedRecord> out;
  Record rec;
  while (reader.next(rec)) {
    out.push_back({rec.frame, rec.file_offset, rec.ts_ns, rec.caplen, rec.len,
                   Bytes(rec.data.begin(), rec.data.end())});
  }
  return out;
}

inline std::vector<OwnedRecord> read_all(const std::string& path) {
  Reader reader(path);
  return read_all(reader);
}

// Reads until the reader throws; returns the good records and the error.
struct ReadUntilError {
  std::vector<OwnedRecord> records;
  std::optional<CaptureError> error;
};

inline ReadUntilError read_until_error(Reader& reader) {
  ReadUntilError result;
  try {
    Record rec;
    while (reader.next(rec)) {
      result.records.push_back({rec.frame, rec.file_offset, rec.ts_ns, rec.caplen, rec.len,
                                Bytes(rec.data.begin(), rec.data.end())});
    }
  } catch (const CaptureError& e) {
    result.error = e;
  }
  return result;
}

}  // namespace rocecert::pcap::testing
