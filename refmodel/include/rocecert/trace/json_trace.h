// The canonical event trace: one JSON object per line, keys in a fixed order, integers only,
// so that two runs of the same scenario and seed give byte-identical files.
// Frames are summarised (opcode, QPN, PSN, length, ICRC verdict); the bytes go to the pcap sink.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "rocecert/trace/observer.h"

namespace rocecert::trace {

class JsonTraceWriter final : public Observer {
 public:
  // Writes to `out` (not owned; flushed on destruction).
  explicit JsonTraceWriter(std::FILE* out) : out_(out) {}
  ~JsonTraceWriter() override;
  JsonTraceWriter(const JsonTraceWriter&) = delete;
  JsonTraceWriter& operator=(const JsonTraceWriter&) = delete;

  bool needs_decoded_frames() const override { return true; }
  void on_frame(const FrameEvent& e) override;
  void on_qp_transition(const QpTransitionEvent& e) override;
  void on_cqe(const CqeEvent& e) override;
  void on_nak(const NakEvent& e) override;
  void on_retry(const RetryEvent& e) override;
  void on_access_denied(const AccessDeniedEvent& e) override;
  void on_async_event(const AsyncEvent& e) override;
  void on_drop(const DropEvent& e) override;
  void on_fault(const FaultEvent& e) override;
  void on_rate(const RateEvent& e) override;

 private:
  void emit(const std::string& line);
  std::FILE* out_;
};

// `s` as a JSON string, quotes included (RFC 8259 §7): quote, backslash and control characters
// are escaped and bytes that are not UTF-8 become U+FFFD, so any text gives valid JSON; text
// without such characters comes back unchanged between the quotes.
std::string json_string(std::string_view s);

// The one-line JSON form of each event (what the writer emits, without the newline).
std::string to_json(const FrameEvent& e);
std::string to_json(const QpTransitionEvent& e);
std::string to_json(const CqeEvent& e);
std::string to_json(const NakEvent& e);
std::string to_json(const RetryEvent& e);
std::string to_json(const AccessDeniedEvent& e);
std::string to_json(const AsyncEvent& e);
std::string to_json(const DropEvent& e);
std::string to_json(const FaultEvent& e);
std::string to_json(const RateEvent& e);

}  // namespace rocecert::trace
