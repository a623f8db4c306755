// `rocecert simulate` with unusable input: exit 2 and one line on stderr naming the file and the
// JSON path (or byte offset) of the problem, before anything runs. Needs no model.
#include <gtest/gtest.h>

#include "simulate_cli_support.h"

using namespace simulate_cli;

namespace {
std::string broken(const std::string& name) {
  return source("tests/data/broken_scenarios/" + name);
}
}  // namespace

TEST(CliSimulate, UnknownNameExitsTwoWithTheJsonPath) {
  const std::string f = broken("unknown_mr.json");
  const CliRun r = run_cli("simulate " + f + " --pcap " + temp_path("never.pcap"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "rocecert simulate: " + f +
                ": steps[4].wr.sg_list[0].lkey: unknown MR \"mrX\" (did you mean \"mrA\"?)\n");
  // Validation happens before any output file is created.
  EXPECT_FALSE(std::filesystem::exists(temp_path("never.pcap")));
}

TEST(CliSimulate, SyntaxErrorExitsTwoWithTheByteOffset) {
  const std::string f = broken("syntax_error.json");
  const CliRun r = run_cli("simulate " + f);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "rocecert simulate: " + f +
                       ": byte offset 156 (line 7, column 3): invalid JSON: syntax error while "
                       "parsing object - unexpected string literal; expected '}'\n");
}

TEST(CliSimulate, EveryBrokenScenarioExitsTwoWithOneLine) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(source("tests/data/broken_scenarios"))) {
    if (e.path().extension() != ".json") continue;
    ++n;
    const CliRun r = run_cli("simulate " + e.path().string());
    EXPECT_EQ(r.exit_code, 2) << e.path();
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("rocecert simulate: " + e.path().string() + ": ", 0), 0u) << r.err;
  }
  EXPECT_GE(n, 5);
}

TEST(CliSimulate, UnreadableFilesAndUsageErrorsExitTwo) {
  CliRun r = run_cli("simulate /nonexistent/s.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "rocecert simulate: /nonexistent/s.json: cannot open the scenario file: No such file "
            "or directory\n");
  r = run_cli("simulate");
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli("simulate " + source("examples/rc_basic.json") + " --seed banana");
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli("simulate " + source("examples/rc_basic.json") + " --no-such-option");
  EXPECT_EQ(r.exit_code, 2);
}

// Input the JSON parser itself refuses, including what nlohmann reports without a position (a
// number beyond a double's range): exit 2, one line with the file and the byte offset.
TEST(CliSimulate, ParserErrorsExitTwoWithTheByteOffset) {
  const std::string f = temp_path("parser_errors.json");
  const std::string deep = "{\"seed\": " + std::string(100, '[') + std::string(100, ']') + "}";
  for (const std::string& text :
       {std::string(R"({"seed": 1e400})"), std::string(R"({"seed": -1e400})"),
        std::string("{\"seed\": 1\0}", 12), std::string("{\"description\": \"\xC3\x28\"}"), deep}) {
    std::ofstream(f, std::ios::binary) << text;
    const CliRun r = run_cli("simulate " + f);
    EXPECT_EQ(r.exit_code, 2) << text;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("rocecert simulate: " + f + ": ", 0), 0u) << r.err;
  }
  std::ofstream(f) << R"({"seed": 1e400})";
  EXPECT_EQ(run_cli("simulate " + f).err,
            "rocecert simulate: " + f +
                ": byte offset 9 (line 1, column 10): invalid JSON: the number 1e400 is beyond "
                "the range of a double\n");
  // 2^64 parses (as a double): the loader names the key.
  std::ofstream(f) << R"({"adapters": [], "steps": [], "seed": 18446744073709551616})";
  const CliRun r = run_cli("simulate " + f);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("rocecert simulate: " + f + ": seed: expected an integer", 0), 0u) << r.err;
  std::filesystem::remove(f);
}
