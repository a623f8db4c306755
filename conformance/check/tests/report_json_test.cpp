// write_json/read_json: the report survives the round trip exactly, broken input gets a located
// error, and the output follows docs/check-report.schema.json (validated with Debian's
// python3-jsonschema, as tests/contract/decode_schema_test.cpp does for decode).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "command.h"
#include "require_tool.h"
#include "rocecert/check/report_io.h"
#include "sample_report.h"

namespace rocecert::check {
namespace {

using nlohmann::json;

std::string to_json(const Report& r) {
  std::ostringstream out;
  write_json(r, out);
  return out.str();
}

void expect_same_state(const StateSnapshot& a, const StateSnapshot& b, const std::string& at) {
  EXPECT_EQ(a.next_psn, b.next_psn) << at;
  EXPECT_EQ(a.oldest_unacked, b.oldest_unacked) << at;
  EXPECT_EQ(a.expected_psn, b.expected_psn) << at;
  EXPECT_EQ(a.msn, b.msn) << at;
  EXPECT_EQ(a.outstanding, b.outstanding) << at;
  EXPECT_EQ(a.outstanding_reads, b.outstanding_reads) << at;
  EXPECT_EQ(a.retries, b.retries) << at;
  EXPECT_EQ(a.rnr_naks, b.rnr_naks) << at;
  EXPECT_EQ(a.expected, b.expected) << at;
}

void expect_same_counts(const std::array<RuleCount, kRuleCount>& a,
                        const std::array<RuleCount, kRuleCount>& b, const std::string& at) {
  for (std::size_t i = 0; i < kRuleCount; ++i) {
    EXPECT_EQ(a[i].checked, b[i].checked) << at << " " << rules()[i].id;
    EXPECT_EQ(a[i].violations, b[i].violations) << at << " " << rules()[i].id;
    EXPECT_EQ(a[i].deviations, b[i].deviations) << at << " " << rules()[i].id;
    EXPECT_EQ(a[i].explained, b[i].explained) << at << " " << rules()[i].id;
  }
}

void expect_same(const Report& a, const Report& b) {
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.profile, b.profile);
  EXPECT_EQ(a.max_capture_errors, b.max_capture_errors);
  EXPECT_EQ(a.files, b.files);
  EXPECT_EQ(a.frames, b.frames);
  EXPECT_EQ(a.roce_frames, b.roce_frames);
  expect_same_counts(a.rules, b.rules, "rules");
  ASSERT_EQ(a.connections.size(), b.connections.size());
  for (std::size_t i = 0; i < a.connections.size(); ++i) {
    const Connection &x = a.connections[i], &y = b.connections[i];
    const std::string at = "connection " + std::to_string(i);
    EXPECT_EQ(x.id, y.id) << at;
    EXPECT_EQ(x.transport, y.transport) << at;
    EXPECT_EQ(x.a.ip, y.a.ip) << at;
    EXPECT_EQ(x.a.qpn, y.a.qpn) << at;
    EXPECT_EQ(x.b.ip, y.b.ip) << at;
    EXPECT_EQ(x.b.qpn, y.b.qpn) << at;
    EXPECT_EQ(x.frames, y.frames) << at;
    EXPECT_EQ(x.capture_errors, y.capture_errors) << at;
    EXPECT_EQ(x.verdict, y.verdict) << at;
    expect_same_counts(x.rules, y.rules, at);
  }
  ASSERT_EQ(a.violations.size(), b.violations.size());
  for (std::size_t i = 0; i < a.violations.size(); ++i) {
    const Violation &x = a.violations[i], &y = b.violations[i];
    const std::string at = "violation " + std::to_string(i);
    EXPECT_EQ(x.rule, y.rule) << at;
    EXPECT_EQ(x.cause, y.cause) << at;
    EXPECT_EQ(x.deviation, y.deviation) << at;
    EXPECT_EQ(x.explained, y.explained) << at;
    EXPECT_EQ(x.file, y.file) << at;
    EXPECT_EQ(x.frame, y.frame) << at;
    EXPECT_EQ(x.connection, y.connection) << at;
    EXPECT_EQ(x.qpn, y.qpn) << at;
    EXPECT_EQ(x.psn, y.psn) << at;
    EXPECT_EQ(x.message, y.message) << at;
    expect_same_state(x.state, y.state, at);
  }
  ASSERT_EQ(a.notes.size(), b.notes.size());
  for (std::size_t i = 0; i < a.notes.size(); ++i) {
    const Note &x = a.notes[i], &y = b.notes[i];
    const std::string at = "note " + std::to_string(i);
    EXPECT_EQ(x.kind, y.kind) << at;
    EXPECT_EQ(x.connection, y.connection) << at;
    EXPECT_EQ(x.file, y.file) << at;
    EXPECT_EQ(x.frame, y.frame) << at;
    EXPECT_EQ(x.message, y.message) << at;
  }
}

TEST(ReportJson, RoundTripIsExact) {
  const Report r = testing::sample_report();
  const std::string text = to_json(r);
  const Report back = read_json(text, "sample.json");
  expect_same(r, back);
  EXPECT_EQ(to_json(back), text);
}

TEST(ReportJson, KeysTypesAndOmissions) {
  const json j = json::parse(to_json(testing::sample_report()));
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_TRUE(j["frames"].is_number_unsigned());
  EXPECT_EQ(j["frames"].get<std::uint64_t>(), 5000000000ull);
  EXPECT_EQ(j["rules"].size(), kRuleCount);
  EXPECT_EQ(j["rules"][0]["id"], std::string(rules()[0].id));
  const json& c0 = j["connections"][0];
  EXPECT_EQ(c0["a"]["qpn"], 0x11);
  // Only the rules checked or violated on the connection.
  EXPECT_EQ(c0["rules"].size(), 4u);
  EXPECT_EQ(c0["rules"]["read.opcode"]["deviations"], 1);
  EXPECT_FALSE(j["connections"][1]["a"].contains("qpn"));
  const json& v0 = j["violations"][0];
  EXPECT_EQ(v0["file"], "captures/a.pcap");  // the name, not the index
  EXPECT_EQ(v0["state"]["next_psn"], 1234);
  EXPECT_FALSE(v0["state"].contains("expected_psn"));
  EXPECT_TRUE(j["violations"][1]["state"].contains("expected_psn"));
  EXPECT_FALSE(j["violations"][2]["state"].contains("expected"));
  EXPECT_EQ(j["violations"][4]["file"], "b <&> \"quoted\".pcapng");
  EXPECT_FALSE(j["notes"][3].contains("connection"));
  EXPECT_EQ(j["notes"][3]["kind"], "one_direction");
}

TEST(ReportJson, AFileIndexThatPointsNowhereIsAnErrorNotACrash) {
  Report r = testing::sample_report();
  r.violations[1].file = 7;
  std::ostringstream out;
  EXPECT_THROW(write_json(r, out), ReportError);
}

TEST(ReportJson, InvalidUtf8InANameIsReplaced) {
  Report r;
  r.files = {"caf\xe9.pcap"};
  const std::string text = to_json(r);
  EXPECT_EQ(read_json(text, "x").files[0], "caf\xef\xbf\xbd.pcap");
}

// The error message read_json gives for `text`, or "" when it reads.
std::string error_of(const std::string& text) {
  try {
    read_json(text, "broken.json");
  } catch (const ReportError& e) {
    return e.what();
  }
  return "";
}

// The sample report's JSON with one change made by `edit`.
std::string edited(const std::function<void(json&)>& edit) {
  json j = json::parse(to_json(testing::sample_report()));
  edit(j);
  return j.dump();
}

TEST(ReportJson, SyntaxErrorsNameTheByteOffset) {
  EXPECT_EQ(error_of("{\"verdict\": }")
                .rfind("broken.json: byte offset 12 (line 1, column 13): "
                       "invalid JSON: ",
                       0),
            0u)
      << error_of("{\"verdict\": }");
  EXPECT_NE(error_of("").find("broken.json: byte offset 0"), std::string::npos);
  const std::string deep = std::string(100000, '[');
  EXPECT_NE(error_of(deep).find("nested deeper than"), std::string::npos) << error_of(deep);
}

TEST(ReportJson, StructuralErrorsNameTheKeyPath) {
  struct Case {
    std::function<void(json&)> edit;
    std::string expected;  // a part of the message
  };
  const Case cases[] = {
      {[](json& j) { j["verdict"] = 3; },
       "broken.json: verdict: expected a string, got an integer"},
      {[](json& j) { j["verdict"] = "GOOD"; }, "verdict: unknown verdict \"GOOD\""},
      {[](json& j) { j.erase("frames"); }, "(top level): missing key \"frames\""},
      {[](json& j) { j["extra"] = 1; }, "extra: unknown key"},
      {[](json& j) { j["frames"] = -1; }, "frames: expected a non-negative integer, got -1"},
      {[](json& j) { j["frames"] = 1.5; }, "frames: expected an integer, got a number"},
      {[](json& j) { j["max_capture_errors"] = 4294967296ull; },
       "max_capture_errors: 4294967296 is out of range"},
      {[](json& j) { j["connections"][1]["id"] = 5; }, "connections[1].id: is 5, expected its"},
      {[](json& j) { j["connections"][0]["rules"]["psn.nope"] = json::object(); },
       "connections[0].rules.psn.nope: unknown rule \"psn.nope\""},
      {[](json& j) { j["connections"][0]["rules"]["psn.sequence"].erase("checked"); },
       "connections[0].rules.psn.sequence: missing key \"checked\""},
      {[](json& j) { j["connections"][1]["a"]["qpn"] = "0x11"; },
       "connections[1].a.qpn: expected an integer, got a string"},
      {[](json& j) { j["rules"][3]["id"] = j["rules"][2]["id"]; },
       "rules[3].id: rule listed twice"},
      {[](json& j) { j["violations"][2]["file"] = "c.pcap"; },
       "violations[2].file: \"c.pcap\" is not one of the report's files"},
      {[](json& j) { j["violations"][0]["connection"] = 3; },
       "violations[0].connection: 3 but the report has 3 connection(s)"},
      {[](json& j) { j["violations"][0]["deviation"] = "no"; },
       "violations[0].deviation: expected true or false"},
      {[](json& j) { j["violations"][0]["state"]["msn"] = json(); },
       "violations[0].state.msn: expected an integer, got null"},
      {[](json& j) { j["violations"][0]["state"]["qp_state"] = "RTS"; },
       "violations[0].state.qp_state: unknown key"},
      {[](json& j) { j["notes"][2]["kind"] = "lost"; },
       "notes[2].kind: unknown note kind \"lost\""},
      {[](json& j) { j["notes"][2] = 1; }, "notes[2]: expected an object, got an integer"},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(edited(c.edit));
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << "expected \"" << c.expected << "\" in \"" << message << "\"";
  }
}

TEST(ReportJson, AKeyGivenTwiceIsNamed) {
  std::string text = to_json(testing::sample_report());
  const std::string key = "\"roce_frames\": 4999999999,";
  const std::size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"roce_frames\": 1,");
  EXPECT_NE(error_of(text).find("broken.json: roce_frames: key given twice"), std::string::npos)
      << error_of(text);
}

