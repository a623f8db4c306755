// check_setup: a played vector's scenario, with the devices' numbers written in, is a setup
// `rocecert check --setup` reads with exactly those numbers.
#include <gtest/gtest.h>

#include <cerrno>
#include <utility>

#include "rocecert/check/setup.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/verbs/player.h"
#include "verbs_test_support.h"

namespace rocecert::verbs {
namespace {

using testing::fake_host;
using testing::load;

struct Played {
  explicit Played(vectors::Loaded loaded) : v(std::move(loaded)) {}
  vectors::Loaded v;
  FakeVerbs a{fake_host(1)};
  FakeVerbs b{fake_host(2)};
  PlayResult r;
  check::Setup setup;
};

void play_and_read_setup(Played& run, const std::string& vector_text) {
  PlayOptions o;
  o.check_expectations = false;  // the fakes have no wire between them
  run.r = Player(run.v.scenario, {{"A", &run.a}, {"B", &run.b}}, o).play();
  ASSERT_TRUE(run.r.errors.empty()) << run.r.errors.front();
  const std::string text = check_setup(vector_text, run.r);
  run.setup = check::make_setup(conformance::parse_scenario(text, "played.setup.json"),
                                "played.setup.json");
}

std::uint32_t mapped(const PlayResult& r, const std::string& name, bool rkey) {
  for (const Mapped& m : r.names)
    if (m.name == name) return rkey ? m.rkey : m.handle;
  throw std::runtime_error("no " + name + " in the name map");
}

TEST(VerbsCheckSetup, QpsAndRegionsCarryTheDevicesNumbers) {
  Played run{load("opcodes/rc-rdma-write-1pkt-00")};
  play_and_read_setup(run, testing::read_text(run.v.path));
  ASSERT_EQ(run.setup.qps.size(), 2u);
  for (const check::SetupQp& q : run.setup.qps) {
    EXPECT_TRUE(q.numbered) << q.name;
    EXPECT_EQ(q.qpn, mapped(run.r, q.name, false)) << q.name;
    // Each QP's peer is the other's device QPN, as the wire shows it.
    ASSERT_TRUE(q.dest_qpn) << q.name;
    EXPECT_EQ(*q.dest_qpn, mapped(run.r, q.name == "qpA" ? "qpB" : "qpA", false));
  }
  ASSERT_FALSE(run.setup.mrs.empty());
  for (const check::SetupMr& m : run.setup.mrs) {
    EXPECT_EQ(m.rkey, mapped(run.r, m.name, true)) << m.name;
    // The region starts where the device's keys start, as a RETH's VA shows it.
    for (const Mapped& x : run.r.names)
      if (x.name == m.name) {
        EXPECT_EQ(m.iova, x.iova) << m.name;
      }
  }
  // The hosts are the vector's addresses, which the live guest's devices have.
  const check::SetupQp& a = run.setup.qps[0];
  EXPECT_EQ(a.host[0], 10);
  EXPECT_EQ(a.host[3], 1);
}

TEST(VerbsCheckSetup, AWindowIsListedWithTheRkeyItsBindGave) {
  Played run{load("boundary/write-one-byte-past-mw-end-00")};
  play_and_read_setup(run, testing::read_text(run.v.path));
  const std::uint32_t rkey = mapped(run.r, "mwB", true);
  bool found = false;
  for (const check::SetupMr& m : run.setup.mrs) {
    found = found || (m.window && m.rkey == rkey);
    if (m.window) {
      EXPECT_GE(m.iova, fake_host(2).memory_base) << "the window is in B's address space";
    }
  }
  EXPECT_TRUE(found) << "no window with rkey " << rkey;
}

TEST(VerbsCheckSetup, ARefusedRegionGetsNoNumber) {
  // A reg_mr the vector expects to be refused makes no region: the setup does not list it.
  const std::string text = testing::with_refused_huge_region();
  Played run{vectors::parse(text, "huge.json")};
  run.a.refuse("reg_mr", ENOMEM);  // INDEX_EXHAUSTED is ENOMEM
  play_and_read_setup(run, text);
  ASSERT_FALSE(run.setup.mrs.empty());
  for (const check::SetupMr& m : run.setup.mrs) EXPECT_NE(m.name, "mrHuge");
}

TEST(VerbsCheckSetup, TextThatIsNotAScenarioIsRefused) {
  const PlayResult none;
  EXPECT_THROW(check_setup("{", none), PlayError);
  EXPECT_THROW(check_setup("{\"id\": 1}", none), PlayError);
  PlayResult r;
  r.numbers.push_back(DutNumber{3, DutNumber::Kind::QPN, 0x11});
  EXPECT_THROW(check_setup(R"({"steps": [{"op": "run"}]})", r), PlayError);
  EXPECT_THROW(check_setup(R"({"steps": [{"op": "run"}, {}, {}, {"op": "reg_mr"}]})", r),
               PlayError);
}

}  // namespace
}  // namespace rocecert::verbs
