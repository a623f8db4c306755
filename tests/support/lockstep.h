// Test support: replays a capture of one RC/UC QP pair against the model in lockstep, so that
// the comparison does not depend on how fast the real device was.
//
// The capture's tap sits on A's side, after A's fault injection (vectors/real/README.md):
// it shows every request that left A and survived, in the order B received them, and every
// response that reached A. The replay walks it frame by frame at the capture's own times:
//   - a request: the model's requester A is allowed exactly one packet (a TxPacer that
//     answers kNever otherwise); that packet must equal the captured one. If it does not and
//     requests may be lost on this capture, the model's packet is taken as lost before the
//     tap (not delivered) and A may send the next one — at most `max_lost_in_a_row` times.
//     The matching packet is handed to the model's responder B.
//   - a response: the model's responder B answered the requests it was given at once; its next
//     answer must equal the captured one (or, if responses may be lost, answers in between are
//     taken as lost after B). The matching answer is handed to A's completer.
// When A has nothing to send at a request's time (its ACK timer has not fired yet, say), model
// time runs on, event by event, until A sends or `max_wait_ns` has passed; how far it ran
// ahead is recorded. So the model decides *what* goes on the wire; the capture decides *when*.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "model_pair.h"
#include "rocecert/pcap/reader.h"
#include "wire_row.h"

namespace rocecert::testing {

struct CapturedPacket {
  std::uint64_t frame = 0;  // 1-based, as in the capture
  sim::SimTime t = 0;       // ns since the capture's first frame
  int dir = 0;              // 0: A→B (request side), 1: B→A
  WireRow row;
  bool icrc_ok = true;
};

// Reads a capture of one QP pair; A is the host whose last IPv4 byte (or IPv6 byte) is 1.
inline std::vector<CapturedPacket> load_packets(const std::string& path) {
  std::vector<CapturedPacket> out;
  pcap::Reader r(path);
  pcap::Record rec;
  std::int64_t t0 = -1;
  while (r.next(rec)) {
    const wire::ParsedFrame p = wire::decode(rec.data, {r.link(), true});
    EXPECT_FALSE(p.has_error) << path << " frame " << rec.frame;
    if (t0 < 0) t0 = rec.ts_ns;
    CapturedPacket c;
    c.frame = rec.frame;
    c.t = static_cast<sim::SimTime>(rec.ts_ns - t0);
    c.dir = p.ip.src[p.ip.version == 4 ? 3 : 15] == 1 ? 0 : 1;
    c.row = wire_row(p);
    c.icrc_ok = p.icrc_ok;
    out.push_back(c);
  }
  return out;
}

class Lockstep : public model::FramePort, public model::TxPacer {
 public:
  struct Options {
    bool requests_may_be_lost = false;        // netem loss on A's egress
    bool responses_may_be_lost = false;       // netem loss on B's egress
    bool requests_may_be_duplicated = false;  // netem duplicate on A's egress
    // netem reorder/delay on A's egress: a model packet not seen yet may still show up this
    // many captured requests later (0: only in order).
    unsigned reorder_window = 0;
    unsigned max_lost_in_a_row = 4;
    sim::SimTime max_wait_ns = 500'000'000;
    sim::SimTime start_ns = 1'000;  // model time of the capture's first frame
  };
  struct Report {
    std::size_t requests = 0, responses = 0;            // captured packets matched
    std::size_t lost_requests = 0, lost_responses = 0;  // model packets taken as lost
    std::size_t skipped_bad_icrc = 0;                   // captured, corrupted: B drops them
    std::size_t reordered_requests = 0, duplicated_requests = 0;
    sim::SimTime max_ahead_ns = 0;  // how far model time ran past a request's capture time
    std::uint64_t max_ahead_frame = 0;
    std::vector<std::string> mismatches;
    std::size_t failed_index = SIZE_MAX;  // position in the replayed sequence of the first mismatch
    std::vector<std::string> context;     // the replay so far, newest last (for a failure)
  };

