// The scenario runner on the golden model: the examples pass; broken expectations are all
// reported (never only the first) with their JSON paths; runs are deterministic per seed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "rocecert/conformance/runner.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/trace/json_trace.h"

using namespace rocecert;
using namespace rocecert::conformance;
using nlohmann::json;

namespace {

std::string source(const std::string& rel) {
  return std::string(ROCECERT_SOURCE_DIR) + "/" + rel;
}

json example(const std::string& name) {
  std::ifstream in(source("examples/" + name));
  return json::parse(in);
}

// Every event as its canonical JSON line.
class Recorder final : public trace::Observer {
 public:
  void on_frame(const trace::FrameEvent& e) override {
    add(trace::to_json(e));
    for (std::uint8_t b : e.bytes) bytes.push_back(static_cast<char>(b));
  }
  void on_qp_transition(const trace::QpTransitionEvent& e) override { add(trace::to_json(e)); }
  void on_cqe(const trace::CqeEvent& e) override { add(trace::to_json(e)); }
  void on_nak(const trace::NakEvent& e) override { add(trace::to_json(e)); }
  void on_retry(const trace::RetryEvent& e) override { add(trace::to_json(e)); }
  void on_access_denied(const trace::AccessDeniedEvent& e) override { add(trace::to_json(e)); }
  void on_async_event(const trace::AsyncEvent& e) override { add(trace::to_json(e)); }
  void on_drop(const trace::DropEvent& e) override { add(trace::to_json(e)); }
  std::string text;
  std::string bytes;  // every frame's bytes, concatenated
  int frames = 0;

 private:
  void add(const std::string& line) {
    text += line + "\n";
    frames += line.find("\"ev\":\"frame\"") != std::string::npos ? 1 : 0;
  }
};

struct Outcome {
  RunResult result;
  std::string out;    // what the runner printed
  std::string trace;  // the event trace
  std::string bytes;  // the frames
};

Outcome run(const json& j, std::uint64_t seed = 1, bool quiet = false) {
  const Scenario s = parse_scenario(j.dump(), "s.json");
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* out = open_memstream(&buf, &len);
  Recorder rec;
  RunOptions opt;
  opt.seed = seed;
  opt.out = out;
  opt.quiet = quiet;
  opt.observers.push_back(&rec);
  Outcome o{run_scenario(s, opt), "", "", ""};
  std::fclose(out);
  o.out.assign(buf, len);
  std::free(buf);
  o.trace = rec.text;
  o.bytes = rec.bytes;
  return o;
}

// The index of the step with this description prefix, or of the first step with this op.
std::size_t step_index(const json& j, const std::string& op) {
  for (std::size_t i = 0; i < j["steps"].size(); ++i)
    if (j["steps"][i]["op"] == op) return i;
  return SIZE_MAX;
}

bool has_failure(const RunResult& r, const std::string& path, const std::string& message_part) {
  for (const Failure& f : r.failures)
    if (f.path == path && f.message.find(message_part) != std::string::npos) return true;
  return false;
}

std::string failures(const RunResult& r) {
  std::string s;
  for (const Failure& f : r.failures) s += f.path + ": " + f.message + "\n";
  return s;
}

}  // namespace

