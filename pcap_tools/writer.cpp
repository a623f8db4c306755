#include "rocecert/pcap/writer.h"

#include <pcap/pcap.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace rocecert::pcap {

namespace {

constexpr std::int64_t kNsPerSec = 1'000'000'000;
constexpr int kLinktypeRaw = 101;
constexpr int kDltRaw = DLT_RAW;  // 12 on Linux, 14 on OpenBSD

// pcapng block types and option codes, as the pcapng specification (IETF draft-ietf-opsawg-pcapng)
// defines the Section Header, Interface Description and Enhanced Packet Blocks.
constexpr std::uint32_t kShbType = 0x0A0D0D0A;
constexpr std::uint32_t kIdbType = 0x00000001;
constexpr std::uint32_t kEpbType = 0x00000006;
constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr std::uint16_t kOptEndOfOpt = 0;
constexpr std::uint16_t kOptIfTsresol = 9;

std::string errno_text() {
  return std::error_code(errno, std::generic_category()).message();
}

// Little-endian block assembly: the file is little-endian whatever the host (the byte-order
// magic lets readers cope either way, but fixed output keeps the bytes reproducible).
template <std::size_t N>
class BlockBytes {
 public:
  void u16(std::uint16_t v) {
    put(static_cast<std::uint8_t>(v));
    put(static_cast<std::uint8_t>(v >> 8));
  }
  void u32(std::uint32_t v) {
    u16(static_cast<std::uint16_t>(v));
    u16(static_cast<std::uint16_t>(v >> 16));
  }
  void u64(std::uint64_t v) {
    u32(static_cast<std::uint32_t>(v));
    u32(static_cast<std::uint32_t>(v >> 32));
  }
  void put(std::uint8_t b) { bytes_.at(size_++) = b; }
  const std::uint8_t* data() const { return bytes_.data(); }
  std::size_t size() const { return size_; }

 private:
  std::array<std::uint8_t, N> bytes_{};
  std::size_t size_ = 0;
};

}  // namespace

struct Writer::Sink {
  std::string path;
  Format format = Format::Pcap;
  Precision precision = Precision::Nano;
  std::uint32_t snaplen = 0;
  // Format::Pcap: a dead handle carries link type, snaplen and precision for the dumper.
  pcap_t* dead = nullptr;
  pcap_dumper_t* dumper = nullptr;
  // Format::Pcapng: our own stream.
  std::FILE* file = nullptr;

  Sink() = default;
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() { release(); }

  // Closes whatever is open, ignoring errors (the destructor path; close() checks first).
  void release() noexcept {
    if (dumper != nullptr) pcap_dump_close(dumper);
    if (dead != nullptr) pcap_close(dead);
    if (file != nullptr) std::fclose(file);
    dumper = nullptr;
    dead = nullptr;
    file = nullptr;
  }

