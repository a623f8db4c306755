// The device-under-test plugin path (docs/dut.md): the golden model re-wrapped as a plugin
// (examples/dut) must pass the whole committed set as each adapter in turn, exactly as the model
// does when it is called directly; a plugin with a fault must FAIL with the difference named;
// a plugin lacking a capability or a function makes vectors UNSUPPORTED, never FAIL.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../support/command.h"
#include "../support/require_tool.h"
#include "rocecert/conformance/dut_plugin.h"
#include "rocecert/vectors/vectors.h"

namespace rocecert::testing {
namespace {

namespace fs = std::filesystem;
namespace vec = rocecert::vectors;
using conformance::DutError;
using conformance::DutPlugin;

const std::string kSet = std::string(ROCECERT_SOURCE_DIR) + "/vectors";
const std::string kModelDut = std::string("lib:") + ROCECERT_MODEL_DUT;
const std::string kWireOnlyDut = std::string("lib:") + ROCECERT_WIRE_ONLY_DUT;

const DutPlugin& model_dut() {
  static const std::unique_ptr<DutPlugin> p = DutPlugin::load(kModelDut);
  return *p;
}

// One test for the whole set (loading it is most of the cost, under ASan above all); a failure
// names the vector and the adapter.
TEST(DutPlugin, TheWholeSetPassesAsOnTheModelAsEachAdapter) {
  std::size_t runs = 0;
  for (const std::string& path : vec::find(kSet)) {
    const vec::Loaded v = vec::load(path);
    for (const char* as : {"A", "B"}) {
      const vec::Result r = vec::run_dut(v, model_dut(), as);
      ++runs;
      EXPECT_EQ(r.verdict, vec::Verdict::PASS) << v.vector.id << " as " << as;
      for (const std::string& d : r.differences) ADD_FAILURE() << v.vector.id << ": " << d;
      EXPECT_GT(r.checks, 0u) << v.vector.id;
    }
  }
  EXPECT_GT(runs, 200u);
}

// Wire-only: the model keeps the traffic going, the plugin gets the same frames and verbs with
// the model's numbers imposed, and its frames must be the model's, as A and as B.
TEST(DutPlugin, WireOnlyTheWholeSetPasses) {
  for (const std::string& path : vec::find(kSet)) {
    const vec::Loaded v = vec::load(path);
    for (const char* as : {"A", "B"}) {
      const vec::Result r = vec::run_dut(v, model_dut(), as, true);
      EXPECT_EQ(r.verdict, vec::Verdict::PASS) << v.vector.id << " as " << as;
      for (const std::string& d : r.differences) ADD_FAILURE() << v.vector.id << ": " << d;
    }
  }
}

TEST(DutPlugin, WireOnlyNamesTheFirstFrameThatDiffers) {
  const std::unique_ptr<DutPlugin> faulty = DutPlugin::load(kModelDut + ",drop_acks");
  const vec::Result r =
      vec::run_dut(vec::load(kSet + "/opcodes/rc-rdma-write-3mtu-00.json"), *faulty, "B", true);
  EXPECT_EQ(r.verdict, vec::Verdict::FAIL);
  ASSERT_FALSE(r.differences.empty());
  // The responder's one ACK is missing; the stimulus went on as the vector's.
  EXPECT_NE(r.differences.front().find("the first missing: B sent RC_ACKNOWLEDGE"),
            std::string::npos)
      << r.differences.front();
}

// A responder that coalesces its ACKs (IBA Vol. 1 §9.7.5.1.1) passes every vector that does not
// ask for ACK_EVERY_ACKREQ, as B, judged whole or on its frames alone; the streams of a frames
// expectation may interleave and an ACK a later acknowledgement covers may be absent.
TEST(DutPlugin, ACoalescingResponderPassesWhatDoesNotAskForPromptAcks) {
  const std::unique_ptr<DutPlugin> coalescing = DutPlugin::load(kModelDut + ",coalesce_acks");
  std::size_t runs = 0, asking = 0;
  for (const std::string& path : vec::find(kSet)) {
    const vec::Loaded v = vec::load(path);
    const auto& caps = v.vector.capabilities;
    if (std::find(caps.begin(), caps.end(), "ACK_EVERY_ACKREQ") != caps.end()) {
      ++asking;
      continue;
    }
    for (const bool wire_only : {false, true}) {
      const vec::Result r = vec::run_dut(v, *coalescing, "B", wire_only);
      ++runs;
      EXPECT_EQ(r.verdict, vec::Verdict::PASS) << v.vector.id << (wire_only ? " wire-only" : "");
      for (const std::string& d : r.differences) ADD_FAILURE() << v.vector.id << ": " << d;
    }
  }
  EXPECT_GT(runs, 200u);
  EXPECT_LT(asking, 10u);  // the tag stays the exception
}

// A requester that asks for an ACK on every packet (its own choice) passes the whole set as A:
// AckReq is checked on the last packet of a message only, and the model peer's extra ACKs, its
// reactions, are not the device's frames.
TEST(DutPlugin, ARequesterWithItsOwnAckReqCadencePasses) {
  const std::unique_ptr<DutPlugin> eager = DutPlugin::load(kModelDut + ",ackreq_every_packet");
  for (const std::string& path : vec::find(kSet)) {
    const vec::Loaded v = vec::load(path);
    for (const bool wire_only : {false, true}) {
      const vec::Result r = vec::run_dut(v, *eager, "A", wire_only);
      EXPECT_EQ(r.verdict, vec::Verdict::PASS) << v.vector.id << (wire_only ? " wire-only" : "");
      for (const std::string& d : r.differences) ADD_FAILURE() << v.vector.id << ": " << d;
    }
  }
}

// A device that never acknowledges: the vector fails, and the first difference names the frame.
TEST(DutPlugin, AFaultyDeviceFailsWithTheFirstDifference) {
  const std::unique_ptr<DutPlugin> faulty = DutPlugin::load(kModelDut + ",drop_acks");
  EXPECT_EQ(faulty->args(), "drop_acks");
  const vec::Result r =
      vec::run_dut(vec::load(kSet + "/opcodes/rc-send-1pkt-00.json"), *faulty, "B");
  EXPECT_EQ(r.verdict, vec::Verdict::FAIL);
  ASSERT_FALSE(r.differences.empty());
  std::string all;
  for (const std::string& d : r.differences) all += d + "\n";
  EXPECT_NE(all.find("frames[1]: missing: B sent 0 frames of this stream"), std::string::npos)
      << all;
  // The same device as the requester side sends its requests correctly: only the responder's
  // ACKs are missing, so as A (which acknowledges nothing in this vector) it passes.
  const vec::Result as_a =
      vec::run_dut(vec::load(kSet + "/opcodes/rc-send-1pkt-00.json"), *faulty, "A");
  EXPECT_EQ(as_a.verdict, vec::Verdict::PASS);
}

// The bug vectors (vectors/bugs, docs/bug-classes.md) against devices with the bugs: the model
// plugin with one fault of a real device each. Every fault fails the vector written for its bug,
// with the difference that shows the bug, and no other bug vector: the vectors tell the bugs
// apart. The same vectors pass on the plugin without a fault (the tests above).
TEST(DutPlugin, EachBugVectorFailsOnADeviceWithItsBug) {
  struct Case {
    const char* fault;
    const char* as;
    const char* vector;                  // the vector of the fault's bug
    const char* difference;              // a part of that vector's differences
    std::set<std::string> also_failing;  // other bug vectors that must fail, no more
  };
  const Case cases[] = {
      {"keep_mr_on_dereg",
       "B",
       "bugs/stale-rkey-after-dereg-00",
       "aeth: expected NAK_REMOTE_ACCESS_ERROR, got ACK",
       {}},
      // The flushes of the send queue include the unsignaled ones.
      {"no_sq_flush",
       "A",
       "bugs/sq-flushed-in-err-00",
       "wr_id: expected 1, got 200",
       {"bugs/flush-completions-not-dropped-00"}},
      {"drop_unsignaled_flushes",
       "A",
       "bugs/flush-completions-not-dropped-00",
       "wr_id: expected 1, got 3",
       {}},
      {"no_error_wc_unsignaled",
       "A",
       "bugs/invalid-lkey-error-completion-rxe-00",
       "missing: CQ \"cqA\" had 0 completions",
       {"bugs/invalid-lkey-error-completion-iba-00"}},
      {"accept_recv_in_reset",
       "B",
       "bugs/post-recv-in-reset-00",
       "post_recv: expected INVALID_STATE (EINVAL), got success",
       {}},
      {"keep_sq_psn",
       "A",
       "bugs/psn-not-kept-across-reconnect-00",
       "psn: expected 5000, got 1",
       {}},
      {"rnr_timer_zero_at_once",
       "A",
       "bugs/min-rnr-timer-zero-00",
       "more frames than expected from A, the first: A sent RC_SEND_ONLY PSN=0",
       {}},
      {"no_empty_read_response",
       "B",
       "bugs/zero-length-read-00",
       "missing: B sent 0 frames of this stream",
       {}},
  };
  std::vector<vec::Loaded> bugs;
  for (const std::string& path : vec::find(kSet + "/bugs")) bugs.push_back(vec::load(path));
  ASSERT_EQ(bugs.size(), 9u);
  std::set<std::string> covered;
  for (const Case& c : cases) {
    const std::unique_ptr<DutPlugin> faulty = DutPlugin::load(kModelDut + "," + c.fault);
    std::set<std::string> expected = c.also_failing, failing;
    expected.insert(c.vector);
    for (const vec::Loaded& v : bugs) {
      const vec::Result r = vec::run_dut(v, *faulty, c.as);
      if (r.verdict == vec::Verdict::PASS) continue;
      EXPECT_EQ(r.verdict, vec::Verdict::FAIL) << c.fault << ": " << v.vector.id;
      failing.insert(v.vector.id);
      if (v.vector.id != c.vector) continue;
      std::string all;
      for (const std::string& d : r.differences) all += d + "\n";
      EXPECT_NE(all.find(c.difference), std::string::npos) << c.fault << ": " << all;
    }
    EXPECT_EQ(failing, expected) << c.fault << " as " << c.as;
    covered.insert(expected.begin(), expected.end());
  }
  EXPECT_EQ(covered.size(), bugs.size()) << "a bug vector no fault fails";
}

TEST(DutPlugin, AnUnknownPluginArgumentIsRefused) {
  const std::unique_ptr<DutPlugin> p = DutPlugin::load(kModelDut + ",keep_mr_on_dereg,no_such_bug");
  try {
    vec::run_dut(vec::load(kSet + "/opcodes/rc-send-1pkt-00.json"), *p, "B");
    ADD_FAILURE() << "ran";
  } catch (const DutError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown argument 'no_such_bug' (known: coalesce_acks"),
              std::string::npos)
        << e.what();
  }
}

TEST(DutPlugin, MissingCapabilityOrFunctionIsUnsupported) {
  const std::unique_ptr<DutPlugin> p = DutPlugin::load(kWireOnlyDut);
  EXPECT_TRUE(p->lists_capabilities());
  EXPECT_EQ(p->capabilities().count("RC"), 1u);
  vec::Result r = vec::run_dut(vec::load(kSet + "/opcodes/uc-send-1pkt-00.json"), *p, "A");
  EXPECT_EQ(r.verdict, vec::Verdict::UNSUPPORTED);
  ASSERT_FALSE(r.differences.empty());
  EXPECT_NE(r.differences.front().find("does not offer UC"), std::string::npos);
  r = vec::run_dut(vec::load(kSet + "/opcodes/rc-send-1pkt-00.json"), *p, "A");
  EXPECT_EQ(r.verdict, vec::Verdict::UNSUPPORTED);
  ASSERT_FALSE(r.differences.empty());
  EXPECT_NE(r.differences.front().find("rocecert_dut_alloc_pd"), std::string::npos)
      << r.differences.front();
  r = vec::run_dut(vec::load(kSet + "/opcodes/rc-send-1pkt-00.json"), *p, "C");
  EXPECT_EQ(r.verdict, vec::Verdict::UNSUPPORTED);
}

TEST(DutPlugin, UnusablePluginsAreNamed) {
  try {
    DutPlugin::load("lib:/nonexistent/plugin.so");
    ADD_FAILURE() << "loaded";
  } catch (const DutError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/plugin.so: cannot load"), std::string::npos)
        << e.what();
  }
  try {
    DutPlugin::load("verbs:mlx5_0");
    ADD_FAILURE() << "loaded";
  } catch (const DutError& e) {
    EXPECT_NE(std::string(e.what()).find("lib:PATH.so"), std::string::npos) << e.what();
  }
  // A shared object that is not a plugin (no rocecert_dut_* functions).
  try {
    DutPlugin::load("lib:libz.so.1");
    ADD_FAILURE() << "loaded";
  } catch (const DutError& e) {
    const std::string w = e.what();
    EXPECT_TRUE(w.find("does not export rocecert_dut_abi_version") != std::string::npos ||
                w.find("cannot load") != std::string::npos)
        << w;
  }
}

// Whether the ASan runtime is in this process: asked of the dynamic linker, so that a GCC and a
// clang build answer alike.
bool built_with_asan() {
  return dlsym(RTLD_DEFAULT, "__asan_init") != nullptr;
}

// examples/dut/run_vector.py: Python with the standard library only drives the plugin through the
// C ABI and runs vectors end to end (both adapters on the plugin); a changed expectation fails.
TEST(DutPlugin, PythonCtypesExampleRunsVectors) {
  if (built_with_asan())
    GTEST_SKIP() << "the plugin is built with ASan and python3 is not; the release build runs this";
  const std::string python = "/usr/bin/python3";
  ROCECERT_REQUIRE_TOOL(command_succeeds(python + " -c 'import ctypes'"), "python3");
  const std::string script = std::string(ROCECERT_SOURCE_DIR) + "/examples/dut/run_vector.py";
  const std::string run = python + " " + script + " " + ROCECERT_MODEL_DUT + " ";
  for (const char* v :
       {"opcodes/rc-send-3mtu-00", "opcodes/rc-rdma-read-1pkt-00", "opcodes/ud-send-1pkt-00",
        "bugs/stale-rkey-after-dereg-00", "reliability/ack-timeout-00",
        "errors/rc-resp-rkey-violation-rxe-00",
        // inject steps: frames built by the script's own encoder
        "errors/rc-resp-opcode-sequence-iba-00", "errors/rc-req-local-length-rxe-00"}) {
    const std::string path = kSet + "/" + v + ".json";
    if (!fs::exists(path)) {
      ADD_FAILURE() << path << " is not in the set any more: pick another";
      continue;
    }
    const CommandResult r = run_command(run + path);
    EXPECT_EQ(r.exit_code, 0) << v << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.rfind("PASS ", 0), 0u) << r.out;
  }
  std::string text = slurp(kSet + "/opcodes/rc-send-3mtu-00.json");
  const auto middle = text.find("\"opcode\": \"RC_SEND_MIDDLE\",");
  ASSERT_NE(middle, std::string::npos);
  const auto at = text.find("\"psn\": 101", middle);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"psn\": 101").size(), "\"psn\": 999");
  const std::string changed = temp_path("vdut", "changed.json");
  std::ofstream(changed, std::ios::binary) << text;
  const CommandResult r = run_command(run + changed);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("psn: expected 999, got 101"), std::string::npos) << r.out;
  fs::remove(changed);
}

