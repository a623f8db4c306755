#include "rocecert/pcap/reader.h"

#include <fcntl.h>
#include <pcap/pcap.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

#include "fast_pcap.h"

namespace rocecert::pcap {

namespace {

// pcap_datalink() reports DLT_* values. They equal the LINKTYPE_* values stored in files for
// every type we decode except raw IP: files say LINKTYPE_RAW (101) and libpcap hands back the
// platform's DLT_RAW, which is 12 here and 14 on OpenBSD (files written there carry 14, which
// libpcap on Linux passes through unchanged).
constexpr int kDltEthernet = 1;
constexpr int kDltRawLinux = 12;
constexpr int kDltRawOpenBsd = 14;
constexpr int kDltLinuxSll = 113;
constexpr int kDltIpv4 = 228;
constexpr int kDltIpv6 = 229;
constexpr int kDltLinuxSll2 = 276;
constexpr int kLinktypeRaw = 101;

struct LinkInfo {
  int linktype;
  wire::LinkType link;
};

std::optional<LinkInfo> classify(int dlt) {
  switch (dlt) {
    case kDltEthernet:
      return LinkInfo{dlt, wire::LinkType::Ethernet};
    case kDltLinuxSll:
      return LinkInfo{dlt, wire::LinkType::LinuxSll};
    case kDltLinuxSll2:
      return LinkInfo{dlt, wire::LinkType::LinuxSll2};
    case kDltRawLinux:
    case kDltRawOpenBsd:
      return LinkInfo{kLinktypeRaw, wire::LinkType::RawIp};
    case kDltIpv4:
    case kDltIpv6:
      return LinkInfo{dlt, wire::LinkType::RawIp};
    default:
      return std::nullopt;
  }
}

std::string format_message(const std::string& file, std::uint64_t frame, std::uint64_t offset,
                           const std::string& reason) {
  return file + ": frame " + std::to_string(frame) + ", byte offset " + std::to_string(offset) +
         ": " + reason;
}

// ftell is -1 on a stream that cannot seek (a FIFO given as the path).
std::optional<std::uint64_t> position(std::FILE* file) {
  const long pos = std::ftell(file);
  if (pos < 0) return std::nullopt;
  return static_cast<std::uint64_t>(pos);
}

std::uint32_t byte_swap(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

// Remembers the error so that later calls to next() report it again, then throws it.
[[noreturn]] void fail(std::optional<CaptureError>& slot, CaptureError error) {
  slot.emplace(std::move(error));
  throw *slot;
}

}  // namespace

CaptureError::CaptureError(std::string file, std::uint64_t frame, std::uint64_t offset,
                           std::string what)
    : std::runtime_error(format_message(file, frame, offset, what)),
      file_(std::move(file)),
      frame_(frame),
      offset_(offset),
      reason_(std::move(what)) {}

struct Reader::Source {
  // Set for a classic pcap file read by our own parser; the members below are then unused.
  std::unique_ptr<detail::FastPcapFile> classic;
  // Declared before handle so that it outlives it; the destructor body closes the handle first
  // in any case. Empty unless the capture came from memory (fmemopen reads this buffer).
  std::vector<std::uint8_t> bytes;
  pcap_t* handle = nullptr;
  std::FILE* file = nullptr;  // owned by handle: pcap_close() fcloses it
  bool pcapng = false;
  bool swapped = false;  // written in the other byte order than the host's
  // Where the next read starts: the end of the previous record (or of the header). Kept from
  // one call to the next because each ftell costs an lseek. nullopt when the stream cannot
  // tell (a FIFO given as the path); offsets then read 0.
  std::optional<std::uint64_t> next_start;

  Source() = default;
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  ~Source() {
    if (handle != nullptr) pcap_close(handle);
  }

