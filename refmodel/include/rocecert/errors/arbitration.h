// Multi-QP error arbitration and isolation, as pure functions (the errors block; rationale
// and worked examples in docs/error-arbitration.md).
//
// When several error events arise at the same simulated instant, or from one shared resource
// (several QPs on one CQ or SRQ), the model must handle them in an order that does not depend
// on the order they happened to be collected in. arbitrate() gives that order under one of two
// policies; isolate() says which QPs a set of events moves out of service and which must be
// left untouched.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "rocecert/errors/error_table.h"
#include "rocecert/qp/types.h"

namespace rocecert::errors {

// A QP is named by its adapter and its QPN (QPNs repeat across adapters: in the
// multi_qp_errors capture, QP 0x22 exists on both rxe_a and rxe_b).
struct QpKey {
  std::uint32_t adapter = 0;
  std::uint32_t qpn = 0;
  friend constexpr auto operator<=>(const QpKey&, const QpKey&) = default;
};

enum class ResourceKind : std::uint8_t { NONE, CQ, SRQ };
struct ResourceRef {
  ResourceKind kind = ResourceKind::NONE;
  std::uint32_t id = 0;  // CQ or SRQ number on the QP's adapter
  friend constexpr auto operator<=>(const ResourceRef&, const ResourceRef&) = default;
};

// One error event: when, on which QP, which class, and the shared resource it concerns (the CQ
// its completions go to, or the SRQ it took a WQE from; NONE if none is shared).
struct ErrorEvent {
  std::uint64_t time_ns = 0;  // simulated time (sim::SimTime, integer nanoseconds)
  QpKey qp;
  ErrorClass error = ErrorClass::QP_MODIFIED_TO_ERR;
  ResourceRef resource;
  friend constexpr bool operator==(const ErrorEvent&, const ErrorEvent&) = default;
};

enum class ArbitrationPolicy : std::uint8_t {
  // By the tier of the class (Tier: RESOURCE, FATAL, REMOTE, LOCAL, FLUSH, BENIGN), then time,
  // then QPN, then adapter, then class (row order), then resource: a total order.
  PRECEDENCE,
  // Among QPs with pending events, one event per QP in turn (each QP's own events in
  // PRECEDENCE order), QPs in (adapter, QPN) order, starting after the QP served last.
  ROUND_ROBIN,
};

// The round-robin position: the QP served last. Explicit state, passed in and returned, so the
// function stays pure.
struct RoundRobinCursor {
  std::optional<QpKey> last_served;
  friend constexpr bool operator==(const RoundRobinCursor&, const RoundRobinCursor&) = default;
};

struct Arbitration {
  std::vector<ErrorEvent> order;  // every input event exactly once, in handling order
  RoundRobinCursor cursor;        // the QP of the last event in `order` (unchanged if empty)
};

// The PRECEDENCE key as a strict total order over events (equal only if all fields are equal).
std::strong_ordering precedence_compare(const ErrorEvent& a, const ErrorEvent& b);
inline bool precedence_before(const ErrorEvent& a, const ErrorEvent& b) {
  return precedence_compare(a, b) < 0;
}

// The order in which the model handles `events`. The result depends on the multiset of events
// only, never on their order in the span; `cursor` matters for ROUND_ROBIN only.
Arbitration arbitrate(std::span<const ErrorEvent> events, ArbitrationPolicy policy,
                      RoundRobinCursor cursor = {});

// ---- isolation ------------------------------------------------------------------------------

// A QP as the isolation rule sees it: its type and state and the shared resources it uses.
struct QpAttachment {
  QpKey qp;
  qp::QpType type = qp::QpType::RC;
  qp::QpState state = qp::QpState::RTS;
  std::uint32_t send_cq = 0;
  std::uint32_t recv_cq = 0;
  std::optional<std::uint32_t> srq;
};

// True if the QP uses the resource: a CQ as its send or receive CQ, or the SRQ.
bool attached_to(const QpAttachment& q, const ResourceRef& r);

struct QpFate {
  QpKey qp;
  qp::QpState from = qp::QpState::RTS;
  qp::QpState to = qp::QpState::ERR;
  std::vector<ErrorClass> causes;  // the events that move it, in PRECEDENCE order
  friend bool operator==(const QpFate&, const QpFate&) = default;
};

// An asynchronous event the outcome raises: on `qp` (QP events) or on `resource` (CQ_ERR on
// the CQ, SRQ events on the SRQ).
struct RaisedEvent {
  AsyncEventType type = AsyncEventType::NONE;
  QpKey qp;
  ResourceRef resource;
  friend bool operator==(const RaisedEvent&, const RaisedEvent&) = default;
};

struct Isolation {
  std::vector<QpKey> touched;       // QPs attached to the resource, in (adapter, QPN) order
  std::vector<QpFate> changed;      // those whose state the events change, in QP order
  std::vector<QpKey> untouched;     // attached, but must be left exactly as they are
  std::vector<RaisedEvent> events;  // in PRECEDENCE order of their causes
};

// The isolation rule. `events` are the events at this instant that concern `resource`; each is
// looked up in the table (its class, the QP's type, `profile`) and only the side that detected
// it is changed here (the peer's fate is the table's other side, on the other adapter).
// Events of QPs not attached to the resource are ignored. A QP changes state only through its
// own events: sharing the resource with a QP in error changes nothing (captures
// multi_qp_errors: QP1/QP4 stay RTS beside QP2/QP3 in ERR; cq_overflow: rxe takes to ERR only
// the QP whose completion did not fit). A QP already in ERR, or in RESET, does not change;
// a QP in SQE can still go to ERR. With an SRQ, IBA adds QP_LAST_WQE_REACHED for a QP that
// enters ERR (raises_last_wqe_reached()).
Isolation isolate(const ResourceRef& resource, std::span<const QpAttachment> qps,
                  std::span<const ErrorEvent> events, ErrorProfile profile = kDefaultErrorProfile);

// The state change an outcome makes on the side that detected the class (the requester for
// REQUESTER and VERBS classes, the responder for RESPONDER ones; RECEIVER classes change none).
StateChange local_state_change(ErrorClass e, qp::QpType t, ErrorProfile p = kDefaultErrorProfile);

}  // namespace rocecert::errors
