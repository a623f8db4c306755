// A simulation: adapters joined by point-to-point links with latency, one event queue, one
// observer list. Same scenario and seed, same bytes (DESIGN §3.5).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rocecert/model/adapter.h"
#include "rocecert/sim/event_queue.h"
#include "rocecert/trace/observer.h"

namespace rocecert::model {

// A full-duplex point-to-point link. A frame sent by one end reaches the other after
// `latency_ns` plus its serialization time at `gbps` (0: no serialization delay), in order.
class Link {
 public:
  Link(sim::EventQueue& events, trace::Observer& observer, Adapter& a, Adapter& b,
       sim::SimTime latency_ns, double gbps);
  void transmit(const Adapter& from, std::vector<std::uint8_t> frame);

 private:
  sim::EventQueue& events_;
  trace::Observer& observer_;
  Adapter& a_;
  Adapter& b_;
  sim::SimTime latency_ns_;
  double gbps_;
  sim::SimTime busy_until_[2] = {0, 0};  // per direction: when the wire is free again
};

class Simulation {
 public:
  Simulation() = default;
  sim::EventQueue& events() { return events_; }
  trace::ObserverList& observers() { return observers_; }

  Adapter& add_adapter(AdapterConfig config);
  Link& connect(Adapter& a, Adapter& b, sim::SimTime latency_ns = 1000, double gbps = 0);
  Adapter* find(const std::string& name);
  const std::vector<std::unique_ptr<Adapter>>& adapters() const { return adapters_; }

  // Runs until nothing is left to do or simulated time reaches `until`.
  std::uint64_t run_until(sim::SimTime until = sim::kNever) { return events_.run_until(until); }

 private:
  sim::EventQueue events_;
  trace::ObserverList observers_;
  std::vector<std::unique_ptr<Adapter>> adapters_;
  std::vector<std::unique_ptr<Link>> links_;
};

}  // namespace rocecert::model
