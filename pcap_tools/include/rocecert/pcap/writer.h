// Capture writer: pcap through libpcap's dumper, pcapng written here (libpcap 1.10 cannot write
// pcapng). Used by the model's pcap sink and by the mutation tools.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace rocecert::pcap {

enum class Format { Pcap, Pcapng };
enum class Precision { Micro, Nano };

// Move-only. The destructor flushes and closes but cannot report a failure: call close() to
// learn whether everything reached the file.
class Writer {
 public:
  // linktype is a LINKTYPE_* value as it appears in the file (1 Ethernet, 113 Linux SLL,
  // 276 Linux SLL2, 101 raw IP, ...). Throws std::runtime_error naming the path when the file
  // cannot be created or libpcap refuses the link type; std::invalid_argument for a snaplen of 0
  // or above INT32_MAX, or (pcapng) a link type outside 0..65535.
  Writer(const std::string& path, int linktype = 1, Precision precision = Precision::Nano,
         Format format = Format::Pcap, std::uint32_t snaplen = 262144);

  Writer(Writer&& other) noexcept;
  Writer& operator=(Writer&& other) noexcept;
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer();

  // Appends one frame. orig_len 0 means frame.size(); the captured length is
  // min(frame.size(), snaplen). Throws std::out_of_range for a timestamp the format cannot hold
  // (before 1970; pcap: from 2106-02-07 on, as its seconds are unsigned 32-bit; our Reader
  // reads times past 2038-01-19 back correctly, but tools on libpcap 1.10 show them in 1901),
  // std::invalid_argument when orig_len is non-zero but below the captured length,
  // std::runtime_error on an I/O error, std::logic_error after close().
  void write(std::int64_t ts_ns, std::span<const std::uint8_t> frame, std::uint32_t orig_len = 0);

  // Flushes and closes; throws std::runtime_error naming the path if anything failed to reach
  // the file. A second call does nothing.
  void close();

 private:
  struct Sink;
  std::unique_ptr<Sink> sink_;
};

}  // namespace rocecert::pcap
