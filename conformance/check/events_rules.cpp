// The DUT's log (--events) against the wire: rules events.wc_status and events.flush
// (rules.def; docs/check.md, "Events").
#include <fmt/format.h>

#include <map>

#include "rocecert/errors/error_table.h"
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

Pkt at_frame(std::uint64_t frame) {
  Pkt p;
  p.frame = frame;
  return p;
}

}  // namespace

void check_events(Judge& j, const Events& events, const std::vector<const Stream*>& streams) {
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
      if (st != *nak_status)
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
      if (s.rnr_naks_seen() == 0) wrong = "no RNR NAK for this QP on the wire";
    } else {
      continue;  // a local error: the wire does not show its cause
    }
    if (!wrong.empty())
      j.violation(RuleId::EventsWcStatus, "unexplained", at_frame(fatal ? fatal->frame : 0),
                  s.conn(),
                  fmt::format("QP {:#x}: work request {} completed {} ({}), but {}", key.second,
                              first_error->wr_id, cq::to_string(st), where(*first_error), wrong));
  }
}

}  // namespace rocecert::check::detail
