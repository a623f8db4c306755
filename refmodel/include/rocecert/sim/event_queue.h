// Discrete-event core of the simulation (docs/model.md): explicit integer time in nanoseconds,
// one queue ordered by (time, sequence number). Timers, link deliveries and doorbells are all
// events. No threads, no wall clock: the same schedule gives the same order, always.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <vector>

namespace rocecert::sim {

using SimTime = std::uint64_t;  // nanoseconds since the start of the simulation
inline constexpr SimTime kNever = UINT64_MAX;

using EventId = std::uint64_t;

class EventQueue {
 public:
  using Action = std::function<void()>;

  SimTime now() const { return now_; }

  // Schedules `action` at absolute time `at` (not before now()). Events at the same time run
  // in the order they were scheduled.
  EventId schedule_at(SimTime at, Action action);
  EventId schedule_in(SimTime delay, Action action) {
    return schedule_at(now_ + delay, std::move(action));
  }

  // Cancels a pending event; false if it already ran or was cancelled.
  bool cancel(EventId id);

  // Runs events in order until none is left or the next one is later than `until`; time then
  // stands at `until` (or at the last event when until is kNever). Returns events run.
  std::uint64_t run_until(SimTime until);
  // Runs at most one event; false when the queue is empty.
  bool step();

  bool empty() const { return pending_.empty(); }
  std::size_t pending() const { return pending_.size(); }
  SimTime next_time();  // kNever when empty

 private:
  struct Entry {
    SimTime at;
    EventId id;  // doubles as the sequence number: ids increase with every schedule
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : id > o.id; }
  };
  void drop_cancelled_head();

  SimTime now_ = 0;
  EventId next_id_ = 1;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
  std::unordered_map<EventId, Action> pending_;
};

}  // namespace rocecert::sim
