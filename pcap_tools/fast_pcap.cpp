#include "fast_pcap.h"

#include <fcntl.h>
#include <pcap/dlt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <system_error>
#include <utility>

namespace rocecert::pcap::detail {

namespace {

// libpcap's magic numbers (sf-pcap.c). The Kuznetsov variant (0xa1b2cd34, a longer record
// header) is not taken here: libpcap reads it.
constexpr std::uint32_t kMagicMicro = 0xA1B2C3D4;
constexpr std::uint32_t kMagicNano = 0xA1B23C4D;

constexpr std::size_t kFileHeader = 24;
constexpr std::size_t kRecordHeader = 16;
constexpr const char* kCaptured = "captured bytes";

// max_snaplen_for_dlt(): MAXIMUM_SNAPLEN for every link type open() accepts.
constexpr std::uint32_t kMaxSnaplen = 262144;

// The upper 6 bits of the link type field carry FCS information; libpcap drops them.
constexpr std::uint32_t kLinktypeMask = 0x03FFFFFF;
constexpr std::uint32_t kLinktypeEthernet = 1;
constexpr std::uint32_t kLinktypeRaw = 101;

// Big enough that the syscall and compaction costs vanish, small enough to stay in L2/L3
// (measured with bench/capture_bench; larger buffers were no faster). Small files get a
// buffer of their own size, never less than kMinBuffer.
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
constexpr std::size_t kMinBuffer = std::size_t{64} << 10;

// SocketCAN protocol values whose pseudo-header libpcap byte-swaps in swapped files.
constexpr std::uint16_t kSllProtocolCan = 0x000C;
constexpr std::uint16_t kSllProtocolCanFd = 0x000D;

std::uint32_t load32(const std::uint8_t* p, bool swapped) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return swapped ? __builtin_bswap32(v) : v;
}

std::uint16_t load16(const std::uint8_t* p, bool swapped) {
  std::uint16_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return swapped ? __builtin_bswap16(v) : v;
}

// linktype_to_dlt() restricted to the link types Reader decodes: LINKTYPE_RAW becomes the
// platform's DLT_RAW, 12 and 14 (DLT_RAW on other systems, no LINKTYPE of their own) and the
// values of libpcap's "matching" range pass through. Anything else: -1, left to libpcap.
int supported_dlt(std::uint32_t linktype) {
  switch (linktype) {
    case kLinktypeEthernet:
      return DLT_EN10MB;
    case kLinktypeRaw:
      return DLT_RAW;
    case 12:
    case 14:
    case DLT_LINUX_SLL:
    case DLT_IPV4:
    case DLT_IPV6:
    case DLT_LINUX_SLL2:
      return static_cast<int>(linktype);
    default:
      return -1;
  }
}

bool read_exactly_at(int fd, std::uint8_t* out, std::size_t size, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (got > 0) {
      done += static_cast<std::size_t>(got);
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<FastPcapFile> FastPcapFile::open(int fd) {
  // Pipes and other streams stay with libpcap: pread needs a regular file.
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  std::uint8_t header[kFileHeader];
  if (!read_exactly_at(fd, header, sizeof header, 0)) return nullptr;

  // As libpcap: the magic read in host order tells the byte order of the whole file.
  std::uint32_t magic = load32(header, false);
  bool swapped = false;
  if (magic != kMagicMicro && magic != kMagicNano) {
    magic = __builtin_bswap32(magic);
    if (magic != kMagicMicro && magic != kMagicNano) return nullptr;
    swapped = true;
  }
  const std::uint16_t major = load16(header + 4, swapped);
  const std::uint16_t minor = load16(header + 6, swapped);
  const std::uint32_t snaplen = load32(header + 16, swapped);
  const std::uint32_t linktype = load32(header + 20, swapped) & kLinktypeMask;

  // Versions libpcap accepts; it reports the others ("archaic", "unsupported").
  LengthOrder lengths = LengthOrder::Normal;
  if (major == 2 && minor <= 4) {
    // caplen and len traded places at 2.3; some 2.3 writers still used the old order.
    if (minor < 3) lengths = LengthOrder::Swapped;
    if (minor == 3) lengths = LengthOrder::MaybeSwapped;
  } else if (major == 543 && minor == 0) {  // DG/UX tcpdump, old field order
    lengths = LengthOrder::Swapped;
  } else {
    return nullptr;
  }
  const int dlt = supported_dlt(linktype);
  if (dlt < 0) return nullptr;

  std::unique_ptr<FastPcapFile> file(new FastPcapFile());
  file->swapped_ = swapped;
  file->nano_ = magic == kMagicNano;
  file->lengths_ = lengths;
  file->dlt_ = dlt;
  // pcap_adjust_snapshot(): a zero or negative (as int) snaplen means the link type's maximum.
  // Larger values are kept; records above the maximum are refused in next() anyway.
  file->snapshot_ = snaplen == 0 || snaplen > INT_MAX ? kMaxSnaplen : snaplen;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  file->capacity_ = static_cast<std::size_t>(
      std::clamp<std::uint64_t>(size, kMinBuffer, std::uint64_t{kBufferBytes}));
  file->buffer_ = std::make_unique_for_overwrite<std::uint8_t[]>(file->capacity_);
  file->pos_ = kFileHeader;
  file->end_ = kFileHeader;
  std::memcpy(file->buffer_.get(), header, sizeof header);
  file->fd_ = fd;  // owned from here on
  return file;
}

FastPcapFile::~FastPcapFile() {
  if (fd_ >= 0) ::close(fd_);
}

// Makes `need` bytes available from pos_ unless the file ends (or a read fails) first, and
// returns how many are. Bytes before pos_ are finished with: they are dropped to make room.
std::size_t FastPcapFile::fill(std::size_t need) {
  if (pos_ + need > capacity_) {
    const std::size_t kept = end_ - pos_;
    if (need > capacity_) {
      // Only a file smaller than the buffer's usual size with a record bigger than the file
      // was when opened (it grew) gets here; need is bounded by the largest valid record.
      auto bigger = std::make_unique_for_overwrite<std::uint8_t[]>(need);
      std::memcpy(bigger.get(), buffer_.get() + pos_, kept);
      buffer_ = std::move(bigger);
      capacity_ = need;
    } else {
      std::memmove(buffer_.get(), buffer_.get() + pos_, kept);
    }
    buffer_base_ += pos_;
    pos_ = 0;
    end_ = kept;
  }
  while (end_ - pos_ < need) {
    const ssize_t got = ::pread(fd_, buffer_.get() + end_, capacity_ - end_,
                                static_cast<off_t>(buffer_base_ + end_));
    if (got > 0) {
      end_ += static_cast<std::size_t>(got);
    } else if (got == 0) {
      break;  // end of file
    } else if (errno != EINTR) {
      read_errno_ = errno;
      break;
    }
  }
  return end_ - pos_;
}

FastPcapFile::Status FastPcapFile::fail(std::string reason) {
  error_ = std::move(reason);
  return Status::Error;
}

// A short read of a record's data: libpcap's message for the fread that came up short, which
// tells a read error (ferror) from the end of the file.
FastPcapFile::Status FastPcapFile::truncated(const char* what, std::uint64_t wanted,
                                             std::size_t got) {
  if (read_errno_ != 0) {
    return fail("error reading dump file: " +
                std::error_code(read_errno_, std::generic_category()).message());
  }
  return fail("truncated dump file; tried to read " + std::to_string(wanted) + " " + what +
              ", only got " + std::to_string(got));
}

FastPcapFile::Status FastPcapFile::next(RawRecord& rec) {
  rec.offset = buffer_base_ + pos_;
  if (end_ - pos_ < kRecordHeader) {
    const std::size_t got = fill(kRecordHeader);
    // Nothing at all is the end of the file, unless a read failed.
    if (got == 0 && read_errno_ == 0) return Status::End;
    if (got < kRecordHeader) return truncated("header bytes", kRecordHeader, got);
  }
  const std::uint8_t* header = buffer_.get() + pos_;
  const std::uint32_t sec = load32(header, swapped_);
  const std::uint32_t frac = load32(header + 4, swapped_);
  std::uint32_t caplen = load32(header + 8, swapped_);
  std::uint32_t len = load32(header + 12, swapped_);
  if (lengths_ == LengthOrder::Swapped || (lengths_ == LengthOrder::MaybeSwapped && caplen > len)) {
    std::swap(caplen, len);
  }

  if (caplen > kMaxSnaplen) {
    if (caplen > snapshot_) {
      return fail("invalid packet capture length " + std::to_string(caplen) +
                  ", bigger than snaplen of " + std::to_string(snapshot_));
    }
    return fail("invalid packet capture length " + std::to_string(caplen) +
                ", bigger than maximum of " + std::to_string(kMaxSnaplen));
  }
  // Both bounded by kMaxSnaplen here, so the record fits any buffer fill() may grow.
  const std::size_t record = kRecordHeader + caplen;
  std::uint32_t kept = caplen;
  if (caplen > snapshot_) {
    // libpcap reads the first snapshot bytes, skips the rest and reports caplen = snapshot;
    // a file that ends in between is reported against whichever read came up short.
    const std::size_t got = fill(kRecordHeader + snapshot_) - kRecordHeader;
    if (got < snapshot_) return truncated(kCaptured, snapshot_, got);
    kept = snapshot_;
  }
  if (end_ - pos_ < record) {
    const std::size_t got = fill(record) - kRecordHeader;
    if (got < caplen) return truncated(kCaptured, caplen, got);
  }

  std::uint8_t* data = buffer_.get() + pos_ + kRecordHeader;
  pos_ += record;
  fix_pseudo_header(data, kept, len);
  // Unsigned, as the format defines it. libpcap 1.10 sign-extends the seconds of files in the
  // host's byte order, and Reader undoes that, so both backends agree.
  rec.sec = sec;
  // libpcap takes the fraction with no range check, scaling µs by 1000. It reads it as the
  // signed 32-bit field of its record header struct, except in a file of the other byte order:
  // there its SWAPLONG yields an unsigned int, so the value is not sign-extended.
  const std::int64_t fraction =
      swapped_ ? std::int64_t{frac} : std::int64_t{static_cast<std::int32_t>(frac)};
  rec.frac_ns = nano_ ? fraction : fraction * 1000;
  rec.caplen = kept;
  rec.len = len;
  rec.data = data;
  return Status::Record;
}

// libpcap's swap_pseudo_headers() for the link types open() accepts: in a file of the other
// byte order, the CAN ID of a SocketCAN frame in a Linux cooked capture is written in the
// writer's order and libpcap swaps it in place. Nothing else of ours is touched.
void FastPcapFile::fix_pseudo_header(std::uint8_t* data, std::uint32_t caplen,
                                     std::uint32_t len) const {
  if (!swapped_) return;
  std::uint32_t header = 0;
  std::uint32_t protocol_at = 0;
  if (dlt_ == DLT_LINUX_SLL) {
    header = 16;
    protocol_at = 14;
  } else if (dlt_ == DLT_LINUX_SLL2) {
    header = 20;
    protocol_at = 0;
  } else {
    return;
  }
  if (caplen < header || len < header) return;
  const auto protocol =
      static_cast<std::uint16_t>((data[protocol_at] << 8) | data[protocol_at + 1]);
  if (protocol != kSllProtocolCan && protocol != kSllProtocolCanFd) return;
  if (caplen < header + 4 || len < header + 4) return;
  std::reverse(data + header, data + header + 4);
}

}  // namespace rocecert::pcap::detail
