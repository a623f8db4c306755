// The check report for a reader: header, one block per connection with the first violation of
// each rule (every violation with `verbose`) and the notes, the rules table, the verdict.
#include <fmt/format.h>

#include <ostream>
#include <string>
#include <vector>

#include "rocecert/check/report_io.h"

namespace rocecert::check {

namespace {

std::string endpoint_text(const Endpoint& e) {
  const std::string ip = e.ip.find(':') == std::string::npos ? e.ip : "[" + e.ip + "]";
  return ip + ":" + (e.qpn ? fmt::format("{:#x}", *e.qpn) : std::string("?"));
}

std::string file_text(const Report& r, std::uint32_t file) {
  return file < r.files.size() ? r.files[file] : fmt::format("file #{}", file);
}

std::string where(const Report& r, std::uint32_t file, std::uint64_t frame) {
  if (frame == 0) return file_text(r, file);
  return fmt::format("frame {} of {}", frame, file_text(r, file));
}

// The known fields only: "next PSN 1234, oldest unacked 1200, outstanding 34 (1 READ/atomic),
// retries 2, RNR NAKs 1".
std::string state_text(const StateSnapshot& s) {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (s.next_psn) add(fmt::format("next PSN {}", *s.next_psn));
  if (s.oldest_unacked) add(fmt::format("oldest unacked {}", *s.oldest_unacked));
  if (s.expected_psn) add(fmt::format("expected PSN {}", *s.expected_psn));
  if (s.msn) add(fmt::format("MSN {}", *s.msn));
  add(fmt::format("outstanding {}", s.outstanding));
  if (s.outstanding_reads > 0) out += fmt::format(" ({} READ/atomic)", s.outstanding_reads);
  add(fmt::format("retries {}", s.retries));
  if (s.rnr_naks > 0) add(fmt::format("RNR NAKs {}", s.rnr_naks));
  return out;
}

// "1 violation", "2 violations".
std::string count(std::uint64_t n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

// "FAIL", "DEVIATION" or "advisory": what the violation does to the verdict.
std::string_view weight(const Violation& v) {
  if (!v.explained.empty()) return "explained";
  if (rule(v.rule).severity == Severity::Advisory) return "advisory";
  return v.deviation ? "DEVIATION" : "FAIL";
}

void write_violation(const Report& r, const Violation& v, std::ostream& out) {
  const RuleInfo& info = rule(v.rule);
  out << fmt::format("    {} {}{}: {}, QP {:#x}, PSN {}\n", weight(v), info.id,
                     v.cause.empty() ? "" : " (" + v.cause + ")", where(r, v.file, v.frame), v.qpn,
                     v.psn);
  out << "      " << v.message << '\n';
  if (!v.explained.empty()) out << "      explained: " << v.explained << '\n';
  out << "      state: " << state_text(v.state) << '\n';
  if (!v.state.expected.empty()) out << "      expected: " << v.state.expected << '\n';
}

void write_note(const Report& r, const Note& n, std::ostream& out, std::string_view indent) {
  out << indent << to_string(n.kind) << " (" << where(r, n.file, n.frame) << "): " << n.message
      << '\n';
}

void write_connection(const Report& r, const Connection& c,
                      const std::vector<const Violation*>& found,
                      const std::vector<const Note*>& notes, std::ostream& out,
                      const TextOptions& opts) {
  std::uint64_t checked = 0, violated = 0, violations = 0, deviations = 0;
  for (const RuleCount& n : c.rules) {
    checked += n.checked > 0 ? 1 : 0;
    violated += n.violations > 0 ? 1 : 0;
    violations += n.violations;
    deviations += n.deviations;
  }
  out << fmt::format("conn {}  {}  {} <-> {}  {} frames  {}\n", c.id, c.transport,
                     endpoint_text(c.a), endpoint_text(c.b), c.frames, to_string(c.verdict));
  out << fmt::format("  rules: {} checked, {} violated ({}, {})", checked, violated,
                     count(violations, "violation"), count(deviations, "deviation"));
  if (c.capture_errors > 0)
    out << fmt::format("; capture errors assumed: {} of {}", c.capture_errors,
                       r.max_capture_errors);
  out << '\n';
  std::array<bool, kRuleCount> shown{};
  bool header = false;
  for (const Violation* v : found) {
    const auto index = static_cast<std::size_t>(v->rule);
    if (shown[index] && !opts.verbose) continue;
    shown[index] = true;
    if (!header) out << (opts.verbose ? "  violations:\n" : "  first violation of each rule:\n");
    header = true;
    write_violation(r, *v, out);
  }
  header = false;
  for (const Note* n : notes) {
    if (!header) out << "  notes:\n";
    header = true;
    write_note(r, *n, out, "    ");
  }
  out << '\n';
}

}  // namespace

void write_text(const Report& r, std::ostream& out, const TextOptions& opts) {
  out << fmt::format(
      "rocecert check: {} file{}, {} frames ({} RoCEv2), profile {}, "
      "capture errors allowed per connection: {}\n",
      r.files.size(), r.files.size() == 1 ? "" : "s", r.frames, r.roce_frames,
      r.profile.empty() ? "(none)" : r.profile, r.max_capture_errors);
  for (std::size_t i = 0; i < r.files.size(); ++i)
    out << "  file " << i << ": " << r.files[i] << '\n';
  out << '\n';
  const ByConnection by = by_connection(r);
  const std::size_t outside = r.connections.size();
  for (std::size_t i = 0; i < outside; ++i)
    write_connection(r, r.connections[i], by.violations[i], by.notes[i], out, opts);
  bool header = false;
  std::array<bool, kRuleCount> shown{};
  for (const Violation* v :
       by.violations[outside]) {  // frames of no connection (malformed, unpaired)
    const auto index = static_cast<std::size_t>(v->rule);
    if (shown[index] && !opts.verbose) continue;
    shown[index] = true;
    if (!header) out << "violations outside any connection:\n";
    header = true;
    write_violation(r, *v, out);
  }
  if (header) out << '\n';
  header = false;
  for (const Note* n : by.notes[outside]) {
    if (!header) out << "notes on the capture:\n";
    header = true;
    write_note(r, *n, out, "  ");
  }
  if (header) out << '\n';

  out << fmt::format("{:<20} {:<9} {:>10} {:>10} {:>10}\n", "rule", "severity", "checked",
                     "violations", "deviations");
  for (const RuleInfo& info : rules()) {
    const RuleCount& n = r.rules[static_cast<std::size_t>(info.rule)];
    out << fmt::format("{:<20} {:<9} {:>10} {:>10} {:>10}\n", info.id, to_string(info.severity),
                       n.checked, n.violations, n.deviations);
  }
  out << '\n';
  std::size_t per_verdict[5] = {};
  for (const Connection& c : r.connections) ++per_verdict[static_cast<std::size_t>(c.verdict)];
  std::string parts;
  for (Verdict v : {Verdict::FAIL, Verdict::INCONCLUSIVE, Verdict::UNSUPPORTED, Verdict::DEVIATION,
                    Verdict::PASS}) {
    const std::size_t n = per_verdict[static_cast<std::size_t>(v)];
    if (n > 0) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, to_string(v));
  }
  if (r.roce_frames == 0) out << kNoRoceFrames << "\n";
  out << fmt::format("verdict: {} ({} connection{}{}{})\n", to_string(r.verdict),
                     r.connections.size(), r.connections.size() == 1 ? "" : "s",
                     parts.empty() ? "" : ": ", parts);
}

}  // namespace rocecert::check