  // `top_up` runs before each captured packet: it posts work the run still needs (perftest
  // re-posts as WRs complete) and must not run the simulation.
  Lockstep(Pair& t, Options opt, std::function<void()> top_up = {})
      : t_(t), opt_(opt), top_up_(std::move(top_up)) {
    t_.a.ad->attach(this);
    t_.b.ad->attach(this);
    t_.a.ad->set_tx_pacer(this);
  }
  ~Lockstep() override { t_.a.ad->set_tx_pacer(nullptr); }

  void transmit(const model::Adapter& from, std::vector<std::uint8_t> frame) override {
    (from.id() == t_.a.ad->id() ? out_a_ : out_b_).push_back(std::move(frame));
  }
  sim::SimTime earliest_send(std::uint32_t, sim::SimTime now, std::uint32_t) override {
    return credits_ > 0 ? now : sim::kNever;
  }
  void sent(std::uint32_t, sim::SimTime, std::uint32_t) override { --credits_; }

  Report run(const std::vector<CapturedPacket>& capture) {
    Report rep;
    for (std::size_t i = 0; i < capture.size(); ++i) {
      const CapturedPacket& c = capture[i];
      rep.failed_index = i;
      if (top_up_) top_up_();
      const sim::SimTime at = opt_.start_ns + c.t;
      if (events().now() < at) t_.sim.run_until(at);
      if (!c.icrc_ok) {
        // A frame corrupted on the way (netem corrupt): B's ICRC check drops it. The model's
        // packet is still the one that was sent: it must match and is not delivered.
        ++rep.skipped_bad_icrc;
        if (!step_request(c, rep, /*deliver=*/false)) return rep;
        continue;
      }
      const bool ok = c.dir == 0 ? step_request(c, rep, true) : step_response(c, rep);
      if (!ok) return rep;
    }
    rep.failed_index = SIZE_MAX;
    // Packets the model sent that the capture never showed: lost, if this capture can lose.
    for (const Held& h : held_) {
      const std::string what = describe(wire_row(wire::decode(h.frame)));
      if (!opt_.requests_may_be_lost) {
        rep.mismatches.push_back("end of capture: the model sent " + what +
                                 ", which the capture never shows");
        rep.failed_index = capture.size();
        break;
      }
      ++rep.lost_requests;
    }
    held_.clear();
    return rep;
  }

 private:
  sim::EventQueue& events() { return t_.sim.events(); }

  void note(Report& rep, std::string s) {
    rep.context.push_back(std::move(s));
    if (rep.context.size() > 16) rep.context.erase(rep.context.begin());
  }

  // Runs model time on, event by event, until `out` holds a frame or the wait is over.
  bool wait_for(std::deque<std::vector<std::uint8_t>>& out, sim::SimTime captured_at, Report& rep,
                std::uint64_t frame) {
    events().run_until(events().now());
    while (out.empty()) {
      const sim::SimTime next = events().next_time();
      if (next == sim::kNever || next > captured_at + opt_.max_wait_ns) return false;
      events().step();
    }
    if (events().now() > captured_at && events().now() - captured_at > rep.max_ahead_ns) {
      rep.max_ahead_ns = events().now() - captured_at;
      rep.max_ahead_frame = frame;
    }
    return true;
  }

  // The model's next request packet: one more credit, then model time runs until A sends.
  bool next_from_a(const CapturedPacket& c, Report& rep, std::vector<std::uint8_t>& out) {
    if (out_a_.empty()) {
      credits_ = 1;
      t_.a.ad->kick_requester(t_.a.qpn);
      if (!wait_for(out_a_, opt_.start_ns + c.t, rep, c.frame)) {
        credits_ = 0;
        return false;
      }
    }
    out = std::move(out_a_.front());
    out_a_.pop_front();
    return true;
  }

