// Multi-QP error arbitration and the isolation rule (docs/error-arbitration.md). Pure
// functions: no state survives a call except what the caller passes back (the round-robin
// cursor), and the result depends on the multiset of events, not on their order.
#include "rocecert/errors/arbitration.h"

#include <algorithm>
#include <map>

namespace rocecert::errors {

std::strong_ordering precedence_compare(const ErrorEvent& a, const ErrorEvent& b) {
  // Tier first: resource-wide errors, then fatal transport errors, remote, local, flush-only,
  // benign (the rationale is in docs/error-arbitration.md).
  if (auto c = tier_of(a.error) <=> tier_of(b.error); c != 0) return c;
  // Then what happened first, then the lower QPN (then the adapter, for equal QPNs on two
  // adapters).
  if (auto c = a.time_ns <=> b.time_ns; c != 0) return c;
  if (auto c = a.qp.qpn <=> b.qp.qpn; c != 0) return c;
  if (auto c = a.qp.adapter <=> b.qp.adapter; c != 0) return c;
  // Same QP, same instant, same tier: the check that runs first (row order of the table).
  if (auto c = a.error <=> b.error; c != 0) return c;
  // Last, the resource, so that the order is total: events equal in every field are
  // indistinguishable and their relative order cannot matter.
  return a.resource <=> b.resource;
}

namespace {

std::vector<ErrorEvent> sorted_by_precedence(std::span<const ErrorEvent> events) {
  std::vector<ErrorEvent> out(events.begin(), events.end());
  std::sort(out.begin(), out.end(), precedence_before);
  return out;
}

Arbitration round_robin(std::span<const ErrorEvent> events, RoundRobinCursor cursor) {
  // Each QP's pending events, in precedence order, served from the front.
  std::map<QpKey, std::vector<ErrorEvent>> pending;
  for (const ErrorEvent& e : sorted_by_precedence(events)) pending[e.qp].push_back(e);
  std::map<QpKey, std::size_t> served;  // how many of each QP's events are out already

  Arbitration out;
  out.order.reserve(events.size());
  out.cursor = cursor;
  while (!pending.empty()) {
    // The first QP with pending events strictly after the one served last, wrapping around.
    auto it =
        out.cursor.last_served ? pending.upper_bound(*out.cursor.last_served) : pending.begin();
    if (it == pending.end()) it = pending.begin();
    std::size_t& n = served[it->first];
    out.order.push_back(it->second[n]);
    ++n;
    out.cursor.last_served = it->first;
    if (n == it->second.size()) pending.erase(it);
  }
  return out;
}

// How severe a state change is: ERR dominates SQE dominates nothing.
int severity(StateChange s) {
  switch (s) {
    case StateChange::NONE:
      return 0;
    case StateChange::SQE:
      return 1;
    case StateChange::ERR:
      return 2;
  }
  return 0;
}

// The state a QP in `from` moves to under `change` (docs/spec-notes.md §6.2: any state but RESET
// can go to ERR; SQE is entered from RTS, or SQD, by a send-side error on UC/UD).
qp::QpState apply(qp::QpState from, StateChange change) {
  switch (change) {
    case StateChange::NONE:
      break;
    case StateChange::ERR:
      if (from != qp::QpState::RESET) return qp::QpState::ERR;
      break;
    case StateChange::SQE:
      if (from == qp::QpState::RTS || from == qp::QpState::SQD) return qp::QpState::SQE;
      break;
  }
  return from;
}

}  // namespace

Arbitration arbitrate(std::span<const ErrorEvent> events, ArbitrationPolicy policy,
                      RoundRobinCursor cursor) {
  switch (policy) {
    case ArbitrationPolicy::PRECEDENCE: {
      Arbitration out;
      out.order = sorted_by_precedence(events);
      out.cursor = cursor;
      if (!out.order.empty()) out.cursor.last_served = out.order.back().qp;
      return out;
    }
    case ArbitrationPolicy::ROUND_ROBIN:
      return round_robin(events, cursor);
  }
  return {};
}

bool attached_to(const QpAttachment& q, const ResourceRef& r) {
  switch (r.kind) {
    case ResourceKind::NONE:
      return false;
    case ResourceKind::CQ:
      return q.send_cq == r.id || q.recv_cq == r.id;
    case ResourceKind::SRQ:
      return q.srq.has_value() && *q.srq == r.id;
  }
  return false;
}

StateChange local_state_change(ErrorClass e, qp::QpType t, ErrorProfile p) {
  const Outcome& o = outcome(e, t, p);
  if (!o.applies) return StateChange::NONE;
  switch (error_row(e).detector) {
    case Detector::REQUESTER:
    case Detector::VERBS:
      return o.requester_state;
    case Detector::RESPONDER:
    case Detector::RECEIVER:
      return o.responder_state;
  }
  return StateChange::NONE;
}

Isolation isolate(const ResourceRef& resource, std::span<const QpAttachment> qps,
                  std::span<const ErrorEvent> events, ErrorProfile profile) {
  // The QPs that use the resource, each once, in (adapter, QPN) order.
  std::map<QpKey, const QpAttachment*> attached;
  for (const QpAttachment& q : qps)
    if (attached_to(q, resource)) attached.emplace(q.qp, &q);

  Isolation out;
  std::map<QpKey, qp::QpState> state;  // each touched QP's state as the events are applied
  std::map<QpKey, std::vector<ErrorClass>> causes;
  for (const auto& [key, q] : attached) {
    out.touched.push_back(key);
    state[key] = q->state;
  }

  // Apply the events in precedence order. A QP's own events are all that can move it; an
  // event on a QP that is already in ERR (or RESET) is subsumed: it changes nothing and raises
  // nothing, as a QP in ERR drops what it receives and flushes what it holds (docs/spec-notes.md
  // §6.3).
  for (const ErrorEvent& e : sorted_by_precedence(events)) {
    if (e.resource != resource) continue;
    const auto a = attached.find(e.qp);
    if (a == attached.end()) continue;
    const QpAttachment& q = *a->second;
    qp::QpState& st = state[e.qp];
    if (st == qp::QpState::ERR || st == qp::QpState::RESET) continue;
    const Outcome& o = outcome(e.error, q.type, profile);
    if (!o.applies) continue;
    for (AsyncEventType ev : o.events) {
      if (ev == AsyncEventType::NONE) continue;
      RaisedEvent r{ev, e.qp, {}};
      if (event_target(ev) == EventTarget::CQ || event_target(ev) == EventTarget::SRQ)
        r.resource = resource;
      out.events.push_back(r);
    }
    const StateChange change = local_state_change(e.error, q.type, profile);
    const qp::QpState next = apply(st, change);
    if (severity(change) > 0) causes[e.qp].push_back(e.error);
    if (next == st) continue;
    st = next;
    if (raises_last_wqe_reached(profile, q.srq.has_value(), next == qp::QpState::ERR))
      out.events.push_back({AsyncEventType::QP_LAST_WQE_REACHED, e.qp, {}});
  }

  for (const auto& [key, q] : attached) {
    const qp::QpState to = state[key];
    if (to == q->state) {
      out.untouched.push_back(key);
      continue;
    }
    out.changed.push_back(QpFate{key, q->state, to, causes[key]});
  }
  return out;
}

}  // namespace rocecert::errors