TEST(ScenarioRunner, RcBasicPasses) {
  const Outcome o = run(example("rc_basic.json"));
  EXPECT_TRUE(o.result.passed()) << failures(o.result) << o.out;
  EXPECT_EQ(o.result.exit_code(), 0);
  EXPECT_EQ(o.result.checks, 13u);  // 6 completions, 5 memory ranges, 2 QP states
  ASSERT_EQ(o.result.completions.size(), 6u);
  EXPECT_NE(o.out.find("PASS s.json: 13 expectations met"), std::string::npos) << o.out;
  // The table: a header and one row per completion.
  EXPECT_NE(o.out.find("time_ns  adapter  cq"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("RECV"), std::string::npos);
  EXPECT_NE(o.out.find("qpB (0x11)"), std::string::npos);
  EXPECT_GT(o.trace.size(), 0u);
}

TEST(ScenarioRunner, UdSendPasses) {
  const Outcome o = run(example("ud_send.json"));
  EXPECT_TRUE(o.result.passed()) << failures(o.result) << o.out;
  EXPECT_EQ(o.result.completions.size(), 4u);
}

TEST(ScenarioRunner, QuietPrintsOnlyTheVerdict) {
  const Outcome o = run(example("rc_basic.json"), 1, true);
  EXPECT_EQ(o.out.find("time_ns"), std::string::npos);
  EXPECT_EQ(o.out.rfind("PASS s.json", 0), 0u) << o.out;
}

TEST(ScenarioRunner, EveryFailedExpectationIsReportedWithItsPath) {
  json j = example("rc_basic.json");
  const std::size_t e = j["steps"].size() - 1;
  json& x = j["steps"][e];
  x["completions"]["cqB"][0]["byte_len"] = 17;          // wrong
  x["completions"]["cqA"][1]["opcode"] = "RDMA_WRITE";  // wrong
  x["completions"]["cqA"].erase(4);                     // one completion too many
  x["memory"][3]["u64"] = 8;                            // wrong value
  x["qp_state"]["qpB"] = "ERR";                         // wrong state
  x["completions"]["cqA"][0]["qp"] = "qpA";             // right
  const Outcome o = run(j);
  EXPECT_FALSE(o.result.passed());
  EXPECT_EQ(o.result.exit_code(), 1);
  const std::string p = "steps[" + std::to_string(e) + "]";
  EXPECT_TRUE(has_failure(o.result, p + ".completions.cqB[0]", "byte_len: expected 17, got 16"))
      << failures(o.result);
  EXPECT_TRUE(has_failure(o.result, p + ".completions.cqA[1]",
                          "opcode: expected RDMA_WRITE, got RDMA_READ"))
      << failures(o.result);
  EXPECT_TRUE(has_failure(o.result, p + ".completions.cqA", "unexpected completion #4: wr_id 5"))
      << failures(o.result);
  EXPECT_TRUE(has_failure(o.result, p + ".memory[3]",
                          "bytes differ from offset 0 (address 0x20400): expected "
                          "0800000000000000, got 0700000000000000"))
      << failures(o.result);
  EXPECT_TRUE(has_failure(o.result, p + ".qp_state.qpB", "expected ERR, got RTS"))
      << failures(o.result);
  EXPECT_EQ(o.result.failures.size(), 5u) << failures(o.result);
  EXPECT_NE(o.out.find("FAIL " + p + ".qp_state.qpB: expected ERR, got RTS"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("FAIL s.json: 5 failures, 12 expectations checked"), std::string::npos)
      << o.out;
}

TEST(ScenarioRunner, MissingCompletionsAreFailures) {
  json j = example("rc_basic.json");
  json& x = j["steps"][j["steps"].size() - 1];
  x["completions"]["cqB"].push_back({{"wr_id", 101}, {"status", "SUCCESS"}});
  const Outcome o = run(j);
  EXPECT_TRUE(
      has_failure(o.result, "steps[21].completions.cqB[1]", "missing: CQ \"cqB\" had 1 completion"))
      << failures(o.result);
}

TEST(ScenarioRunner, VerbErrorsAreExpectedOrReported) {
  json j = example("rc_basic.json");
  // Posting on a QP that is not ready: expected here, so a check that passes...
  json early = {{"op", "post_send"},
                {"qp", "qpA"},
                {"expect_error", "INVALID_STATE"},
                {"wr", {{"wr_id", 9}, {"opcode", "SEND"}, {"sg_list", json::array()}}}};
  j["steps"].insert(j["steps"].begin() + 9, early);
  // ...and a modify_qp that the model refuses, not expected: a failure naming the error.
  json bad = {{"op", "modify_qp"}, {"qp", "qpB"}, {"attr", {{"qp_state", "RTR"}}}};
  j["steps"].insert(j["steps"].begin() + 10, bad);
  const Outcome o = run(j);
  EXPECT_EQ(o.result.failures.size(), 1u) << failures(o.result);
  EXPECT_TRUE(has_failure(o.result, "steps[10]", "modify_qp: expected OK, got ILLEGAL_TRANSITION"))
      << failures(o.result);
  EXPECT_EQ(o.result.checks, 14u);
}

TEST(ScenarioRunner, StepsOnObjectsThatWereNotCreatedAreSkippedWithAFailure) {
  json j = example("rc_basic.json");
  j["steps"][6]["cap"] = {{"max_send_wr", 1000000}};  // above the device limit: create_qp fails
  const Outcome o = run(j);
  EXPECT_TRUE(has_failure(o.result, "steps[6]", "create_qp: expected OK, got INVALID_CAP"))
      << failures(o.result);
  EXPECT_TRUE(
      has_failure(o.result, "steps[8]",
                  "modify_qp skipped: QP \"qpA\" does not exist (create_qp at steps[6] failed)"))
      << failures(o.result);
  EXPECT_FALSE(o.result.passed());
}

TEST(ScenarioRunner, RunUntilAndFor) {
  json j = example("rc_basic.json");
  const std::size_t r = step_index(j, "run");
  j["steps"][r] = {{"op", "run"}, {"for_ns", 1500}};  // not long enough for the ACKs
  j["steps"].insert(j["steps"].begin() + static_cast<std::ptrdiff_t>(r) + 1,
                    json{{"op", "run"}, {"until_ns", 1000}});  // in the past
  j["steps"].insert(j["steps"].begin() + static_cast<std::ptrdiff_t>(r) + 2,
                    json{{"op", "run"}, {"until_ns", 1000000}});
  const Outcome o = run(j);
  EXPECT_EQ(o.result.failures.size(), 1u) << failures(o.result);
  EXPECT_TRUE(has_failure(o.result, "steps[" + std::to_string(r + 1) + "]",
                          "run: until_ns 1000 is in the past (simulated time is 1500 ns)"))
      << failures(o.result);
  EXPECT_EQ(o.result.end_time, 1000000u);
  // Polled after the first run: only B's receive had completed by 1500 ns.
  ASSERT_FALSE(o.result.completions.empty());
  EXPECT_EQ(o.result.completions[0].wc.opcode, cq::WcOpcode::RECV);
}

TEST(ScenarioRunner, SameSeedSameTraceOtherSeedOtherKeys) {
  const json j = example("rc_basic.json");
  const Outcome a = run(j, 1), b = run(j, 1), c = run(j, 2);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.out, b.out);
  EXPECT_TRUE(c.result.passed()) << failures(c.result);
  // The seed draws the key bytes: the same frames, but other rkeys in them (and other ICRCs).
  EXPECT_EQ(a.trace, c.trace);
  EXPECT_EQ(a.bytes.size(), c.bytes.size());
  EXPECT_NE(a.bytes, c.bytes);
}

// --- link faults, SRQs, asynchronous events ---------------------------------------------------

namespace {
json vector_file(const std::string& name) {
  std::ifstream in(source("vectors/scenarios/" + name));
  return json::parse(in);
}
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST(ScenarioRunner, FaultRulesNamingAQpGetItsQpnWhenItIsCreated) {
  json j = example("rc_basic.json");
  // B's QPs start at 0x21, so a rule that matched A's QPN (0x11) would drop nothing.
  j["adapters"][1]["first_qpn"] = "0x21";
  j["links"][0]["faults"]["rules"] = json::parse(
      R"([{"action": "drop", "direction": "a_to_b",
           "match": {"opcode": "RC_SEND_ONLY", "qp": "qpB"}, "nth": 1}])");
  const Outcome o = run(j);
  EXPECT_TRUE(o.result.passed()) << failures(o.result) << o.out;
  // The SEND was dropped once and sent again after the ACK timeout (timeout 14: 67 ms).
  EXPECT_GT(o.result.end_time, 60'000'000u);
  EXPECT_NE(o.out.find("fault: drop A \u2192 B: RC_SEND_ONLY QP=0x21 PSN=104 [rule 0: drop dir=a>b "
                       "opcode=RC_SEND_ONLY qp=0x21 nth=1]"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("(11 frames, 1 fault, 6 completions"), std::string::npos) << o.out;
  // The same rule with A's QP as the destination never fires: its frames go the other way.
  j["links"][0]["faults"]["rules"][0] = json::parse(
      R"({"action": "drop", "direction": "b_to_a", "match": {"class": "ack", "qp": "qpA"},
          "nth": 1})");
  const Outcome ack = run(j);
  EXPECT_TRUE(ack.result.passed()) << failures(ack.result);
  EXPECT_NE(ack.out.find("fault: drop B \u2192 A: RC_ACKNOWLEDGE QP=0x11"), std::string::npos)
      << ack.out;
}

