// Verdicts and their precedence, Report::settle() and merge() (docs/json.md §2).
#include <algorithm>
#include <string>
#include <utility>

#include "rocecert/check/report.h"

namespace rocecert::check {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::PASS:
      return "PASS";
    case Verdict::DEVIATION:
      return "DEVIATION";
    case Verdict::UNSUPPORTED:
      return "UNSUPPORTED";
    case Verdict::INCONCLUSIVE:
      return "INCONCLUSIVE";
    case Verdict::FAIL:
      return "FAIL";
  }
  return "?";
}

std::optional<Verdict> parse_verdict(std::string_view s) {
  for (Verdict v : {Verdict::PASS, Verdict::DEVIATION, Verdict::UNSUPPORTED, Verdict::INCONCLUSIVE,
                    Verdict::FAIL})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

Verdict worst(Verdict a, Verdict b) {
  return std::max(a, b);
}

std::string_view to_string(NoteKind k) {
  switch (k) {
    case NoteKind::CaptureError:
      return "capture_error";
    case NoteKind::Gap:
      return "gap";
    case NoteKind::Truncated:
      return "truncated";
    case NoteKind::OneDirection:
      return "one_direction";
    case NoteKind::Unpaired:
      return "unpaired";
    case NoteKind::Unsupported:
      return "unsupported";
    case NoteKind::Assumption:
      return "assumption";
    case NoteKind::Deviation:
      return "deviation";
    case NoteKind::Replay:
      return "replay";
  }
  return "?";
}

namespace {

// What one violation or note contributes to a verdict (docs/json.md §2, "Verdicts").
Verdict verdict_of(const Violation& v) {
  if (rule(v.rule).severity == Severity::Advisory || !v.explained.empty()) return Verdict::PASS;
  return v.deviation ? Verdict::DEVIATION : Verdict::FAIL;
}

// What the rule counts make a verdict: a violation of an Error rule not explained is a FAIL,
// a deviation of one a DEVIATION. The same as the listed violations give, and exact past their
// bound (kMaxViolations) and after an explanation moved a count.
Verdict verdict_of(const std::array<RuleCount, kRuleCount>& counts) {
  Verdict v = Verdict::PASS;
  for (const RuleInfo& r : rules()) {
    if (r.severity != Severity::Error) continue;
    const RuleCount& c = counts[static_cast<std::size_t>(r.rule)];
    if (c.violations != 0) return Verdict::FAIL;
    if (c.deviations != 0) v = Verdict::DEVIATION;
  }
  return v;
}

}  // namespace

Verdict verdict_of(NoteKind k) {
  switch (k) {
    case NoteKind::CaptureError:
    case NoteKind::Gap:
    case NoteKind::Truncated:
    case NoteKind::OneDirection:
    case NoteKind::Unpaired:
      return Verdict::INCONCLUSIVE;
    case NoteKind::Unsupported:
      return Verdict::UNSUPPORTED;
    case NoteKind::Assumption:
    case NoteKind::Deviation:
    case NoteKind::Replay:
      return Verdict::PASS;
  }
  return Verdict::PASS;
}

ByConnection by_connection(const Report& r) {
  const std::size_t n = r.connections.size();
  ByConnection out;
  out.violations.resize(n + 1);
  out.notes.resize(n + 1);
  for (const Violation& v : r.violations)
    out.violations[std::min<std::size_t>(v.connection, n)].push_back(&v);
  for (const Note& note : r.notes)
    out.notes[note.connection ? std::min<std::size_t>(*note.connection, n) : n].push_back(&note);
  return out;
}

void Report::settle() {
  verdict = verdict_of(rules);
  for (Connection& c : connections) {
    c.verdict = worst(c.unlisted, verdict_of(c.rules));
    verdict = worst(verdict, c.verdict);
  }
  auto apply = [this](std::optional<std::uint32_t> conn, Verdict v) {
    verdict = worst(verdict, v);
    if (conn && *conn < connections.size()) {
      Connection& c = connections[*conn];
      c.verdict = worst(c.verdict, v);
    }
  };
  for (const Violation& v : violations) apply(v.connection, verdict_of(v));
  for (const Note& n : notes) apply(n.connection, verdict_of(n.kind));
  // A capture without one RoCEv2 frame certifies nothing (a tap filter that caught nothing, the
  // wrong interface): never a PASS. A part of `rocecert split` may be empty; merged with the
  // others it is not.
  if (roce_frames == 0) verdict = worst(verdict, Verdict::INCONCLUSIVE);
}

Report merge(std::vector<Report> parts) {
  Report out;
  std::vector<std::string> profiles;  // every profile name, in order of appearance
  for (Report& p : parts) {
    const auto file_base = static_cast<std::uint32_t>(out.files.size());
    const auto conn_base = static_cast<std::uint32_t>(out.connections.size());
    if (std::find(profiles.begin(), profiles.end(), p.profile) == profiles.end())
      profiles.push_back(p.profile);
    out.max_capture_errors = std::max(out.max_capture_errors, p.max_capture_errors);
    for (std::string& f : p.files) out.files.push_back(std::move(f));
    out.frames += p.frames;
    out.roce_frames += p.roce_frames;
    for (Connection& c : p.connections) {
      c.id += conn_base;
      out.connections.push_back(std::move(c));
    }
    for (std::size_t i = 0; i < kRuleCount; ++i) {
      out.rules[i].checked += p.rules[i].checked;
      out.rules[i].violations += p.rules[i].violations;
      out.rules[i].deviations += p.rules[i].deviations;
      out.rules[i].explained += p.rules[i].explained;
    }
    for (Violation& v : p.violations) {
      v.file += file_base;
      if (v.connection != kNoConnection) v.connection += conn_base;
      out.violations.push_back(std::move(v));
    }
    for (Note& n : p.notes) {
      n.file += file_base;
      if (n.connection) *n.connection += conn_base;
      out.notes.push_back(std::move(n));
    }
  }
  // Parts checked with different profiles: "iba+rxe".
  for (const std::string& name : profiles) out.profile += (out.profile.empty() ? "" : "+") + name;
  out.settle();
  return out;
}

}  // namespace rocecert::check
