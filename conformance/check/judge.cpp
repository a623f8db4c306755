// The Judge: rule counts, violations (with the profile's deviations), explanations within the
// capture-error budget, notes.
#include <fmt/format.h>

#include <arpa/inet.h>

#include <algorithm>

#include "check_internal.h"

namespace rocecert::check::detail {

std::string IpAddr::str() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (version == 4)
    inet_ntop(AF_INET, b.data(), buf, sizeof buf);
  else
    inet_ntop(AF_INET6, b.data(), buf, sizeof buf);
  return buf;
}

ConnIndex Judge::new_connection(std::string transport, Endpoint a, Endpoint b) {
  Connection c;
  c.id = static_cast<std::uint32_t>(report_->connections.size());
  c.transport = std::move(transport);
  c.a = std::move(a);
  c.b = std::move(b);
  report_->connections.push_back(std::move(c));
  forward_.push_back(static_cast<ConnIndex>(forward_.size()));
  return static_cast<ConnIndex>(forward_.size() - 1);
}

ConnIndex Judge::resolve(ConnIndex c) const {
  return forward_[c];
}

void Judge::merge_connections(ConnIndex into, ConnIndex from) {
  into = resolve(into);
  from = resolve(from);
  if (into == from) return;
  Connection& a = report_->connections[into];
  const Connection& b = report_->connections[from];
  a.frames += b.frames;
  a.capture_errors += b.capture_errors;
  a.unlisted = worst(a.unlisted, b.unlisted);
  for (std::size_t i = 0; i < kRuleCount; ++i) {
    a.rules[i].checked += b.rules[i].checked;
    a.rules[i].violations += b.rules[i].violations;
    a.rules[i].deviations += b.rules[i].deviations;
    a.rules[i].explained += b.rules[i].explained;
  }
  // Every index that led to `from` now leads to `into` directly (merges are rare, lookups not).
  for (ConnIndex& f : forward_)
    if (f == from) f = into;
}

void Judge::checked(RuleId r, ConnIndex c, std::uint64_t n) {
  if (log_ != nullptr && log_->counts) {
    log_->rules[static_cast<std::size_t>(r)].checked += n;
    log_->conn_count(c, r).checked += n;
    return;
  }
  report_->rules[static_cast<std::size_t>(r)].checked += n;
  conn(c).rules[static_cast<std::size_t>(r)].checked += n;
}

void Judge::count_violation(RuleId r, bool deviation, std::optional<ConnIndex> c) {
  auto add = [&](RuleCount& rc) { (deviation ? rc.deviations : rc.violations) += 1; };
  if (log_ != nullptr && log_->counts) {
    add(log_->rules[static_cast<std::size_t>(r)]);
    if (c) add(log_->conn_count(*c, r));
    return;
  }
  add(report_->rules[static_cast<std::size_t>(r)]);
  if (c) add(conn(*c).rules[static_cast<std::size_t>(r)]);
}

void Judge::keep(Violation v, std::optional<ConnIndex> c) {
  v.connection = c ? resolve(*c) : kNoConnection;
  report_->violations.push_back(std::move(v));
}

void Judge::violation(RuleId r, std::string_view cause, const Pkt& p, std::optional<ConnIndex> c,
                      std::string message, StateSnapshot state) {
  Violation v;
  v.rule = r;
  v.cause = std::string(cause);
  v.deviation = opts_.profile.covers(r, cause) != nullptr;
  v.frame = p.frame;
  v.qpn = p.bth.dqpn;
  v.psn = p.bth.psn;
  v.message = std::move(message);
  v.state = std::move(state);
  count_violation(r, v.deviation, c);
  last_ = Ticket{SIZE_MAX, r, v.deviation, c, true, log_ != nullptr ? log_->id : std::uint16_t{0}};
  if (log_ != nullptr) {
    if (log_->violations_kept >= kMaxViolations) return;  // beyond it in the report too
    ++log_->violations_kept;
    last_.index = log_->events.size();
    JudgeLog::Event& e = log_->events.emplace_back();
    e.key = log_->next_key();
    e.kind = JudgeLog::Kind::Violation;
    e.conn = c;
    e.violation = std::move(v);
    return;
  }
  if (report_->violations.size() < kMaxViolations) {
    last_.index = report_->violations.size();
    keep(std::move(v), c);
  }
}