TEST(ScenarioRunner, FaultsOnALinkWhoseNamedQpWasNotCreatedAreNotInstalled) {
  json j = example("rc_basic.json");
  j["links"][0]["faults"]["rules"] = json::parse(R"([{"action": "drop", "match": {"qp": "qpB"}}])");
  j["steps"][7]["cap"] = {{"max_send_wr", 1000000}};  // qpB: create_qp fails
  const Outcome o = run(j);
  EXPECT_TRUE(has_failure(o.result, "links[0].faults.rules[0]",
                          "the link's faults are not installed: QP \"qpB\" does not exist"))
      << failures(o.result);
}

TEST(ScenarioRunner, RandomFaultsAreAPureFunctionOfTheScenario) {
  const json j = vector_file("random_faults.json");
  const Outcome a = run(j), b = run(j);
  EXPECT_TRUE(a.result.passed()) << failures(a.result) << a.out;
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.out, b.out);
  EXPECT_GT(count(a.out, "fault: "), 5u) << a.out;
  // Another fault seed: other frames hit, the same outcome.
  json c = j;
  c["links"][0]["faults"]["seed"] = 8;
  const Outcome o = run(c);
  EXPECT_TRUE(o.result.passed()) << failures(o.result) << o.out;
  EXPECT_NE(o.out, a.out);
}

