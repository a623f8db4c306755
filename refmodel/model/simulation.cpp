// Links and the simulation that owns adapters, links, the event queue and the observers.
#include "rocecert/model/simulation.h"

#include <algorithm>
#include <deque>

namespace rocecert::model {

namespace {
// Time arithmetic that saturates instead of wrapping when a plan asks for absurd delays.
sim::SimTime later(sim::SimTime t, sim::SimTime by) {
  return by > sim::kNever - t ? sim::kNever : t + by;
}
}  // namespace

Link::Link(sim::EventQueue& events, trace::Observer& observer, Adapter& a, Adapter& b,
           sim::SimTime latency_ns, double gbps, FaultPlan faults)
    : events_(events),
      observer_(observer),
      a_(a),
      b_(b),
      latency_ns_(latency_ns),
      gbps_(gbps),
      faults_(std::move(faults)) {
  a.attach(this);
  b.attach(this);
}

void Link::transmit(const Adapter& from, std::vector<std::uint8_t> frame) {
  const std::size_t dir = &from == &a_ ? 0 : 1;
  sim::SimTime start = std::max(events_.now(), busy_until_[dir]);
  if (gbps_ > 0) {
    // Serialization at the line rate, with the 20 bytes of preamble, SFD and IFG and the FCS.
    const double bits = static_cast<double>(frame.size() + 24) * 8.0;
    start += static_cast<sim::SimTime>(bits / gbps_);
  }
  // The sender's wire is busy for every frame it sends: the faults happen beyond it.
  busy_until_[dir] = start;
  const sim::SimTime due = start + latency_ns_;

  const FaultDecision d = faults_.decide(static_cast<LinkDirection>(dir), frame);
  // Reported with the frame as it was handed over, before the byte faults change it.
  for (const FiredFault& f : d.fired)
    observer_.on_fault({events_.now(), from.id(), to_string(f.action), f.source, frame});
  if (d.drop) return;
  apply_byte_faults(d, frame);
  const sim::SimTime at = later(due, d.extra_delay_ns);
  if (d.hold) {
    Held h;
    h.id = next_hold_id_++;
    h.copies = d.copies;
    h.overtakers_left = std::max<std::uint32_t>(1, d.hold_timing.overtake);
    h.due = at;
    h.timeout = events_.schedule_at(later(at, d.hold_timing.max_hold_ns),
                                    [this, dir, id = h.id] { hold_expired(dir, id); });
    h.frame = std::move(frame);
    held_[dir].push_back(std::move(h));
    return;
  }
  schedule_delivery(dir, at, std::move(frame), d.copies);
  delivered(dir, next_hold_id_, at);
}

void Link::divert(const Adapter& end, Receiver receiver) {
  // Direction 0 (A to B) delivers to b_.
  diverted_[&end == &a_ ? 1 : 0] = std::move(receiver);
}

void Link::tap(const Adapter& end, Receiver listener) {
  tapped_[&end == &a_ ? 1 : 0] = std::move(listener);
}

void Link::schedule_delivery(std::size_t dir, sim::SimTime at, std::vector<std::uint8_t> frame,
                             unsigned copies) {
  if (const Receiver& r = diverted_[dir]) {
    for (unsigned i = 1; i < copies; ++i)
      events_.schedule_at(at, [&r, f = frame]() mutable { r(std::move(f)); });
    events_.schedule_at(at, [&r, f = std::move(frame)]() mutable { r(std::move(f)); });
    return;
  }
  Adapter& to = dir == 0 ? b_ : a_;
  if (const Receiver& t = tapped_[dir]) {
    for (unsigned i = 0; i < copies; ++i)
      events_.schedule_at(at, [&t, &to, f = frame]() mutable {
        t(f);
        to.receive(std::move(f));
      });
    return;
  }
  for (unsigned i = 1; i < copies; ++i)
    events_.schedule_at(at, [&to, f = frame]() mutable { to.receive(std::move(f)); });
  events_.schedule_at(at, [&to, f = std::move(frame)]() mutable { to.receive(std::move(f)); });
}

void Link::delivered(std::size_t dir, std::uint64_t sent_before, sim::SimTime at) {
  std::vector<Held>& held = held_[dir];
  if (held.empty()) return;  // the usual case: nothing to overtake, nothing to allocate
  // Each delivery overtakes the held frames sent before it (ids below `sent_before`). The held
  // frames it completes follow it, in the order they were sent, never before they were due;
  // each of those overtakes the frames held before it in turn.
  struct Delivery {
    std::uint64_t sent_before;
    sim::SimTime at;
  };
  std::deque<Delivery> work{{sent_before, at}};
  while (!work.empty()) {
    const Delivery d = work.front();
    work.pop_front();
    for (Held& h : held)
      if (h.id < d.sent_before && h.overtakers_left > 0) --h.overtakers_left;
    for (auto it = held.begin(); it != held.end();) {
      if (it->overtakers_left > 0) {
        ++it;
        continue;
      }
      events_.cancel(it->timeout);
      const sim::SimTime when = std::max(d.at, it->due);
      work.push_back({it->id, when});
      schedule_delivery(dir, when, std::move(it->frame), it->copies);
      it = held.erase(it);
    }
  }
}

void Link::hold_expired(std::size_t dir, std::uint64_t id) {
  std::vector<Held>& held = held_[dir];
  const auto it =
      std::find_if(held.begin(), held.end(), [id](const Held& h) { return h.id == id; });
  if (it == held.end()) return;
  schedule_delivery(dir, events_.now(), std::move(it->frame), it->copies);
  held.erase(it);
  delivered(dir, id, events_.now());
}

Adapter& Simulation::add_adapter(AdapterConfig config) {
  const auto id = static_cast<std::uint32_t>(adapters_.size());
  adapters_.push_back(std::make_unique<Adapter>(id, std::move(config), events_, observers_));
  return *adapters_.back();
}

Link& Simulation::connect(Adapter& a, Adapter& b, sim::SimTime latency_ns, double gbps,
                          FaultPlan faults) {
  links_.push_back(
      std::make_unique<Link>(events_, observers_, a, b, latency_ns, gbps, std::move(faults)));
  return *links_.back();
}

Adapter* Simulation::find(const std::string& name) {
  for (auto& ad : adapters_)
    if (ad->config().name == name) return ad.get();
  return nullptr;
}

}  // namespace rocecert::model
