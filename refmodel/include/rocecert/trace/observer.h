// Everything that leaves the model goes through an Observer (docs/model.md): frames sent and
// received, QP transitions, completions, NAKs, retries, timer firings, access denials,
// asynchronous events and silent drops. The trace writer, the pcap sink, coverage and the
// conformance comparator are observers; the model itself never prints and never judges.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "rocecert/cq/wc.h"
#include "rocecert/errors/async_event.h"
#include "rocecert/qp/types.h"
#include "rocecert/sim/event_queue.h"
#include "rocecert/wire/bytes.h"

namespace rocecert::wire {
struct ParsedFrame;
struct FrameSpec;
}  // namespace rocecert::wire

namespace rocecert::trace {

using sim::SimTime;

enum class Direction : std::uint8_t { TX, RX };

// A frame sent or received. `parsed` is the frame decoded once by the adapter that reports it,
// so that observers never decode the bytes again; valid during the call only. On RX it is the
// decode the adapter's admission checks use (ICRC verified), always given. On TX the adapter
// decodes what it encoded (it computed the ICRC itself, so that is not verified again) only when
// an observer says it needs_decoded_frames(); otherwise, and in events built by hand, it is null
// and an observer that wants fields decodes `bytes` itself. On TX `spec` is what the adapter
// encoded, finalized (lengths, checksum, pad); when no observer needs_frame_bytes() and the
// adapter has no link, the frame is not encoded at all: `bytes` is empty, `parsed` null, and
// `spec` is the frame.
struct FrameEvent {
  SimTime t = 0;
  std::uint32_t adapter = 0;
  Direction dir = Direction::TX;
  wire::ByteSpan bytes;  // the whole Ethernet frame; valid during the call only
  const wire::ParsedFrame* parsed = nullptr;
  const wire::FrameSpec* spec = nullptr;  // TX from an adapter; valid during the call only
};

struct QpTransitionEvent {
  SimTime t = 0;
  std::uint32_t adapter = 0;
  std::uint32_t qpn = 0;
  qp::QpState from = qp::QpState::RESET;
  qp::QpState to = qp::QpState::RESET;
  std::string_view cause;  // "modify_qp", or the error that forced it
};

struct CqeEvent {
  SimTime t = 0;
  std::uint32_t adapter = 0;
  std::uint32_t cq = 0;
  cq::Wc wc{};
  bool solicited = false;
};

struct NakEvent {  // a NAK or RNR NAK the responder sends
  SimTime t = 0;
  std::uint32_t adapter = 0;
  std::uint32_t qpn = 0;
  std::uint32_t psn = 0;
  std::uint8_t syndrome = 0;
  std::string_view reason;  // the check that failed, e.g. "rkey_mismatch"
};

enum class RetryKind : std::uint8_t { TIMEOUT, SEQUENCE_NAK, RNR_NAK, IMPLIED_NAK };
struct RetryEvent {
  SimTime t = 0;
  std::uint32_t adapter = 0;
  std::uint32_t qpn = 0;
  RetryKind kind = RetryKind::TIMEOUT;
  std::uint32_t from_psn = 0;
  std::uint8_t retries_left = 0;  // after this retry (7 = infinite where the profile says so)
};

struct AccessDeniedEvent {
  SimTime t = 0;
  std::uint32_t adapter = 0;
  std::uint32_t qpn = 0;
  std::uint32_t key = 0;
  std::uint64_t va = 0;
  std::uint64_t length = 0;
  std::string_view outcome;  // mem access-check outcome name
};

struct AsyncEvent {
  SimTime t = 0;
  std::uint32_t adapter = 0;
  errors::AsyncEventType kind = errors::AsyncEventType::NONE;  // errors::to_string names it
  std::uint32_t object = 0;                                    // QPN, CQ or SRQ id
};

struct DropEvent {  // a packet discarded without any response (ICRC, admission, UC drop mode)
  SimTime t = 0;
  std::uint32_t adapter = 0;
  std::string_view reason;
  wire::ByteSpan bytes;
  const wire::ParsedFrame* parsed = nullptr;  // as in FrameEvent
  // The errors-table class of a receiver's admission check ("PKT_QKEY_VIOLATION",
  // errors/error_classes.def); empty for the drops the table has no class for.
  std::string_view error_class;
};

// The link did something to a frame (fault injection, docs/faults.md): drop, duplicate, delay,
// reorder, corrupt, ecn_ce. `bytes` is the frame as it was handed to the link.
struct FaultEvent {
  SimTime t = 0;
  std::uint32_t from_adapter = 0;
  std::string_view action;
  std::string_view rule;  // which rule or probability fired, for the trace
  wire::ByteSpan bytes;
};

// A reaction point changed a QP's sending rate (congestion control, docs/dcqcn.md): a CNP
// cut it. `rate_gbps` is the rate after the change.
struct RateEvent {
  SimTime t = 0;
  std::uint32_t adapter = 0;
  std::uint32_t qpn = 0;
  double rate_gbps = 0;
  double target_gbps = 0;
  double alpha = 0;
  std::string_view cause;  // "cnp"
};

class Observer {
 public:
  virtual ~Observer() = default;
  // True when on_frame() reads FrameEvent::parsed (the trace writer, the scenario runner); an
  // observer that looks only at the bytes (the pcap sink) or at nothing keeps the default, and
  // then transmitted frames are not decoded for it.
  virtual bool needs_decoded_frames() const { return false; }
  // False when on_frame() reads only FrameEvent::spec of transmitted frames (the checker's
  // golden responder): then a model without a link skips encoding what it sends.
  virtual bool needs_frame_bytes() const { return true; }
  virtual void on_frame(const FrameEvent&) {}
  virtual void on_qp_transition(const QpTransitionEvent&) {}
  virtual void on_cqe(const CqeEvent&) {}
  virtual void on_nak(const NakEvent&) {}
  virtual void on_retry(const RetryEvent&) {}
  virtual void on_access_denied(const AccessDeniedEvent&) {}
  virtual void on_async_event(const AsyncEvent&) {}
  virtual void on_drop(const DropEvent&) {}
  virtual void on_fault(const FaultEvent&) {}
  virtual void on_rate(const RateEvent&) {}
  // A harness put a frame on the wire as if `adapter` had sent it (a scenario's inject step):
  // on the wire like a transmitted frame, but not the adapter's own (dir is TX; `parsed` null).
  virtual void on_inject(const FrameEvent&) {}
};

// Fans every event out to its observers, in the order they were added.
class ObserverList final : public Observer {
 public:
  void add(Observer* o) {
    observers_.push_back(o);
    decoded_ = decoded_ || o->needs_decoded_frames();
    bytes_ = bytes_ || o->needs_frame_bytes();
  }
  bool needs_decoded_frames() const override { return decoded_; }
  bool needs_frame_bytes() const override { return bytes_; }
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
  void on_inject(const FrameEvent& e) override;

 private:
  std::vector<Observer*> observers_;
  bool decoded_ = false;  // some observer needs_decoded_frames()
  bool bytes_ = false;    // some observer needs_frame_bytes()
};

std::string_view to_string(RetryKind k);

}  // namespace rocecert::trace