  std::FILE* stream() const { return dumper != nullptr ? pcap_dump_file(dumper) : file; }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(path + ": " + what);
  }

  void write_bytes(const void* data, std::size_t size) {
    if (size != 0 && std::fwrite(data, 1, size, file) != size)
      fail("write failed: " + errno_text());
  }

  void open_pcap(int linktype) {
    // pcap_open_dead wants a DLT_ value and pcap_dump_open maps it back to the LINKTYPE_ value
    // it writes. They coincide except for raw IP, whose LINKTYPE_RAW (101) is no DLT here.
    const int dlt = linktype == kLinktypeRaw ? kDltRaw : linktype;
    const u_int tstamp =
        precision == Precision::Nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO;
    dead = pcap_open_dead_with_tstamp_precision(dlt, static_cast<int>(snaplen), tstamp);
    if (dead == nullptr)
      fail("cannot create a pcap handle for link type " + std::to_string(linktype));
    // pcap_dump_open treats "-" as standard output; "./-" is the same file without that.
    const std::string name = path == "-" ? "./-" : path;
    dumper = pcap_dump_open(dead, name.c_str());
    // libpcap's message already names the file.
    if (dumper == nullptr) throw std::runtime_error(pcap_geterr(dead));
  }

  void open_pcapng(int linktype) {
    file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) fail("cannot create: " + errno_text());

    // Section Header Block: type, total length, byte-order magic, version 1.0, section length
    // -1 (unknown: we stream), no options, total length again.
    BlockBytes<28> shb;
    shb.u32(kShbType);
    shb.u32(28);
    shb.u32(kByteOrderMagic);
    shb.u16(1);
    shb.u16(0);
    shb.u64(~std::uint64_t{0});
    shb.u32(28);
    write_bytes(shb.data(), shb.size());

    // Interface Description Block: link type, reserved, snaplen, then if_tsresol (a power of
    // ten: 6 = microseconds, 9 = nanoseconds; without it readers assume microseconds), padded
    // to 32 bits, and opt_endofopt.
    BlockBytes<32> idb;
    idb.u32(kIdbType);
    idb.u32(32);
    idb.u16(static_cast<std::uint16_t>(linktype));
    idb.u16(0);
    idb.u32(snaplen);
    idb.u16(kOptIfTsresol);
    idb.u16(1);
    idb.put(precision == Precision::Nano ? std::uint8_t{9} : std::uint8_t{6});
    idb.put(0);
    idb.put(0);
    idb.put(0);
    idb.u16(kOptEndOfOpt);
    idb.u16(0);
    idb.u32(32);
    write_bytes(idb.data(), idb.size());
  }

  void write_pcap(std::int64_t sec, std::int64_t frac, std::span<const std::uint8_t> frame,
                  std::uint32_t caplen, std::uint32_t len) {
    pcap_pkthdr hdr{};
    // pcap seconds are unsigned 32-bit on disk, but libpcap 1.10 narrows tv_sec to a signed
    // int32: hand it the value that narrows to the right bits (C++20 conversion is modular).
    hdr.ts.tv_sec = static_cast<std::int32_t>(static_cast<std::uint32_t>(sec));
    hdr.ts.tv_usec = static_cast<suseconds_t>(frac);  // nanoseconds for a nanosecond dumper
    hdr.caplen = caplen;
    hdr.len = len;
    pcap_dump(reinterpret_cast<u_char*>(dumper), &hdr, frame.data());
    // pcap_dump reports nothing; the stream's error flag tells.
    if (std::ferror(pcap_dump_file(dumper)) != 0) fail("write failed: " + errno_text());
  }

  void write_pcapng(std::uint64_t units, std::span<const std::uint8_t> frame, std::uint32_t caplen,
                    std::uint32_t len) {
    // Enhanced Packet Block: interface 0, 64-bit timestamp in if_tsresol units (high word
    // first), captured and original length, data padded to 32 bits, no options.
    const std::uint32_t padded = (caplen + 3u) & ~3u;
    const std::uint32_t total = 32 + padded;
    BlockBytes<28> head;
    head.u32(kEpbType);
    head.u32(total);
    head.u32(0);
    head.u32(static_cast<std::uint32_t>(units >> 32));
    head.u32(static_cast<std::uint32_t>(units));
    head.u32(caplen);
    head.u32(len);
    write_bytes(head.data(), head.size());
    write_bytes(frame.data(), caplen);
    static constexpr std::array<std::uint8_t, 3> kPad{};
    write_bytes(kPad.data(), padded - caplen);
    BlockBytes<4> tail;
    tail.u32(total);
    write_bytes(tail.data(), tail.size());
  }
};

