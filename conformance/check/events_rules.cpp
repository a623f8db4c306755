// The DUT's log (--events) against the wire: rules events.wc_status and events.flush
// (rules.def; docs/check.md, "Events").
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "rocecert/errors/error_table.h"
#include "rocecert/proofs/trace_errors.h"
#include "stream.h"

namespace rocecert::check::detail {

namespace {

using cq::WcStatus;

// The completion status of the WQE a fatal NAK names: the errors table's (the model's one
// source; IBA Vol. 1 §9.9.2-9.9.3, §10.8.3; docs/errors.md), under the profile's model.
std::optional<WcStatus> status_for_nak(std::uint8_t syndrome, errors::ErrorProfile profile) {
  if (wire::nak_code(syndrome) == wire::NakCode::PSN_SEQUENCE_ERROR) return std::nullopt;
  const std::optional<errors::ErrorClass> cls = errors::error_for_syndrome(syndrome);
  if (!cls) return std::nullopt;
  return errors::outcome(*cls, qp::QpType::RC, profile).requester_status;
}

bool is_remote(WcStatus s) {
  return s == WcStatus::REM_INV_REQ_ERR || s == WcStatus::REM_ACCESS_ERR ||
         s == WcStatus::REM_OP_ERR || s == WcStatus::REM_INV_RD_REQ_ERR;
}

using QpKey = std::pair<std::array<std::uint8_t, 16>, std::uint32_t>;
using Completions = std::map<QpKey, std::vector<const Event*>>;

Pkt at_frame(std::uint64_t frame) {
  Pkt p;
  p.frame = frame;
  return p;
}

std::string host_name(const std::array<std::uint8_t, 16>& b, std::uint8_t version) {
  IpAddr a;
  a.b = b;
  a.version = version;
  return a.str();
}

// The first completion of `list` that is not a success, nullptr if none.
const Event* first_error_of(const std::vector<const Event*>& list) {
  for (const Event* e : list)
    if (e->status != WcStatus::SUCCESS) return e;
  return nullptr;
}

// events.flush_all: the work requests a fatal NAK fails on the wire each complete in error.
// Not judged on a host whose CQ overflowed (CQ_ERR): its completions may be lost by design.
// Without a fatal NAK, a QP the log leaves in ERR (the program moved it there, or the device
// did: the requester's retries ran out, ...) flushes what it had not completed: every message the
// wire shows sent and never acknowledged is a work request that completes in error (IBA Vol. 1
// §10.3.1, Error state; the bug class "flush completions dropped"). A lower bound: requests
// still in the send queue are not on the wire. Judged only when the ERR is timed and the capture
// ran past it (an ACK after a tap that stopped early may have completed the rest).
// When each QP entered the ERR state it ends the log in (no RESET after); nullopt: untimed.
std::map<QpKey, std::optional<std::int64_t>> final_err(const Events& events) {
  std::map<QpKey, std::optional<std::int64_t>> out;
  for (const Event& e : events.events) {
    if (e.kind != Event::Kind::QpState || !e.qpn) continue;
    const QpKey key{e.host, *e.qpn};
    if (e.name == "RESET") out.erase(key);  // a new life: its own stream
    if (e.name == "ERR" && !out.count(key)) out[key] = e.t_ns;
  }
  return out;
}

void check_flush_after_err(Judge& j, const Events& events, const QpKey& key, const Stream& s,
                           std::uint64_t errors, std::optional<std::int64_t> err_at,
                           std::int64_t capture_end_ns) {
  if (!err_at || *err_at > capture_end_ns) return;
  const std::uint64_t unacked = s.unacknowledged_messages();
  if (unacked == 0) return;
  j.checked(RuleId::EventsFlushAll, s.conn());
  if (errors < unacked)
    j.violation(RuleId::EventsFlushAll, "dropped_after_err", at_frame(0), s.conn(),
                fmt::format("QP {:#x}: {} leaves it in ERR, and the wire shows {} message{} it "
                            "sent never acknowledged, each a work request that completes in "
                            "error (WR_FLUSH_ERR), but the log has {} error completion{} for it",
                            key.second, events.file, unacked, unacked == 1 ? "" : "s", errors,
                            errors == 1 ? "" : "s"));
}

void check_flush_all(Judge& j, const Events& events, const Completions& wcs,
                     const std::map<QpKey, const Stream*>& as_requester,
                     std::int64_t capture_end_ns) {
  std::set<std::array<std::uint8_t, 16>> overflowed;
  for (const Event& e : events.events)
    if (e.kind == Event::Kind::Async && e.name == "CQ_ERR") overflowed.insert(e.host);
  const std::map<QpKey, std::optional<std::int64_t>> in_err = final_err(events);
  for (const auto& [key, list] : wcs) {
    const auto r = as_requester.find(key);
    if (r == as_requester.end() || overflowed.count(key.first)) continue;
    const Stream& s = *r->second;
    std::uint64_t errors = 0;
    for (const Event* e : list) errors += e->status != WcStatus::SUCCESS ? 1 : 0;
    const std::optional<std::uint64_t> failed = s.failed_messages();
    if (!failed) {
      if (const auto e = in_err.find(key); e != in_err.end() && !s.fatal())
        check_flush_after_err(j, events, key, s, errors, e->second, capture_end_ns);
      continue;
    }
    j.checked(RuleId::EventsFlushAll, s.conn());
    if (errors < *failed)
      j.violation(RuleId::EventsFlushAll, "dropped", at_frame(s.fatal()->frame), s.conn(),
                  fmt::format("QP {:#x}: the wire shows {} message{} sent from the one NAKed at "
                              "frame {} on, each a work request that completes in error (its own "
                              "status, then WR_FLUSH_ERR, unsignaled ones too), but {} has {} "
                              "error completion{} for this QP",
                              key.second, *failed, *failed == 1 ? "" : "s", s.fatal()->frame,
                              events.file, errors, errors == 1 ? "" : "s"));
  }
}

// z3.arbitration: one history of which QPs entered ERR, and when, explains every completion,
// with each QP taken to ERR only by what may (proofs/include/rocecert/proofs/trace_errors.h).
// The same facts as events.flush and events.isolation, decided together by Z3.
template <typename ConnOf>
void judge_arbitration_z3(Judge& j, const Events& events, const Completions& wcs,
                          const std::map<QpKey, std::string>& own_error,
                          const std::map<std::array<std::uint8_t, 16>, const Event*>& async_of,
                          const std::map<QpKey, std::vector<const Event*>>& states,
                          const ConnOf& conn) {
  using proofs::trace::Completion;
  auto position = [&](const Event* e) {
    return static_cast<std::uint64_t>(e - events.events.data());
  };
  std::vector<proofs::trace::QpErrorFacts> qps;
  std::vector<proofs::trace::CompletionFact> facts;
  std::vector<QpKey> keys;
  // What each group is: a completion (its event), or a QP's isolation claim (nullptr).
  std::vector<std::pair<std::size_t, const Event*>> groups;
  for (const auto& [key, list] : wcs) {
    const std::size_t q = qps.size();
    keys.push_back(key);
    proofs::trace::QpErrorFacts k;
    k.own_error = own_error.count(key) > 0;
    k.resource_error = async_of.count(key.first) > 0;
    for (const auto& [other, why] : own_error)
      if (other.first == key.first && other.second != key.second) k.others_failed = true;
    if (const auto st = states.find(key); st != states.end())
      k.program_state = position(st->second.front());
    k.group = groups.size();
    groups.emplace_back(q, nullptr);
    qps.push_back(k);
    for (const Event* e : list) {
      const Completion kind = e->status == WcStatus::SUCCESS        ? Completion::SUCCESS
                              : e->status == WcStatus::WR_FLUSH_ERR ? Completion::FLUSH
                                                                    : Completion::ERROR;
      facts.push_back({q, position(e), kind, groups.size()});
      groups.emplace_back(q, e);
    }
  }
  if (facts.empty()) return;
  for (const QpKey& k : keys)
    for (std::size_t n = wcs.at(k).size(); n > 0; --n) j.checked(RuleId::Z3Arbitration, conn(k));
  proofs::trace::ErrorsJudgement verdict;
  try {
    verdict = proofs::trace::judge_errors(qps, facts);
  } catch (const std::exception&) {  // the solver's own failure (z3::exception): no verdict
    verdict.decided = false;
  }
  if (!verdict.decided) {
    j.note(NoteKind::Assumption, std::nullopt, 0,
           fmt::format("z3.arbitration not decided: the solver gave no answer on the {} "
                       "completions of {} (resource limit or failure)",
                       facts.size(), events.file));
    return;
  }
  if (verdict.consistent) return;
  std::string told;
  std::optional<std::size_t> last_qp;
  for (const std::size_t g : verdict.groups) {
    const auto& [q, e] = groups.at(g);
    const QpKey& key = keys.at(q);
    std::string one;
    if (e != nullptr) {
      one = fmt::format("QP {:#x}: work request {} completed {} (line {})", key.second, e->wr_id,
                        cq::to_string(e->status), e->line);
    } else {
      const auto other = std::find_if(own_error.begin(), own_error.end(), [&](const auto& o) {
        return o.first.first == key.first && o.first.second != key.second;
      });
      one = fmt::format(
          "QP {:#x} has no error of its own, no asynchronous event on its host and no state the "
          "program logged, while QP {:#x} failed ({})",
          key.second, other == own_error.end() ? 0u : other->first.second,
          other == own_error.end() ? std::string("?") : other->second);
    }
    told += (told.empty() ? "" : "; ") + one;
    last_qp = q;
  }
  j.violation(RuleId::Z3Arbitration, "no_history", at_frame(0),
              last_qp ? conn(keys.at(*last_qp)) : std::nullopt,
              fmt::format("{}: no history of which QPs entered the error state, and when, "
                          "explains these together: {}",
                          events.file, told));
}

// events.isolation and events.qp_state: which QPs an error touched, as the log tells it, against
// the errors the wire and the log show for each QP.
void check_isolation_and_states(Judge& j, const Events& events, const Completions& wcs,
                                const std::vector<const Stream*>& streams) {
  auto line_of = [&](const Event& e) { return fmt::format("{} line {}", events.file, e.line); };
  auto position = [&](const Event* e) {
    return static_cast<std::size_t>(e - events.events.data());
  };
  // The errors the wire shows per QP: a fatal NAK received (as requester) or sent (as
  // responder), with its frame.
  std::map<QpKey, std::uint64_t> wire_error;
  std::map<QpKey, ConnIndex> conn_of;
  for (const Stream* s : streams) {
    const QpKey responder{s->responder().b, s->responder_qpn()};
    conn_of.emplace(responder, s->conn());
    if (const auto f = s->fatal()) wire_error.emplace(responder, f->frame);
    if (s->requester() && s->requester_qpn()) {
      const QpKey requester{s->requester()->b, *s->requester_qpn()};
      conn_of[requester] = s->conn();
      if (const auto f = s->fatal()) wire_error.emplace(requester, f->frame);
    }
  }
  auto conn = [&](const QpKey& k) -> std::optional<ConnIndex> {
    const auto c = conn_of.find(k);
    if (c == conn_of.end()) return std::nullopt;
    return c->second;
  };
  std::map<std::array<std::uint8_t, 16>, const Event*> async_of;  // the host's first
  std::map<QpKey, std::vector<const Event*>> states;
  std::map<std::array<std::uint8_t, 16>, std::uint8_t> version_of;
  for (const Event& e : events.events) {
    version_of.emplace(e.host, e.ip_version);
    if (e.kind == Event::Kind::Async) async_of.emplace(e.host, &e);
    if (e.kind == Event::Kind::QpState) states[{e.host, *e.qpn}].push_back(&e);
  }
  // A QP's own error: a fatal NAK on the wire, or an error completion other than a flush.
  std::map<QpKey, std::string> own_error;
  for (const auto& [key, frame] : wire_error)
    own_error.emplace(key, fmt::format("the fatal NAK of frame {}", frame));
  for (const auto& [key, list] : wcs) {
    const Event* e = first_error_of(list);
    if (e != nullptr && e->status != WcStatus::WR_FLUSH_ERR)
      own_error.emplace(key, fmt::format("work request {} completed {} ({})", e->wr_id,
                                         cq::to_string(e->status), line_of(*e)));
  }

  // events.isolation: a flushed QP with no error of its own, on a host where another QP failed.
  for (const auto& [key, list] : wcs) {
    if (own_error.count(key) || async_of.count(key.first)) continue;
    const QpKey* other = nullptr;
    for (const auto& [k, why] : own_error)
      if (k.first == key.first && k.second != key.second) {
        other = &k;
        break;
      }
    if (other == nullptr) continue;  // no error on the host: a flush is the program's doing
    const Event* flush = first_error_of(list);
    // The program moved the QP (or saw it moved) before its flushes: not the device's doing.
    const auto st = states.find(key);
    if (flush != nullptr && st != states.end() && position(st->second.front()) < position(flush))
      continue;
    j.checked(RuleId::EventsIsolation, conn(key));
    if (flush == nullptr) continue;
    j.violation(RuleId::EventsIsolation, "touched", at_frame(0), conn(key),
                fmt::format("QP {:#x} on {}: work request {} completed WR_FLUSH_ERR ({}) though "
                            "neither the wire nor the log shows an error of its own, no "
                            "asynchronous event and no state change before it; QP {:#x} failed "
                            "({}): one QP's error must not flush another",
                            key.second, host_name(key.first, version_of[key.first]), flush->wr_id,
                            line_of(*flush), other->second, own_error.at(*other)));
  }

  if (j.options().z3) judge_arbitration_z3(j, events, wcs, own_error, async_of, states, conn);

  // events.qp_state (advisory): ERR needs a cause; a QP in error comes back only through RESET.
  for (const auto& [key, list] : states) {
    const auto w = wcs.find(key);
    const Event* first_error = w == wcs.end() ? nullptr : first_error_of(w->second);
    const bool has_cause =
        own_error.count(key) || first_error != nullptr || async_of.count(key.first);
    for (const Event* e : list) {
      if (e->name != "ERR") continue;
      j.checked(RuleId::EventsQpState, conn(key));
      if (!has_cause)
        j.violation(RuleId::EventsQpState, "err_without_cause", at_frame(0), conn(key),
                    fmt::format("QP {:#x} is reported ERR ({}), but neither the wire nor the log "
                                "shows a cause (an error completion, a fatal NAK, an asynchronous "
                                "event): the program moved it there, or the device failed it "
                                "silently",
                                key.second, line_of(*e)));
      break;
    }
    if (first_error == nullptr || first_error->status == WcStatus::WR_FLUSH_ERR) continue;
    bool reset = false;
    for (const Event* e : list) {
      if (position(e) < position(first_error)) continue;
      if (e->name == "RESET") reset = true;
      if (reset || e->name == "ERR") continue;
      j.checked(RuleId::EventsQpState, conn(key));
      j.violation(RuleId::EventsQpState, "in_service_after_error", at_frame(0), conn(key),
                  fmt::format("QP {:#x} is reported {} ({}) after its error completion ({}) "
                              "with no RESET between: only RESET leaves ERR (a reset the program "
                              "did not log, or a QP the device left in service)",
                              key.second, e->name, line_of(*e), line_of(*first_error)));
      break;
    }
  }
}

}  // namespace

void check_events(Judge& j, const Events& events, const std::vector<const Stream*>& streams,
                  std::int64_t capture_end_ns) {
  // Each QP's completions, in the order the program polled them.
  std::map<QpKey, std::vector<const Event*>> wcs;
  for (const Event& e : events.events)
    if (e.kind == Event::Kind::Wc) wcs[{e.host, *e.qpn}].push_back(&e);
  auto where = [&](const Event& e) { return fmt::format("{} line {}", events.file, e.line); };
  const errors::ErrorProfile profile = model_error_profile(j.options().profile);

  std::map<QpKey, const Stream*> as_requester;
  std::map<QpKey, ConnIndex> conn_of;
  for (const Stream* s : streams) {
    conn_of.emplace(QpKey{s->responder().b, s->responder_qpn()}, s->conn());
    if (s->requester() && s->requester_qpn()) {
      const QpKey k{s->requester()->b, *s->requester_qpn()};
      as_requester.emplace(k, s);
      conn_of[k] = s->conn();
    }
  }

  for (const auto& [key, list] : wcs) {
    const auto c = conn_of.find(key);
    const std::optional<ConnIndex> conn =
        c == conn_of.end() ? std::nullopt : std::optional(c->second);
    const Event* first_error = nullptr;
    for (const Event* e : list) {
      if (first_error == nullptr) {
        if (e->status != WcStatus::SUCCESS) first_error = e;
        continue;
      }
      // events.flush: the QP is in ERR since its first error (IBA Vol. 1 §10.3.1).
      j.checked(RuleId::EventsFlush, conn);
      if (e->status != WcStatus::WR_FLUSH_ERR)
        j.violation(RuleId::EventsFlush, "not_flushed", at_frame(0), conn,
                    fmt::format("QP {:#x}: work request {} completed {} ({}), after the error "
                                "completion of work request {} ({}): it must be flushed "
                                "(WR_FLUSH_ERR)",
                                key.second, e->wr_id, cq::to_string(e->status), where(*e),
                                first_error->wr_id, where(*first_error)));
    }

    // events.wc_status: only a requester's errors show on the wire.
    const auto r = as_requester.find(key);
    if (r == as_requester.end()) continue;
    const Stream& s = *r->second;
    const std::optional<Stream::Fatal> fatal = s.fatal();
    const std::optional<WcStatus> nak_status =
        fatal ? status_for_nak(fatal->syndrome, profile) : std::nullopt;
    if (first_error == nullptr) {
      if (!nak_status) continue;
      // The wire shows a fatal NAK; the log has completions of this QP but no error.
      j.checked(RuleId::EventsWcStatus, s.conn());
      j.violation(RuleId::EventsWcStatus, "nak_not_completed", at_frame(fatal->frame), s.conn(),
                  fmt::format("QP {:#x} received NAK code {} at frame {}, but none of its {} "
                              "completions in {} is an error ({} expected)",
                              key.second, wire::aeth_value(fatal->syndrome), fatal->frame,
                              list.size(), events.file, cq::to_string(*nak_status)));
      continue;
    }
    const WcStatus st = first_error->status;
    std::string wrong;
    if (st == WcStatus::WR_FLUSH_ERR) {
      // Flushed first: the error's cause is not on this QP's log, unless the wire shows a
      // fatal NAK, whose work request completes with its own status before the others flush.
      if (!nak_status) continue;
      j.checked(RuleId::EventsWcStatus, s.conn());
      wrong =
          fmt::format("the wire shows NAK code {} at frame {}, whose work request completes {}",
                      wire::aeth_value(fatal->syndrome), fatal->frame, cq::to_string(*nak_status));
    } else if (nak_status) {
      j.checked(RuleId::EventsWcStatus, s.conn());
      if (st == WcStatus::RETRY_EXC_ERR && st != *nak_status)
        // The NAK may have been lost after the tap: the requester then timed out.
        j.note(NoteKind::Assumption, s.conn(), fatal->frame,
               fmt::format("QP {:#x}: work request {} completed RETRY_EXC_ERR ({}) where the wire "
                           "shows NAK code {} at frame {}: taken as that NAK lost after the tap",
                           key.second, first_error->wr_id, where(*first_error),
                           wire::aeth_value(fatal->syndrome), fatal->frame));
      else if (st != *nak_status)
        wrong = fmt::format("the wire shows NAK code {} at frame {}: {} expected",
                            wire::aeth_value(fatal->syndrome), fatal->frame,
                            cq::to_string(*nak_status));
    } else if (is_remote(st)) {
      j.checked(RuleId::EventsWcStatus, s.conn());
      wrong = "no fatal NAK for this QP on the wire";
    } else if (st == WcStatus::RETRY_EXC_ERR) {
      j.checked(RuleId::EventsWcStatus, s.conn());
      if (s.resends() == 0) wrong = "the requester resent nothing on the wire";
    } else if (st == WcStatus::RNR_RETRY_EXC_ERR) {
      j.checked(RuleId::EventsWcStatus, s.conn());
      const SetupQp* q = s.requester_setup();
      if (s.rnr_naks_seen() == 0)
        wrong = "no RNR NAK for this QP on the wire";
      else if (q != nullptr && q->rnr_retry == 7)
        wrong = fmt::format("QP {} of {} has rnr_retry 7, which retries forever", q->name,
                            j.options().setup->file);
    } else {
      continue;  // a local error: the wire does not show its cause
    }
    if (!wrong.empty())
      j.violation(RuleId::EventsWcStatus, "unexplained", at_frame(fatal ? fatal->frame : 0),
                  s.conn(),
                  fmt::format("QP {:#x}: work request {} completed {} ({}), but {}", key.second,
                              first_error->wr_id, cq::to_string(st), where(*first_error), wrong));
  }

  check_flush_all(j, events, wcs, as_requester, capture_end_ns);
  check_isolation_and_states(j, events, wcs, streams);
}

}  // namespace rocecert::check::detail
