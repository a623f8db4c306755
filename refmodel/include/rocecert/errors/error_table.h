// Errors as one table: error class -> per QP type (RC, UC, UD) and per profile
// (IBA, RXE) the response on the wire (NAK syndrome, silent drop), the requester's WC status,
// the responder's receive WC status, the state change and flush of each side, and the
// affiliated asynchronous events. The rows live in error_classes.def; this header turns them
// into the ErrorClass enum and the constexpr kErrorTable, and gives the O(1) lookups and the
// mappings the model needs: mem::AccessOutcome -> class, AETH syndrome -> class -> requester
// status (IBTA Vol. 1 §10.6; docs/spec-notes.md §4.3, §4.4, §5.5, §5.7, §6.5, §7, §9, §11).
//
// The model executes and reports; this table says what an error does. It never judges.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rocecert/cq/wc.h"
#include "rocecert/errors/async_event.h"
#include "rocecert/mem/access_check.h"
#include "rocecert/qp/types.h"
#include "rocecert/wire/headers.h"

namespace rocecert::errors {

// Which reading of the sources the table follows where they disagree (docs/spec-notes.md §11). RXE
// reproduces Linux Soft-RoCE 6.1 as captured and is the model's default, like the model's
// other profile switches (docs/model.md); IBA follows the spec and the IB convention the
// notes name.
enum class ErrorProfile : std::uint8_t { IBA, RXE };
inline constexpr std::size_t kErrorProfileCount = 2;
inline constexpr ErrorProfile kDefaultErrorProfile = ErrorProfile::RXE;

// Precedence tier for multi-QP arbitration (docs/error-arbitration.md): lower first.
enum class Tier : std::uint8_t {
  RESOURCE,  // a shared resource (CQ) failed: may affect every QP attached to it
  FATAL,     // the connection failed (retries exhausted, unintelligible responses)
  REMOTE,    // the responder refused a request (fatal NAK class), or the requester got one
  LOCAL,     // the requester's own WR or buffers are at fault; found before the wire
  FLUSH,     // consequences of ERR (modify to ERR, WR posted in ERR): no new information
  BENIGN,    // no QP changes state: retried, dropped, or reported as success
};
inline constexpr std::size_t kTierCount = 6;

// The side that notices the error.
enum class Detector : std::uint8_t {
  REQUESTER,  // the QP that posted the WR (its completer or requester engine)
  RESPONDER,  // the QP that receives the request (responder pipeline, docs/spec-notes.md §4.4)
  RECEIVER,   // whichever end receives the packet (admission checks, docs/spec-notes.md §1.9)
  VERBS,      // software: modify_qp, post_send/post_recv
};

// What the responder puts on the wire because of the error.
enum class Response : std::uint8_t {
  NONE,          // nothing (the error is not a packet's, or no answer can be given)
  SILENT_DROP,   // the packet (UC: the whole message) is discarded without an answer
  ACK,           // a positive ACK is still sent (rxe class J)
  NAK,           // a NAK with Outcome::nak_code (0x60-0x64)
  RNR_NAK,       // an RNR NAK: syndrome 0x20 | min_rnr_timer (IBTA Vol. 1 §9.7.5.2.8, Table 45;
                 // docs/spec-notes.md §4.1, §4.2)
  RESERVED_NAK,  // a NAK with a reserved code 0x65-0x7F (only a non-conforming peer sends it)
};

// What happens to the requester's WQE.
enum class RequesterEffect : std::uint8_t {
  NONE,       // not involved (no WQE of the requester is concerned)
  COMPLETES,  // it completes with Outcome::requester_status
  RETRIES,    // it is retried; Outcome::when_retries_exhausted is reached if retries run out
  LOST,       // it completes but its completion is lost (the send CQ is full)
};

enum class StateChange : std::uint8_t { NONE, SQE, ERR };

// Which WQEs of that side complete with WR_FLUSH_ERR because of the state change
// (docs/spec-notes.md §6.5, §6.6): ALL = the send queue, then the receive queue (not an SRQ, see
// flush_scope()).
enum class Flush : std::uint8_t { NONE, SEND_QUEUE, ALL };

// The error classes: one enumerator per row of error_classes.def, in row order.
enum class ErrorClass : std::uint8_t {
#define ROCECERT_ERROR(name, ...) name,
#include "rocecert/errors/error_classes.def"
#undef ROCECERT_ERROR
};
inline constexpr std::size_t kErrorClassCount = 0
#define ROCECERT_ERROR(name, ...) +1
#include "rocecert/errors/error_classes.def"
#undef ROCECERT_ERROR
    ;

// One cell: what one error class does on one QP type under one profile. "Requester" and
// "responder" are the two ends of the message; for classes without a message (VERBS,
// CQ_OVERFLOW_SEND, REQ_LOCAL_*) the requester is the QP concerned and the responder its peer.
struct Outcome {
  bool applies = false;  // false: the class cannot arise on this QP type
  Response response = Response::NONE;
  std::uint8_t nak_code = 0;  // the AETH syndrome when response == NAK, else 0
  RequesterEffect requester = RequesterEffect::NONE;
  std::optional<cq::WcStatus> requester_status;      // when requester == COMPLETES
  std::optional<ErrorClass> when_retries_exhausted;  // when requester == RETRIES
  std::optional<cq::WcStatus> receive_status;        // when a receive WQE is consumed
  StateChange requester_state = StateChange::NONE;
  Flush requester_flush = Flush::NONE;
  StateChange responder_state = StateChange::NONE;
  Flush responder_flush = Flush::NONE;
  // Affiliated asynchronous events raised on the detecting QP (CQ_ERR: on the CQ), in order.
  std::array<AsyncEventType, 2> events{AsyncEventType::NONE, AsyncEventType::NONE};
  std::string_view note;

