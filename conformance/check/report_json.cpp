// The check report as JSON (docs/json.md §2, docs/check-report.schema.json) and back, for
// `rocecert merge`. Keys come in the documented order; integers are JSON integers.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "json_in.h"
#include "rocecert/check/report_io.h"

namespace rocecert::check {

namespace {

using nlohmann::ordered_json;
using Reader = json_in::Reader<ReportError>;
using json_in::child_path;
using json_in::json;

// An object with room for `keys` members. nlohmann's ordered_map is a vector of (const key,
// value) pairs, which a reallocation copies (the const key makes the pair's move not noexcept):
// deep copies of every member added before, whole subtrees for the report's own object (a third
// of the time of writing a 6,300-connection report).
ordered_json object_of(std::size_t keys) {
  ordered_json j = ordered_json::object();
  j.get_ref<ordered_json::object_t&>().reserve(keys);
  return j;
}

// An array with room for `items` elements (no reallocation copying the elements pushed before).
ordered_json array_of(std::size_t items) {
  ordered_json j = ordered_json::array();
  j.get_ref<ordered_json::array_t&>().reserve(items);
  return j;
}

constexpr NoteKind kNoteKinds[] = {
    NoteKind::CaptureError, NoteKind::Gap,       NoteKind::Truncated,
    NoteKind::OneDirection, NoteKind::Unpaired,  NoteKind::Unsupported,
    NoteKind::Assumption,   NoteKind::Deviation, NoteKind::Replay};

ordered_json endpoint_json(const Endpoint& e) {
  ordered_json j = object_of(2);
  j["ip"] = e.ip;
  if (e.qpn) j["qpn"] = *e.qpn;
  return j;
}

ordered_json counts_json(const RuleCount& c) {
  ordered_json j = object_of(4);
  j["checked"] = c.checked;
  j["violations"] = c.violations;
  j["deviations"] = c.deviations;
  j["explained"] = c.explained;
  return j;
}

ordered_json connection_json(const Connection& c) {
  ordered_json j = object_of(8);
  j["id"] = c.id;
  j["transport"] = c.transport;
  j["a"] = endpoint_json(c.a);
  j["b"] = endpoint_json(c.b);
  j["frames"] = c.frames;
  j["capture_errors"] = c.capture_errors;
  j["verdict"] = to_string(c.verdict);
  ordered_json rules_j = object_of(kRuleCount);
  for (const RuleInfo& r : rules()) {
    const RuleCount& n = c.rules[static_cast<std::size_t>(r.rule)];
    if (n.checked > 0 || n.violations > 0 || n.deviations > 0 || n.explained > 0)
      rules_j[std::string(r.id)] = counts_json(n);
  }
  j["rules"] = std::move(rules_j);
  return j;
}

ordered_json state_json(const StateSnapshot& s) {
  ordered_json j = object_of(9);
  if (s.next_psn) j["next_psn"] = *s.next_psn;
  if (s.oldest_unacked) j["oldest_unacked"] = *s.oldest_unacked;
  if (s.expected_psn) j["expected_psn"] = *s.expected_psn;
  if (s.msn) j["msn"] = *s.msn;
  j["outstanding"] = s.outstanding;
  j["outstanding_reads"] = s.outstanding_reads;
  j["retries"] = s.retries;
  j["rnr_naks"] = s.rnr_naks;
  if (!s.expected.empty()) j["expected"] = s.expected;
  return j;
}

// The name of file `index`; a report whose indices point nowhere is a bug of its producer.
const std::string& file_name(const Report& r, std::uint32_t index, const std::string& what) {
  if (index >= r.files.size())
    throw ReportError(what + ": file index " + std::to_string(index) + " but the report has " +
                      std::to_string(r.files.size()) + " file(s)");
  return r.files[index];
}

}  // namespace

void write_json(const Report& r, std::ostream& out) {
  ordered_json j = object_of(10);
  j["verdict"] = to_string(r.verdict);
  j["profile"] = r.profile;
  j["max_capture_errors"] = r.max_capture_errors;
  j["files"] = r.files;
  j["frames"] = r.frames;
  j["roce_frames"] = r.roce_frames;
  ordered_json conns = array_of(r.connections.size());
  for (const Connection& c : r.connections) conns.push_back(connection_json(c));
  j["connections"] = std::move(conns);
  ordered_json rules_j = array_of(kRuleCount);
  for (const RuleInfo& info : rules()) {
    const RuleCount& n = r.rules[static_cast<std::size_t>(info.rule)];
    ordered_json x = object_of(9);
    x["id"] = info.id;
    x["severity"] = to_string(info.severity);
    x["needs"] = to_string(info.needs);
    x["statement"] = info.statement;
    x["reference"] = info.reference;
    x["checked"] = n.checked;
    x["violations"] = n.violations;
    x["deviations"] = n.deviations;
    x["explained"] = n.explained;
    rules_j.push_back(std::move(x));
  }
  j["rules"] = std::move(rules_j);
  ordered_json viols = array_of(r.violations.size());
  for (std::size_t i = 0; i < r.violations.size(); ++i) {
    const Violation& v = r.violations[i];
    ordered_json x = object_of(11);
    x["rule"] = rule(v.rule).id;
    x["cause"] = v.cause;
    x["deviation"] = v.deviation;
    if (!v.explained.empty()) x["explained"] = v.explained;
    x["file"] = file_name(r, v.file, "violations[" + std::to_string(i) + "]");
    x["frame"] = v.frame;
    if (v.connection != kNoConnection) x["connection"] = v.connection;
    x["qpn"] = v.qpn;
    x["psn"] = v.psn;
    x["message"] = v.message;
    x["state"] = state_json(v.state);
    viols.push_back(std::move(x));
  }
  j["violations"] = std::move(viols);
  ordered_json notes = array_of(r.notes.size());
  for (std::size_t i = 0; i < r.notes.size(); ++i) {
    const Note& n = r.notes[i];
    ordered_json x = object_of(5);
    x["kind"] = to_string(n.kind);
    if (n.connection) x["connection"] = *n.connection;
    x["file"] = file_name(r, n.file, "notes[" + std::to_string(i) + "]");
    x["frame"] = n.frame;
    x["message"] = n.message;
    notes.push_back(std::move(x));
  }
  j["notes"] = std::move(notes);
  // Invalid UTF-8 in a name or message (a file name is any bytes) becomes U+FFFD, not an
  // exception.
  out << j.dump(2, ' ', false, ordered_json::error_handler_t::replace) << '\n';
}

namespace {

Verdict read_verdict(const Reader& in, const json& v, const std::string& path) {
  const std::string s = in.string(v, path);
  const std::optional<Verdict> verdict = parse_verdict(s);
  if (!verdict)
    in.fail(path,
            "unknown verdict \"" + s + "\" (PASS, DEVIATION, UNSUPPORTED, INCONCLUSIVE, FAIL)");
  return *verdict;
}

RuleId read_rule(const Reader& in, const json& v, const std::string& path) {
  const std::string id = in.string(v, path);
  const std::optional<RuleId> r = find_rule(id);
  if (!r) in.fail(path, "unknown rule \"" + id + "\" (docs/rules.md lists the rules)");
  return *r;
}

std::uint32_t read_file_ref(const Reader& in, const Report& r, const json& v,
                            const std::string& path) {
  const std::string name = in.string(v, path);
  // A report that lists one file twice: the name refers to its first occurrence.
  for (std::size_t i = 0; i < r.files.size(); ++i)
    if (r.files[i] == name) return static_cast<std::uint32_t>(i);
  in.fail(path, "\"" + name + "\" is not one of the report's files");
}

Endpoint read_endpoint(const Reader& in, const json& v, const std::string& path) {
  in.object(v, path, {"ip", "qpn"});
  Endpoint e;
  e.ip = in.string(in.required(v, path, "ip"), child_path(path, "ip"));
  if (const json* q = in.optional(v, "qpn")) e.qpn = in.uint32(*q, child_path(path, "qpn"));
  return e;
}

RuleCount read_counts(const Reader& in, const json& v, const std::string& path,
                      std::initializer_list<std::string_view> allowed) {
  in.object(v, path, allowed);
  RuleCount c;
  c.checked = in.uint(in.required(v, path, "checked"), child_path(path, "checked"));
  c.violations = in.uint(in.required(v, path, "violations"), child_path(path, "violations"));
  c.deviations = in.uint(in.required(v, path, "deviations"), child_path(path, "deviations"));
  c.explained = in.uint(in.required(v, path, "explained"), child_path(path, "explained"));
  return c;
}

Connection read_connection(const Reader& in, const json& v, const std::string& path,
                           std::size_t index) {
  in.object(v, path, {"id", "transport", "a", "b", "frames", "capture_errors", "verdict", "rules"});
  Connection c;
  c.id = in.uint32(in.required(v, path, "id"), child_path(path, "id"));
  if (c.id != index)
    in.fail(child_path(path, "id"),
            "is " + std::to_string(c.id) + ", expected its index " + std::to_string(index));
  c.transport = in.string(in.required(v, path, "transport"), child_path(path, "transport"));
  c.a = read_endpoint(in, in.required(v, path, "a"), child_path(path, "a"));
  c.b = read_endpoint(in, in.required(v, path, "b"), child_path(path, "b"));
  c.frames = in.uint(in.required(v, path, "frames"), child_path(path, "frames"));
  c.capture_errors =
      in.uint32(in.required(v, path, "capture_errors"), child_path(path, "capture_errors"));
  c.verdict = read_verdict(in, in.required(v, path, "verdict"), child_path(path, "verdict"));
  c.unlisted = c.verdict;  // what it rests on may be past the report's bound on notes
  const std::string rules_path = child_path(path, "rules");
  const json& rs = in.required(v, path, "rules");
  if (!rs.is_object()) in.fail(rules_path, "expected an object, got " + Reader::type_name(rs));
  for (const auto& [id, counts] : rs.items()) {
    const std::string p = child_path(rules_path, id);
    const std::optional<RuleId> r = find_rule(id);
    if (!r) in.fail(p, "unknown rule \"" + id + "\" (docs/rules.md lists the rules)");
    c.rules[static_cast<std::size_t>(*r)] =
        read_counts(in, counts, p, {"checked", "violations", "deviations", "explained"});
  }
  return c;
}

StateSnapshot read_state(const Reader& in, const json& v, const std::string& path) {
  in.object(v, path,
            {"next_psn", "oldest_unacked", "expected_psn", "msn", "outstanding",
             "outstanding_reads", "retries", "rnr_naks", "expected"});
  StateSnapshot s;
  auto opt = [&](std::string_view key, std::optional<std::uint32_t>& field) {
    if (const json* x = in.optional(v, key)) field = in.uint32(*x, child_path(path, key));
  };
  auto req = [&](std::string_view key, std::uint32_t& field) {
    field = in.uint32(in.required(v, path, key), child_path(path, key));
  };
  opt("next_psn", s.next_psn);
  opt("oldest_unacked", s.oldest_unacked);
  opt("expected_psn", s.expected_psn);
  opt("msn", s.msn);
  req("outstanding", s.outstanding);
  req("outstanding_reads", s.outstanding_reads);
  req("retries", s.retries);
  req("rnr_naks", s.rnr_naks);
  if (const json* x = in.optional(v, "expected"))
    s.expected = in.string(*x, child_path(path, "expected"));
  return s;
}

Violation read_violation(const Reader& in, const Report& r, const json& v,
                         const std::string& path) {
  in.object(v, path,
            {"rule", "cause", "deviation", "explained", "file", "frame", "connection", "qpn", "psn",
             "message", "state"});
  Violation x;
  auto at = [&](std::string_view key) -> const json& { return in.required(v, path, key); };
  auto p = [&](std::string_view key) { return child_path(path, key); };
  x.rule = read_rule(in, at("rule"), p("rule"));
  x.cause = in.string(at("cause"), p("cause"));
  x.deviation = in.boolean(at("deviation"), p("deviation"));
  if (const json* e = in.optional(v, "explained")) {
    x.explained = in.string(*e, p("explained"));
    if (x.explained.empty()) in.fail(p("explained"), "is empty (omit the key instead)");
  }
  x.file = read_file_ref(in, r, at("file"), p("file"));
  x.frame = in.uint(at("frame"), p("frame"));
  x.connection = kNoConnection;  // a frame of no connection (docs/json.md §2)
  if (const json* c = in.optional(v, "connection")) {
    x.connection = in.uint32(*c, p("connection"));
    if (x.connection >= r.connections.size())
      in.fail(p("connection"), std::to_string(x.connection) + " but the report has " +
                                   std::to_string(r.connections.size()) + " connection(s)");
  }
  x.qpn = in.uint32(at("qpn"), p("qpn"));
  x.psn = in.uint32(at("psn"), p("psn"));
  x.message = in.string(at("message"), p("message"));
  x.state = read_state(in, at("state"), p("state"));
  return x;
}

Note read_note(const Reader& in, const Report& r, const json& v, const std::string& path) {
  in.object(v, path, {"kind", "connection", "file", "frame", "message"});
  Note n;
  auto p = [&](std::string_view key) { return child_path(path, key); };
  const std::string kind = in.string(in.required(v, path, "kind"), p("kind"));
  bool known = false;
  std::string names;
  for (NoteKind k : kNoteKinds) {
    names += (names.empty() ? "" : ", ") + std::string(to_string(k));
    if (to_string(k) == kind) {
      n.kind = k;
      known = true;
    }
  }
  if (!known) in.fail(p("kind"), "unknown note kind \"" + kind + "\" (" + names + ")");
  if (const json* c = in.optional(v, "connection")) {
    n.connection = in.uint32(*c, p("connection"));
    if (*n.connection >= r.connections.size())
      in.fail(p("connection"), std::to_string(*n.connection) + " but the report has " +
                                   std::to_string(r.connections.size()) + " connection(s)");
  }
  n.file = read_file_ref(in, r, in.required(v, path, "file"), p("file"));
  n.frame = in.uint(in.required(v, path, "frame"), p("frame"));
  n.message = in.string(in.required(v, path, "message"), p("message"));
  return n;
}

}  // namespace

Report read_json(std::string_view text, const std::string& source) {
  const Reader in(source);
  const json doc = in.parse(text);
  in.object(doc, "",
            {"verdict", "profile", "max_capture_errors", "files", "frames", "roce_frames",
             "connections", "rules", "violations", "notes"});
  Report r;
  auto at = [&](std::string_view key) -> const json& { return in.required(doc, "", key); };
  r.verdict = read_verdict(in, at("verdict"), "verdict");
  r.profile = in.string(at("profile"), "profile");
  r.max_capture_errors = in.uint32(at("max_capture_errors"), "max_capture_errors");
  const json& files = in.array(at("files"), "files");
  for (std::size_t i = 0; i < files.size(); ++i)
    r.files.push_back(in.string(files[i], child_path("files", i)));
  r.frames = in.uint(at("frames"), "frames");
  r.roce_frames = in.uint(at("roce_frames"), "roce_frames");
  const json& conns = in.array(at("connections"), "connections");
  for (std::size_t i = 0; i < conns.size(); ++i)
    r.connections.push_back(read_connection(in, conns[i], child_path("connections", i), i));
  const json& rs = in.array(at("rules"), "rules");
  std::array<bool, kRuleCount> seen{};
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const std::string path = child_path("rules", i);
    const json& x = rs[i];
    in.object(x, path,
              {"id", "severity", "needs", "statement", "reference", "checked", "violations",
               "deviations", "explained"});
    const RuleId id = read_rule(in, in.required(x, path, "id"), child_path(path, "id"));
    const auto index = static_cast<std::size_t>(id);
    if (seen[index]) in.fail(child_path(path, "id"), "rule listed twice");
    seen[index] = true;
    r.rules[index] = read_counts(in, x, path,
                                 {"id", "severity", "needs", "statement", "reference", "checked",
                                  "violations", "deviations", "explained"});
  }
  const json& vs = in.array(at("violations"), "violations");
  for (std::size_t i = 0; i < vs.size(); ++i)
    r.violations.push_back(read_violation(in, r, vs[i], child_path("violations", i)));
  const json& ns = in.array(at("notes"), "notes");
  for (std::size_t i = 0; i < ns.size(); ++i)
    r.notes.push_back(read_note(in, r, ns[i], child_path("notes", i)));
  return r;
}

}  // namespace rocecert::check
