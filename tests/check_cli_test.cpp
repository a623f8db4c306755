// `rocecert check` end to end (docs/check.md): the binary is run as a user would run it. Exit
// codes and error lines first, then the reports it writes; the tests that need verdicts skip
// themselves while the checker judges nothing (no rule checked in the JSON report).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/check/catalog.h"
#include "rocecert/check/profile.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "support/command.h"

using namespace rocecert;
using nlohmann::json;
using rocecert::testing::CommandResult;
using rocecert::testing::slurp;

namespace {

std::string temp_path(const std::string& name) {
  return rocecert::testing::temp_path("check-cli", name);
}

CommandResult run_check(const std::string& args) {
  return rocecert::testing::run_command(std::string(ROCECERT_CLI) + " check " + args);
}

std::string real(const std::string& name) {
  return std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + name;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::uint64_t frames_in(const std::string& path) {
  pcap::Reader reader(path);
  pcap::Record rec;
  std::uint64_t n = 0;
  while (reader.next(rec)) ++n;
  return n;
}

// The message pcap::Reader gives for an unusable capture: `rocecert check` must print it as is.
std::string capture_error(const std::string& path) {
  try {
    pcap::Reader reader(path);
    pcap::Record rec;
    while (reader.next(rec)) {
    }
  } catch (const pcap::CaptureError& e) {
    return e.what();
  }
  return {};
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::size_t count_of(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// How many rule evaluations the report counts: 0 while the checker is a placeholder.
std::uint64_t rules_checked(const json& report) {
  std::uint64_t n = 0;
  for (const json& r : report.at("rules")) n += r.at("checked").get<std::uint64_t>();
  return n;
}

// rc_ops_mtu4096.pcap with the BTH TVer of the given frames set to 1 (ICRC recomputed, so that
// only wire.tver is broken): a capture of a device that breaks IBA Vol. 1 §9.2.
std::string capture_with_bad_tver(std::initializer_list<std::uint64_t> frames) {
  const std::string out = temp_path("bad_tver.pcap");
  pcap::Reader reader(real("rc_ops_mtu4096.pcap"));
  pcap::Writer writer(out, 1, pcap::Precision::Nano);
  pcap::Record rec;
  while (reader.next(rec)) {
    if (std::find(frames.begin(), frames.end(), rec.frame) == frames.end()) {
      writer.write(rec.ts_ns, rec.data, rec.len);
      continue;
    }
    const wire::ParsedFrame p = wire::decode(rec.data, {reader.link(), true});
    EXPECT_TRUE(p.roce && !p.has_error) << "frame " << rec.frame;
    wire::FrameSpec spec = wire::to_spec(p);
    spec.bth.tver = 1;
    spec.icrc.reset();
    writer.write(rec.ts_ns, wire::encode(spec));
  }
  writer.close();
  return out;
}

}  // namespace

// --- exit codes and error lines ----------------------------------------------------------------

TEST(CliCheck, CleanRealCaptureExitsZeroWithATextReport) {
  const CommandResult r = run_check(real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out, "");
}

TEST(CliCheck, QuietPrintsNothing) {
  const CommandResult r = run_check("--quiet " + real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST(CliCheck, MissingCaptureExitsTwoNamingIt) {
  const std::string f = temp_path("no_such_capture.pcap");
  const CommandResult r = run_check(f);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "rocecert check: " + f + ": frame 0, byte offset 0: cannot open: No such file " +
                       "or directory\n");
}

TEST(CliCheck, TruncatedCaptureExitsTwoNamingFrameAndOffset) {
  const std::string f = temp_path("cut.pcap");
  write_file(f, slurp(real("rc_ops_mtu4096.pcap")).substr(0, 1000));
  const std::string what = capture_error(f);
  ASSERT_NE(what.find(": frame 5, byte offset 396: truncated dump file"), std::string::npos)
      << what;
  // Alone, and after a good capture: no report, one line.
  for (const std::string& args : {f, real("rc_ops_mtu4096.pcap") + " " + f}) {
    const CommandResult r = run_check(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(r.err, "rocecert check: " + what + "\n") << args;
  }
  std::filesystem::remove(f);
}

TEST(CliCheck, NotACaptureExitsTwo) {
  const std::string f = temp_path("scenario.pcap");
  write_file(f, slurp(std::string(ROCECERT_SOURCE_DIR) + "/examples/rc_basic.json"));
  const CommandResult r = run_check(f);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "rocecert check: " + capture_error(f) + "\n");
  std::filesystem::remove(f);
}

TEST(CliCheck, UsageErrorsExitTwo) {
  const std::string cap = real("rc_ops_mtu4096.pcap");
  for (const std::string& args :
       {std::string("--bogus ") + cap, std::string(""), "--max-capture-errors -1 " + cap,
        "--max-capture-errors many " + cap}) {
    const CommandResult r = run_check(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err, "") << args;
    EXPECT_EQ(r.out, "") << args;
  }
  const CommandResult r = run_check("--bogus " + cap);
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
}

TEST(CliCheck, JsonAndJunitCannotBothTakeStdout) {
  const CommandResult r = run_check("--json - --junit - " + real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "rocecert check: --json - and --junit - cannot both write to stdout\n");
}

// The report files are tried before the captures are read (a check can take long).
TEST(CliCheck, UnwritableReportFileExitsTwoBeforeTheCheck) {
  const std::string f = temp_path("no_such_dir") + "/report.json";
  for (const char* option : {"--json ", "--junit "}) {
    const CommandResult r =
        run_check(std::string("--quiet ") + option + f + " " + temp_path("no_such_capture.pcap"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "rocecert check: " + f +
                         ": cannot create the report file: No such file or directory\n");
  }
}

TEST(CliCheck, JsonAndJunitCannotShareAFile) {
  const std::string f = temp_path("both.xml");
  const CommandResult r =
      run_check("--json " + f + " --junit " + f + " " + real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "rocecert check: --json and --junit name the same file: " + f + "\n");
  EXPECT_FALSE(std::filesystem::exists(f));
}

// An unusable capture leaves no new report file behind, and an old one as it was.
TEST(CliCheck, UnusableCaptureWritesNoReport) {
  const std::string cut = temp_path("cut_for_report.pcap");
  write_file(cut, slurp(real("rc_ops_mtu4096.pcap")).substr(0, 1000));
  const std::string fresh = temp_path("fresh.json"), old = temp_path("old.xml");
  std::filesystem::remove(fresh);
  write_file(old, "old report\n");
  const CommandResult r = run_check("--json " + fresh + " --junit " + old + " " + cut);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "rocecert check: " + capture_error(cut) + "\n");
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_EQ(slurp(old), "old report\n");
  std::filesystem::remove(cut);
  std::filesystem::remove(old);
}

// --- profiles -----------------------------------------------------------------------------------

TEST(CliCheck, BuiltInProfilesAreAccepted) {
  for (const char* name : {"rxe", "iba"}) {
    const CommandResult r =
        run_check(std::string("--quiet --profile ") + name + " " + real("rc_ops_mtu4096.pcap"));
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  }
}

TEST(CliCheck, MissingProfileFileExitsTwoNamingIt) {
  const std::string p = temp_path("no_such_profile.json");
  const CommandResult r = run_check("--profile " + p + " " + real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("rocecert check: " + p, 0), 0u) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
}

TEST(CliCheck, BrokenProfileFileExitsTwoNamingIt) {
  const std::string p = temp_path("cut_profile.json");
  write_file(p, "{\"name\": \"cut\", \"deviations\": [");
  const CommandResult r = run_check("--profile " + p + " " + real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("rocecert check: " + p + ": ", 0), 0u) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  std::filesystem::remove(p);
}

// The built-in rxe profile written to a file is accepted; with a value of the wrong type, the
// error names the file and the key.
TEST(CliCheck, ProfileFileAndItsBadKey) {
  std::string rxe;
  for (const auto& [name, text] : check::builtin_profiles())
    if (name == "rxe") rxe = std::string(text);
  if (rxe.empty()) GTEST_SKIP() << "no built-in profile text yet (placeholder loader)";
  const std::string p = temp_path("profile.json");
  write_file(p, rxe);
  CommandResult r = run_check("--quiet --profile " + p + " " + real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(r.exit_code, 0) << r.err;

  json j = json::parse(rxe);
  ASSERT_TRUE(j.contains("max_capture_errors")) << rxe;
  j["max_capture_errors"] = "many";
  write_file(p, j.dump(2));
  r = run_check("--profile " + p + " " + real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("rocecert check: " + p + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("max_capture_errors"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  std::filesystem::remove(p);
}

// --- reports ------------------------------------------------------------------------------------

// docs/json.md §2: the top-level keys, one entry per rule of the catalog, frames over all files.
TEST(CliCheck, JsonReportHasTheKeysOfTheContract) {
  const std::string f = temp_path("report.json");
  const std::string a = real("rc_ops_mtu4096.pcap"), b = real("ud_pingpong_1024.pcap");
  const CommandResult r = run_check("--json " + f + " " + a + " " + b);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out, "");  // the text report still goes to stdout
  const json j = json::parse(slurp(f));
  for (const char* key : {"verdict", "frames", "connections", "rules", "violations"})
    EXPECT_TRUE(j.contains(key)) << key;
  const std::set<std::string> verdicts = {"PASS", "DEVIATION", "UNSUPPORTED", "INCONCLUSIVE",
                                          "FAIL"};
  EXPECT_TRUE(verdicts.count(j.at("verdict").get<std::string>())) << j.at("verdict");
  EXPECT_EQ(j.at("frames").get<std::uint64_t>(), frames_in(a) + frames_in(b));
  ASSERT_TRUE(j.at("rules").is_array());
  ASSERT_EQ(j.at("rules").size(), check::kRuleCount);
  for (std::size_t i = 0; i < check::kRuleCount; ++i) {
    const json& rule = j.at("rules")[i];
    for (const char* key : {"id", "statement", "reference", "checked", "violations"})
      EXPECT_TRUE(rule.contains(key)) << i << " " << key;
    EXPECT_EQ(rule.at("id").get<std::string>(), check::rules()[i].id);
  }
  EXPECT_TRUE(j.at("connections").is_array());
  EXPECT_TRUE(j.at("violations").is_array());
  std::filesystem::remove(f);
}

TEST(CliCheck, JsonToStdoutReplacesTheText) {
  const CommandResult r = run_check("--json - " + real("rc_ops_mtu4096.pcap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);  // throws if anything else shares stdout
  EXPECT_EQ(j.at("frames").get<std::uint64_t>(), 35u);
}

TEST(CliCheck, JunitReportIsXml) {
  const std::string f = temp_path("report.xml");
  const CommandResult r = run_check("--quiet --junit " + f + " " + real("rc_ops_mtu4096.pcap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string xml = slurp(f);
  EXPECT_EQ(xml.rfind("<?xml", 0), 0u) << xml.substr(0, 200);
  EXPECT_NE(xml.find("<testsuite"), std::string::npos) << xml.substr(0, 200);
  const CommandResult to_stdout = run_check("--junit - " + real("rc_ops_mtu4096.pcap"));
  EXPECT_EQ(to_stdout.exit_code, 0);
  EXPECT_EQ(to_stdout.out, xml);
  std::filesystem::remove(f);
}

// --- verdicts (need the checker) ----------------------------------------------------------------

TEST(CliCheck, ProtocolViolationExitsOneAndIsReported) {
  const std::string cap = capture_with_bad_tver({1});
  const std::string f = temp_path("fail.json");
  const CommandResult r = run_check("--json " + f + " " + cap);
  const CommandResult quiet = run_check("--quiet " + cap);
  const json j = json::parse(slurp(f));
  std::filesystem::remove(f);
  std::filesystem::remove(cap);
  if (rules_checked(j) == 0) GTEST_SKIP() << "the checker checks nothing yet (placeholder)";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out, "");
  EXPECT_EQ(j.at("verdict"), "FAIL");
  bool found = false;
  for (const json& v : j.at("violations"))
    found = found || (v.at("rule") == "wire.tver" && v.at("frame") == 1);
  EXPECT_TRUE(found) << j.at("violations").dump();
  // --quiet changes the output, not the exit code.
  EXPECT_EQ(quiet.exit_code, 1);
  EXPECT_EQ(quiet.out, "");
}

TEST(CliCheck, CleanRealCapturesDoNotFail) {
  const std::string f = temp_path("clean.json");
  for (const char* name : {"rc_ops_mtu4096.pcap", "rc_pingpong_64_mtu1024.pcap",
                           "ud_pingpong_1024_v6.pcap", "uc_pingpong_4096_mtu1024.pcap"}) {
    const CommandResult r = run_check("--json " + f + " " + real(name));
    const json j = json::parse(slurp(f));
    std::filesystem::remove(f);
    if (rules_checked(j) == 0) GTEST_SKIP() << "the checker checks nothing yet (placeholder)";
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.out;
    EXPECT_NE(j.at("verdict"), "FAIL") << name;
    EXPECT_TRUE(j.at("violations").empty()) << name << ": " << j.at("violations").dump();
  }
}

// Two violations of one rule on one connection: the text report shows the first, --verbose both.
TEST(CliCheck, VerboseListsEveryViolation) {
  const std::string cap = capture_with_bad_tver({1, 13});
  const std::string f = temp_path("verbose.json");
  const CommandResult plain = run_check("--json " + f + " " + cap);
  const CommandResult verbose = run_check("--verbose " + cap);
  const json j = json::parse(slurp(f));
  std::filesystem::remove(f);
  std::filesystem::remove(cap);
  if (rules_checked(j) == 0) GTEST_SKIP() << "the checker checks nothing yet (placeholder)";
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_EQ(verbose.exit_code, 1);
  EXPECT_GT(count_of(verbose.out, "wire.tver"), count_of(plain.out, "wire.tver")) << verbose.out;
}

// --max-capture-errors overrides the profile's budget; the report says which budget applied.
TEST(CliCheck, MaxCaptureErrorsOverridesTheProfile) {
  const std::string f = temp_path("budget.json");
  const CommandResult r =
      run_check("--quiet --max-capture-errors 7 --json " + f + " " + real("rc_ops_mtu4096.pcap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(slurp(f));
  std::filesystem::remove(f);
  if (!j.contains("max_capture_errors"))
    GTEST_SKIP() << "the JSON report does not carry the budget yet (placeholder writer)";
  EXPECT_EQ(j.at("max_capture_errors"), 7);
}

namespace {

CommandResult run_cli(const std::string& args) {
  return rocecert::testing::run_command(std::string(ROCECERT_CLI) + " " + args);
}

json json_of(const std::string& path) {
  return json::parse(slurp(path));
}

}  // namespace

// The same report whatever the number of threads, for one capture and for several.
TEST(CliCheck, JobsDoNotChangeTheReport) {
  const std::string one = temp_path("jobs1.json"), two = temp_path("jobs2.json");
  const std::string files = real("rc_read_bw_10000_mtu1024_resploss10.pcap") + " " +
                            real("multi_qp_errors.pcap") + " " +
                            real("rc_send_bw_64_mtu1024_corrupt2.pcap");
  ASSERT_EQ(run_check("-q --json " + one + " " + files).exit_code, 0);
  ASSERT_EQ(run_check("-q --jobs 2 --json " + two + " " + files).exit_code, 0);
  EXPECT_EQ(json_of(one), json_of(two));
  ASSERT_EQ(run_check("-q --jobs 2 --json " + two + " " + real("multi_qp_errors.pcap")).exit_code,
            0);
  ASSERT_EQ(run_check("-q --json " + one + " " + real("multi_qp_errors.pcap")).exit_code, 0);
  EXPECT_EQ(json_of(one), json_of(two));
  std::filesystem::remove(one);
  std::filesystem::remove(two);
}

// --events: the real completion log is held against its capture; a broken one exits 2 naming
// the file, the line and the byte offset.
TEST(CliCheck, EventsAreHeldAgainstTheWireAndABrokenLogIsLocated) {
  const std::string capture = real("multi_qp_errors.pcap");
  const CommandResult ok =
      run_check("--events " + real("multi_qp_errors.events.jsonl") + " " + capture);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("events.wc_status"), std::string::npos) << ok.out;
  const std::string bad = temp_path("bad.jsonl");
  std::ofstream(bad) << "{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"qpn\": 33, "
                        "\"status\": \"SUCCESS\"}\n{\"event\": \"wc\"\n";
  const CommandResult r = run_check("--events " + bad + " " + capture);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--events " + bad + ": line 2 (byte offset 82): invalid JSON"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(bad);
}

// --no-golden: the replay's rule is not evaluated; everything else is the same.
TEST(CliCheck, NoGoldenSkipsOnlyTheReplay) {
  const std::string with = temp_path("golden.json"), without = temp_path("nogolden.json");
  const std::string capture = real("rc_read_bw_10000_mtu1024_resploss10.pcap");
  ASSERT_EQ(run_check("-q --json " + with + " " + capture).exit_code, 0);
  ASSERT_EQ(run_check("-q --no-golden --json " + without + " " + capture).exit_code, 0);
  auto golden_checked = [](const nlohmann::json& j) {
    for (const auto& r : j.at("rules"))
      if (r.at("id") == "golden.response") return r.at("checked").get<std::uint64_t>();
    return std::uint64_t{0};
  };
  const nlohmann::json a = json_of(with), b = json_of(without);
  EXPECT_GT(golden_checked(a), 2000u);
  EXPECT_EQ(golden_checked(b), 0u);
  EXPECT_EQ(a.at("verdict"), b.at("verdict"));
  std::filesystem::remove(with);
  std::filesystem::remove(without);
}

// split, check each part, merge: the verdict and the counts of the whole.
TEST(CliCheck, SplitCheckMergeEqualsTheWhole) {
  const std::string whole = temp_path("whole.json"), prefix = temp_path("part");
  const std::string capture = real("rc_write_bw_4096_mtu1024_q8.pcap");
  ASSERT_EQ(run_check("-q --json " + whole + " " + capture).exit_code, 0);
  const CommandResult s = run_cli("split " + capture + " -n 3 -o " + prefix);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  std::string reports;
  for (int k = 1; k <= 3; ++k) {
    const std::string part = prefix + "-" + std::to_string(k) + "-of-3.pcap";
    EXPECT_NE(s.out.find(part), std::string::npos) << s.out;
    ASSERT_EQ(run_check("-q --json " + part + ".json " + part).exit_code, 0);
    reports += " " + part + ".json";
  }
  const std::string merged = temp_path("merged.json");
  const CommandResult m = run_cli("merge -q --json " + merged + reports);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const json a = json_of(whole), b = json_of(merged);
  EXPECT_EQ(a["verdict"], b["verdict"]);
  EXPECT_EQ(a["frames"], b["frames"]);
  EXPECT_EQ(a["connections"].size(), b["connections"].size());
  EXPECT_EQ(a["rules"], b["rules"]);
  for (int k = 1; k <= 3; ++k) {
    const std::string part = prefix + "-" + std::to_string(k) + "-of-3.pcap";
    std::filesystem::remove(part);
    std::filesystem::remove(part + ".json");
  }
  std::filesystem::remove(whole);
  std::filesystem::remove(merged);
}

TEST(CliCheck, MergeOfABrokenReportExitsTwoNamingIt) {
  const std::string bad = temp_path("broken.json");
  write_file(bad, "{\"verdict\": \"PASS\"");
  const CommandResult m = run_cli("merge " + bad);
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.err.find(bad), std::string::npos) << m.err;
  std::filesystem::remove(bad);
}

TEST(CliCheck, MergeRefusesOneReportGivenTwice) {
  const std::string report = temp_path("once.json");
  ASSERT_EQ(run_check("-q --json " + report + " " + real("rc_pingpong_64_mtu1024.pcap")).exit_code,
            0);
  // The same file by another name: its counts would be added twice.
  const std::string again = std::filesystem::path(report).parent_path().string() + "/./" +
                            std::filesystem::path(report).filename().string();
  const CommandResult m = run_cli("merge -q " + report + " " + again);
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_EQ(m.err,
            "rocecert merge: " + again + ": given twice (its counts would be added twice)\n");
  std::filesystem::remove(report);
}

TEST(CliCheck, MergeOfAFailIsExitOne) {
  const std::string fail = temp_path("fail.json");
  // A capture with a planted TVer 1, as ProtocolViolationExitsOneAndIsReported builds it.
  const std::string capture = temp_path("tver.pcap");
  {
    pcap::Reader in(real("rc_ops_mtu4096.pcap"));
    pcap::Writer out(capture);
    pcap::Record rec;
    bool first = true;
    while (in.next(rec)) {
      std::vector<std::uint8_t> b(rec.data.begin(), rec.data.end());
      if (first) {
        wire::FrameSpec s = wire::to_spec(wire::decode(b));
        s.bth.tver = 1;
        s.icrc.reset();
        b = wire::encode(s);
        first = false;
      }
      out.write(rec.ts_ns, b);
    }
  }
  ASSERT_EQ(run_check("-q --json " + fail + " " + capture).exit_code, 1);
  EXPECT_EQ(run_cli("merge -q " + fail).exit_code, 1);
  std::filesystem::remove(fail);
  std::filesystem::remove(capture);
}

TEST(CliCheck, SplitOfAMissingCaptureExitsTwo) {
  const CommandResult s = run_cli("split " + temp_path("none.pcap") + " -n 2");
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_NE(s.err.find("none.pcap"), std::string::npos) << s.err;
}
