// Asynchronous events with the libibverbs numbering (rdma-core verbs.h: enum ibv_event_type;
// the kernel's enum ib_event_type uses the same values), so that traces read like
// ibv_get_async_event output. "Affiliated" events concern one QP, CQ or SRQ; the others concern
// a port or the whole device (ibv_get_async_event(3); docs/spec-notes.md §6.5, §6.6; IBA §11.6,
// a clause number not checked against the IBTA text).
#pragma once

#include <cstdint>
#include <string_view>

namespace rocecert::errors {

#define ROCECERT_ASYNC_EVENTS(X) \
  X(CQ_ERR, 0, CQ)               \
  X(QP_FATAL, 1, QP)             \
  X(QP_REQ_ERR, 2, QP)           \
  X(QP_ACCESS_ERR, 3, QP)        \
  X(COMM_EST, 4, QP)             \
  X(SQ_DRAINED, 5, QP)           \
  X(PATH_MIG, 6, QP)             \
  X(PATH_MIG_ERR, 7, QP)         \
  X(DEVICE_FATAL, 8, DEVICE)     \
  X(PORT_ACTIVE, 9, PORT)        \
  X(PORT_ERR, 10, PORT)          \
  X(LID_CHANGE, 11, PORT)        \
  X(PKEY_CHANGE, 12, PORT)       \
  X(SM_CHANGE, 13, PORT)         \
  X(SRQ_ERR, 14, SRQ)            \
  X(SRQ_LIMIT_REACHED, 15, SRQ)  \
  X(QP_LAST_WQE_REACHED, 16, QP) \
  X(CLIENT_REREGISTER, 17, PORT) \
  X(GID_CHANGE, 18, PORT)        \
  X(WQ_FATAL, 19, WQ)

// NONE (no event) is not a verbs value; it sits outside the verbs range.
enum class AsyncEventType : std::uint8_t {
#define ROCECERT_X(name, value, target) name = value,
  ROCECERT_ASYNC_EVENTS(ROCECERT_X)
#undef ROCECERT_X
      NONE = 0xFF,
};

// What the event's `element` names (struct ibv_async_event).
enum class EventTarget : std::uint8_t { NONE, QP, CQ, SRQ, WQ, PORT, DEVICE };

constexpr EventTarget event_target(AsyncEventType e) {
  switch (e) {
#define ROCECERT_X(name, value, target) \
  case AsyncEventType::name:            \
    return EventTarget::target;
    ROCECERT_ASYNC_EVENTS(ROCECERT_X)
#undef ROCECERT_X
    case AsyncEventType::NONE:
      return EventTarget::NONE;
  }
  return EventTarget::NONE;
}

// An affiliated asynchronous *error* (the QP or CQ is unusable afterwards), as opposed to an
// informational event (COMM_EST, SQ_DRAINED, SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED, ...).
constexpr bool is_async_error(AsyncEventType e) {
  return e == AsyncEventType::CQ_ERR || e == AsyncEventType::QP_FATAL ||
         e == AsyncEventType::QP_REQ_ERR || e == AsyncEventType::QP_ACCESS_ERR ||
         e == AsyncEventType::SRQ_ERR || e == AsyncEventType::WQ_FATAL ||
         e == AsyncEventType::PATH_MIG_ERR || e == AsyncEventType::DEVICE_FATAL;
}

// "QP_FATAL" ... as the model's observer spells them (ibv names without IBV_EVENT_); "-" for
// NONE; "?" for a raw value that is not an event.
std::string_view to_string(AsyncEventType e);
bool async_event_from_name(std::string_view name, AsyncEventType& out);
std::string_view to_string(EventTarget t);

}  // namespace rocecert::errors
