// Streaming reader over pcap and pcapng captures. libpcap does the parsing (both byte orders,
// micro- and nanosecond pcap, pcapng), except for classic pcap files on disk, which a parser of
// our own reads at under half libpcap's cost per record (bench/capture_bench) and record for
// record as libpcap does (libpcap is its test oracle). This wrapper owns the handle, turns every
// failure into a CaptureError that names the file, the frame and the byte offset (every
// unusable input gets one such line), and maps the link type onto the decoder's wire::LinkType.
// <pcap.h> stays out of this header: libpcap is a private dependency of rocecert_pcap.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "rocecert/wire/decode.h"

namespace rocecert::pcap {

// An unusable capture. frame is the 1-based frame being read when it failed (0 = the file
// header), offset the byte offset in the file where reading that frame began: its pcap record
// header, or in pcapng the first block after the previous packet (normally the failing packet
// block itself; libpcap does not say which of several blocks read in one go was bad).
class CaptureError : public std::runtime_error {
 public:
  CaptureError(std::string file, std::uint64_t frame, std::uint64_t offset, std::string what);

  const std::string& file() const noexcept { return file_; }
  std::uint64_t frame() const noexcept { return frame_; }
  std::uint64_t offset() const noexcept { return offset_; }
  // The reason alone (usually libpcap's own text); what() is the full one-line message
  // "FILE: frame N, byte offset O: REASON".
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  std::uint64_t frame_;
  std::uint64_t offset_;
  std::string reason_;
};

struct Record {
  std::uint64_t frame = 0;        // 1-based
  std::uint64_t file_offset = 0;  // byte offset of the record (pcap record header / pcapng block)
  std::int64_t ts_ns = 0;         // nanoseconds since the Unix epoch
  std::uint32_t caplen = 0;       // bytes captured (= data.size())
  std::uint32_t len = 0;          // bytes on the wire
  std::span<const std::uint8_t> data;  // the reader's buffer: valid until the next call to next()
};

// Move-only. Reads one record at a time; the file is never loaded whole.
class Reader {
 public:
  // Which parser reads the capture.
  enum class Backend : std::uint8_t {
    Libpcap,  // pcapng, captures in memory, pipes, and anything open_with_libpcap opens
    Classic,  // our own, for a regular file in classic pcap (µs or ns, either byte order)
  };

  // Throws CaptureError (frame 0, offset 0) when the file is missing, unreadable, empty, neither
  // pcap nor pcapng, or of a link type we do not decode. The path is opened as given: "-" is a
  // file named "-", not standard input. Classic pcap files get the Classic backend.
  explicit Reader(const std::string& path);
  // The same with libpcap whatever the format: the reference the Classic backend is tested
  // against (records, errors, offsets and messages must all agree).
  static Reader open_with_libpcap(const std::string& path);
  // Reads a capture held in memory (fuzzing, tests, captures unpacked from elsewhere). The bytes
  // are copied, so the span need not outlive the call; name stands for the path in messages.
  static Reader from_memory(std::span<const std::uint8_t> bytes, std::string name);

  Reader(Reader&& other) noexcept;
  Reader& operator=(Reader&& other) noexcept;
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader();

  // Fills rec with the next record and returns true; returns false at a clean end of file.
  // Throws CaptureError for a record that is cut short or corrupt, only after every good record
  // before it was returned; once it has thrown, every later call throws the same error again.
  // A moved-from Reader returns false.
  bool next(Record& rec);

  int linktype() const noexcept { return linktype_; }  // LINKTYPE_* value (raw IP: 101)
  wire::LinkType link() const noexcept { return link_; }
  const std::string& path() const noexcept { return path_; }
  std::uint64_t frames_read() const noexcept { return frames_read_; }
  Backend backend() const noexcept { return backend_; }

 private:
  // The libpcap handle (and, for from_memory, the bytes it reads) or our classic pcap parser.
  struct Source;
  Reader(std::unique_ptr<Source> source, std::string path);
  static std::unique_ptr<Source> open_file(const std::string& path, bool allow_classic);
  bool next_classic(Record& rec);
  bool next_libpcap(Record& rec);
  bool deliver(Record& rec, std::uint64_t offset, std::int64_t sec, std::int64_t frac_ns,
               std::uint32_t caplen, std::uint32_t len, const std::uint8_t* data);

  std::unique_ptr<Source> source_;
  Backend backend_ = Backend::Libpcap;
  std::string path_;
  int linktype_ = 0;
  wire::LinkType link_ = wire::LinkType::Ethernet;
  std::uint64_t frames_read_ = 0;
  bool at_end_ = false;
  std::optional<CaptureError> failure_;
};

}  // namespace rocecert::pcap