TEST(ScenarioRunner, SrqExamplePassesWithItsAsyncEvent) {
  const Outcome o = run(example("srq.json"));
  EXPECT_TRUE(o.result.passed()) << failures(o.result) << o.out;
  EXPECT_EQ(count(o.out, "async event: SRQ_LIMIT_REACHED srqB"), 1u) << o.out;
  EXPECT_NE(o.trace.find("\"SRQ_LIMIT_REACHED\""), std::string::npos);
}

TEST(ScenarioRunner, AsyncEventMismatchesAreReported) {
  json j = example("srq.json");
  std::size_t limit_check = SIZE_MAX;
  for (std::size_t i = 0; i < j["steps"].size(); ++i) {
    const json& s = j["steps"][i];
    if (s["op"] == "expect" && s.contains("async_events") && !s["async_events"]["B"].empty())
      limit_check = i;
  }
  ASSERT_NE(limit_check, SIZE_MAX);
  const std::string p = "steps[" + std::to_string(limit_check) + "].async_events";
  json& ev = j["steps"][limit_check]["async_events"];
  ev["B"] = {{{"event", "SRQ_ERR"}, {"srq", "srqB"}}, "QP_FATAL"};
  Outcome o = run(j);
  EXPECT_TRUE(has_failure(o.result, p + ".B[0]", "event: expected SRQ_ERR, got SRQ_LIMIT_REACHED"))
      << failures(o.result);
  EXPECT_TRUE(
      has_failure(o.result, p + ".B[1]", "missing: adapter \"B\" raised 1 asynchronous event"))
      << failures(o.result);
  // An event nobody listed.
  ev["B"] = json::array();
  o = run(j);
  EXPECT_TRUE(has_failure(o.result, p + ".B",
                          "unexpected asynchronous event #0: SRQ_LIMIT_REACHED srqB (1) at"))
      << failures(o.result);
}

