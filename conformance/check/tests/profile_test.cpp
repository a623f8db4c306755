// Profiles (docs/profiles.md): parsing with located errors, covers(), the built-in profiles and
// load_profile() by name or path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "command.h"
#include "rocecert/check/profile.h"

namespace rocecert::check {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_profile(text, "dut.json");
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "";
}

TEST(Profile, ParsesEveryKey) {
  const Profile p = parse_profile(R"({"name": "dut", "description": "a NIC",
    "max_capture_errors": 3, "fatal_nak_grace_ns": 5, "timing_tolerance_ns": 7,
    "deviations": [
      {"rule": "read.opcode", "cause": "resumed_mid_read", "justification": "j", "reference": "r"},
      {"rule": "ack.msn", "cause": "*", "justification": "j2", "reference": "r2"}]})",
                                  "dut.json");
  EXPECT_EQ(p.name, "dut");
  EXPECT_EQ(p.description, "a NIC");
  EXPECT_EQ(p.max_capture_errors, 3u);
  EXPECT_EQ(p.fatal_nak_grace_ns, 5u);
  EXPECT_EQ(p.timing_tolerance_ns, 7u);
  ASSERT_EQ(p.deviations.size(), 2u);
  EXPECT_EQ(p.deviations[0].rule, RuleId::ReadOpcode);
  EXPECT_EQ(p.deviations[1].justification, "j2");
  EXPECT_EQ(p.deviations[1].reference, "r2");
}

TEST(Profile, DefaultsForOmittedKeys) {
  const Profile p = parse_profile(R"({"name": "min"})", "min.json");
  const Profile defaults;
  EXPECT_EQ(p.max_capture_errors, defaults.max_capture_errors);
  EXPECT_EQ(p.fatal_nak_grace_ns, defaults.fatal_nak_grace_ns);
  EXPECT_EQ(p.timing_tolerance_ns, defaults.timing_tolerance_ns);
  EXPECT_TRUE(p.deviations.empty());
}

TEST(Profile, CoversTheExactCauseFirstThenTheWildcard) {
  const Profile p = parse_profile(R"({"name": "dut", "deviations": [
      {"rule": "read.opcode", "cause": "*", "justification": "any", "reference": "r"},
      {"rule": "read.opcode", "cause": "resumed_mid_read", "justification": "exact",
       "reference": "r"},
      {"rule": "ack.msn", "cause": "coalesced", "justification": "msn", "reference": "r"}]})",
                                  "dut.json");
  ASSERT_NE(p.covers(RuleId::ReadOpcode, "resumed_mid_read"), nullptr);
  EXPECT_EQ(p.covers(RuleId::ReadOpcode, "resumed_mid_read")->justification, "exact");
  ASSERT_NE(p.covers(RuleId::ReadOpcode, "other"), nullptr);
  EXPECT_EQ(p.covers(RuleId::ReadOpcode, "other")->justification, "any");
  EXPECT_NE(p.covers(RuleId::AckMsn, "coalesced"), nullptr);
  EXPECT_EQ(p.covers(RuleId::AckMsn, "other"), nullptr);
  EXPECT_EQ(p.covers(RuleId::PsnSequence, "coalesced"), nullptr);
  EXPECT_EQ(Profile{}.covers(RuleId::ReadOpcode, "resumed_mid_read"), nullptr);
}

TEST(Profile, AVectorDeviationCoversAVectorOnlyWhenItExplainsEveryDifference) {
  const Profile p = parse_profile(R"j({"name": "dut", "vector_deviations": [
      {"vectors": ["transitions/*-from-rts-00"], "cause": "sq_drained",
       "differences": ["*unexpected asynchronous event #*: SQ_DRAINED (*)"],
       "justification": "j", "reference": "r"}]})j",
                                  "dut.json");
  const std::string event =
      "x.json (scenario): steps[59].async_events.A: unexpected asynchronous event #0: SQ_DRAINED "
      "(0xab)";
  const VectorDeviation* d = p.covers_vector("transitions/rc-from-rts-00", {event, event});
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cause, "sq_drained");
  EXPECT_EQ(p.covers_vector("transitions/rc-from-rts-00",
                            {event, "steps[60].qp_state.qpA: expected RTS, got ERR"}),
            nullptr);
  EXPECT_EQ(p.covers_vector("transitions/rc-from-sqd-00", {event}), nullptr);
  EXPECT_EQ(p.covers_vector("transitions/rc-from-rts-00", {}), nullptr);
}

