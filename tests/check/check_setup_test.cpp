// rocecert check --setup: the DUT's MR table and QPs (a scenario file with dut_rkey / dut_qpn)
// make key enforcement decidable: the real bad-rkey captures are judged justified, an access
// granted outside its MR fails, and an access refused although its MR allows it fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "conversation.h"
#include "rocecert/check/setup.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/pcap/reader.h"

namespace rocecert::testing {
namespace {

using check::RuleId;
using check::Verdict;

check::Options with_setup(const std::string& path) {
  check::Options o;
  o.profile = check::load_profile("rxe");
  o.setup = std::make_shared<const check::Setup>(check::load_setup(path));
  return o;
}

// A setup file (removed by the caller) of one responder, B at 10.0.0.2: a PD, an MR of rkey 7
// on [4096, +4096) with the rights `mr_access`, and QP 34 with `qp_access` (JSON arrays of
// access names).
std::string write_setup(const std::string& tag, const std::string& mr_access,
                        const std::string& qp_access) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("rocecert-setup-" + tag + "-" + std::to_string(getpid())))
                               .string() +
                           ".json";
  std::ofstream(path) << R"({
    "adapters": [{"name": "A", "mac": "02:00:00:00:00:01", "ip": "10.0.0.1"},
                 {"name": "B", "mac": "02:00:00:00:00:02", "ip": "10.0.0.2"}],
    "steps": [
      {"op": "alloc_pd", "adapter": "B", "as": "pdB"},
      {"op": "reg_mr", "pd": "pdB", "as": "mrB", "addr": 4096, "length": 4096,
       "access": )" + mr_access +
                             R"(, "dut_rkey": 7},
      {"op": "create_cq", "adapter": "B", "as": "cqB"},
      {"op": "create_qp", "pd": "pdB", "as": "qpB", "type": "RC", "send_cq": "cqB",
       "dut_qpn": 34},
      {"op": "modify_qp", "qp": "qpB", "attr": {"qp_state": "INIT", "pkey_index": 0,
       "port_num": 1, "qp_access_flags": )" +
                             qp_access + R"(}}]})";
  return path;
}

TEST(CheckSetup, RealBadRkeyCapturesAreJustified) {
  for (const char* name : {"multi_qp_errors", "err_write_bad_rkey"}) {
    SCOPED_TRACE(name);
    const std::string dir = ROCECERT_SOURCE_DIR "/vectors/real/";
    const check::Report r = check::check_files({dir + name + ".pcap"},
                                               with_setup(dir + "setup/" + name + ".setup.json"));
    EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
    EXPECT_GT(checked(r, RuleId::KeySetup), 0u);
    EXPECT_GT(checked(r, RuleId::Z3Key), 0u);
    EXPECT_GT(checked(r, RuleId::GoldenResponse), 0u);
  }
}

// multi_qp_errors.pcap with one ACKed WRITE moved outside the 256 KiB MR (ICRC recomputed).
TEST(CheckSetup, AWriteGrantedOutsideItsMrFails) {
  const std::string dir = ROCECERT_SOURCE_DIR "/vectors/real/";
  pcap::Reader reader(dir + "multi_qp_errors.pcap");
  check::Checker c(with_setup(dir + "setup/multi_qp_errors.setup.json"));
  pcap::Record rec;
  bool moved = false;
  while (reader.next(rec)) {
    std::vector<std::uint8_t> bytes(rec.data.begin(), rec.data.end());
    const wire::ParsedFrame p = wire::decode(bytes);
    if (!moved && p.op && p.op->value == wire::to_u8(wire::Opcode::RC_RDMA_WRITE_ONLY) &&
        p.reth.rkey == 0x55b) {
      wire::FrameSpec s = wire::to_spec(p);
      s.reth.va += 0x100000;  // past the end of the MR
      s.icrc.reset();
      bytes = wire::encode(s);
      moved = true;
    }
    c.add_frame(rec.frame, rec.ts_ns, static_cast<std::uint32_t>(bytes.size()), bytes,
                reader.link());
  }
  ASSERT_TRUE(moved);
  const check::Report r = c.finish("moved");
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::KeySetup), 1u) << describe(r);
  EXPECT_EQ(r.violations.at(0).cause, "granted_not_allowed");
  // Z3 finds no table with the setup's MR that explains the grant, and names the setup's MR.
  ASSERT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);
  for (const check::Violation& v : r.violations)
    if (v.rule == RuleId::Z3Key) {
      EXPECT_EQ(v.cause, "against_setup");
      EXPECT_NE(v.message.find("granted"), std::string::npos) << v.message;
      EXPECT_NE(v.message.find("with the setup's MR"), std::string::npos) << v.message;
    }
  // The model's responder, given the same MR table, refuses it too (golden.response).
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 1u) << describe(r);
}