bool Judge::explain(ConnIndex c, Budget& budget, std::uint32_t errors, const Pkt& p,
                    const std::string& message) {
  if (static_cast<std::uint64_t>(budget.used) + errors > opts_.profile.max_capture_errors)
    return false;
  budget.used += errors;
  std::string text =
      fmt::format("{} (assumed: {} tap error{})", message, errors, errors == 1 ? "" : "s");
  if (log_ != nullptr) {  // kept whatever the notes' bound: the budget bounds these
    JudgeLog::Event& e = log_->events.emplace_back();
    e.key = log_->next_key();
    e.kind = JudgeLog::Kind::Explain;
    e.conn = c;
    e.errors = errors;
    e.note.frame = p.frame;
    e.note.message = std::move(text);
    return true;
  }
  conn(c).capture_errors += errors;
  note(NoteKind::CaptureError, c, p.frame, std::move(text));
  return true;
}

void Judge::explain_violation(const Ticket& t, std::string why) {
  if (!t.valid) return;
  if (log_ != nullptr) {
    JudgeLog::Event& e = log_->events.emplace_back();
    e.key = log_->next_key();
    e.kind = JudgeLog::Kind::ExplainViolation;
    e.ticket_log = t.log;
    e.ticket_index = t.index;
    e.ticket_rule = t.rule;
    e.ticket_deviation = t.deviation;
    e.ticket_conn = t.conn;
    e.note.message = std::move(why);
    return;
  }
  if (t.index != SIZE_MAX) {
    Violation& v = report_->violations[t.index];
    if (!v.explained.empty()) return;
    v.explained = std::move(why);
  }
  const auto i = static_cast<std::size_t>(t.rule);
  auto move = [&](RuleCount& rc) {
    (t.deviation ? rc.deviations : rc.violations) -= 1;
    ++rc.explained;
  };
  move(report_->rules[i]);
  if (t.conn) move(conn(*t.conn).rules[i]);
}

void Judge::explain_connection(ConnIndex c, const std::string& why) {
  // A rule that judges a frame on its own (Needs::Frame: its header fields, its ICRC) does not
  // depend on which stream the frame belongs to: an undecided pairing does not explain it.
  auto own_frame = [](std::size_t i) { return rules()[i].needs == Needs::Frame; };
  const ConnIndex r = resolve(c);
  Connection& conn = report_->connections[r];
  for (std::size_t i = 0; i < conn.rules.size(); ++i) {
    if (own_frame(i)) continue;
    RuleCount& mine = conn.rules[i];
    RuleCount& all = report_->rules[i];
    const std::uint64_t n = mine.violations + mine.deviations;
    all.violations -= mine.violations;
    all.deviations -= mine.deviations;
    all.explained += n;
    mine.explained += n;
    mine.violations = mine.deviations = 0;
  }
  for (Violation& v : report_->violations)
    if (v.connection != kNoConnection && resolve(v.connection) == r && v.explained.empty() &&
        !own_frame(static_cast<std::size_t>(v.rule)))
      v.explained = why;
}

void Judge::note(NoteKind kind, std::optional<ConnIndex> c, std::uint64_t frame,
                 std::string message) {
  // Past the bound, a connection's note is not listed but still counts for its verdict; a note
  // of the whole capture (a few at most: the assumptions a check rests on) is always listed.
  if (log_ != nullptr) {
    if (c && log_->notes_kept >= kMaxNotes) {
      Verdict& u = log_->unlisted[*c];
      u = worst(u, verdict_of(kind));
      return;
    }
    if (c) ++log_->notes_kept;
    JudgeLog::Event& e = log_->events.emplace_back();
    e.key = log_->next_key();
    e.kind = JudgeLog::Kind::Note;
    e.conn = c;
    e.note.kind = kind;
    e.note.frame = frame;
    e.note.message = std::move(message);
    return;
  }
  if (c && report_->notes.size() >= kMaxNotes) {
    Connection& k = conn(*c);
    k.unlisted = worst(k.unlisted, verdict_of(kind));
    return;
  }
  Note n;
  n.kind = kind;
  if (c) n.connection = resolve(*c);
  n.frame = frame;
  n.message = std::move(message);
  report_->notes.push_back(std::move(n));
}