Writer::Writer(const std::string& path, int linktype, Precision precision, Format format,
               std::uint32_t snaplen)
    : sink_(std::make_unique<Sink>()) {
  if (snaplen == 0 || snaplen > static_cast<std::uint32_t>(INT_MAX)) {
    throw std::invalid_argument(path + ": snaplen " + std::to_string(snaplen) + " is outside 1.." +
                                std::to_string(INT_MAX));
  }
  sink_->path = path;
  sink_->format = format;
  sink_->precision = precision;
  sink_->snaplen = snaplen;
  switch (format) {
    case Format::Pcap:
      sink_->open_pcap(linktype);
      break;
    case Format::Pcapng:
      // The IDB holds the link type in 16 bits.
      if (linktype < 0 || linktype > 0xFFFF) {
        throw std::invalid_argument(path + ": link type " + std::to_string(linktype) +
                                    " does not fit a pcapng interface block");
      }
      sink_->open_pcapng(linktype);
      break;
  }
}

Writer::Writer(Writer&& other) noexcept = default;
Writer& Writer::operator=(Writer&& other) noexcept = default;
Writer::~Writer() = default;

void Writer::write(std::int64_t ts_ns, std::span<const std::uint8_t> frame,
                   std::uint32_t orig_len) {
  if (sink_ == nullptr) throw std::logic_error("rocecert::pcap::Writer used after close()");
  Sink& sink = *sink_;
  const std::uint32_t caplen =
      frame.size() < sink.snaplen ? static_cast<std::uint32_t>(frame.size()) : sink.snaplen;
  if (orig_len == 0) {
    if (frame.size() > UINT32_MAX) {
      throw std::invalid_argument(sink.path + ": a frame of " + std::to_string(frame.size()) +
                                  " bytes has no 32-bit original length");
    }
    orig_len = static_cast<std::uint32_t>(frame.size());
  }
  if (orig_len < caplen) {
    throw std::invalid_argument(sink.path + ": original length " + std::to_string(orig_len) +
                                " is below the " + std::to_string(caplen) + " captured bytes");
  }
  if (ts_ns < 0) {
    throw std::out_of_range(sink.path + ": timestamp " + std::to_string(ts_ns) +
                            " ns is before 1970");
  }
  const std::int64_t sec = ts_ns / kNsPerSec;
  const std::int64_t ns = ts_ns % kNsPerSec;
  switch (sink.format) {
    case Format::Pcap:
      if (sec > UINT32_MAX) {
        throw std::out_of_range(sink.path + ": timestamp " + std::to_string(ts_ns) +
                                " ns is past 2106-02-07, which pcap cannot hold (use pcapng)");
      }
      sink.write_pcap(sec, sink.precision == Precision::Nano ? ns : ns / 1000, frame, caplen,
                      orig_len);
      break;
    case Format::Pcapng: {
      const auto ns_total = static_cast<std::uint64_t>(ts_ns);
      sink.write_pcapng(sink.precision == Precision::Nano ? ns_total : ns_total / 1000, frame,
                        caplen, orig_len);
      break;
    }
  }
}

void Writer::close() {
  if (sink_ == nullptr) return;
  // Whatever happens, the sink is gone afterwards (its destructor releases what is left).
  const std::unique_ptr<Sink> sink = std::move(sink_);
  std::FILE* stream = sink->stream();
  errno = 0;
  // ferror catches a failure of an earlier buffered write that nobody has reported yet.
  bool ok = std::fflush(stream) == 0 && std::ferror(stream) == 0;
  int error = errno;
  if (sink->dumper != nullptr) {
    // pcap_dump_close returns nothing; it fcloses a stream we have just flushed, so nothing is
    // left that could fail to reach the file.
    pcap_dump_close(sink->dumper);
    sink->dumper = nullptr;
  } else {
    if (std::fclose(sink->file) != 0) {
      ok = false;
      if (error == 0) error = errno;
    }
    sink->file = nullptr;
  }
  if (!ok) {
    sink->fail("cannot finish writing: " +
               (error != 0 ? std::error_code(error, std::generic_category()).message()
                           : std::string("an earlier write failed")));
  }
}

}  // namespace rocecert::pcap
