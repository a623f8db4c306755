// A simulation: adapters joined by point-to-point links with latency, one event queue, one
// observer list. Same scenario and seed, same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "rocecert/model/adapter.h"
#include "rocecert/model/faults.h"
#include "rocecert/sim/event_queue.h"
#include "rocecert/trace/observer.h"

namespace rocecert::model {

// A full-duplex point-to-point link. A frame sent by one end reaches the other after
// `latency_ns` plus its serialization time at `gbps` (0: no serialization delay), in order,
// unless the link's FaultPlan says otherwise (faults.h, docs/faults.md): a dropped frame never
// arrives, a duplicated one arrives twice back to back, a delayed one arrives later on its own
// (later frames are not held up by it, so a delay longer than the gap between frames
// reorders), a reordered one is held until `overtake` frames of its direction sent after it
// have arrived (or until `max_hold_ns` after it was due) and then arrives right behind them, a
// corrupted or ECN-marked one arrives changed. Every fault is reported through Observer::on_fault
// when the frame is handed over. Direction A→B is from the first adapter given to the constructor.
class Link final : public FramePort {
 public:
  Link(sim::EventQueue& events, trace::Observer& observer, Adapter& a, Adapter& b,
       sim::SimTime latency_ns, double gbps, FaultPlan faults = {});
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  void transmit(const Adapter& from, std::vector<std::uint8_t> frame) override;

  // A harness stands behind end `end` (a() or b()) in place of the model: the frames the link
  // delivers to that end go to `receiver` instead of Adapter::receive, and the harness sends as
  // that end with transmit(end, frame). Used to join a device under test to the model
  // (conformance's device plugins, docs/dut.md); the link's faults apply as usual.
  using Receiver = std::function<void(std::vector<std::uint8_t>)>;
  void divert(const Adapter& end, Receiver receiver);
  // A harness listens at end `end`: every frame the link delivers to it also goes to `listener`
  // (a copy, right before the adapter gets it). Used by wire-only device runs (docs/dut.md).
  void tap(const Adapter& end, Receiver listener);

  // Replaces the fault plan. Rule occurrences, counts and the random streams start again
  // from the first frame; frames already held for reordering are released as planned.
  void set_faults(FaultPlan plan) { faults_ = FaultInjector(std::move(plan)); }
  const FaultInjector& faults() const { return faults_; }

  Adapter& a() const { return a_; }
  Adapter& b() const { return b_; }

 private:
  struct Held {  // a frame waiting for later frames to overtake it
    std::uint64_t id = 0;
    std::vector<std::uint8_t> frame;
    unsigned copies = 1;
    std::uint32_t overtakers_left = 0;
    sim::SimTime due = 0;  // when it would have arrived had it not been held
    sim::EventId timeout = 0;
  };
  // Schedules `copies` deliveries of `frame` at `at`.
  void schedule_delivery(std::size_t dir, sim::SimTime at, std::vector<std::uint8_t> frame,
                         unsigned copies);
  // A frame sent after the held frames with ids below `sent_before` arrives at `at`: it
  // overtakes them, and those it completes are released behind it.
  void delivered(std::size_t dir, std::uint64_t sent_before, sim::SimTime at);
  void hold_expired(std::size_t dir, std::uint64_t id);

  sim::EventQueue& events_;
  trace::Observer& observer_;
  Adapter& a_;
  Adapter& b_;
  sim::SimTime latency_ns_;
  double gbps_;
  sim::SimTime busy_until_[2] = {0, 0};  // per direction: when the wire is free again
  FaultInjector faults_;
  Receiver diverted_[2];       // per direction's receiving end: a harness instead of the adapter
  Receiver tapped_[2];         // per direction's receiving end: a harness beside the adapter
  std::vector<Held> held_[2];  // per direction, in the order the frames were sent
  std::uint64_t next_hold_id_ = 0;
};

class Simulation {
 public:
  Simulation() = default;
  sim::EventQueue& events() { return events_; }
  trace::ObserverList& observers() { return observers_; }

  Adapter& add_adapter(AdapterConfig config);
  Link& connect(Adapter& a, Adapter& b, sim::SimTime latency_ns = 1000, double gbps = 0,
                FaultPlan faults = {});
  Adapter* find(const std::string& name);
  const std::vector<std::unique_ptr<Adapter>>& adapters() const { return adapters_; }
  // The links in the order connect() made them (to set or inspect their faults).
  Link& link(std::size_t i) { return *links_.at(i); }
  std::size_t link_count() const { return links_.size(); }

  // Runs until nothing is left to do or simulated time reaches `until`.
  std::uint64_t run_until(sim::SimTime until = sim::kNever) { return events_.run_until(until); }

 private:
  sim::EventQueue events_;
  trace::ObserverList observers_;
  std::vector<std::unique_ptr<Adapter>> adapters_;
  std::vector<std::unique_ptr<Link>> links_;
};

}  // namespace rocecert::model