TEST(ScenarioRunner, FrameMismatchesAreReportedWithTheFrameThatWasSent) {
  json j = vector_file("go_back_n.json");
  std::size_t first = SIZE_MAX;
  for (std::size_t i = 0; i < j["steps"].size() && first == SIZE_MAX; ++i)
    if (j["steps"][i].contains("frames")) first = i;
  ASSERT_NE(first, SIZE_MAX);
  const std::string p = "steps[" + std::to_string(first) + "].frames";
  json& frames = j["steps"][first]["frames"];
  ASSERT_EQ(frames[4]["aeth"], "NAK_PSN_SEQUENCE_ERROR");
  frames[4]["aeth"] = "ACK";  // the NAK of the lost MIDDLE
  frames[1]["psn"] = 999;
  Outcome o = run(j);
  EXPECT_TRUE(has_failure(o.result, p + "[1]",
                          "psn: expected 999, got 101 (frame 2 since the last check: A sent "
                          "RC_RDMA_WRITE_MIDDLE PSN=101)"))
      << failures(o.result);
  EXPECT_TRUE(has_failure(o.result, p + "[4]", "aeth: expected ACK, got NAK_PSN_SEQUENCE_ERROR"))
      << failures(o.result);
  // One frame too few listed, then one too many.
  j = vector_file("go_back_n.json");
  j["steps"][first]["frames"].erase(8);
  o = run(j);
  EXPECT_TRUE(
      has_failure(o.result, p,
                  "1 more frame than expected from B, the first: B sent RC_ACKNOWLEDGE PSN=103 ACK "
                  "MSN=1"))
      << failures(o.result);
  j = vector_file("go_back_n.json");
  j["steps"][first]["frames"].push_back({{"from", "B"}, {"opcode", "RC_ACKNOWLEDGE"}});
  o = run(j);
  EXPECT_TRUE(has_failure(o.result, p + "[9]",
                          "missing: B sent 2 frames of this stream since the last \"frames\" "
                          "check"))
      << failures(o.result);
  // The next check starts after the frames the previous one covered: the READ's frames pass.
  EXPECT_EQ(o.result.failures.size(), 1u) << failures(o.result);
  // Streams (a sender's frames to one QP) are matched apart: their interleaving is timing. An
  // optional frame the stream does not show is skipped; a frame of no expected stream is named.
  j = vector_file("go_back_n.json");
  json& f = j["steps"][first]["frames"];
  std::size_t b0 = SIZE_MAX, a1 = SIZE_MAX;  // B's first frame, A's frame after it
  for (std::size_t i = 0; i < f.size() && a1 == SIZE_MAX; ++i) {
    if (b0 == SIZE_MAX && f[i]["from"] == "B") b0 = i;
    if (b0 != SIZE_MAX && i > b0 && f[i]["from"] == "A") a1 = i;
  }
  ASSERT_NE(a1, SIZE_MAX);
  std::swap(f[b0], f[a1]);
  f.push_back({{"from", "B"}, {"opcode", "RC_ACKNOWLEDGE"}, {"optional", true}});
  o = run(j);
  EXPECT_TRUE(o.result.passed()) << failures(o.result);
}

TEST(ScenarioRunner, EveryVectorAndExamplePasses) {
  int n = 0;
  for (const char* dir : {"examples", "vectors/scenarios"}) {
    for (const auto& e : std::filesystem::directory_iterator(source(dir))) {
      if (e.path().extension() != ".json") continue;
      ++n;
      std::ifstream in(e.path());
      const Outcome o = run(json::parse(in));
      EXPECT_TRUE(o.result.passed()) << e.path() << "\n" << failures(o.result) << o.out;
    }
  }
  EXPECT_GE(n, 9);
}

