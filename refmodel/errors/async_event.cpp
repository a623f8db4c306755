#include "rocecert/errors/async_event.h"

namespace rocecert::errors {

std::string_view to_string(AsyncEventType e) {
  switch (e) {
#define ROCECERT_X(name, value, target) \
  case AsyncEventType::name:            \
    return #name;
    ROCECERT_ASYNC_EVENTS(ROCECERT_X)
#undef ROCECERT_X
    case AsyncEventType::NONE:
      return "-";
  }
  return "?";
}

bool async_event_from_name(std::string_view name, AsyncEventType& out) {
#define ROCECERT_X(n, value, target) \
  if (name == #n) {                  \
    out = AsyncEventType::n;         \
    return true;                     \
  }
  ROCECERT_ASYNC_EVENTS(ROCECERT_X)
#undef ROCECERT_X
  return false;
}

std::string_view to_string(EventTarget t) {
  switch (t) {
    case EventTarget::NONE:
      return "-";
    case EventTarget::QP:
      return "QP";
    case EventTarget::CQ:
      return "CQ";
    case EventTarget::SRQ:
      return "SRQ";
    case EventTarget::WQ:
      return "WQ";
    case EventTarget::PORT:
      return "PORT";
    case EventTarget::DEVICE:
      return "DEVICE";
  }
  return "?";
}

}  // namespace rocecert::errors
