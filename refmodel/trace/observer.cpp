#include "rocecert/trace/observer.h"

namespace rocecert::trace {

void ObserverList::on_frame(const FrameEvent& e) {
  for (Observer* o : observers_) o->on_frame(e);
}
void ObserverList::on_qp_transition(const QpTransitionEvent& e) {
  for (Observer* o : observers_) o->on_qp_transition(e);
}
void ObserverList::on_cqe(const CqeEvent& e) {
  for (Observer* o : observers_) o->on_cqe(e);
}
void ObserverList::on_nak(const NakEvent& e) {
  for (Observer* o : observers_) o->on_nak(e);
}
void ObserverList::on_retry(const RetryEvent& e) {
  for (Observer* o : observers_) o->on_retry(e);
}
void ObserverList::on_access_denied(const AccessDeniedEvent& e) {
  for (Observer* o : observers_) o->on_access_denied(e);
}
void ObserverList::on_async_event(const AsyncEvent& e) {
  for (Observer* o : observers_) o->on_async_event(e);
}
void ObserverList::on_drop(const DropEvent& e) {
  for (Observer* o : observers_) o->on_drop(e);
}

void ObserverList::on_rate(const RateEvent& e) {
  for (Observer* o : observers_) o->on_rate(e);
}
void ObserverList::on_inject(const FrameEvent& e) {
  for (Observer* o : observers_) o->on_inject(e);
}
void ObserverList::on_fault(const FaultEvent& e) {
  for (Observer* o : observers_) o->on_fault(e);
}

std::string_view to_string(RetryKind k) {
  switch (k) {
    case RetryKind::TIMEOUT:
      return "timeout";
    case RetryKind::SEQUENCE_NAK:
      return "sequence_nak";
    case RetryKind::RNR_NAK:
      return "rnr_nak";
    case RetryKind::IMPLIED_NAK:
      return "implied_nak";
  }
  return "?";
}

}  // namespace rocecert::trace
