// The checker on every capture of the generated vector set (vectors/{opcodes, transitions,
// boundary, reliability, errors, bugs}/*.pcap, the model's own traffic, `rocecert vectors
// generate`): with the rxe profile none FAILs, except the vectors whose traffic breaks a rule
// on purpose (a packet injected by the error vectors) or that need the DUT's log to be judged
// (the bug vectors whose QP was reset or whose MR was deregistered: their live runs, with the
// log, pass in check_live_captures_test). Those fail by exactly the rules listed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "conversation.h"
#include "rocecert/check/checker.h"

namespace rocecert::testing {
namespace {

using check::Verdict;

// Vector id (directory/name, the error profile left out) → the rules that must fail.
const std::map<std::string, std::set<std::string>>& expected_failures() {
  static const std::map<std::string, std::set<std::string>> m = {
      // Without the log, a PSN that restarts elsewhere after a reset (and an rkey refused
      // after it was granted) has no event to explain it (docs/check.md, the static MR table).
      {"bugs/psn-not-kept-across-reconnect", {"psn.sequence"}},
      {"bugs/stale-rkey-after-dereg", {"key.static", "z3.key"}},
      // An injected SEND ONLY with TVer 1.
      {"errors/rc-pkt-malformed", {"wire.tver"}},
      // An injected READ RESPONSE ONLY at a SEND's PSN.
      {"errors/rc-req-bad-response", {"read.response"}},
      // An injected READ response of 128 bytes for a READ of 64.
      {"errors/rc-req-local-length", {"read.length"}},
      // An injected NAK Invalid RD Request (RD only) on RC; the model answers otherwise.
      {"errors/rc-req-remote-invalid-rd-request", {"ack.syndrome", "golden.response"}},
      // An injected NAK with a reserved code.
      {"errors/rc-req-reserved-nak", {"ack.syndrome", "golden.response"}},
      // An injected READ request at a SEND's PSN: a resend unlike the original.
      {"errors/rc-resp-duplicate-unavailable", {"golden.requester"}},
      // An injected SEND FIRST shorter than the path MTU.
      {"errors/rc-resp-length", {"seq.length"}},
      // An injected WRITE ONLY carrying less than its RETH says.
      {"errors/rc-resp-write-length", {"golden.request"}},
  };
  return m;
}

// "errors/rc-pkt-malformed-rxe-00.pcap" → "errors/rc-pkt-malformed".
std::string vector_id(const std::filesystem::path& p) {
  std::string name = p.stem().string();
  const auto dash = name.rfind('-');
  if (dash != std::string::npos) name.resize(dash);  // the index
  for (const char* profile : {"-rxe", "-iba"})
    if (name.size() > 4 && name.ends_with(profile)) name.resize(name.size() - 4);
  return p.parent_path().filename().string() + "/" + name;
}

TEST(CheckVectors, EveryGeneratedCapturePassesOrFailsByItsInjection) {
  check::Options o;
  o.profile = check::load_profile("rxe");
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"opcodes", "transitions", "boundary", "reliability", "errors", "bugs"})
    for (const auto& e : std::filesystem::directory_iterator(
             std::filesystem::path(ROCECERT_SOURCE_DIR) / "vectors" / dir))
      if (e.path().extension() == ".pcap") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 150u);
  std::set<std::string> failed_ids;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const check::Report r = check::check_files({f.string()}, o);
    std::set<std::string> failing;
    for (const check::Violation& v : r.violations)
      if (!v.deviation && v.explained.empty() &&
          check::rule(v.rule).severity != check::Severity::Advisory)
        failing.insert(std::string(check::rule(v.rule).id));
    const std::string id = vector_id(f);
    const auto want = expected_failures().find(id);
    if (want == expected_failures().end()) {
      EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
      EXPECT_TRUE(failing.empty()) << describe(r);
    } else {
      EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
      EXPECT_EQ(failing, want->second) << describe(r);
      failed_ids.insert(id);
    }
  }
  // Every listed vector is still in the set.
  for (const auto& [id, rules] : expected_failures()) EXPECT_EQ(failed_ids.count(id), 1u) << id;
}

}  // namespace
}  // namespace rocecert::testing