  void deliver_request(const CapturedPacket& c, Report& rep, std::vector<std::uint8_t> f,
                       bool deliver, const char* how) {
    ++rep.requests;
    note(rep, "frame " + std::to_string(c.frame) + " A→B " + describe(c.row) + how +
                  (deliver ? "" : " (bad ICRC)"));
    if (opt_.requests_may_be_duplicated) {
      recent_.push_back(f);
      if (recent_.size() > 32) recent_.pop_front();
    }
    if (deliver) t_.b.ad->receive(std::move(f));
  }

  // Model packets held back (reordered on the way, or lost) that have waited too long.
  bool age_held(const CapturedPacket& c, Report& rep) {
    while (!held_.empty() && held_.front().age > opt_.reorder_window) {
      if (!opt_.requests_may_be_lost)
        return fail(rep, c,
                    "the model sent " + describe(wire_row(wire::decode(held_.front().frame))) +
                        ", which the capture never shows");
      ++rep.lost_requests;
      note(rep, "  (model A→B " + describe(wire_row(wire::decode(held_.front().frame))) +
                    ": lost before the tap)");
      held_.pop_front();
    }
    return true;
  }

  bool step_request(const CapturedPacket& c, Report& rep, bool deliver) {
    for (Held& h : held_) ++h.age;
    if (!age_held(c, rep)) return false;
    // 1. A packet the model sent earlier that netem held back (reorder, delay).
    for (auto it = held_.begin(); it != held_.end(); ++it) {
      if (wire_row(wire::decode(it->frame)) != c.row) continue;
      std::vector<std::uint8_t> f = std::move(it->frame);
      held_.erase(it);
      ++rep.reordered_requests;
      deliver_request(c, rep, std::move(f), deliver, " (reordered)");
      return true;
    }
    const bool may_hold = opt_.requests_may_be_lost || opt_.reorder_window > 0;
    for (unsigned pulled = 0;; ++pulled) {
      // 2. The model's next packet.
      std::vector<std::uint8_t> f;
      if (!next_from_a(c, rep, f)) {
        // 3. Nothing new: a copy netem made of a packet already delivered.
        if (deliver_duplicate(c, rep, deliver)) return true;
        return fail(rep, c, "the model's requester had nothing to send");
      }
      const WireRow m = wire_row(wire::decode(f));
      if (m == c.row) {
        deliver_request(c, rep, std::move(f), deliver, "");
        return true;
      }
      if (!may_hold || pulled >= opt_.max_lost_in_a_row) {
        if (deliver_duplicate(c, rep, deliver)) {
          held_.push_back({std::move(f), 0});
          return true;
        }
        return fail(rep, c, "model sent " + describe(m));
      }
      // Not this one: netem delayed or dropped it. Held until it shows up or ages out.
      held_.push_back({std::move(f), 0});
      if (pulled == 0 && deliver_duplicate(c, rep, deliver)) return true;
    }
  }

  bool deliver_duplicate(const CapturedPacket& c, Report& rep, bool deliver) {
    if (!opt_.requests_may_be_duplicated) return false;
    for (auto it = recent_.rbegin(); it != recent_.rend(); ++it) {
      if (wire_row(wire::decode(*it)) != c.row) continue;
      ++rep.duplicated_requests;
      std::vector<std::uint8_t> copy = *it;
      deliver_request(c, rep, std::move(copy), deliver, " (duplicate)");
      return true;
    }
    return false;
  }