TEST(Profile, SyntaxErrorsNameTheByteOffset) {
  EXPECT_EQ(error_of("{\"name\": \"x\",\n \"deviations\": [}")
                .rfind("dut.json: byte offset 30 (line 2, column 17): invalid JSON: ", 0),
            0u)
      << error_of("{\"name\": \"x\",\n \"deviations\": [}");
}

TEST(Profile, ErrorsNameTheFileAndTheKey) {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"name": "x", "max_capture_error": 1})",
       "dut.json: max_capture_error: unknown key (known: name, description, max_capture_errors, "
       "fatal_nak_grace_ns, timing_tolerance_ns, timer_slack_ns, retire_idle_ns, model, "
       "udp_source_port, deviations, vector_deviations)"},
      {R"({"name": "x", "udp_source_port": "symmetric"})",
       "dut.json: udp_source_port: must be \"any\" or \"per_qp_pair\" (one source port both "
       "ways of a QP pair)"},
      {R"({"name": "x", "udp_source_port": 1})",
       "dut.json: udp_source_port: expected a string, got an integer"},
      {R"({"name": "x", "vector_deviations": [{"vectors": [], "differences": ["*"],
          "cause": "c", "justification": "j", "reference": "r"}]})",
       "dut.json: vector_deviations[0].vectors: give at least one pattern"},
      {R"({"name": "x", "vector_deviations": [{"vectors": ["a"], "differences": [""],
          "cause": "c", "justification": "j", "reference": "r"}]})",
       "dut.json: vector_deviations[0].differences[0]: empty pattern"},
      {R"({"name": "x", "vector_deviations": [{"vectors": ["a"], "differences": ["*"],
          "cause": "c", "justification": "", "reference": "r"}]})",
       "dut.json: vector_deviations[0].justification: empty"},
      {R"({"name": "x", "vector_deviations": [{"vectors": ["a"], "differences": ["*"],
          "cause": "c", "justification": "j"}]})",
       "dut.json: vector_deviations[0]: missing key \"reference\""},
      {R"({"description": "x"})", "dut.json: (top level): missing key \"name\""},
      {R"([1])", "dut.json: (top level): expected an object, got an array"},
      {R"({"name": ""})", "dut.json: name: empty"},
      {R"({"name": "x", "model": "mlx5"})",
       "dut.json: model: must be \"iba\" or \"rxe\" (the golden model's error profile)"},
      {R"({"name": "x", "max_capture_errors": -1})",
       "dut.json: max_capture_errors: expected a non-negative integer, got -1"},
      {R"({"name": "x", "max_capture_errors": 4294967296})",
       "dut.json: max_capture_errors: 4294967296 is out of range (at most 4294967295)"},
      {R"({"name": "x", "timing_tolerance_ns": "1us"})",
       "dut.json: timing_tolerance_ns: expected an integer, got a string"},
      {R"({"name": "x", "deviations": {}})", "dut.json: deviations: expected an array"},
      {R"({"name": "x", "deviations": [{"rule": "read.opcodes", "cause": "*",
          "justification": "j", "reference": "r"}]})",
       "dut.json: deviations[0].rule: unknown rule \"read.opcodes\" (rules of read: "
       "read.response, read.opcode, read.length, read.resume, read.rd_atomic_limit)"},
      {R"({"name": "x", "deviations": [{"rule": "nope", "cause": "*",
          "justification": "j", "reference": "r"}]})",
       "dut.json: deviations[0].rule: unknown rule \"nope\" (families: wire, seq,"},
      {R"({"name": "x", "deviations": [
          {"rule": "ack.msn", "cause": "*", "justification": "j", "reference": "r"},
          {"rule": "ack.msn", "cause": "*", "justification": "j", "reference": "r", "why": 1}]})",
       "dut.json: deviations[1].why: unknown key (known: rule, cause, justification, reference)"},
      {R"({"name": "x", "deviations": [{"rule": "ack.msn", "justification": "j",
          "reference": "r"}]})",
       "dut.json: deviations[0]: missing key \"cause\""},
      {R"({"name": "x", "deviations": [{"rule": "ack.msn", "cause": "*", "justification": "",
          "reference": "r"}]})",
       "dut.json: deviations[0].justification: empty"},
      {R"({"name": "x", "deviations": [
          {"rule": "ack.msn", "cause": "*", "justification": "j", "reference": "r"},
          {"rule": "ack.msn", "cause": "*", "justification": "j", "reference": "r"}]})",
       "dut.json: deviations[1]: rule \"ack.msn\" with cause \"*\" is declared twice"},
      {R"({"name": "x", "deviations": [{"rule": "ack.msn", "rule": "ack.psn"}]})",
       "dut.json: deviations[0].rule: key given twice"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = error_of(text);
    EXPECT_EQ(message.substr(0, expected.size()), expected) << text;
  }
}

