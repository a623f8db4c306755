// An observer that records every frame the adapters transmit into a pcap file (Ethernet link
// type, nanosecond timestamps = simulated time since the start of the run), so a simulation can
// be read back by `rocecert decode`, tshark or Wireshark (the pcap sink is an
// observer like the trace writer, rocecert/trace/observer.h).
#pragma once

#include <cstdint>
#include <string>

#include "rocecert/pcap/writer.h"
#include "rocecert/trace/observer.h"

namespace rocecert::conformance {

class PcapSink final : public trace::Observer {
 public:
  // Creates the file; throws std::runtime_error naming it when that fails.
  explicit PcapSink(const std::string& path);

  // Each transmitted frame once (received copies are the same bytes and are not repeated).
  void on_frame(const trace::FrameEvent& e) override;

  // Flushes and closes; throws std::runtime_error if anything failed to reach the file.
  void close();
  std::uint64_t frames() const { return frames_; }

 private:
  pcap::Writer writer_;
  std::uint64_t frames_ = 0;
};

}  // namespace rocecert::conformance