  bool step_response(const CapturedPacket& c, Report& rep) {
    const sim::SimTime at = opt_.start_ns + c.t;
    for (unsigned lost = 0;; ++lost) {
      if (out_b_.empty() && !wait_for(out_b_, at, rep, c.frame))
        return fail(rep, c, "the model's responder had nothing to send");
      std::vector<std::uint8_t> f = std::move(out_b_.front());
      out_b_.pop_front();
      const WireRow m = wire_row(wire::decode(f));
      if (m == c.row) {
        ++rep.responses;
        note(rep, "frame " + std::to_string(c.frame) + " B→A " + describe(c.row));
        t_.a.ad->receive(std::move(f));
        return true;
      }
      if (!opt_.responses_may_be_lost || lost >= opt_.max_lost_in_a_row)
        return fail(rep, c, "model sent " + describe(m));
      ++rep.lost_responses;
      note(rep, "  (model B→A " + describe(m) + ": lost before the tap)");
    }
  }

  bool fail(Report& rep, const CapturedPacket& c, const std::string& what) {
    rep.mismatches.push_back("frame " + std::to_string(c.frame) + (c.dir == 0 ? " A→B " : " B→A ") +
                             describe(c.row) + ": " + what);
    return false;
  }

  Pair& t_;
  Options opt_;
  std::function<void()> top_up_;
  std::deque<std::vector<std::uint8_t>> out_a_, out_b_;
  struct Held {
    std::vector<std::uint8_t> frame;
    unsigned age = 0;  // captured requests since it was sent
  };
  std::deque<Held> held_;
  std::deque<std::vector<std::uint8_t>> recent_;  // requests delivered lately (netem copies)
  int credits_ = 0;
};

// rxe's requester and completer run as separate tasks and the tap sits after A's qdisc, so a
// request can cross the tap after responses that came back after it was generated: the
// capture then shows it later than the model, which reacts to those responses first, would
// send it. `replay_once(order)` replays one ordering of the capture. When a request does not
// match, this tries it before the 1..max_responses responses just ahead of it (no more than
// `max_lag_ns` earlier) and keeps the first ordering that gets further. Returns the result of
// the final ordering; `moved` lists the capture frames that were moved.
template <class Result, class ReplayOnce>
Result replay_allowing_request_lag(std::vector<CapturedPacket> order, ReplayOnce replay_once,
                                   sim::SimTime max_lag_ns, unsigned max_responses,
                                   std::vector<std::uint64_t>& moved) {
  Result r = replay_once(order);
  while (!r.report.mismatches.empty()) {
    const std::size_t i = r.report.failed_index;
    if (i >= order.size() || order[i].dir != 0) return r;
    bool progressed = false;
    for (unsigned k = 1; k <= max_responses && k <= i; ++k) {
      const std::size_t j = i - k;
      if (order[j].dir != 1 || order[i].t - order[j].t > max_lag_ns) break;
      std::vector<CapturedPacket> candidate = order;
      CapturedPacket req = candidate[i];
      req.t = candidate[j].t;
      candidate.erase(candidate.begin() + static_cast<std::ptrdiff_t>(i));
      candidate.insert(candidate.begin() + static_cast<std::ptrdiff_t>(j), req);
      Result again = replay_once(candidate);
      if (again.report.mismatches.empty() || again.report.failed_index > i) {
        order = std::move(candidate);
        r = std::move(again);
        moved.push_back(req.frame);
        progressed = true;
        break;
      }
    }
    if (!progressed) return r;
  }
  return r;
}

inline std::string format(const Lockstep::Report& r) {
  std::ostringstream o;
  o << r.requests << " requests and " << r.responses << " responses matched, " << r.lost_requests
    << " model requests and " << r.lost_responses << " responses taken as lost, "
    << r.skipped_bad_icrc << " corrupted, " << r.reordered_requests << " reordered, "
    << r.duplicated_requests << " duplicated, model ahead by up to " << r.max_ahead_ns
    << " ns (frame " << r.max_ahead_frame << ")";
  for (const auto& m : r.mismatches) o << "\n  MISMATCH " << m;
  if (!r.mismatches.empty()) {
    o << "\n  replay so far:";
    for (const auto& s : r.context) o << "\n    " << s;
  }
  return o.str();
}

}  // namespace rocecert::testing