// --- the schema ------------------------------------------------------------------------------

const std::string kSchema = std::string(ROCECERT_SOURCE_DIR) + "/docs/check-report.schema.json";
constexpr const char* kPython = "/usr/bin/python3";

bool have_jsonschema() {
  return rocecert::testing::command_succeeds(std::string(kPython) + " -c 'import jsonschema'");
}

// "" when `instance` is valid, else the validator's messages.
std::string validate(const std::string& instance) {
  using rocecert::testing::temp_path;
  const std::string script = temp_path("check-schema", "validate.py"),
                    data = temp_path("check-schema", "report.json");
  std::ofstream(script) << R"(import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
errors = list(validator.iter_errors(json.load(open(sys.argv[2]))))
for e in errors[:10]:
    print(e.json_path + ": " + e.message)
sys.exit(1 if errors else 0)
)";
  std::ofstream(data) << instance;
  const rocecert::testing::CommandResult r = rocecert::testing::run_command(
      std::string(kPython) + " '" + script + "' '" + kSchema + "' '" + data + "'");
  std::filesystem::remove(script);
  std::filesystem::remove(data);
  return r.exit_code == 0 ? "" : r.out + r.err;
}

TEST(ReportSchema, WriteJsonOutputIsValid) {
  ROCECERT_REQUIRE_TOOL(have_jsonschema(), "python3-jsonschema");
  EXPECT_EQ(validate(to_json(testing::sample_report())), "");
  Report empty;
  EXPECT_EQ(validate(to_json(empty)), "");
}

