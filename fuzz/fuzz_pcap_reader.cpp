// libFuzzer target for the capture reader. Links rocecert_pcap (which brings libpcap and the
// rocecert_wire headers). Two properties:
//  1. Any input fed to Reader::from_memory ends in records and a clean end of file or in a
//     CaptureError, never a crash, a leak or a hang.
//  2. An input that starts with a classic pcap magic is also put in a memfd and read through
//     its path twice, in lockstep: by Reader (the Classic backend when the header allows it)
//     and by Reader::open_with_libpcap, the oracle. Any difference in link type, records
//     (frame, offset, timestamp, lengths, bytes) or error (frame, offset, text) aborts.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include "rocecert/pcap/reader.h"

namespace {

using rocecert::pcap::CaptureError;
using rocecert::pcap::Reader;
using rocecert::pcap::Record;

void read_from_memory(const std::uint8_t* data, std::size_t size) {
  try {
    Reader reader = Reader::from_memory(std::span<const std::uint8_t>(data, size), "fuzz");
    Record rec;
    std::uint64_t checksum = 0;
    while (reader.next(rec)) {
      // Touch every byte so that ASan checks the span against libpcap's buffer.
      for (const std::uint8_t b : rec.data) checksum += b;
      checksum += rec.caplen + rec.len + static_cast<std::uint64_t>(rec.ts_ns);
    }
    // The count of records must agree with the reader's own.
    if (reader.frames_read() != rec.frame) __builtin_trap();
    static_cast<void>(checksum);
  } catch (const CaptureError&) {
    // Unusable input is an expected outcome.
  }
}

// Classic pcap magics in either byte order, Kuznetsov's included (it must go to libpcap).
bool classic_magic(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return false;
  std::uint32_t magic = 0;
  std::memcpy(&magic, data, sizeof magic);
  for (const std::uint32_t m : {0xA1B2C3D4u, 0xA1B23C4Du, 0xA1B2CD34u}) {
    if (magic == m || magic == __builtin_bswap32(m)) return true;
  }
  return false;
}

// One memfd for the whole run: no file system churn per input. Reader opens it by path, which
// gives it a descriptor of its own on the same (regular) file.
struct MemFile {
  int fd = -1;
  std::string path;
};

const MemFile& memfile() {
  static const MemFile file = [] {
    const int fd = ::memfd_create("fuzz_pcap_reader", MFD_CLOEXEC);
    if (fd < 0) __builtin_trap();
    return MemFile{fd, "/proc/self/fd/" + std::to_string(fd)};
  }();
  return file;
}

void store(const std::uint8_t* data, std::size_t size) {
  const int fd = memfile().fd;
  if (::ftruncate(fd, 0) != 0) __builtin_trap();
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) __builtin_trap();
    done += static_cast<std::size_t>(n);
  }
}

struct Step {
  bool got = false;
  std::optional<CaptureError> error;
};

Step step(Reader& reader, Record& rec) {
  Step s;
  try {
    s.got = reader.next(rec);
  } catch (const CaptureError& e) {
    s.error = e;
  }
  return s;
}

bool same_error(const std::optional<CaptureError>& a, const std::optional<CaptureError>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a ||
         (a->frame() == b->frame() && a->offset() == b->offset() && a->reason() == b->reason());
}

void compare_backends() {
  const std::string& path = memfile().path;
  std::optional<Reader> fast;
  std::optional<Reader> oracle;
  std::optional<CaptureError> fast_error;
  std::optional<CaptureError> oracle_error;
  try {
    fast.emplace(path);
  } catch (const CaptureError& e) {
    fast_error = e;
  }
  try {
    oracle.emplace(Reader::open_with_libpcap(path));
  } catch (const CaptureError& e) {
    oracle_error = e;
  }
  if (!same_error(fast_error, oracle_error)) __builtin_trap();
  if (!fast) return;
  if (fast->linktype() != oracle->linktype() || fast->link() != oracle->link()) __builtin_trap();
  if (oracle->backend() != Reader::Backend::Libpcap) __builtin_trap();

  Record a;
  Record b;
  for (;;) {
    const Step sa = step(*fast, a);
    const Step sb = step(*oracle, b);
    if (sa.got != sb.got || !same_error(sa.error, sb.error)) __builtin_trap();
    if (!sa.got) break;  // both at the end, or both failed alike
    if (a.frame != b.frame || a.file_offset != b.file_offset || a.ts_ns != b.ts_ns ||
        a.caplen != b.caplen || a.len != b.len || a.data.size() != b.data.size() ||
        !std::equal(a.data.begin(), a.data.end(), b.data.begin())) {
      __builtin_trap();
    }
  }
  if (fast->frames_read() != oracle->frames_read()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  read_from_memory(data, size);
  if (classic_magic(data, size)) {
    store(data, size);
    compare_backends();
  }
  return 0;
}
