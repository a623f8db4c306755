// `rocecert simulate` on the golden model, end to end: the example passes, its pcap decodes
// cleanly with `rocecert decode --strict` and with tshark, its trace is JSON lines, and the same
// seed gives byte-identical files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "simulate_cli_support.h"

using namespace simulate_cli;
using nlohmann::json;

namespace {

struct Artifacts {
  CliRun run;
  std::string pcap;
  std::string trace;
};

Artifacts simulate(const std::string& scenario, const std::string& tag,
                   const std::string& extra = "") {
  const std::string pcap = temp_path(tag + ".pcap"), trace = temp_path(tag + ".jsonl");
  Artifacts a;
  a.run = run_cli("simulate " + scenario + " --pcap " + pcap + " --trace " + trace + " " + extra);
  a.pcap = slurp(pcap);
  a.trace = slurp(trace);
  std::filesystem::remove(pcap);
  std::filesystem::remove(trace);
  return a;
}

bool have_tshark() {
  return std::system("tshark --version > /dev/null 2>&1") == 0;
}

}  // namespace

TEST(CliSimulateRun, RcBasicPassesAndItsPcapDecodesStrictly) {
  const std::string pcap = temp_path("rc.pcap"), trace = temp_path("rc.jsonl");
  const CliRun r = run_cli("simulate " + source("examples/rc_basic.json") + " --pcap " + pcap +
                           " --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  const auto out = lines(r.out);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(
      out.back().rfind("PASS " + source("examples/rc_basic.json") + ": 13 expectations met", 0), 0u)
      << out.back();
  // The completion table: header plus six rows.
  int rows = 0;
  for (const auto& l : out) rows += l.find("SUCCESS") != std::string::npos ? 1 : 0;
  EXPECT_EQ(rows, 6);

  // The capture: every frame decodes, every ICRC is right, in our decoder...
  const CliRun d = run_cli("decode --strict --json " + pcap);
  EXPECT_EQ(d.exit_code, 0) << d.out << d.err;
  const auto frames = lines(d.out);
  EXPECT_EQ(frames.size(), 10u);  // 5 requests, 2 ACKs, a READ response, 2 atomic ACKs
  std::set<std::string> opcodes;
  for (const auto& l : frames) {
    const json j = json::parse(l);
    EXPECT_TRUE(j.at("icrc_ok").get<bool>()) << l;
    EXPECT_FALSE(j.contains("error")) << l;
    opcodes.insert(j.at("bth").at("opcode_name").get<std::string>());
  }
  for (const char* op :
       {"RC_RDMA_WRITE_ONLY", "RC_RDMA_READ_REQUEST", "RC_FETCH_ADD", "RC_COMPARE_SWAP",
        "RC_SEND_ONLY", "RC_ACKNOWLEDGE", "RC_RDMA_READ_RESPONSE_ONLY", "RC_ATOMIC_ACKNOWLEDGE"})
    EXPECT_EQ(opcodes.count(op), 1u) << op;

  // ...and in tshark, which reads the same number of frames as RoCEv2 (RRoCE) without complaint.
  if (have_tshark()) {
    const std::string cmd =
        "tshark -n -r '" + pcap + "' -T fields -e frame.protocols -e _ws.malformed 2>&1";
    std::FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string text;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) text += buf;
    EXPECT_EQ(pclose(p), 0) << text;
    int roce = 0;
    for (const auto& l : lines(text)) {
      if (l.find("Running as user") != std::string::npos) continue;
      EXPECT_NE(l.find("infiniband"), std::string::npos) << l;
      EXPECT_EQ(l.find("malformed"), std::string::npos) << l;
      ++roce;
    }
    EXPECT_EQ(roce, 10) << text;
  } else {
    ADD_FAILURE() << "tshark is part of the test dependencies (scripts/install-deps.sh)";
  }

  // The trace: one JSON object per line, with time and event kind.
  const auto events = lines(slurp(trace));
  ASSERT_FALSE(events.empty());
  int tx = 0, cqes = 0;
  for (const auto& l : events) {
    const json j = json::parse(l);
    ASSERT_TRUE(j.is_object());
    EXPECT_TRUE(j.at("t").is_number_integer());
    const std::string ev = j.at("ev").get<std::string>();
    tx += ev == "frame" && j.at("dir") == "tx" ? 1 : 0;
    cqes += ev == "cqe" ? 1 : 0;
  }
  EXPECT_EQ(tx, 10);
  EXPECT_EQ(cqes, 6);
  std::filesystem::remove(pcap);
  std::filesystem::remove(trace);
}

TEST(CliSimulateRun, SameSeedGivesByteIdenticalPcapAndTrace) {
  const std::string s = source("examples/rc_basic.json");
  const Artifacts a = simulate(s, "a"), b = simulate(s, "b");
  ASSERT_EQ(a.run.exit_code, 0) << a.run.out << a.run.err;
  ASSERT_EQ(b.run.exit_code, 0);
  EXPECT_GT(a.pcap.size(), 24u);
  EXPECT_EQ(a.pcap, b.pcap);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.run.out, b.run.out);
  // --seed overrides the scenario's seed: other key bytes, so other frame bytes.
  const Artifacts c = simulate(s, "c", "--seed 7"), d = simulate(s, "d", "--seed 7");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.out;
  EXPECT_EQ(c.pcap, d.pcap);
  EXPECT_NE(a.pcap, c.pcap);
  EXPECT_NE(c.run.out.find("seed 7"), std::string::npos) << c.run.out;
}

