#include "rocecert/sim/event_queue.h"

namespace rocecert::sim {

EventId EventQueue::schedule_at(SimTime at, Action action) {
  if (at < now_) at = now_;  // the past is not reachable; run as soon as possible
  const EventId id = next_id_++;
  heap_.push(Entry{at, id});
  pending_.emplace(id, std::move(action));
  return id;
}

bool EventQueue::cancel(EventId id) {
  return pending_.erase(id) != 0;
}

void EventQueue::drop_cancelled_head() {
  while (!heap_.empty() && pending_.find(heap_.top().id) == pending_.end()) heap_.pop();
}

SimTime EventQueue::next_time() {
  drop_cancelled_head();  // cancelled entries stay in the heap until they reach its head
  return heap_.empty() ? kNever : heap_.top().at;
}

bool EventQueue::step() {
  drop_cancelled_head();
  if (heap_.empty()) return false;
  const Entry e = heap_.top();
  heap_.pop();
  auto it = pending_.find(e.id);
  Action action = std::move(it->second);
  pending_.erase(it);
  now_ = e.at;
  action();
  return true;
}

std::uint64_t EventQueue::run_until(SimTime until) {
  std::uint64_t ran = 0;
  for (;;) {
    drop_cancelled_head();
    if (heap_.empty() || heap_.top().at > until) break;
    step();
    ++ran;
  }
  if (until != kNever && until > now_) now_ = until;
  return ran;
}

}  // namespace rocecert::sim
