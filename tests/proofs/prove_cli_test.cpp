// `rocecert prove` as a user runs it (docs/proofs.md): the text and JSON reports, the broken
// variants, the exit codes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "../support/command.h"

namespace rocecert::testing {
namespace {

const std::string kCli = ROCECERT_CLI;

TEST(CliProve, SelectedProofsInJson) {
  const CommandResult r = run_command(kCli + " prove PSN.SERIAL_ORDER QP.REACHABLE --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["variant"], "model");
  EXPECT_EQ(j["failed"], 0);
  ASSERT_EQ(j["proofs"].size(), 2u);
  EXPECT_EQ(j["proofs"][0]["id"], "PSN.SERIAL_ORDER");
  EXPECT_EQ(j["proofs"][0]["proved"], true);
  EXPECT_NE(j["proofs"][1]["evidence"].get<std::string>().find("RC: RESET->INIT->RTR->RTS->SQD"),
            std::string::npos);
}

// Each broken variant refuted: exit 0 with --broken, and the counterexample printed.
TEST(CliProve, BrokenVariantsAreRefutedWithCounterexamples) {
  const CommandResult r =
      run_command(kCli + " prove --broken PSN.SERIAL_ORDER QP.ERR_EXITS QP.ATTRS_DISJOINT");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("REFUTED  QP.ERR_EXITS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("counterexample: UC: ERR -> RTS is a valid cell"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("3 proofs, 3 broken variants refuted"), std::string::npos) << r.out;
}

TEST(CliProve, UnknownProofIsExitTwo) {
  const CommandResult r = run_command(kCli + " prove PSN.NOPE");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown proof \"PSN.NOPE\""), std::string::npos) << r.err;
}

// The whole catalog at full width (about 8 s), then every broken variant refuted.
TEST(CliProve, EveryProofHoldsAndEveryBrokenVariantIsRefuted) {
  for (const char* args : {" prove --json", " prove --broken --json"}) {
    const CommandResult r = run_command(kCli + args);
    ASSERT_EQ(r.exit_code, 0) << args << r.out << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["failed"], 0) << args << r.out;
    EXPECT_GE(j["proofs"].size(), 9u) << args;
    for (const auto& p : j["proofs"])
      EXPECT_EQ(p["proved"], std::string(args).find("broken") == std::string::npos) << p.dump();
  }
}

}  // namespace
}  // namespace rocecert::testing
