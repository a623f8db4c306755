// The check report as JUnit XML, for CI systems: one <testsuite> per connection, one
// <testcase> per rule (classname: the rule's family, name: its id), failed by the rule's
// violations, skipped when the rule was not checked on that connection; a last suite,
// "rocecert check", holds one test case for the overall verdict.
#include <fmt/format.h>

#include <ostream>
#include <string>
#include <vector>

#include "rocecert/check/report_io.h"

namespace rocecert::check {

namespace {

// Text as XML 1.0 character data or attribute value: markup escaped, characters XML 1.0 does
// not allow (controls other than tab and newline, invalid UTF-8) replaced by '?'. Tabs and
// newlines are kept in character data and escaped in attributes (where a parser would turn them
// into spaces).
std::string xml(std::string_view s, bool attribute = true) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      switch (b) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&apos;";
          break;
        case '\t':
          out += attribute ? "&#9;" : "\t";
          break;
        case '\n':
          out += attribute ? "&#10;" : "\n";
          break;
        default:
          out += b < 0x20 || b == 0x7f ? '?' : static_cast<char>(b);
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence of 2 to 4 bytes (no overlongs, no surrogates) is kept.
    std::size_t len = b >= 0xc2 && b <= 0xdf   ? 2
                      : b >= 0xe0 && b <= 0xef ? 3
                      : b >= 0xf0 && b <= 0xf4 ? 4
                                               : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && len >= 3) {
      const auto b1 = static_cast<unsigned char>(s[i + 1]);
      if ((b == 0xe0 && b1 < 0xa0) || (b == 0xed && b1 >= 0xa0) || (b == 0xf0 && b1 < 0x90) ||
          (b == 0xf4 && b1 >= 0x90))
        ok = false;
    }
    if (!ok) {
      out += '?';
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

std::string endpoint_text(const Endpoint& e) {
  const std::string ip = e.ip.find(':') == std::string::npos ? e.ip : "[" + e.ip + "]";
  return ip + ":" + (e.qpn ? fmt::format("{:#x}", *e.qpn) : std::string("?"));
}

std::string file_text(const Report& r, std::uint32_t file) {
  return file < r.files.size() ? r.files[file] : fmt::format("file #{}", file);
}

std::string violation_line(const Report& r, const Violation& v) {
  std::string line =
      fmt::format("frame {} of {}, QP {:#x}, PSN {}", v.frame, file_text(r, v.file), v.qpn, v.psn);
  if (!v.cause.empty()) line += " (" + v.cause + ")";
  line += ": " + v.message;
  if (!v.state.expected.empty()) line += "; expected: " + v.state.expected;
  return line;
}

struct Case {
  std::string body;  // the <testcase> element
  bool failed = false;
  bool skipped = false;
};

Case rule_case(const Report& r, const Connection& c, const RuleInfo& info,
               const std::vector<const Violation*>& found) {
  const RuleCount& n = c.rules[static_cast<std::size_t>(info.rule)];
  Case out;
  const std::string open =
      fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml(info.family()), xml(info.id));
  std::vector<const Violation*> failures, others;
  for (const Violation* v : found)
    (info.severity == Severity::Error && !v->deviation && v->explained.empty() ? failures : others)
        .push_back(v);
  if (!failures.empty()) {
    out.failed = true;
    std::string text;
    for (const Violation* v : failures) text += violation_line(r, *v) + '\n';
    out.body = open + ">\n" +
               fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                           xml(failures.front()->message), xml(info.id), xml(text, false));
  } else if (n.checked == 0 && found.empty()) {
    out.skipped = true;
    out.body = open + ">\n      <skipped message=\"not checked on this connection\"/>\n";
  } else {
    out.body = open + ">\n";
  }
  // Deviations and advisory findings do not fail the test case; they are shown with it.
  if (!others.empty()) {
    std::string text;
    for (const Violation* v : others)
      text += std::string(!v->explained.empty() ? "explained (" + v->explained + "): "
                          : v->deviation        ? "deviation: "
                                                : "advisory: ") +
              violation_line(r, *v) + '\n';
    out.body += "      <system-out>" + xml(text, false) + "</system-out>\n";
  }
  out.body += "    </testcase>\n";
  return out;
}