void Judge::replay(const std::vector<JudgeLog*>& logs) {
  // The shards' counts commute: straight into the report (a count explained below may come
  // before the violation it moves; unsigned arithmetic makes the sum right all the same).
  auto add = [](RuleCount& to, const RuleCount& from) {
    to.checked += from.checked;
    to.violations += from.violations;
    to.deviations += from.deviations;
    to.explained += from.explained;
  };
  for (const JudgeLog* l : logs) {
    if (!l->counts) continue;
    for (std::size_t i = 0; i < kRuleCount; ++i) add(report_->rules[i], l->rules[i]);
    for (std::size_t k = 0; k < l->conns.size(); ++k) {
      const JudgeLog::ConnCounts& counts = l->conns[k];
      Connection& to = conn(l->conn_of[k]);
      for (std::size_t i = 0; i < kRuleCount; ++i) add(to.rules[i], counts[i]);
    }
  }
  for (const JudgeLog* l : logs)
    for (const auto& [c, v] : l->unlisted) {
      Connection& to = conn(c);
      to.unlisted = worst(to.unlisted, v);
    }
  // The events, in the order one thread would have found them.
  struct Ref {
    JudgeLog::Key key;
    std::uint32_t log;
    std::uint32_t event;
  };
  std::vector<Ref> order;
  std::vector<std::vector<std::size_t>> kept(logs.size());  // event -> Report::violations
  std::vector<std::uint32_t> pos_of_id;
  for (std::size_t l = 0; l < logs.size(); ++l) {
    if (pos_of_id.size() <= logs[l]->id) pos_of_id.resize(std::size_t{logs[l]->id} + 1, UINT32_MAX);
    pos_of_id[logs[l]->id] = static_cast<std::uint32_t>(l);
    kept[l].assign(logs[l]->events.size(), SIZE_MAX);
    for (std::size_t e = 0; e < logs[l]->events.size(); ++e)
      order.push_back(
          {logs[l]->events[e].key, static_cast<std::uint32_t>(l), static_cast<std::uint32_t>(e)});
  }
  std::sort(order.begin(), order.end(), [](const Ref& a, const Ref& b) {
    return a.key != b.key ? a.key < b.key : a.log < b.log;
  });
  for (const Ref& r : order) {
    JudgeLog::Event& e = logs[r.log]->events[r.event];
    switch (e.kind) {
      case JudgeLog::Kind::Violation:
        if (report_->violations.size() < kMaxViolations) {
          kept[r.log][r.event] = report_->violations.size();
          keep(std::move(e.violation), e.conn);
        }
        break;
      case JudgeLog::Kind::Note:
        note(e.note.kind, e.conn, e.note.frame, std::move(e.note.message));
        break;
      case JudgeLog::Kind::Explain:
        conn(*e.conn).capture_errors += e.errors;
        note(NoteKind::CaptureError, e.conn, e.note.frame, std::move(e.note.message));
        break;
      case JudgeLog::Kind::ExplainViolation: {
        Ticket t{SIZE_MAX, e.ticket_rule, e.ticket_deviation, e.ticket_conn, true, 0};
        if (e.ticket_index != SIZE_MAX && e.ticket_log < pos_of_id.size() &&
            pos_of_id[e.ticket_log] != UINT32_MAX)
          t.index = kept[pos_of_id[e.ticket_log]][e.ticket_index];
        explain_violation(t, std::move(e.note.message));
        break;
      }
    }
  }
  for (JudgeLog* l : logs) {
    l->events.clear();
    l->slot.clear();
    l->conns.clear();
    l->conn_of.clear();
    l->unlisted.clear();
    l->rules = {};
  }
}

}  // namespace rocecert::check::detail
