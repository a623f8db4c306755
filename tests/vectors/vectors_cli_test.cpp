// `rocecert vectors generate | run | coverage` as a user calls them in CI (vectors/README.md):
// exit codes, the JUnit and JSON reports, located errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "../support/command.h"

namespace rocecert::testing {
namespace {

namespace fs = std::filesystem;
const std::string kSet = std::string(ROCECERT_SOURCE_DIR) + "/vectors";

CommandResult cli(const std::string& args) {
  return run_command(std::string(ROCECERT_CLI) + " vectors " + args);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CliVectors, RunTheCommittedSetWithJunitAndJson) {
  const std::string xml = temp_path("vcli", "out.xml"), js = temp_path("vcli", "out.json");
  const CommandResult r = cli("run " + kSet + " --quiet --junit " + xml + " --json " + js);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::size_t n = 154;  // the committed set (test VectorsGenerate keeps it current)
  EXPECT_NE(r.out.find(std::to_string(n) + " vectors: " + std::to_string(n) + " PASS, 0 FAIL"),
            std::string::npos)
      << r.out;
  const std::string x = slurp(xml);
  EXPECT_EQ(count(x, "<testcase "), n);
  EXPECT_NE(x.find("failures=\"0\""), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(slurp(js));
  EXPECT_EQ(j["summary"]["verdict"], "PASS");
  EXPECT_EQ(j["vectors"].size(), n);
  fs::remove(xml);
  fs::remove(js);
}

TEST(CliVectors, FilterAndOneFile) {
  CommandResult r = cli("run " + kSet + " --filter rc-rdma-read");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("2 vectors: 2 PASS"), std::string::npos) << r.out;
  r = cli("run " + kSet + "/opcodes/ud-send-1pkt-00.json");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("PASS        opcodes/ud-send-1pkt-00"), std::string::npos) << r.out;
}

TEST(CliVectors, AFailingVectorExitsOneAndJunitNamesTheDifference) {
  std::string text = slurp(kSet + "/opcodes/rc-rdma-write-1pkt-00.json");
  const auto at = text.find("\"dmalen\": 64");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"dmalen\": 64").size(), "\"dmalen\": 65");
  const std::string dir = temp_path("vcli", "set");
  fs::create_directories(dir);
  std::ofstream(dir + "/w.json", std::ios::binary) << text;
  const std::string xml = temp_path("vcli", "fail.xml");
  const CommandResult r = cli("run " + dir + " --junit " + xml);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL        opcodes/rc-rdma-write-1pkt-00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dmalen: expected 65, got 64"), std::string::npos) << r.out;
  EXPECT_NE(slurp(xml).find("<failure message=\"scenario.steps["), std::string::npos);
  fs::remove_all(dir);
  fs::remove(xml);
}

TEST(CliVectors, UnusableInputExitsTwoWithALocatedMessage) {
  CommandResult r = cli("run /nonexistent/dir");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/dir: not a directory or a vector file"), std::string::npos)
      << r.err;
  const std::string bad = temp_path("vcli", "bad.json");
  std::ofstream(bad, std::ios::binary) << "{\"vector\": 1, \"id\": 3}";
  r = cli("run " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad + ": id: expected a string"), std::string::npos) << r.err;
  fs::remove(bad);
  EXPECT_EQ(cli("").exit_code, 2);
  EXPECT_EQ(cli("frobnicate").exit_code, 2);
}

// --dut verbs: with a device that is not there (the build host has none): exit 2 and one line
// naming it, whether or not this rocecert was built with libibverbs. --events needs it.
TEST(CliVectors, AVerbsDeviceThatIsNotThereExitsTwo) {
  const std::string one = kSet + "/opcodes/rc-send-1pkt-00.json";
  CommandResult r = cli("run " + one + " --dut verbs:nosuchdev0");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("rocecert vectors: --dut verbs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nosuchdev0"), std::string::npos) << r.err;
  r = cli("run " + one + " --events /tmp/x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--events records what verbs devices report"), std::string::npos) << r.err;
}

TEST(CliVectors, GenerateWritesTheSetAndCoverageReadsIt) {
  const std::string dir = temp_path("vcli", "gen");
  fs::remove_all(dir);
  CommandResult r = cli("generate " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the reliability area is left out"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir + "/reliability"));
  r = cli("generate " + dir + " --scenarios " + kSet + "/scenarios");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/reliability/go-back-n-00.pcap"));
  EXPECT_TRUE(fs::exists(dir + "/opcodes/rc-send-3mtu-00.json"));
  EXPECT_TRUE(fs::exists(dir + "/opcodes/rc-send-3mtu-00.pcap"));
  const std::string js = temp_path("vcli", "cov.json");
  r = cli("coverage " + dir + " --json " + js);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("0 missing"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(js));
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j[0]["matrix"], "opcode x transport");
  // Without the vectors that send UD SEND ONLY, its cell is missing: exit 1, named.
  fs::remove(dir + "/opcodes/ud-send-1pkt-00.json");
  fs::remove_all(dir + "/errors");
  r = cli("coverage " + dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("missing: UD_SEND_ONLY (UD)"), std::string::npos) << r.out;
  fs::remove_all(dir);
  fs::remove(js);
}

}  // namespace
}  // namespace rocecert::testing