TEST(ReportSchema, TheSchemaIsClosedAndCatchesMistakes) {
  ROCECERT_REQUIRE_TOOL(have_jsonschema(), "python3-jsonschema");
  // Each edit makes a report the schema must refuse (so the schema can fail).
  const std::function<void(json&)> edits[] = {
      [](json& j) { j["extra"] = 1; },
      [](json& j) { j["violations"][0]["state"]["qp_state"] = "RTS"; },
      [](json& j) { j["connections"][0]["rules"]["psn.sequence"]["skipped"] = 0; },
      [](json& j) { j["verdict"] = "OK"; },
      [](json& j) { j["notes"][0]["kind"] = "lost"; },
      [](json& j) { j["frames"] = -1; },
      [](json& j) { j["violations"][0]["file"] = 0; },
      [](json& j) { j["connections"][0].erase("verdict"); },
  };
  for (std::size_t i = 0; i < std::size(edits); ++i)
    EXPECT_NE(validate(edited(edits[i])), "") << "edit " << i << " was accepted";
}

TEST(ReportSchema, EnumsMatchTheCode) {
  const json schema = json::parse(rocecert::testing::slurp(kSchema));
  const json& defs = schema["$defs"];
  std::vector<std::string> verdicts;
  for (Verdict v : {Verdict::PASS, Verdict::DEVIATION, Verdict::UNSUPPORTED, Verdict::INCONCLUSIVE,
                    Verdict::FAIL})
    verdicts.emplace_back(to_string(v));
  EXPECT_EQ(defs["verdict"]["enum"].get<std::vector<std::string>>(), verdicts);
  std::vector<std::string> kinds;
  for (NoteKind k : {NoteKind::CaptureError, NoteKind::Gap, NoteKind::Truncated,
                     NoteKind::OneDirection, NoteKind::Unpaired, NoteKind::Unsupported,
                     NoteKind::Assumption, NoteKind::Deviation, NoteKind::Replay})
    kinds.emplace_back(to_string(k));
  EXPECT_EQ(defs["note"]["properties"]["kind"]["enum"].get<std::vector<std::string>>(), kinds);
  std::vector<std::string> severities = {std::string(to_string(Severity::Error)),
                                         std::string(to_string(Severity::Advisory))};
  EXPECT_EQ(defs["rule"]["properties"]["severity"]["enum"].get<std::vector<std::string>>(),
            severities);
  std::vector<std::string> needs;
  for (Needs n : {Needs::Frame, Needs::Stream, Needs::Pair, Needs::Timing, Needs::Endpoint,
                  Needs::Events, Needs::Setup})
    needs.emplace_back(to_string(n));
  EXPECT_EQ(defs["rule"]["properties"]["needs"]["enum"].get<std::vector<std::string>>(), needs);
}

