// libFuzzer target for the capture reader. Links rocecert_pcap (which brings libpcap and the
// rocecert_wire headers). Feeds the input to Reader::from_memory and reads every record: any
// input must end in records and a clean end of file or in a CaptureError, never a crash, a
// leak or a hang.
#include <cstddef>
#include <cstdint>
#include <span>

#include "rocecert/pcap/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    rocecert::pcap::Reader reader =
        rocecert::pcap::Reader::from_memory(std::span<const std::uint8_t>(data, size), "fuzz");
    rocecert::pcap::Record rec;
    std::uint64_t checksum = 0;
    while (reader.next(rec)) {
      // Touch every byte so that ASan checks the span against libpcap's buffer.
      for (const std::uint8_t b : rec.data) checksum += b;
      checksum += rec.caplen + rec.len + static_cast<std::uint64_t>(rec.ts_ns);
    }
    // The count of records must agree with the reader's own.
    if (reader.frames_read() != rec.frame) __builtin_trap();
    static_cast<void>(checksum);
  } catch (const rocecert::pcap::CaptureError&) {
    // Unusable input is an expected outcome.
  }
  return 0;
}
