#include "rocecert/conformance/pcap_sink.h"

namespace rocecert::conformance {

PcapSink::PcapSink(const std::string& path, Tap tap)
    : writer_(path, /*linktype=*/1, pcap::Precision::Nano, pcap::Format::Pcap), tap_(tap) {}

void PcapSink::on_frame(const trace::FrameEvent& e) {
  if (!tap_.taps(e)) return;
  writer_.write(static_cast<std::int64_t>(e.t), e.bytes);
  ++frames_;
}

void PcapSink::close() {
  writer_.close();
}

}  // namespace rocecert::conformance