// The example of docs/json.md §2: the first ```json block after its heading.
std::string documented_example() {
  const std::string doc =
      rocecert::testing::slurp(std::string(ROCECERT_SOURCE_DIR) + "/docs/json.md");
  const std::size_t section = doc.find("\n## 2. ");
  const std::size_t open = doc.find("```json\n", section);
  const std::size_t close = doc.find("\n```", open + 8);
  if (section == std::string::npos || open == std::string::npos || close == std::string::npos)
    return "";
  return doc.substr(open + 8, close - open - 8);
}

TEST(ReportJson, TheDocumentedExampleReadsBackAndQuotesTheCatalog) {
  const std::string example = documented_example();
  ASSERT_FALSE(example.empty()) << "no ```json block in docs/json.md section 2";
  const Report r = read_json(example, "docs/json.md");
  EXPECT_EQ(r.violations.size(), 1u);
  Report settled = r;
  settled.settle();
  EXPECT_EQ(settled.verdict, r.verdict) << "the example's verdict follows from its content";
  EXPECT_EQ(settled.connections[0].verdict, r.connections[0].verdict);
  const json doc = json::parse(example);
  for (const json& x : doc["rules"]) {
    const RuleInfo& info = rule(*find_rule(x["id"].get<std::string>()));
    EXPECT_EQ(x["statement"], std::string(info.statement)) << info.id;
    EXPECT_EQ(x["reference"], std::string(info.reference)) << info.id;
    EXPECT_EQ(x["severity"], std::string(to_string(info.severity))) << info.id;
    EXPECT_EQ(x["needs"], std::string(to_string(info.needs))) << info.id;
  }
}

TEST(ReportSchema, TheDocumentedExampleIsValid) {
  ROCECERT_REQUIRE_TOOL(have_jsonschema(), "python3-jsonschema");
  EXPECT_EQ(validate(documented_example()), "");
}

}  // namespace
}  // namespace rocecert::check