// What a user types in CI, with the plugin as the device.
TEST(DutPlugin, CommandLine) {
  const std::string xml = temp_path("vdut", "out.xml");
  CommandResult r = run_command(std::string(ROCECERT_CLI) + " vectors run " + kSet +
                                " --quiet --dut " + kModelDut + " --dut-as B --junit " + xml);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" PASS, 0 FAIL, 0 UNSUPPORTED (DUT: "), std::string::npos) << r.out;
  EXPECT_NE(slurp(xml).find("failures=\"0\""), std::string::npos);
  fs::remove(xml);
  // Both roles in one run: each result named with its role, in the JUnit report too.
  const std::string both = temp_path("vdut", "both.xml");
  r = run_command(std::string(ROCECERT_CLI) + " vectors run " + kSet +
                  " --filter opcodes/rc-send --quiet --dut " + kModelDut +
                  " --dut-as A,B --junit " + both);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" runs: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("as adapter A, B)"), std::string::npos) << r.out;
  const std::string x = slurp(both);
  EXPECT_NE(x.find("name=\"opcodes/rc-send-1pkt-00 (as A)\""), std::string::npos) << x;
  EXPECT_NE(x.find("name=\"opcodes/rc-send-1pkt-00 (as B)\""), std::string::npos) << x;
  fs::remove(both);
  r = run_command(std::string(ROCECERT_CLI) + " vectors run " + kSet + " --dut " + kWireOnlyDut);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // UNSUPPORTED is not a failure
  EXPECT_NE(r.out.find("UNSUPPORTED opcodes/uc-send-1pkt-00"), std::string::npos) << r.out;
  r = run_command(std::string(ROCECERT_CLI) + " vectors run " + kSet + " --dut lib:/no/such.so");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/no/such.so: cannot load the plugin"), std::string::npos) << r.err;
}