// A conversation whose responder refuses a WRITE its MR allows.
TEST(CheckSetup, AWriteRefusedThoughItsMrAllowsItFails) {
  const std::string setup =
      write_setup("write", R"(["LOCAL_WRITE", "REMOTE_WRITE"])", R"(["REMOTE_WRITE"])");
  Conversation c;
  wire::FrameSpec w = c.make(true, wire::Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 100, 64);
  w.reth = {4096 + 128, 7, 64};
  c.send(w);
  c.ack(100, 0, 0x62);
  const check::Report r = c.check(with_setup(setup));
  std::filesystem::remove(setup);
  EXPECT_EQ(count(r, RuleId::KeySetup), 1u) << describe(r);
  EXPECT_EQ(r.violations.at(0).cause, "refused_but_allowed");
  EXPECT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);
  EXPECT_EQ(count(r, RuleId::GoldenResponse), 1u) << describe(r);
  // Without the setup, one refusal contradicts nothing.
  check::Options bare;
  bare.profile = check::load_profile("rxe");
  EXPECT_EQ(count(c.check(bare), RuleId::Z3Key), 0u);
}

// A FLUSH against the setup (docs/spec-notes.md §8.4): the MR grants global visibility only,
// the QP both placements. `placement` asked on [4096 + 64, +64), answered by an empty READ
// RESPONSE ONLY (granted) or a NAK remote access error.
check::Report flush_against_setup(std::uint8_t placement, bool granted) {
  const std::string setup = write_setup("flush", R"(["LOCAL_WRITE", "FLUSH_GLOBAL"])",
                                        R"(["FLUSH_GLOBAL", "FLUSH_PERSISTENT"])");
  Conversation c;
  wire::FrameSpec f = c.make(true, wire::Opcode::RC_FLUSH, Conversation::kQpB, 100);
  f.reth = {4096 + 64, 7, 64};
  f.feth = {placement, 0};
  c.send(f);
  if (granted) {
    wire::FrameSpec r =
        c.make(false, wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY, Conversation::kQpA, 100);
    r.aeth = {0x1F, 1};
    c.send(r);
  } else {
    c.ack(100, 0, 0x62);
  }
  check::Report r = c.check(with_setup(setup));
  std::filesystem::remove(setup);
  return r;
}

TEST(CheckSetup, AFlushIsJudgedByTheRightOfItsPlacement) {
  // Global visibility: granted is right, refused is not.
  check::Report r = flush_against_setup(1, true);
  EXPECT_EQ(count(r, RuleId::KeySetup), 0u) << describe(r);
  EXPECT_EQ(checked(r, RuleId::KeySetup), 1u) << describe(r);
  r = flush_against_setup(1, false);
  ASSERT_EQ(count(r, RuleId::KeySetup), 1u) << describe(r);
  EXPECT_EQ(first_of(r, RuleId::KeySetup)->cause, "refused_but_allowed");
  EXPECT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);
  // Persistence, which the MR does not grant, alone or with global visibility: refused is right,
  // granted is not (both asked need both rights: rxe_mr.c lookup_mr wants every right asked).
  for (const std::uint8_t placement : {std::uint8_t{2}, std::uint8_t{3}}) {
    SCOPED_TRACE(static_cast<int>(placement));
    r = flush_against_setup(placement, false);
    EXPECT_EQ(count(r, RuleId::KeySetup), 0u) << describe(r);
    EXPECT_EQ(count(r, RuleId::Z3Key), 0u) << describe(r);
    r = flush_against_setup(placement, true);
    ASSERT_EQ(count(r, RuleId::KeySetup), 1u) << describe(r);
    EXPECT_EQ(first_of(r, RuleId::KeySetup)->cause, "granted_not_allowed");
    EXPECT_NE(first_of(r, RuleId::KeySetup)->message.find("does not grant FLUSH"),
              std::string::npos)
        << describe(r);
    EXPECT_EQ(count(r, RuleId::Z3Key), 1u) << describe(r);
  }
}

TEST(CheckSetup, ABrokenSetupIsLocated) {
  const std::string setup =
      (std::filesystem::temp_directory_path() / ("rocecert-setup2-" + std::to_string(getpid())))
          .string() +
      ".json";
  std::ofstream(setup) << R"({"adapters": [{"name": "B", "mac": "02:00:00:00:00:02",
    "ip": "10.0.0.2"}], "steps": [{"op": "reg_mr", "pd": "nope", "as": "m", "addr": 0,
    "length": 1, "access": [], "dut_rkey": "x"}]})";
  try {
    check::load_setup(setup);
    ADD_FAILURE() << "no error";
  } catch (const conformance::ScenarioError& e) {
    EXPECT_EQ(e.file(), setup);
    EXPECT_NE(e.path().find("steps[0]"), std::string::npos) << e.what();
  }
  std::filesystem::remove(setup);
}

}  // namespace
}  // namespace rocecert::testing