TEST(Profile, BuiltinProfilesParseAndAreNamedAfterTheirFiles) {
  const auto builtins = builtin_profiles();
  ASSERT_GE(builtins.size(), 2u);
  for (const auto& [name, text] : builtins) {
    const Profile p = load_profile(std::string(name));
    EXPECT_EQ(p.name, name);
    EXPECT_FALSE(p.description.empty()) << name;
    for (const Deviation& d : p.deviations) {
      EXPECT_FALSE(d.justification.empty()) << name;
      EXPECT_FALSE(d.reference.empty()) << name;
    }
    // The embedded text is the committed file, byte for byte.
    EXPECT_EQ(text, rocecert::testing::slurp(std::string(ROCECERT_SOURCE_DIR) + "/profiles/" +
                                             std::string(name) + ".json"))
        << name;
  }
}

TEST(Profile, IbaIsStrictAndRxeDeclaresTheResumedRead) {
  const Profile iba = load_profile("iba");
  EXPECT_EQ(iba.max_capture_errors, 0u);
  EXPECT_TRUE(iba.deviations.empty());
  const Profile rxe = load_profile("rxe");
  const Deviation* d = rxe.covers(RuleId::ReadOpcode, "resumed_mid_read");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reference.find("drivers/infiniband/sw/rxe/rxe_resp.c"), std::string::npos);
  EXPECT_EQ(rxe.covers(RuleId::ReadOpcode, "other"), nullptr);
}

TEST(Profile, RxeDeclaresOneUdpSourcePortPerQpPairAndIbaNone) {
  EXPECT_EQ(load_profile("iba").udp_source_port, Profile::UdpSourcePort::Any);
  EXPECT_EQ(load_profile("rxe").udp_source_port, Profile::UdpSourcePort::PerQpPair);
  EXPECT_EQ(parse_profile(R"({"name": "x", "udp_source_port": "any"})", "dut.json").udp_source_port,
            Profile::UdpSourcePort::Any);
  EXPECT_EQ(parse_profile(R"({"name": "x"})", "dut.json").udp_source_port,
            Profile::UdpSourcePort::Any);
}

TEST(Profile, LoadsAFileByPathAndNamesItInErrors) {
  const std::string path = rocecert::testing::temp_path("profile", "dut.json");
  std::ofstream(path) << R"({"name": "dut", "max_capture_errors": 1})";
  EXPECT_EQ(load_profile(path).max_capture_errors, 1u);
  std::ofstream(path) << R"({"name": "dut", "bogus": 1})";
  try {
    load_profile(path);
    ADD_FAILURE() << "accepted an unknown key";
  } catch (const ProfileError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": bogus: unknown key", 0), 0u) << e.what();
  }
  std::filesystem::remove(path);
  try {
    load_profile(path);
    ADD_FAILURE() << "loaded a missing file";
  } catch (const ProfileError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": no such profile: neither a built-in one (iba, rxe) nor a readable file");
  }
  EXPECT_THROW(load_profile(std::filesystem::temp_directory_path().string()), ProfileError);
}

}  // namespace
}  // namespace rocecert::check