// --profile: a FAIL the device's profile explains is a DEVIATION, named with the explanation;
// one it does not explain, or explains only in part, stays a FAIL.
TEST(DutPlugin, AProfileTurnsTheFailuresItExplainsIntoDeviations) {
  const std::string profile = temp_path("vdut", "acks.json");
  {
    std::ofstream out(profile);
    out << R"({"name": "no-acks", "vector_deviations": [{"vectors": ["opcodes/rc-send-*"],
      "differences": ["*missing: B sent 0 frames of this stream*", "*cqA*: missing: *"],
      "cause": "acks_dropped",
      "justification": "this device never acknowledges", "reference": "its manual"}]})";
  }
  const std::string cmd = std::string(ROCECERT_CLI) + " vectors run " + kSet +
                          "/opcodes/rc-send-1pkt-00.json --dut " + kModelDut +
                          ",drop_acks --dut-as B";
  CommandResult r = run_command(cmd);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  r = run_command(cmd + " --profile " + profile);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("DEVIATION   opcodes/rc-send-1pkt-00\n            declared by the "
                       "profile: acks_dropped: this device never acknowledges (its manual)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0 PASS, 0 FAIL, 0 UNSUPPORTED, 1 DEVIATION"), std::string::npos) << r.out;
  // Another vector, or another difference, is not covered.
  r = run_command(std::string(ROCECERT_CLI) + " vectors run " + kSet +
                  "/opcodes/rc-rdma-write-1pkt-00.json --dut " + kModelDut +
                  ",drop_acks --dut-as B --profile " + profile);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // A vector of the other error profile than the profile's model: its twin judges the class.
  r = run_command(std::string(ROCECERT_CLI) + " vectors run " + kSet +
                  "/errors/rc-resp-rkey-violation-iba-00.json --dut " + kModelDut +
                  ",drop_acks --dut-as B --profile rxe");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("declared by the profile: error_profile: the vector expects the iba error "
                       "profile, profile rxe follows rxe's"),
            std::string::npos)
      << r.out;
  r = run_command(std::string(ROCECERT_CLI) + " vectors run " + kSet +
                  "/errors/rc-resp-rkey-violation-rxe-00.json --dut " + kModelDut +
                  ",drop_acks --dut-as B --profile rxe");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // Unusable profiles and a profile without a device stop the run.
  r = run_command(cmd + " --profile /no/such.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--profile: /no/such.json: no such profile"), std::string::npos) << r.err;
  r = run_command(std::string(ROCECERT_CLI) + " vectors run " + kSet +
                  "/opcodes/rc-send-1pkt-00.json --profile rxe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--profile reads a device's results"), std::string::npos) << r.err;
  fs::remove(profile);
}

}  // namespace
}  // namespace rocecert::testing
