// Reader's own parser for classic pcap files (private to rocecert_pcap). libpcap reads each
// record with two fread calls through stdio's buffer into its own; this parser reads large
// chunks into one bounded buffer and hands out records in place, which bench/capture_bench
// showed to be most of the cost of reading. It mirrors libpcap 1.10.3's sf-pcap.c record by
// record, error text included, and libpcap stays the oracle (tests/fast_reader_test.cpp, the
// fuzz target). It only takes files it can mirror exactly: anything else is left to libpcap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace rocecert::pcap::detail {

// One record as libpcap would hand it over, before Reader turns it into a Record.
struct RawRecord {
  std::uint64_t offset = 0;  // of the record header in the file
  std::int64_t sec = 0;      // the file's unsigned 32-bit seconds
  std::int64_t frac_ns = 0;  // sub-second part in ns; signed and unbounded, as libpcap reads it
  std::uint32_t caplen = 0;
  std::uint32_t len = 0;
  const std::uint8_t* data = nullptr;  // into the parser's buffer, valid until the next next()
};

class FastPcapFile {
 public:
  enum class Status { Record, End, Error };

  // Takes fd over when it is a regular file holding a classic pcap header (µs or ns magic,
  // either byte order) of a version libpcap accepts and a link type Reader decodes. Otherwise
  // returns nullptr with fd still the caller's and its file offset untouched (pread only), so
  // the caller can hand it to libpcap, which reports the same errors it always did.
  static std::unique_ptr<FastPcapFile> open(int fd);

  FastPcapFile(const FastPcapFile&) = delete;
  FastPcapFile& operator=(const FastPcapFile&) = delete;
  ~FastPcapFile();

  // On Error, error() holds libpcap's text for the same failure.
  Status next(RawRecord& rec);
  const std::string& error() const noexcept { return error_; }

  int dlt() const noexcept { return dlt_; }  // as pcap_datalink() would report it

 private:
  enum class LengthOrder { Normal, Swapped, MaybeSwapped };

  FastPcapFile() = default;
  std::size_t fill(std::size_t need);
  Status fail(std::string reason);
  Status truncated(const char* what, std::uint64_t wanted, std::size_t got);
  void fix_pseudo_header(std::uint8_t* data, std::uint32_t caplen, std::uint32_t len) const;

  int fd_ = -1;
  std::unique_ptr<std::uint8_t[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t pos_ = 0;            // next unread byte in buffer_
  std::size_t end_ = 0;            // end of the bytes read into buffer_
  std::uint64_t buffer_base_ = 0;  // file offset of buffer_[0]
  int read_errno_ = 0;             // a read(2) failure, reported as libpcap's ferror() path

  bool swapped_ = false;
  bool nano_ = false;
  LengthOrder lengths_ = LengthOrder::Normal;
  int dlt_ = 0;
  std::uint32_t snapshot_ = 0;
  std::string error_;
};

}  // namespace rocecert::pcap::detail