  // Takes ownership of fp whatever happens. On success pcap_close() will fclose it; on failure
  // pcap_fopen_offline leaves the stream open and it is closed here. (Forgetting that leaks a
  // FILE per unusable input, which LeakSanitizer does not report because glibc keeps every
  // open FILE on a global list; libFuzzer's malloc/free balance does, and the fuzz target
  // relies on it.)
  void open(std::FILE* fp, const std::string& name) {
    char errbuf[PCAP_ERRBUF_SIZE] = {};
    handle = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (handle == nullptr) {
      std::fclose(fp);
      throw CaptureError(name, 0, 0, errbuf);
    }
    file = fp;
    // A pcapng section header says major version 1; pcap files say 2.
    pcapng = pcap_major_version(handle) == 1;
    swapped = pcap_is_swapped(handle) != 0;
    next_start = position(fp);
  }
};

Reader::Reader(std::unique_ptr<Source> source, std::string path)
    : source_(std::move(source)), path_(std::move(path)) {
  backend_ = source_->classic ? Backend::Classic : Backend::Libpcap;
  const int dlt = source_->classic ? source_->classic->dlt() : pcap_datalink(source_->handle);
  const std::optional<LinkInfo> info = classify(dlt);
  if (!info) {
    const char* name = pcap_datalink_val_to_name(dlt);
    throw CaptureError(path_, 0, 0,
                       "unsupported link type " + std::to_string(dlt) + " (" +
                           (name != nullptr ? name : "unknown") + ")");
  }
  linktype_ = info->linktype;
  link_ = info->link;
}

std::unique_ptr<Reader::Source> Reader::open_file(const std::string& path, bool allow_classic) {
  // Opened here rather than with pcap_open_offline so that "-" is not taken for stdin and the
  // message does not repeat the path (the CaptureError prefix already names it).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const std::error_code ec(errno, std::generic_category());
    throw CaptureError(path, 0, 0, "cannot open: " + ec.message());
  }
  auto source = std::make_unique<Reader::Source>();
  if (allow_classic) {
    source->classic = detail::FastPcapFile::open(fd);
    if (source->classic) return source;
  }
  // Not ours to read: the descriptor is untouched (still at offset 0) and goes to libpcap.
  std::FILE* fp = ::fdopen(fd, "rb");
  if (fp == nullptr) {
    const std::error_code ec(errno, std::generic_category());
    ::close(fd);
    throw CaptureError(path, 0, 0, "cannot open: " + ec.message());
  }
  // A large stdio buffer: libpcap freads each record header and body separately, and with the
  // default 4 KiB buffer that is a read(2) every few frames (measured by bench/capture_bench).
  std::setvbuf(fp, nullptr, _IOFBF, 1u << 20);
  source->open(fp, path);
  return source;
}

Reader::Reader(const std::string& path) : Reader(open_file(path, true), path) {}

Reader Reader::open_with_libpcap(const std::string& path) {
  return Reader(open_file(path, false), path);
}

Reader Reader::from_memory(std::span<const std::uint8_t> bytes, std::string name) {
  auto source = std::make_unique<Source>();
  source->bytes.assign(bytes.begin(), bytes.end());
  // fmemopen refuses a zero-sized buffer (EINVAL); one spare byte outside the stream's size
  // gives it a valid pointer and libpcap then sees an empty stream, exactly like an empty file.
  source->bytes.push_back(0);
  std::FILE* fp = fmemopen(source->bytes.data(), source->bytes.size() - 1, "rb");
  if (fp == nullptr) {
    const std::error_code ec(errno, std::generic_category());
    throw CaptureError(name, 0, 0, "cannot open in-memory capture: " + ec.message());
  }
  source->open(fp, name);
  return Reader(std::move(source), std::move(name));
}

Reader::Reader(Reader&& other) noexcept = default;
Reader& Reader::operator=(Reader&& other) noexcept = default;
Reader::~Reader() = default;

bool Reader::next(Record& rec) {
  if (failure_) throw *failure_;
  if (source_ == nullptr || at_end_) return false;
  return source_->classic ? next_classic(rec) : next_libpcap(rec);
}

bool Reader::next_classic(Record& rec) {
  detail::RawRecord raw;
  switch (source_->classic->next(raw)) {
    case detail::FastPcapFile::Status::Record:
      return deliver(rec, raw.offset, raw.sec, raw.frac_ns, raw.caplen, raw.len, raw.data);
    case detail::FastPcapFile::Status::End:
      at_end_ = true;
      return false;
    case detail::FastPcapFile::Status::Error:
      break;
  }
  fail(failure_, CaptureError(path_, frames_read_ + 1, raw.offset, source_->classic->error()));
}

bool Reader::next_libpcap(Record& rec) {
  const std::uint64_t frame = frames_read_ + 1;
  // The record starts where the previous one ended: libpcap reads pcap records back to back
  // and pcapng block by block, and stdio's ftell accounts for what it has buffered.
  const std::optional<std::uint64_t> start = source_->next_start;
  const std::uint64_t start_offset = start.value_or(0);

  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  const int status = pcap_next_ex(source_->handle, &hdr, &data);
  if (status == PCAP_ERROR_BREAK) {  // end of a savefile
    at_end_ = true;
    return false;
  }
  if (status != 1) {
    fail(failure_, CaptureError(path_, frame, start_offset, pcap_geterr(source_->handle)));
  }

  const std::optional<std::uint64_t> end = position(source_->file);
  source_->next_start = end;
  std::uint64_t record_offset = start_offset;
  // libpcap skips pcapng blocks that carry no packet (statistics, name resolution, custom, a
  // later IDB) inside the same call, so the packet block may start after `start`. When what was
  // read is exactly one option-less Enhanced Packet Block (the usual case) it starts there;
  // otherwise read back the block's total length, which every pcapng block ends with (the
  // stream sits just past it), to find where it began. Seeking costs syscalls, hence the test.
  const std::uint64_t plain_epb = 32 + ((std::uint64_t{hdr->caplen} + 3) & ~std::uint64_t{3});
  if (source_->pcapng && start && end && *end - *start != plain_epb) {
    if (*end >= *start + 12 &&
        std::fseek(source_->file, static_cast<long>(*end - 4), SEEK_SET) == 0) {
      std::uint8_t tail[4] = {};
      const std::size_t got = std::fread(tail, 1, sizeof tail, source_->file);
      // Restore the position libpcap expects whatever happened.
      std::fseek(source_->file, static_cast<long>(*end), SEEK_SET);
      if (got == sizeof tail) {
        // The section is in host byte order unless libpcap found it swapped.
        std::uint32_t total = 0;
        std::memcpy(&total, tail, sizeof total);
        if (source_->swapped) total = byte_swap(total);
        if (total >= 12 && total <= *end - *start) record_offset = *end - total;
      }
    }
  }

  // Opened with nanosecond precision, libpcap has already scaled tv_usec to nanoseconds.
  std::int64_t sec = hdr->ts.tv_sec;
  // pcap stores the seconds as an unsigned 32-bit count (and libpcap after 1.10 reads them so);
  // libpcap 1.10 reads them as signed in files of the host's byte order and sign-extends every
  // time past 2038-01-19. Undo that.
  if (!source_->pcapng && sec < 0) sec += std::int64_t{1} << 32;
  return deliver(rec, record_offset, sec, static_cast<std::int64_t>(hdr->ts.tv_usec), hdr->caplen,
                 hdr->len, data);
}

bool Reader::deliver(Record& rec, std::uint64_t offset, std::int64_t sec, std::int64_t frac_ns,
                     std::uint32_t caplen, std::uint32_t len, const std::uint8_t* data) {
  const std::uint64_t frame = frames_read_ + 1;
  // The seconds come from the file unchecked (pcapng holds a 64-bit count plus an offset
  // option), so a corrupt timestamp must not overflow here.
  std::int64_t ts_ns = 0;
  if (__builtin_mul_overflow(sec, std::int64_t{1'000'000'000}, &ts_ns) ||
      __builtin_add_overflow(ts_ns, frac_ns, &ts_ns)) {
    fail(failure_,
         CaptureError(path_, frame, offset,
                      "timestamp out of range (" + std::to_string(sec) + " s since the epoch)"));
  }
  frames_read_ = frame;
  rec.frame = frame;
  rec.file_offset = offset;
  rec.ts_ns = ts_ns;
  rec.caplen = caplen;
  rec.len = len;
  rec.data = std::span<const std::uint8_t>(data, caplen);
  return true;
}

}  // namespace rocecert::pcap
