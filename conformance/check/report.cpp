// TEMPORARY (lead's dev stub, replaced by the reports change)
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
Verdict worst(Verdict a, Verdict b) {
  return a > b ? a : b;
}
std::string_view to_string(NoteKind k) {
  return k == NoteKind::CaptureError ? "capture_error" : "note";
}
void Report::settle() {
  verdict = Verdict::PASS;
  for (auto& c : connections) c.verdict = Verdict::PASS;
  for (const Violation& v : violations) {
    if (rule(v.rule).severity != Severity::Error || !v.explained.empty()) continue;
    Verdict x = v.deviation ? Verdict::DEVIATION : Verdict::FAIL;
    verdict = worst(verdict, x);
    if (v.connection < connections.size())
      connections[v.connection].verdict = worst(connections[v.connection].verdict, x);
  }
  for (const Note& n : notes) {
    Verdict x = n.kind == NoteKind::Unsupported ? Verdict::UNSUPPORTED
                : (n.kind == NoteKind::Assumption || n.kind == NoteKind::Deviation)
                    ? Verdict::PASS
                    : Verdict::INCONCLUSIVE;
    verdict = worst(verdict, x);
    if (n.connection && *n.connection < connections.size())
      connections[*n.connection].verdict = worst(connections[*n.connection].verdict, x);
  }
}
Report merge(std::vector<Report> parts) {
  return parts.empty() ? Report{} : std::move(parts.front());
}
}  // namespace rocecert::check
