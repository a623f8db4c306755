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

// Where the capture taps the simulated network. A link's faults (docs/faults.md) happen
// between a sender's egress and the receiver's ingress, so the tap decides what a capture of
// a lossy link shows (docs/check-validation.md).
struct Tap {
  enum class Point : std::uint8_t {
    EGRESS,   // every frame as its adapter transmits it, before the link's faults (the default)
    INGRESS,  // every frame as it reaches an adapter, after the faults: dropped frames absent,
              // duplicates twice, reordered and delayed frames in their order of arrival
    HOST,     // one adapter's frames both ways, as a capture on that host: what it transmits
              // before the faults, what it receives after them
  };
  Point point = Point::EGRESS;
  std::uint32_t adapter = 0;  // HOST: the adapter's id (its index in the scenario)

  bool taps(const trace::FrameEvent& e) const {
    switch (point) {
      case Point::EGRESS:
        return e.dir == trace::Direction::TX;
      case Point::INGRESS:
        return e.dir == trace::Direction::RX;
      case Point::HOST:
        return e.adapter == adapter;
    }
    return false;
  }
};

class PcapSink final : public trace::Observer {
 public:
  // Creates the file; throws std::runtime_error naming it when that fails.
  explicit PcapSink(const std::string& path, Tap tap = {});

  // Each frame the tap sees once (at EGRESS: each transmitted frame once; received copies are
  // the same bytes and are not repeated).
  void on_frame(const trace::FrameEvent& e) override;
  // An injected frame is on the wire like a transmitted one: at EGRESS, and at HOST for its
  // sender (INGRESS sees it arrive as any frame).
  void on_inject(const trace::FrameEvent& e) override { on_frame(e); }

  // Flushes and closes; throws std::runtime_error if anything failed to reach the file.
  void close();
  std::uint64_t frames() const { return frames_; }

 private:
  pcap::Writer writer_;
  Tap tap_;
  std::uint64_t frames_ = 0;
};

}  // namespace rocecert::conformance