  // Same behaviour (the note aside).
  constexpr bool same_behaviour(const Outcome& o) const {
    return applies == o.applies && response == o.response && nak_code == o.nak_code &&
           requester == o.requester && requester_status == o.requester_status &&
           when_retries_exhausted == o.when_retries_exhausted &&
           receive_status == o.receive_status && requester_state == o.requester_state &&
           requester_flush == o.requester_flush && responder_state == o.responder_state &&
           responder_flush == o.responder_flush && events == o.events;
  }
  constexpr bool raises(AsyncEventType e) const {
    return e != AsyncEventType::NONE && (events[0] == e || events[1] == e);
  }
  constexpr bool has_events() const { return events[0] != AsyncEventType::NONE; }

  // --- table-building helpers (error_classes.def): each returns a modified copy ------------
  constexpr Outcome req(cq::WcStatus s) const {
    Outcome o = *this;
    o.requester = RequesterEffect::COMPLETES;
    o.requester_status = s;
    return o;
  }
  constexpr Outcome req_ok() const { return req(cq::WcStatus::SUCCESS); }
  constexpr Outcome retries(ErrorClass exhausted) const {
    Outcome o = *this;
    o.requester = RequesterEffect::RETRIES;
    o.when_retries_exhausted = exhausted;
    return o;
  }
  constexpr Outcome req_lost() const {
    Outcome o = *this;
    o.requester = RequesterEffect::LOST;
    return o;
  }
  constexpr Outcome recv(cq::WcStatus s) const {
    Outcome o = *this;
    o.receive_status = s;
    return o;
  }
  constexpr Outcome req_err() const {
    Outcome o = *this;
    o.requester_state = StateChange::ERR;
    o.requester_flush = Flush::ALL;
    return o;
  }
  constexpr Outcome req_sqe() const {
    Outcome o = *this;
    o.requester_state = StateChange::SQE;
    o.requester_flush = Flush::SEND_QUEUE;
    return o;
  }
  constexpr Outcome resp_err() const {
    Outcome o = *this;
    o.responder_state = StateChange::ERR;
    o.responder_flush = Flush::ALL;
    return o;
  }
  constexpr Outcome raise(AsyncEventType a, AsyncEventType b = AsyncEventType::NONE) const {
    Outcome o = *this;
    o.events = {a, b};
    return o;
  }
  constexpr Outcome why(std::string_view text) const {
    Outcome o = *this;
    o.note = text;
    return o;
  }
};

// The two profiles' outcomes for one QP type.
struct ProfileOutcomes {
  Outcome iba;
  Outcome rxe;
  constexpr const Outcome& get(ErrorProfile p) const { return p == ErrorProfile::IBA ? iba : rxe; }
  constexpr bool diverges() const { return !iba.same_behaviour(rxe); }
};

struct ErrorRow {
  ErrorClass error;
  std::string_view name;
  Tier tier;
  Detector detector;
  std::string_view summary;
  std::string_view reference;   // IBTA clause / spec-notes section / rxe function / capture
  std::string_view divergence;  // empty iff the profiles agree on every QP type
  std::array<ProfileOutcomes, qp::kQpTypeCount> by_type;  // qp::kAllQpTypes order
  constexpr const Outcome& get(qp::QpType t, ErrorProfile p) const {
    return by_type[qp::qp_type_index(t)].get(p);
  }
  constexpr bool diverges() const {
    for (const ProfileOutcomes& c : by_type)
      if (c.diverges()) return true;
    return false;
  }
};

// The vocabulary error_classes.def is written in.
namespace dsl {
constexpr Outcome na() {
  return Outcome{};
}
constexpr Outcome nothing() {
  Outcome o;
  o.applies = true;
  return o;
}
constexpr Outcome drop() {
  Outcome o = nothing();
  o.response = Response::SILENT_DROP;
  return o;
}
constexpr Outcome nak(wire::NakCode code) {
  Outcome o = nothing();
  o.response = Response::NAK;
  o.nak_code = wire::nak_syndrome(code);
  return o;
}
constexpr Outcome rnr_nak() {
  Outcome o = nothing();
  o.response = Response::RNR_NAK;
  return o;
}
constexpr Outcome ack() {
  Outcome o = nothing();
  o.response = Response::ACK;
  return o;
}
constexpr Outcome reserved_nak() {
  Outcome o = nothing();
  o.response = Response::RESERVED_NAK;
  return o;
}
constexpr ProfileOutcomes same(const Outcome& o) {
  return ProfileOutcomes{o, o};
}
constexpr ProfileOutcomes split(const Outcome& iba, const Outcome& rxe) {
  return ProfileOutcomes{iba, rxe};
}
}  // namespace dsl

// The data, indexed by ErrorClass.
// clang-format off
inline constexpr std::array<ErrorRow, kErrorClassCount> kErrorTable = [] {
  using namespace dsl;
  using enum wire::NakCode;
  using enum cq::WcStatus;
  using enum AsyncEventType;
  using enum ErrorClass;
  return std::array<ErrorRow, kErrorClassCount>{{
#define ROCECERT_ERROR(name, tier, detector, summary, reference, divergence, rc, uc, ud) \
    ErrorRow{ErrorClass::name, #name, Tier::tier, Detector::detector, summary, reference,  \
             divergence, {rc, uc, ud}},
#include "rocecert/errors/error_classes.def"
#undef ROCECERT_ERROR
  }};
}();
// clang-format on

constexpr bool table_is_indexed() {
  for (std::size_t i = 0; i < kErrorTable.size(); ++i)
    if (static_cast<std::size_t>(kErrorTable[i].error) != i) return false;
  return true;
}
static_assert(table_is_indexed(), "kErrorTable rows must follow the ErrorClass order");

// --- lookups (O(1)) ------------------------------------------------------------------------
constexpr const ErrorRow& error_row(ErrorClass e) {
  return kErrorTable[static_cast<std::size_t>(e)];
}
constexpr const Outcome& outcome(ErrorClass e, qp::QpType t,
                                 ErrorProfile p = kDefaultErrorProfile) {
  return error_row(e).get(t, p);
}
constexpr Tier tier_of(ErrorClass e) {
  return error_row(e).tier;
}
constexpr std::string_view to_string(ErrorClass e) {
  return static_cast<std::size_t>(e) < kErrorTable.size() ? error_row(e).name
                                                          : std::string_view("?");
}
constexpr bool error_class_from_name(std::string_view name, ErrorClass& out) {
  for (const ErrorRow& r : kErrorTable) {
    if (r.name == name) {
      out = r.error;
      return true;
    }
  }
  return false;
}

// --- mappings --------------------------------------------------------------------------------

// Where a memory access check ran: at the requester (gather, READ/atomic scatter) or at the
// responder (rkey checks, receive-buffer scatter).
enum class AccessSite : std::uint8_t { REQUESTER, RESPONDER };

// The error class of a failed access check (mem/access_check.h lists the outcomes). Remote
// operations (rkey): RESP_RKEY_VIOLATION, except UNALIGNED_ATOMIC -> RESP_MISALIGNED_ATOMIC
// (docs/spec-notes.md §4.4 CHK_RKEY, §7.6). Local operations (lkey): a gather is
// REQ_LOCAL_PROTECTION; a scatter is REQ_LOCAL_SCATTER_PROTECTION at the requester (READ response,
// atomic result) and RESP_RECV_WQE_PROTECTION at the responder (receive buffer) (docs/spec-notes.md
// §5.5, §4.4 row 7), because rxe reports those three with different statuses. nullopt for OK.
constexpr std::optional<ErrorClass> error_for_access(mem::MemOp op, mem::AccessOutcome outcome,
                                                     AccessSite site = AccessSite::REQUESTER) {
  if (outcome == mem::AccessOutcome::OK) return std::nullopt;
  switch (op) {
    case mem::MemOp::LOCAL_READ:
      return ErrorClass::REQ_LOCAL_PROTECTION;
    case mem::MemOp::LOCAL_WRITE:
      return site == AccessSite::RESPONDER ? ErrorClass::RESP_RECV_WQE_PROTECTION
                                           : ErrorClass::REQ_LOCAL_SCATTER_PROTECTION;
    case mem::MemOp::REMOTE_READ:
    case mem::MemOp::REMOTE_WRITE:
    case mem::MemOp::REMOTE_ATOMIC:
    case mem::MemOp::ATOMIC_WRITE:
    case mem::MemOp::FLUSH:
      break;
  }
  return outcome == mem::AccessOutcome::UNALIGNED_ATOMIC ? ErrorClass::RESP_MISALIGNED_ATOMIC
                                                         : ErrorClass::RESP_RKEY_VIOLATION;
}

// The class a requester meets when it receives this AETH syndrome (docs/spec-notes.md §4.1, §4.3):
// nullopt for an ACK; RESP_RNR for an RNR NAK and RESP_PSN_SEQUENCE for NAK 0x60 (both retried);
// REQ_REMOTE_* for the fatal NAK codes; REQ_RESERVED_NAK for codes 0x65-0x7F; and
// REQ_BAD_RESPONSE for the reserved syndrome type (bits 6:5 = 10) or bit 7 set, which rxe
// rejects as an error completion (it masks with 0xE0).
constexpr std::optional<ErrorClass> error_for_syndrome(std::uint8_t syndrome) {
  switch (wire::aeth_kind(syndrome)) {
    case wire::AethKind::ACK:
      return std::nullopt;
    case wire::AethKind::RNR_NAK:
      return ErrorClass::RESP_RNR;
    case wire::AethKind::RESERVED:
      return ErrorClass::REQ_BAD_RESPONSE;
    case wire::AethKind::NAK:
      break;
  }
  const std::optional<wire::NakCode> code = wire::nak_code(syndrome);
  if (!code) return ErrorClass::REQ_RESERVED_NAK;
  switch (*code) {
    case wire::NakCode::PSN_SEQUENCE_ERROR:
      return ErrorClass::RESP_PSN_SEQUENCE;
    case wire::NakCode::INVALID_REQUEST:
      return ErrorClass::REQ_REMOTE_INVALID_REQUEST;
    case wire::NakCode::REMOTE_ACCESS_ERROR:
      return ErrorClass::REQ_REMOTE_ACCESS;
    case wire::NakCode::REMOTE_OPERATIONAL_ERROR:
      return ErrorClass::REQ_REMOTE_OPERATIONAL;
    case wire::NakCode::INVALID_RD_REQUEST:
      return ErrorClass::REQ_REMOTE_INVALID_RD_REQUEST;
  }
  return ErrorClass::REQ_RESERVED_NAK;
}

// The status an RC requester completes its WQE with on receiving this syndrome; nullopt when
// the syndrome does not complete a WQE in error (an ACK, or an RNR / PSN sequence NAK, which
// are retried: the statuses come later from REQ_RNR_RETRY_EXCEEDED / REQ_RETRY_EXCEEDED).
constexpr std::optional<cq::WcStatus> requester_status_for_syndrome(
    std::uint8_t syndrome, ErrorProfile p = kDefaultErrorProfile) {
  const std::optional<ErrorClass> e = error_for_syndrome(syndrome);
  if (!e) return std::nullopt;
  const Outcome& o = outcome(*e, qp::QpType::RC, p);
  if (o.requester != RequesterEffect::COMPLETES) return std::nullopt;
  return o.requester_status;
}

// The AETH syndrome the responder sends for an outcome: the NAK code, or 0x20 | min_rnr_timer
// for an RNR NAK; nullopt when no NAK is sent (an ACK uses the adapter's ACK syndrome).
constexpr std::optional<std::uint8_t> nak_syndrome(const Outcome& o,
                                                   std::uint8_t min_rnr_timer = 0) {
  switch (o.response) {
    case Response::NAK:
      return o.nak_code;
    case Response::RNR_NAK:
      return wire::rnr_nak_syndrome(min_rnr_timer);
    case Response::NONE:
    case Response::SILENT_DROP:
    case Response::ACK:
    case Response::RESERVED_NAK:
      break;
  }
  return std::nullopt;
}

// The queues a state change flushes (docs/spec-notes.md §6.5, §6.6): ERR flushes the send queue,
// then the receive queue; with an SRQ the SRQ itself is not flushed, only a WQE a message in
// progress had taken from it. SQE flushes the send queue only.
struct FlushScope {
  bool send_queue = false;
  bool receive_queue = false;
  bool srq_wqe_in_progress = false;
  friend constexpr bool operator==(const FlushScope&, const FlushScope&) = default;
};
constexpr FlushScope flush_scope(StateChange change, bool has_srq) {
  switch (change) {
    case StateChange::NONE:
      return {};
    case StateChange::SQE:
      return {true, false, false};
    case StateChange::ERR:
      return {true, !has_srq, has_srq};
  }
  return {};
}

// IBA: a QP attached to an SRQ that enters ERR raises QP_LAST_WQE_REACHED once no more WQEs
// will be consumed (docs/spec-notes.md §6.5 item 6; hfi1 does). rxe's path was not observed: none.
constexpr bool raises_last_wqe_reached(ErrorProfile p, bool has_srq, bool enters_err) {
  return p == ErrorProfile::IBA && has_srq && enters_err;
}

// IBA: a CQ error is permanent; every later attempt to post to that CQ fails again (and takes
// the posting QP to ERR). rxe: a full CQ only refuses while it is full; once polled it works.
constexpr bool cq_error_is_sticky(ErrorProfile p) {
  return p == ErrorProfile::IBA;
}

// --- names and rendering -------------------------------------------------------------------
std::string_view to_string(ErrorProfile p);  // "IBA", "RXE"
bool error_profile_from_name(std::string_view name, ErrorProfile& out);
std::string_view to_string(Tier t);
std::string_view to_string(Detector d);
std::string_view to_string(Response r);
std::string_view to_string(RequesterEffect r);
std::string_view to_string(StateChange s);
std::string_view to_string(Flush f);

}  // namespace rocecert::errors