TEST(CliSimulateRun, EveryExampleAndVectorPasses) {
  int n = 0;
  for (const char* dir : {"examples", "vectors/scenarios"}) {
    for (const auto& e : std::filesystem::directory_iterator(source(dir))) {
      if (e.path().extension() != ".json") continue;
      ++n;
      const Artifacts a = simulate(e.path().string(), "ex");
      EXPECT_EQ(a.run.exit_code, 0) << e.path() << "\n" << a.run.out << a.run.err;
      EXPECT_EQ(a.run.err, "") << e.path();
      EXPECT_NE(lines(a.run.out).back().find("PASS " + e.path().string() + ": "), std::string::npos)
          << a.run.out;
      // Every frame the adapters sent, the dropped ones included, is well formed.
      const std::string pcap = temp_path("ex2.pcap");
      std::ofstream(pcap, std::ios::binary) << a.pcap;
      EXPECT_EQ(run_cli("decode --strict " + pcap).exit_code, 0) << e.path();
      std::filesystem::remove(pcap);
    }
  }
  EXPECT_GE(n, 9);
}

// The issue-4 vectors show what they claim in their output: the faults that fire and the
// completions the recovery (or the failure) leaves.
TEST(CliSimulateRun, FaultVectorsPrintTheirFaultsAndOutcome) {
  const CliRun gbn = run_cli("simulate " + source("vectors/scenarios/go_back_n.json"));
  ASSERT_EQ(gbn.exit_code, 0) << gbn.out;
  EXPECT_NE(gbn.out.find("fault: drop A \u2192 B: RC_RDMA_WRITE_MIDDLE QP=0x21 PSN=101 [rule 0: "
                         "drop dir=a>b opcode=RC_RDMA_WRITE_MIDDLE qp=0x21 nth=1]"),
            std::string::npos)
      << gbn.out;
  EXPECT_NE(gbn.out.find("(18 frames, 2 faults, 2 completions"), std::string::npos) << gbn.out;

  const CliRun re = run_cli("simulate " + source("vectors/scenarios/retry_exhausted.json"));
  ASSERT_EQ(re.exit_code, 0) << re.out;
  // Three tries of four requests, 1.05 ms apart, then the error and the flushes.
  EXPECT_NE(re.out.find("12 faults"), std::string::npos) << re.out;
  EXPECT_NE(re.out.find("     3145728  A        cqA               1  RETRY_EXC_ERR"),
            std::string::npos)
      << re.out;

  const CliRun rnr = run_cli("simulate " + source("vectors/scenarios/rnr_retry.json"));
  ASSERT_EQ(rnr.exit_code, 0) << rnr.out;
  EXPECT_NE(rnr.out.find("RNR_RETRY_EXC_ERR"), std::string::npos) << rnr.out;
}

TEST(CliSimulateRun, FaultScenarioIsByteIdenticalAcrossRuns) {
  const std::string s = source("vectors/scenarios/random_faults.json");
  const Artifacts a = simulate(s, "fa"), b = simulate(s, "fb");
  ASSERT_EQ(a.run.exit_code, 0) << a.run.out << a.run.err;
  ASSERT_EQ(b.run.exit_code, 0);
  EXPECT_GT(a.pcap.size(), 24u);
  EXPECT_EQ(a.pcap, b.pcap);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.run.out, b.run.out);
  // The trace names every fault with the rule or probability that fired.
  int faults = 0;
  for (const auto& l : lines(a.trace)) {
    const json j = json::parse(l);
    if (j.at("ev") != "fault") continue;
    ++faults;
    EXPECT_EQ(j.at("rule").get<std::string>().rfind("random p=0.0", 0), 0u) << l;
  }
  EXPECT_GT(faults, 5);
  // --seed changes the adapters' key bytes, not the link's fault seed: the scenario still passes.
  const Artifacts c = simulate(s, "fc", "--seed 3");
  EXPECT_EQ(c.run.exit_code, 0) << c.run.out;
  EXPECT_NE(a.pcap, c.pcap);
}

TEST(CliSimulateRun, FailedExpectationsExitOneAndQuietKeepsOnlyTheVerdict) {
  json j;
  {
    std::ifstream in(source("examples/rc_basic.json"));
    j = json::parse(in);
  }
  j["steps"].back()["qp_state"]["qpB"] = "SQD";
  j["steps"].back()["memory"][0]["counter"] = 1;
  const std::string f = temp_path("fail.json");
  std::ofstream(f) << j.dump(2);
  const CliRun r = run_cli("simulate --quiet " + f);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  EXPECT_EQ(out[0].rfind("FAIL steps[21].memory[0]: bytes differ from offset 0", 0), 0u) << out[0];
  EXPECT_EQ(out[1], "FAIL steps[21].qp_state.qpB: expected SQD, got RTS");
  EXPECT_EQ(out[2].rfind("FAIL " + f + ": 2 failures, 13 expectations checked", 0), 0u) << out[2];
  std::filesystem::remove(f);
}

TEST(CliSimulateRun, UnwritableOutputsExitTwo) {
  CliRun r =
      run_cli("simulate " + source("examples/rc_basic.json") + " --pcap /nonexistent/x.pcap");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/x.pcap"), std::string::npos) << r.err;
  r = run_cli("simulate " + source("examples/rc_basic.json") + " --trace /nonexistent/x.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "rocecert simulate: /nonexistent/x.jsonl: cannot create the trace file: No such file "
            "or directory\n");
}