std::string suite(std::string_view name, const std::vector<std::string>& properties,
                  const std::vector<Case>& cases) {
  std::size_t failures = 0, skipped = 0;
  for (const Case& k : cases) {
    failures += k.failed ? 1 : 0;
    skipped += k.skipped ? 1 : 0;
  }
  std::string out = fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
      xml(name), cases.size(), failures, skipped);
  if (!properties.empty()) {
    out += "    <properties>\n";
    for (const std::string& p : properties) out += p;
    out += "    </properties>\n";
  }
  for (const Case& k : cases) out += k.body;
  out += "  </testsuite>\n";
  return out;
}

std::string property(std::string_view name, std::string_view value) {
  return fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml(name), xml(value));
}

}  // namespace

std::string xml_escape(std::string_view s, bool attribute) {
  return xml(s, attribute);
}

void write_junit(const Report& r, std::ostream& out) {
  std::vector<std::string> suites;
  std::size_t tests = 0, failures = 0, skipped = 0;
  auto count = [&](const std::vector<Case>& cases) {
    for (const Case& k : cases) {
      ++tests;
      failures += k.failed ? 1 : 0;
      skipped += k.skipped ? 1 : 0;
    }
  };
  const ByConnection by = by_connection(r);
  for (std::size_t i = 0; i < r.connections.size(); ++i) {
    const Connection& c = r.connections[i];
    std::vector<std::vector<const Violation*>> found(kRuleCount);
    for (const Violation* v : by.violations[i])
      found[static_cast<std::size_t>(v->rule)].push_back(v);
    std::vector<std::string> props = {property("verdict", to_string(c.verdict)),
                                      property("frames", std::to_string(c.frames))};
    std::vector<Case> cases;
    for (const RuleInfo& info : rules()) {
      const auto& vs = found[static_cast<std::size_t>(info.rule)];
      for (const Violation* v : vs)
        if (v->deviation)
          props.push_back(property("deviation " + std::string(info.id), violation_line(r, *v)));
      cases.push_back(rule_case(r, c, info, vs));
    }
    count(cases);
    suites.push_back(suite(fmt::format("conn {} {} {} <-> {}", c.id, c.transport,
                                       endpoint_text(c.a), endpoint_text(c.b)),
                           props, cases));
  }
  // The overall verdict: failed by FAIL, skipped (with the reasons) when the captures did not
  // allow a full check.
  Case overall;
  std::string reasons;
  if (r.roce_frames == 0) reasons = std::string(kNoRoceFrames) + "\n";
  for (const Note& n : r.notes)
    reasons += fmt::format("{} ({}{}): {}\n", to_string(n.kind), file_text(r, n.file),
                           n.frame == 0 ? "" : fmt::format(" frame {}", n.frame), n.message);
  overall.body = "    <testcase classname=\"rocecert\" name=\"verdict\">\n";
  std::string message = fmt::format("verdict {}", to_string(r.verdict));
  if (r.roce_frames == 0) message += fmt::format(": {}", kNoRoceFrames);
  if (r.verdict == Verdict::FAIL) {
    overall.failed = true;
    overall.body += fmt::format("      <failure message=\"{}\" type=\"verdict\"/>\n", xml(message));
  } else if (r.verdict == Verdict::INCONCLUSIVE || r.verdict == Verdict::UNSUPPORTED) {
    overall.skipped = true;
    overall.body += fmt::format("      <skipped message=\"{}\"/>\n", xml(message));
  }
  if (!reasons.empty())
    overall.body += "      <system-out>" + xml(reasons, false) + "</system-out>\n";
  overall.body += "    </testcase>\n";
  const std::vector<Case> last = {overall};
  count(last);
  suites.push_back(suite("rocecert check",
                         {property("verdict", to_string(r.verdict)), property("profile", r.profile),
                          property("files", std::to_string(r.files.size())),
                          property("frames", std::to_string(r.frames))},
                         last));

  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"rocecert check\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
      "skipped=\"{}\">\n",
      tests, failures, skipped);
  for (const std::string& s : suites) out << s;
  out << "</testsuites>\n";
}

}  // namespace rocecert::check
