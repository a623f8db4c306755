// Links and the simulation that owns adapters, links, the event queue and the observers.
#include "rocecert/model/simulation.h"

#include <algorithm>

namespace rocecert::model {

Link::Link(sim::EventQueue& events, trace::Observer& observer, Adapter& a, Adapter& b,
           sim::SimTime latency_ns, double gbps)
    : events_(events), observer_(observer), a_(a), b_(b), latency_ns_(latency_ns), gbps_(gbps) {
  a.attach(this);
  b.attach(this);
}

void Link::transmit(const Adapter& from, std::vector<std::uint8_t> frame) {
  const int dir = &from == &a_ ? 0 : 1;
  Adapter& to = dir == 0 ? b_ : a_;
  sim::SimTime start = std::max(events_.now(), busy_until_[dir]);
  if (gbps_ > 0) {
    // Serialization at the line rate, with the 20 bytes of preamble, SFD and IFG and the FCS.
    const double bits = static_cast<double>(frame.size() + 24) * 8.0;
    start += static_cast<sim::SimTime>(bits / gbps_);
  }
  busy_until_[dir] = start;
  events_.schedule_at(start + latency_ns_, [&to, f = std::move(frame)]() mutable {
    to.receive(std::move(f));
  });
}

Adapter& Simulation::add_adapter(AdapterConfig config) {
  const auto id = static_cast<std::uint32_t>(adapters_.size());
  adapters_.push_back(std::make_unique<Adapter>(id, std::move(config), events_, observers_));
  return *adapters_.back();
}

Link& Simulation::connect(Adapter& a, Adapter& b, sim::SimTime latency_ns, double gbps) {
  links_.push_back(std::make_unique<Link>(events_, observers_, a, b, latency_ns, gbps));
  return *links_.back();
}

Adapter* Simulation::find(const std::string& name) {
  for (auto& ad : adapters_)
    if (ad->config().name == name) return ad.get();
  return nullptr;
}

}  // namespace rocecert::model