// An inject step puts its frame on the link as if `from` had sent it: the receiver judges it
// like any frame (here: dropped for its ICRC, for its length, or taken), observers see it as an
// injection, and it is not one of the sender's frames in "frames" expectations.
TEST(ScenarioRunner, InjectedFramesReachThePeerAndAreNotTheSendersFrames) {
  std::ifstream in(source("vectors/errors/rc-pkt-malformed-rxe-00.json"));
  const json base = json::parse(in)["scenario"];
  const std::size_t k = step_index(base, "inject");
  ASSERT_NE(k, SIZE_MAX);
  const auto with_frame = [&](json frame) {
    json j = base;
    j["steps"][k]["frame"] = std::move(frame);
    return j;
  };
  const json payload = {{"fill", 1}, {"length", 64}};

  Outcome o = run(
      with_frame({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"icrc", "bad"}, {"payload", payload}}));
  EXPECT_TRUE(o.result.passed()) << failures(o.result);
  EXPECT_NE(o.trace.find(R"("reason":"icrc","class":"PKT_ICRC_ERROR")"), std::string::npos)
      << o.trace;
  EXPECT_NE(o.out.find("inject: A \u2192 B: RC_SEND_ONLY QP=0x11 PSN=0 (122 bytes)"),
            std::string::npos)
      << o.out;

  o = run(
      with_frame({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"truncate", 40}, {"payload", payload}}));
  EXPECT_TRUE(o.result.passed()) << failures(o.result);
  EXPECT_NE(o.trace.find(R"("reason":"malformed","class":"PKT_MALFORMED")"), std::string::npos)
      << o.trace;

  // By number, with "to": the same QP.
  json j = with_frame({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"tver", 1}, {"payload", payload}});
  j["steps"][k]["qp"] = 0x11;
  j["steps"][k]["to"] = "B";
  o = run(j);
  EXPECT_TRUE(o.result.passed()) << failures(o.result);
  EXPECT_NE(o.trace.find(R"("reason":"tver")"), std::string::npos) << o.trace;

  // A well-formed SEND at B's expected PSN is taken: B's receive completes with it, and A's own
  // SEND at the same PSN is then a duplicate. The vector's expectations no longer hold.
  o = run(
      with_frame({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"ackreq", true}, {"payload", payload}}));
  EXPECT_FALSE(o.result.passed());
  EXPECT_EQ(o.trace.find(R"("reason":"tver")"), std::string::npos) << o.trace;

  // Observers see the injection; "frames" expectations do not count it as A's.
  class Injections final : public trace::Observer {
   public:
    void on_inject(const trace::FrameEvent& e) override {
      ++count;
      size = e.bytes.size();
      adapter = e.adapter;
    }
    int count = 0;
    std::size_t size = 0;
    std::uint32_t adapter = 99;
  } seen;
  j = with_frame({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"tver", 1}, {"payload", payload}});
  j["steps"].insert(j["steps"].begin() + static_cast<std::ptrdiff_t>(k) + 1,
                    json{{"op", "expect"}, {"frames", json::array()}});
  RunOptions opt;
  opt.observers.push_back(&seen);
  const RunResult r = run_scenario(parse_scenario(j.dump(), "s.json"), opt);
  EXPECT_TRUE(r.passed()) << failures(r);
  EXPECT_EQ(seen.count, 1);
  EXPECT_EQ(seen.size, 122u);
  EXPECT_EQ(seen.adapter, 0u);
}

// A work request that names a memory window takes the window's current rkey: a BIND_MW gives
// the window a new key (rxe_do_bind_mw, docs/spec-notes.md §7.4), and a SEND_WITH_INV naming
// the window after the bind must invalidate it under that key, not the one it had when it was
// allocated (the responder would fail the invalidation, REM_INV_REQ_ERR, and its QP with it).
TEST(ScenarioRunner, MemoryWindowNamedAfterABindTakesItsNewKey) {
  json j = example("rc_basic.json");
  for (json& st : j["steps"])
    if (st["op"] == "reg_mr" && st["as"] == "mrB") st["access"].push_back("MW_BIND");
  const std::size_t at = step_index(j, "post_recv");
  ASSERT_NE(at, SIZE_MAX);
  const json bind = json::parse(R"([
    {"op": "alloc_mw", "pd": "pdB", "as": "mwB", "type": 2},
    {"op": "post_send", "qp": "qpB",
     "wr": {"wr_id": 77, "opcode": "BIND_MW", "send_flags": ["SIGNALED"],
            "bind": {"mw": "mwB", "mr": "mrB", "offset": 0, "length": 4096,
                     "access": ["REMOTE_WRITE"]}}},
    {"op": "run"}])");
  j["steps"].insert(j["steps"].begin() + static_cast<std::ptrdiff_t>(at), bind.begin(), bind.end());
  for (json& st : j["steps"])
    if (st["op"] == "post_send" && st["wr"]["wr_id"] == 5) {
      st["wr"]["opcode"] = "SEND_WITH_INV";
      st["wr"]["invalidate_rkey"] = "mwB";
    }
  j["steps"].erase(j["steps"].end() - 1);  // rc_basic's own expectations
  const Outcome o = run(j);
  EXPECT_TRUE(o.result.passed()) << failures(o.result);
  bool received = false;
  for (const PolledCompletion& c : o.result.completions) {
    EXPECT_EQ(c.wc.status, cq::WcStatus::SUCCESS) << "wr_id " << c.wc.wr_id << "\n" << o.out;
    if (c.wc.wr_id == 100) received = (c.wc.wc_flags & cq::kWcWithInv) != 0;
  }
  EXPECT_TRUE(received) << o.out;
}
