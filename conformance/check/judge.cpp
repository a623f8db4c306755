// The Judge: rule counts, violations (with the profile's deviations), explanations within the
// capture-error budget, notes.
#include <fmt/format.h>

#include <arpa/inet.h>

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
  c.id = static_cast<std::uint32_t>(report_.connections.size());
  c.transport = std::move(transport);
  c.a = std::move(a);
  c.b = std::move(b);
  report_.connections.push_back(std::move(c));
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
  Connection& a = report_.connections[into];
  const Connection& b = report_.connections[from];
  a.frames += b.frames;
  a.capture_errors += b.capture_errors;
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

void Judge::violation(RuleId r, std::string_view cause, const Pkt& p, std::optional<ConnIndex> c,
                      std::string message, StateSnapshot state) {
  Violation v;
  v.rule = r;
  v.cause = std::string(cause);
  v.deviation = opts_.profile.covers(r, cause) != nullptr;
  v.frame = p.frame;
  v.connection = c ? resolve(*c) : kNoConnection;
  v.qpn = p.bth.dqpn;
  v.psn = p.bth.psn;
  v.message = std::move(message);
  v.state = std::move(state);
  const auto i = static_cast<std::size_t>(r);
  RuleCount& total = report_.rules[i];
  (v.deviation ? total.deviations : total.violations) += 1;
  if (c) {
    RuleCount& rc = conn(*c).rules[i];
    (v.deviation ? rc.deviations : rc.violations) += 1;
  }
  last_ = Ticket{SIZE_MAX, r, v.deviation, c ? std::optional<ConnIndex>(resolve(*c)) : std::nullopt,
                 true};
  if (report_.violations.size() < kMaxViolations) {
    last_.index = report_.violations.size();
    report_.violations.push_back(std::move(v));
  }
}

bool Judge::explain(ConnIndex c, std::uint32_t errors, const Pkt& p, const std::string& message) {
  Connection& k = conn(c);
  if (static_cast<std::uint64_t>(k.capture_errors) + errors > opts_.profile.max_capture_errors)
    return false;
  k.capture_errors += errors;
  note(NoteKind::CaptureError, c, p.frame,
       fmt::format("{} (assumed: {} tap error{})", message, errors, errors == 1 ? "" : "s"));
  return true;
}

void Judge::explain_violation(const Ticket& t, std::string why) {
  if (!t.valid) return;
  if (t.index != SIZE_MAX) {
    Violation& v = report_.violations[t.index];
    if (!v.explained.empty()) return;
    v.explained = std::move(why);
  }
  const auto i = static_cast<std::size_t>(t.rule);
  auto move = [&](RuleCount& rc) {
    (t.deviation ? rc.deviations : rc.violations) -= 1;
    ++rc.explained;
  };
  move(report_.rules[i]);
  if (t.conn) move(conn(*t.conn).rules[i]);
}

void Judge::note(NoteKind kind, std::optional<ConnIndex> c, std::uint64_t frame,
                 std::string message) {
  if (report_.notes.size() >= kMaxNotes) return;
  Note n;
  n.kind = kind;
  if (c) n.connection = resolve(*c);
  n.frame = frame;
  n.message = std::move(message);
  report_.notes.push_back(std::move(n));
}

}  // namespace rocecert::check::detail
