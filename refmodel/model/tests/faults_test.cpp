// Fault injection on the simulated link: the rule language, rule matching (opcode, class,
// QPN, PSN, AckReq, position, direction, Nth occurrence, ranges), the seeded probabilities
// (determinism and rates), the byte faults (ECN CE keeps the ICRC valid and the IPv4 checksum
// right; corruption is caught by the ICRC and nothing before it), and what the link does to
// frames between two adapters. Nothing here depends on the model recovering from a fault:
// the tests look at the frames the receiver got, with UC traffic or within a time bound far
// below any retransmit timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "model_pair.h"
#include "rocecert/model/faults.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/icrc.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert;
using namespace rocecert::testing;
using model::FaultAction;
using model::FaultInjector;
using model::FaultPlan;
using model::FaultRule;
using model::FrameMatch;
using model::LinkDirection;
using model::OpcodeClass;

namespace {

constexpr LinkDirection kAB = LinkDirection::A_TO_B;
constexpr LinkDirection kBA = LinkDirection::B_TO_A;

// A well-formed IPv4 frame with the given BTH fields (and AETH syndrome for acknowledges).
std::vector<std::uint8_t> frame(wire::Opcode op, std::uint32_t dqpn, std::uint32_t psn,
                                bool ackreq = false, std::uint8_t syndrome = 0,
                                std::uint32_t payload = 16, unsigned ip_version = 4) {
  wire::SampleOptions o;
  o.payload_len = payload;
  o.ip_version = ip_version;
  o.seed = psn * 31u + dqpn;
  wire::FrameSpec s = wire::sample_frame(wire::to_u8(op), o);
  s.bth.dqpn = dqpn;
  s.bth.psn = psn;
  s.bth.ackreq = ackreq;
  s.aeth.syndrome = syndrome;
  s.ip.ecn = 0;
  s.icrc.reset();
  wire::finalize(s);
  return wire::encode(s);
}

FaultPlan plan_with(std::vector<FaultRule> rules, std::uint64_t seed = 1) {
  FaultPlan p;
  p.seed = seed;
  p.rules = std::move(rules);
  return p;
}

FaultRule rule(std::string_view text) {
  const model::RuleParseResult r = model::parse_fault_rule(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.error;
  return r.rule;
}

model::FaultRates rates(double drop, double duplicate, double reorder, double delay, double corrupt,
                        double ecn_ce) {
  model::FaultRates r;
  r.drop = drop;
  r.duplicate = duplicate;
  r.reorder = reorder;
  r.delay = delay;
  r.corrupt = corrupt;
  r.ecn_ce = ecn_ce;
  return r;
}

// A compact fingerprint of a decision, for comparing long runs.
std::string fingerprint(const model::FaultDecision& d) {
  std::string s;
  for (const auto& f : d.fired) s += std::string(model::to_string(f.action)) + ",";
  s += std::to_string(d.extra_delay_ns) + "," + std::to_string(d.corrupt_draw);
  return s;
}

}  // namespace

// ---- the rule language ----------------------------------------------------------------------

TEST(FaultRules, ParseAndFormatRoundTrip) {
  for (std::string_view text : {
           "drop opcode=RC_RDMA_WRITE_MIDDLE qp=0x11 nth=3",
           "drop class=ack nth=1",
           "corrupt class=read_response psn=0x102",
           "reorder dir=a>b class=send nth=2..4 overtake=2 hold=5000",
           "delay dir=b>a class=response nth=5.. delay=20000 jitter=300",
           "ecn_ce",
           "duplicate pos=middle ackreq=1",
           "drop opcode=0xe5",
       }) {
    const model::RuleParseResult r = model::parse_fault_rule(text);
    ASSERT_TRUE(r.ok()) << text << ": " << r.error;
    EXPECT_EQ(model::format_rule(r.rule), text);
    EXPECT_EQ(model::parse_fault_rule(model::format_rule(r.rule)).rule, r.rule);
  }
  // Spelled differently, read the same; "nth=every" is the default.
  const FaultRule r = rule("  drop   nth=every qp=17 dir=any  opcode=17 ");
  EXPECT_EQ(model::format_rule(r), "drop opcode=RC_ACKNOWLEDGE qp=0x11");
  EXPECT_EQ(r.first, 1u);
  EXPECT_EQ(r.last, model::kEveryOccurrence);
  FrameMatch m;
  m.opcode = wire::to_u8(wire::Opcode::RC_RDMA_WRITE_MIDDLE);
  m.dest_qp = 0x11;
  EXPECT_EQ(rule("drop opcode=RC_RDMA_WRITE_MIDDLE qp=0x11 nth=3"),
            FaultRule::nth(FaultAction::DROP, m, 3));
}

TEST(FaultRules, ParseErrorsNameTheTerm) {
  for (std::string_view bad :
       {"", "explode", "drop qp", "drop qp=0x1000000", "drop class=acks",
        "drop opcode=RC_WRITE_MIDDLE", "drop nth=0", "drop nth=4..2", "drop delay=5",
        "delay overtake=2", "reorder overtake=0", "drop psn=x", "drop dir=ab", "drop pos=second",
        "drop ackreq=yes", "drop colour=red"}) {
    const model::RuleParseResult r = model::parse_fault_rule(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  EXPECT_EQ(model::parse_fault_rule("drop nth=0").error,
            "\"nth=0\": occurrences count from 1 and a range must not be empty");
}

// ---- rule matching --------------------------------------------------------------------------

TEST(FaultRules, NthOccurrenceOfAnOpcodeOnOneQp) {
  FaultInjector inj(plan_with({rule("drop opcode=RC_RDMA_WRITE_MIDDLE qp=0x11 nth=3")}));
  std::vector<std::uint32_t> dropped;
  std::uint32_t psn = 0;
  for (int msg = 0; msg < 3; ++msg) {
    for (auto op : {wire::Opcode::RC_RDMA_WRITE_FIRST, wire::Opcode::RC_RDMA_WRITE_MIDDLE,
                    wire::Opcode::RC_RDMA_WRITE_MIDDLE, wire::Opcode::RC_RDMA_WRITE_LAST}) {
      // The same traffic on QP 0x12 never counts.
      EXPECT_FALSE(inj.decide(kAB, frame(op, 0x12, psn)).any());
      if (inj.decide(kAB, frame(op, 0x11, psn)).drop) dropped.push_back(psn);
      ++psn;
    }
  }
  EXPECT_EQ(dropped, (std::vector<std::uint32_t>{5}));  // message 2, first MIDDLE
  EXPECT_EQ(inj.counts(kAB).frames, 24u);
  EXPECT_EQ(inj.counts(kAB).of(FaultAction::DROP), 1u);
}

TEST(FaultRules, RangesOpenRangesAndEvery) {
  FaultInjector inj(
      plan_with({rule("drop class=send nth=2..4"), rule("duplicate class=write nth=3.."),
                 rule("ecn_ce class=read_request")}));
  std::vector<int> drops, dups, marks;
  for (int i = 1; i <= 8; ++i) {
    const auto psn = static_cast<std::uint32_t>(i);
    if (inj.decide(kAB, frame(wire::Opcode::RC_SEND_ONLY, 0x11, psn)).drop) drops.push_back(i);
    if (inj.decide(kAB, frame(wire::Opcode::RC_RDMA_WRITE_ONLY, 0x11, psn)).copies == 2)
      dups.push_back(i);
    if (inj.decide(kAB, frame(wire::Opcode::RC_RDMA_READ_REQUEST, 0x11, psn, false, 0, 0)).ecn_ce)
      marks.push_back(i);
  }
  EXPECT_EQ(drops, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(dups, (std::vector<int>{3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(marks, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(FaultRules, OpcodeClasses) {
  using wire::Opcode;
  struct Case {
    Opcode op;
    std::uint8_t syndrome;
    std::vector<OpcodeClass> in;
  };
  const std::vector<Case> cases = {
      {Opcode::RC_ACKNOWLEDGE,
       0x1F,
       {OpcodeClass::RESPONSE, OpcodeClass::ACKNOWLEDGE, OpcodeClass::ACK}},
      {Opcode::RC_ACKNOWLEDGE,
       0x60,
       {OpcodeClass::RESPONSE, OpcodeClass::ACKNOWLEDGE, OpcodeClass::NAK}},
      {Opcode::RC_ACKNOWLEDGE,
       0x32,
       {OpcodeClass::RESPONSE, OpcodeClass::ACKNOWLEDGE, OpcodeClass::NAK}},
      {Opcode::RC_RDMA_READ_RESPONSE_MIDDLE,
       0,
       {OpcodeClass::RESPONSE, OpcodeClass::READ_RESPONSE}},
      {Opcode::RC_RDMA_READ_RESPONSE_ONLY, 0, {OpcodeClass::RESPONSE, OpcodeClass::READ_RESPONSE}},
      {Opcode::RC_ATOMIC_ACKNOWLEDGE, 0, {OpcodeClass::RESPONSE, OpcodeClass::ATOMIC_ACK}},
      {Opcode::RC_RDMA_READ_REQUEST, 0, {OpcodeClass::REQUEST, OpcodeClass::READ_REQUEST}},
      {Opcode::RC_FETCH_ADD, 0, {OpcodeClass::REQUEST, OpcodeClass::ATOMIC}},
      {Opcode::RC_COMPARE_SWAP, 0, {OpcodeClass::REQUEST, OpcodeClass::ATOMIC}},
      {Opcode::UC_SEND_ONLY, 0, {OpcodeClass::REQUEST, OpcodeClass::SEND}},
      {Opcode::UD_SEND_ONLY, 0, {OpcodeClass::REQUEST, OpcodeClass::SEND}},
      {Opcode::UC_RDMA_WRITE_MIDDLE, 0, {OpcodeClass::REQUEST, OpcodeClass::WRITE}},
      {Opcode::CNP_CNP, 0, {OpcodeClass::CNP}},
  };
  const std::vector<OpcodeClass> all = {
      OpcodeClass::REQUEST, OpcodeClass::RESPONSE,     OpcodeClass::SEND,
      OpcodeClass::WRITE,   OpcodeClass::READ_REQUEST, OpcodeClass::READ_RESPONSE,
      OpcodeClass::ATOMIC,  OpcodeClass::ATOMIC_ACK,   OpcodeClass::ACKNOWLEDGE,
      OpcodeClass::ACK,     OpcodeClass::NAK,          OpcodeClass::CNP};
  for (const Case& c : cases) {
    for (OpcodeClass cls : all) {
      FrameMatch m;
      m.opcode_class = cls;
      FaultInjector inj(plan_with({FaultRule::every(FaultAction::DROP, m)}));
      const bool expected = std::find(c.in.begin(), c.in.end(), cls) != c.in.end();
      const auto f = frame(c.op, 0x11, 7, false, c.syndrome, 0);
      EXPECT_EQ(inj.decide(kAB, f).drop, expected)
          << wire::opcode_info(wire::to_u8(c.op)).name << " syndrome " << int{c.syndrome}
          << " class " << model::to_string(cls);
    }
  }
}

TEST(FaultRules, PsnAckReqPositionAndDirection) {
  FaultInjector inj(plan_with({rule("corrupt class=read_response psn=0x102"),
                               rule("drop dir=b>a ackreq=1"), rule("delay pos=last delay=500")}));
  // READ responses PSN 0x100..0x103 B→A: only 0x102 is corrupted.
  for (std::uint32_t psn = 0x100; psn < 0x104; ++psn) {
    const auto op = psn == 0x100   ? wire::Opcode::RC_RDMA_READ_RESPONSE_FIRST
                    : psn == 0x103 ? wire::Opcode::RC_RDMA_READ_RESPONSE_LAST
                                   : wire::Opcode::RC_RDMA_READ_RESPONSE_MIDDLE;
    const auto d = inj.decide(kBA, frame(op, 0x11, psn));
    EXPECT_EQ(d.corrupt, psn == 0x102) << psn;
    EXPECT_EQ(d.extra_delay_ns, psn == 0x103 ? 500u : 0u) << psn;
  }
  // A request with PSN 0x102 is no READ response; AckReq drops only B→A.
  EXPECT_FALSE(inj.decide(kAB, frame(wire::Opcode::RC_SEND_ONLY, 0x11, 0x102)).corrupt);
  EXPECT_FALSE(inj.decide(kAB, frame(wire::Opcode::RC_SEND_MIDDLE, 0x11, 1, true)).drop);
  EXPECT_TRUE(inj.decide(kBA, frame(wire::Opcode::RC_SEND_MIDDLE, 0x11, 2, true)).drop);
  EXPECT_FALSE(inj.decide(kBA, frame(wire::Opcode::RC_SEND_MIDDLE, 0x11, 3, false)).drop);
}

TEST(FaultRules, EachRuleCountsOnItsOwnAndSeveralMayFire) {
  // Rule 1's count is the same whether or not rule 0 fires on the same frames.
  FaultInjector inj(plan_with({rule("ecn_ce class=send"), rule("duplicate class=send nth=2"),
                               rule("drop class=send nth=4"), rule("duplicate nth=2")}));
  std::vector<std::string> got;
  for (std::uint32_t psn = 1; psn <= 4; ++psn) {
    const auto d = inj.decide(kAB, frame(wire::Opcode::RC_SEND_ONLY, 0x11, psn));
    std::string s;
    for (const auto& f : d.fired)
      s += std::string(model::to_string(f.action)) + "<" + std::string(f.source) + "> ";
    got.push_back(s);
  }
  EXPECT_EQ(got,
            (std::vector<std::string>{
                "ecn_ce<rule 0: ecn_ce class=send> ",
                // Two rules ask for a duplicate: the first one is named.
                "duplicate<rule 1: duplicate class=send nth=2> ecn_ce<rule 0: ecn_ce class=send> ",
                "ecn_ce<rule 0: ecn_ce class=send> ",
                // A drop is all that happens to a dropped frame.
                "drop<rule 2: drop class=send nth=4> "}));
}

TEST(FaultRules, NonRoceFramesMatchOnlyDirectionRules) {
  std::vector<std::uint8_t> arp(60, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;
  FaultInjector inj(plan_with({rule("drop class=any qp=0x11"), rule("duplicate dir=a>b"),
                               rule("ecn_ce"), rule("corrupt")}));
  const auto d = inj.decide(kAB, arp);
  EXPECT_FALSE(d.drop);
  EXPECT_EQ(d.copies, 2u);
  EXPECT_FALSE(d.ecn_ce);   // not IP: nothing to mark, nothing reported
  EXPECT_FALSE(d.corrupt);  // not RoCE
  EXPECT_EQ(d.fired.size(), 1u);
}

// ---- probabilities --------------------------------------------------------------------------

namespace {

FaultPlan random_plan(std::uint64_t seed) {
  FaultPlan p;
  p.seed = seed;
  p.a_to_b = rates(0.05, 0.03, 0.02, 0.04, 0.01, 0.1);
  p.a_to_b.timing.delay_ns = 1000;
  p.a_to_b.timing.jitter_ns = 500;
  p.b_to_a.drop = 0.1;
  return p;
}

std::vector<std::string> run_random(FaultInjector& inj, int frames, int interleave_ba = 1) {
  std::vector<std::string> out;
  for (int i = 0; i < frames; ++i) {
    const auto psn = static_cast<std::uint32_t>(i);
    out.push_back(fingerprint(inj.decide(kAB, frame(wire::Opcode::RC_SEND_MIDDLE, 0x11, psn))));
    for (int j = 0; j < interleave_ba; ++j)
      inj.decide(kBA, frame(wire::Opcode::RC_ACKNOWLEDGE, 0x11, psn, false, 0, 0));
  }
  return out;
}

}  // namespace

TEST(FaultProbabilities, SameSeedSameFaultsDifferentSeedDifferent) {
  FaultInjector a(random_plan(42)), b(random_plan(42)), c(random_plan(43));
  const auto ra = run_random(a, 5000), rb = run_random(b, 5000), rc = run_random(c, 5000);
  EXPECT_EQ(ra, rb);
  EXPECT_NE(ra, rc);
  std::size_t same = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) same += ra[i] == rc[i] && ra[i] != "0,0" ? 1u : 0u;
  EXPECT_LT(same, 200u);  // the faulted frames of two seeds barely coincide
  EXPECT_EQ(a.counts(kAB).fired, b.counts(kAB).fired);
}

TEST(FaultProbabilities, DecisionsDependOnlyOnSeedDirectionAndFrameIndex) {
  // The other direction's traffic, and rules on other frames, do not shift the draws.
  FaultInjector plain(random_plan(7));
  FaultPlan with_rules = random_plan(7);
  with_rules.rules = {rule("drop dir=b>a"), rule("duplicate dir=a>b psn=100"),
                      rule("delay dir=a>b psn=200")};
  FaultInjector ruled(with_rules);
  const auto base = run_random(plain, 3000, 1);
  const auto other = run_random(ruled, 3000, 3);
  ASSERT_EQ(base.size(), other.size());
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (i == 100 || i == 200) continue;  // the frames the rules took
    EXPECT_EQ(base[i], other[i]) << i;
  }
  EXPECT_EQ(other[100].rfind("duplicate,", 0), 0u);
}

TEST(FaultProbabilities, RatesCloseToTheConfiguredProbabilities) {
  FaultPlan p;
  p.seed = 2024;
  p.a_to_b = rates(0.05, 0.02, 0.1, 0.2, 0.01, 0.5);
  p.b_to_a.drop = 0.3;
  FaultInjector inj(p);
  constexpr int kFrames = 20000;
  for (int i = 0; i < kFrames; ++i) {
    inj.decide(kAB, frame(wire::Opcode::UC_SEND_MIDDLE, 0x11, static_cast<std::uint32_t>(i)));
    inj.decide(
        kBA, frame(wire::Opcode::RC_ACKNOWLEDGE, 0x11, static_cast<std::uint32_t>(i), false, 0, 0));
  }
  const auto& ab = inj.counts(kAB);
  const auto& ba = inj.counts(kBA);
  EXPECT_EQ(ab.frames, std::uint64_t{kFrames});
  // Dropped frames take no other action, so the others apply to the (1 - p_drop) survivors.
  const double survivors = kFrames * 0.95;
  auto near = [](std::uint64_t got, double want) {
    EXPECT_GT(static_cast<double>(got), want * 0.8) << want;
    EXPECT_LT(static_cast<double>(got), want * 1.2) << want;
  };
  near(ab.of(FaultAction::DROP), kFrames * 0.05);
  near(ab.of(FaultAction::DUPLICATE), survivors * 0.02);
  near(ab.of(FaultAction::REORDER), survivors * 0.1);
  near(ab.of(FaultAction::DELAY), survivors * 0.2);
  near(ab.of(FaultAction::CORRUPT), survivors * 0.01);
  near(ab.of(FaultAction::ECN_CE), survivors * 0.5);
  near(ba.of(FaultAction::DROP), kFrames * 0.3);
  EXPECT_EQ(ba.of(FaultAction::ECN_CE), 0u);
  EXPECT_EQ(ba.of(FaultAction::DUPLICATE), 0u);
}

TEST(FaultProbabilities, ZeroAndOne) {
  FaultPlan p;
  p.a_to_b.duplicate = 1.0;
  FaultInjector inj(p);
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const auto d = inj.decide(kAB, frame(wire::Opcode::RC_SEND_ONLY, 0x11, i));
    ASSERT_EQ(d.fired.size(), 1u);
    EXPECT_EQ(d.copies, 2u);
    EXPECT_EQ(d.fired[0].source, "random p=1");
    EXPECT_FALSE(inj.decide(kBA, frame(wire::Opcode::RC_ACKNOWLEDGE, 0x11, i, false, 0, 0)).any());
  }
}

TEST(FaultProbabilities, JitterStaysInItsBounds) {
  FaultPlan p;
  p.seed = 5;
  p.a_to_b.delay = 1.0;
  p.a_to_b.timing.delay_ns = 1000;
  p.a_to_b.timing.jitter_ns = 99;
  FaultInjector inj(p);
  std::map<sim::SimTime, int> seen;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    const auto d = inj.decide(kAB, frame(wire::Opcode::RC_SEND_ONLY, 0x11, i));
    ASSERT_GE(d.extra_delay_ns, 1000u);
    ASSERT_LE(d.extra_delay_ns, 1099u);
    ++seen[d.extra_delay_ns];
  }
  EXPECT_EQ(seen.size(), 100u);  // every value of the range turns up
}

// ---- byte faults ----------------------------------------------------------------------------

TEST(FaultBytes, EcnCeKeepsTheIcrcAndFixesTheIpv4Checksum) {
  for (unsigned v : {4u, 6u}) {
    for (std::uint8_t ecn = 0; ecn < 3; ++ecn) {
      wire::SampleOptions o;
      o.ip_version = v;
      o.payload_len = 33;
      o.seed = 77 + ecn;
      wire::FrameSpec s = wire::sample_frame(wire::to_u8(wire::Opcode::RC_SEND_ONLY), o);
      s.ip.ecn = ecn;
      s.ip.dscp = 26;
      s.icrc.reset();
      wire::finalize(s);
      auto f = wire::encode(s);
      ASSERT_TRUE(model::mark_ecn_ce(f));
      const wire::ParsedFrame p = wire::decode(f);
      ASSERT_FALSE(p.has_error);
      EXPECT_EQ(p.ip.ecn, 3);
      EXPECT_EQ(p.ip.dscp, 26);  // DSCP untouched
      EXPECT_TRUE(p.icrc_ok) << "IPv" << v;
      if (v == 4) {
        EXPECT_EQ(wire::ipv4_checksum(p.bytes.subspan(p.ip_off, p.ip_header_len)), p.ip.checksum);
      }
      // Nothing else changed.
      wire::FrameSpec back = wire::to_spec(p);
      back.ip.ecn = ecn;
      back.ip.checksum = s.ip.checksum;
      back.icrc.reset();
      EXPECT_EQ(back, s);
    }
  }
}

TEST(FaultBytes, CorruptionIsCaughtByTheIcrcAndNothingElse) {
  // Every opcode, IPv4 and IPv6, with and without a VLAN tag, many bits: the frame still
  // decodes to the same addressing (so admission reaches the ICRC check) and fails the ICRC.
  std::uint64_t draws = 0;
  for (std::uint8_t opcode : wire::known_opcodes()) {
    for (unsigned v : {4u, 6u}) {
      for (bool vlan : {false, true}) {
        wire::SampleOptions o;
        o.ip_version = v;
        o.vlan = vlan;
        o.payload_len = 13;
        o.seed = opcode * 7u + v;
        const auto clean = wire::encode(wire::sample_frame(opcode, o));
        const wire::ParsedFrame before = wire::decode(clean);
        ASSERT_TRUE(before.icrc_ok);
        wire::SplitMix64 g(opcode);
        for (int i = 0; i < 40; ++i, ++draws) {
          auto f = clean;
          const auto off = model::corrupt_frame(f, g.next());
          ASSERT_TRUE(off.has_value());
          ASSERT_GE(*off, before.bth_off + 8);
          const wire::ParsedFrame p = wire::decode(f);
          ASSERT_FALSE(p.has_error) << before.op->name;
          ASSERT_TRUE(p.roce);
          EXPECT_FALSE(p.icrc_ok) << before.op->name << " byte " << *off;
          EXPECT_EQ(p.bth.opcode, before.bth.opcode);
          EXPECT_EQ(p.bth.dqpn, before.bth.dqpn);
          EXPECT_EQ(p.bth.pkey, before.bth.pkey);
          EXPECT_EQ(p.bth.tver, before.bth.tver);
          EXPECT_EQ(p.bth.padcnt, before.bth.padcnt);
          EXPECT_EQ(p.ip, before.ip);
          EXPECT_EQ(p.udp, before.udp);
          EXPECT_EQ(p.deth, before.deth);
          EXPECT_EQ(p.payload_len, before.payload_len);
        }
      }
    }
  }
  EXPECT_GT(draws, 1000u);
  std::vector<std::uint8_t> not_roce(64, 0);
  EXPECT_FALSE(model::corrupt_frame(not_roce, 1).has_value());
  EXPECT_FALSE(model::mark_ecn_ce(not_roce));
}

// ---- the link between two adapters ------------------------------------------------------------

namespace {

struct Arrival {
  sim::SimTime t = 0;
  std::string op;
  std::uint32_t psn = 0;
  std::vector<std::uint8_t> bytes;
};

// What each adapter received, what it dropped and why, and the faults the link reported.
struct LinkRecorder : trace::Observer {
  std::vector<Arrival> rx[2];
  std::vector<std::string> drops[2];
  std::vector<std::string> faults;  // "t from action op psn | rule"
  std::vector<std::vector<std::uint8_t>> fault_bytes;
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::RX) return;
    const wire::ParsedFrame p = wire::decode(e.bytes);
    rx[e.adapter & 1].push_back({e.t, p.has_bth ? std::string(p.op->name) : "?", p.bth.psn,
                                 std::vector<std::uint8_t>(e.bytes.begin(), e.bytes.end())});
  }
  void on_drop(const trace::DropEvent& e) override {
    drops[e.adapter & 1].push_back(std::string(e.reason));
  }
  void on_fault(const trace::FaultEvent& e) override {
    const wire::ParsedFrame p = wire::decode(e.bytes);
    EXPECT_TRUE(p.icrc_ok);  // reported as handed over, before any byte fault
    faults.push_back(std::to_string(e.t) + " " + std::to_string(e.from_adapter) + " " +
                     std::string(e.action) + " " + std::string(p.op->name) + " " +
                     std::to_string(p.bth.psn) + " | " + std::string(e.rule));
    fault_bytes.emplace_back(e.bytes.begin(), e.bytes.end());
  }
  std::vector<std::uint32_t> psns(int side) const {
    std::vector<std::uint32_t> v;
    for (const auto& a : rx[side]) v.push_back(a.psn);
    return v;
  }
};

struct LinkTest {
  Pair t;
  LinkRecorder rec;
  explicit LinkTest(qp::QpType type, FaultPlan plan) : t(type) {
    t.sim.observers().add(&rec);
    t.sim.link(0).set_faults(std::move(plan));
  }
  // One RDMA WRITE of `len` bytes A→B (MTU 1024).
  void write(std::uint64_t id, std::uint32_t len) {
    auto w = t.wr(id, tx::WrOpcode::RDMA_WRITE, kBase, len);
    w.remote_addr = kBase + 0x10000;
    ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  }
};

// Far below any retransmit timeout (timeout 14: about 67 ms).
constexpr sim::SimTime kBound = 1'000'000;

}  // namespace

TEST(FaultLink, DropByRule) {
  LinkTest l(qp::QpType::UC, plan_with({rule("drop opcode=UC_RDMA_WRITE_MIDDLE qp=0x11 nth=2")}));
  l.write(1, 4096);  // FIRST 0x100, MIDDLE 0x101, MIDDLE 0x102, LAST 0x103
  l.t.sim.run_until(kBound);
  EXPECT_EQ(l.rec.psns(1), (std::vector<std::uint32_t>{0x100, 0x101, 0x103}));
  ASSERT_EQ(l.rec.faults.size(), 1u);
  EXPECT_EQ(
      l.rec.faults[0].substr(l.rec.faults[0].find(' ') + 1),
      "0 drop UC_RDMA_WRITE_MIDDLE 258 | rule 0: drop opcode=UC_RDMA_WRITE_MIDDLE qp=0x11 nth=2");
  EXPECT_EQ(l.t.sim.link(0).faults().counts(kAB).of(FaultAction::DROP), 1u);
}

TEST(FaultLink, DropTheFirstAck) {
  LinkTest l(qp::QpType::RC, plan_with({rule("drop class=ack nth=1")}));
  ASSERT_EQ(l.t.b.ad->post_recv(l.t.b.qpn, {1, {{kBase, 4096, l.t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  ASSERT_EQ(l.t.b.ad->post_recv(l.t.b.qpn, {2, {{kBase + 4096, 4096, l.t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  ASSERT_EQ(l.t.a.ad->post_send(l.t.a.qpn, l.t.wr(1, tx::WrOpcode::SEND, kBase, 64)),
            model::PostError::OK);
  l.t.sim.run_until(100'000);
  ASSERT_EQ(l.t.a.ad->post_send(l.t.a.qpn, l.t.wr(2, tx::WrOpcode::SEND, kBase, 64)),
            model::PostError::OK);
  l.t.sim.run_until(kBound);
  ASSERT_EQ(l.rec.faults.size(), 1u);
  EXPECT_EQ(l.rec.faults[0].substr(l.rec.faults[0].find(' ') + 1),
            "1 drop RC_ACKNOWLEDGE 256 | rule 0: drop class=ack nth=1");
  // A got the second ACK only; B got both SENDs.
  ASSERT_FALSE(l.rec.rx[0].empty());
  EXPECT_EQ(l.rec.rx[0][0].op, "RC_ACKNOWLEDGE");
  EXPECT_EQ(l.rec.rx[0][0].psn, 0x101u);
  EXPECT_EQ(l.rec.psns(1), (std::vector<std::uint32_t>{0x100, 0x101}));
}

TEST(FaultLink, DuplicateArrivesTwiceBackToBack) {
  LinkTest l(qp::QpType::UC, plan_with({rule("duplicate class=write pos=middle nth=1")}));
  l.write(1, 4096);
  l.t.sim.run_until(kBound);
  ASSERT_EQ(l.rec.psns(1), (std::vector<std::uint32_t>{0x100, 0x101, 0x101, 0x102, 0x103}));
  EXPECT_EQ(l.rec.rx[1][1].t, l.rec.rx[1][2].t);
  EXPECT_EQ(l.rec.rx[1][1].bytes, l.rec.rx[1][2].bytes);
}

TEST(FaultLink, ReorderLetsLaterFramesOvertake) {
  {
    LinkTest l(qp::QpType::UC, plan_with({rule("reorder psn=0x101")}));
    l.write(1, 4096);
    l.t.sim.run_until(kBound);
    EXPECT_EQ(l.rec.psns(1), (std::vector<std::uint32_t>{0x100, 0x102, 0x101, 0x103}));
    EXPECT_EQ(l.rec.rx[1][1].t, l.rec.rx[1][2].t);  // right behind the frame that overtook it
  }
  {
    LinkTest l(qp::QpType::UC, plan_with({rule("reorder psn=0x100 overtake=2")}));
    l.write(1, 4096);
    l.t.sim.run_until(kBound);
    EXPECT_EQ(l.rec.psns(1), (std::vector<std::uint32_t>{0x101, 0x102, 0x100, 0x103}));
  }
  {
    LinkTest l(qp::QpType::UC,
               plan_with({rule("reorder psn=0x100 overtake=2"), rule("reorder psn=0x101")}));
    l.write(1, 4096);
    l.t.sim.run_until(kBound);
    // 0x102 overtakes both and releases 0x101, which is the second frame to overtake 0x100.
    EXPECT_EQ(l.rec.psns(1), (std::vector<std::uint32_t>{0x102, 0x101, 0x100, 0x103}));
  }
  {
    // Nothing comes after the last frame: it is released when its hold expires.
    LinkTest l(qp::QpType::UC, plan_with({rule("reorder pos=last hold=7000")}));
    l.write(1, 4096);
    l.t.sim.run_until(kBound);
    ASSERT_EQ(l.rec.psns(1), (std::vector<std::uint32_t>{0x100, 0x101, 0x102, 0x103}));
    LinkTest plain(qp::QpType::UC, {});
    plain.write(1, 4096);
    plain.t.sim.run_until(kBound);
    EXPECT_EQ(l.rec.rx[1][3].t, plain.rec.rx[1][3].t + 7000);
  }
}

TEST(FaultLink, DelayAddsLatencyToThatFrameAlone) {
  LinkTest plain(qp::QpType::UC, {});
  plain.write(1, 4096);
  plain.t.sim.run_until(kBound);
  LinkTest l(qp::QpType::UC, plan_with({rule("delay psn=0x101 delay=250")}));
  l.write(1, 4096);
  l.t.sim.run_until(kBound);
  ASSERT_EQ(l.rec.psns(1).size(), 4u);
  std::map<std::uint32_t, sim::SimTime> at, base;
  for (const auto& a : l.rec.rx[1]) at[a.psn] = a.t;
  for (const auto& a : plain.rec.rx[1]) base[a.psn] = a.t;
  EXPECT_EQ(at[0x101], base[0x101] + 250);
  EXPECT_EQ(at[0x100], base[0x100]);
  EXPECT_EQ(at[0x102], base[0x102]);
  // A delay longer than the gap between frames reorders.
  LinkTest far(qp::QpType::UC, plan_with({rule("delay psn=0x101 delay=1000000")}));
  far.write(1, 4096);
  far.t.sim.run_until(2 * kBound);
  EXPECT_EQ(far.rec.psns(1), (std::vector<std::uint32_t>{0x100, 0x102, 0x103, 0x101}));
}

TEST(FaultLink, CorruptedReadResponseIsDroppedForItsIcrc) {
  LinkTest l(qp::QpType::RC, plan_with({rule("corrupt class=read_response psn=0x102 nth=1")}));
  auto w = l.t.wr(1, tx::WrOpcode::RDMA_READ, kBase, 3000);  // responses 0x100, 0x101, 0x102
  w.remote_addr = kBase + 0x2000;
  ASSERT_EQ(l.t.a.ad->post_send(l.t.a.qpn, w), model::PostError::OK);
  l.t.sim.run_until(kBound);
  ASSERT_EQ(l.rec.faults.size(), 1u);
  EXPECT_NE(l.rec.faults[0].find(" 1 corrupt RC_RDMA_READ_RESPONSE_LAST 258 | rule 0: corrupt"),
            std::string::npos)
      << l.rec.faults[0];
  ASSERT_EQ(l.rec.psns(0), (std::vector<std::uint32_t>{0x100, 0x101, 0x102}));
  const wire::ParsedFrame got = wire::decode(l.rec.rx[0][2].bytes);
  EXPECT_FALSE(got.icrc_ok);
  EXPECT_NE(l.rec.rx[0][2].bytes, l.rec.fault_bytes[0]);
  EXPECT_EQ(l.rec.drops[0], (std::vector<std::string>{"icrc"}));
  EXPECT_TRUE(l.rec.drops[1].empty());
}

TEST(FaultLink, EcnMarkedFramesArriveIntactAndAreAccepted) {
  LinkTest l(qp::QpType::RC, plan_with({rule("ecn_ce dir=a>b")}));
  std::vector<std::uint8_t> data(2500);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 13);
  l.t.a.ad->memory().write(kBase, data);
  l.write(1, 2500);
  l.t.sim.run_until(kBound);
  ASSERT_EQ(l.rec.rx[1].size(), 3u);
  for (const Arrival& a : l.rec.rx[1]) {
    const wire::ParsedFrame p = wire::decode(a.bytes);
    EXPECT_EQ(p.ip.ecn, 3);
    EXPECT_TRUE(p.icrc_ok);
    EXPECT_EQ(wire::ipv4_checksum(p.bytes.subspan(p.ip_off, p.ip_header_len)), p.ip.checksum);
  }
  EXPECT_TRUE(l.rec.drops[1].empty());
  EXPECT_EQ(l.t.b.ad->memory().read_bytes(kBase + 0x10000, 2500), data);
  ASSERT_EQ(l.rec.rx[0].size(), 1u);  // the ACK B→A is not marked
  EXPECT_EQ(wire::decode(l.rec.rx[0][0].bytes).ip.ecn, 0);
  EXPECT_EQ(l.rec.faults.size(), 3u);
}

namespace {

// ~3200 UC frames A→B under random faults; what the link reported and what B received.
std::pair<std::vector<std::string>, std::vector<std::string>> uc_run(
    FaultPlan plan, std::uint64_t* frames = nullptr) {
  LinkTest l(qp::QpType::UC, std::move(plan));
  for (std::uint64_t i = 0; i < 50; ++i) {
    l.write(i, 65536);
    l.t.sim.run_until(l.t.sim.events().now() + kBound);
    l.t.poll(l.t.a);
  }
  std::vector<std::string> rx;
  for (const Arrival& a : l.rec.rx[1])
    rx.push_back(std::to_string(a.t) + " " + std::to_string(a.psn) + " " +
                 std::to_string(wire::decode(a.bytes).icrc));
  if (frames) *frames = l.t.sim.link(0).faults().counts(kAB).frames;
  return {l.rec.faults, rx};
}

}  // namespace

TEST(FaultLink, RandomFaultsAreReproducibleFromTheSeed) {
  FaultPlan p;
  p.a_to_b = rates(0.03, 0.03, 0.03, 0.03, 0.03, 0.03);
  p.a_to_b.timing.delay_ns = 3000;
  p.a_to_b.timing.jitter_ns = 2000;
  p.seed = 99;
  std::uint64_t frames = 0;
  const auto first = uc_run(p, &frames);
  const auto again = uc_run(p);
  EXPECT_GE(frames, 3200u);
  EXPECT_EQ(first, again);
  p.seed = 100;
  const auto other = uc_run(p);
  EXPECT_NE(first.first, other.first);
  EXPECT_NE(first.second, other.second);
  // Loose rates over the run: six actions at 3 % each.
  std::map<std::string, int> by_action;
  for (const auto& f : first.first) {
    const auto a = f.find(' ', f.find(' ') + 1) + 1;
    ++by_action[f.substr(a, f.find(' ', a) - a)];
  }
  for (const char* action : {"drop", "duplicate", "reorder", "delay", "corrupt", "ecn_ce"}) {
    EXPECT_GT(by_action[action], 50) << action;
    EXPECT_LT(by_action[action], 150) << action;
  }
}

TEST(FaultLink, AnEmptyPlanChangesNothing) {
  const auto with = uc_run(FaultPlan{});
  EXPECT_TRUE(with.first.empty());
  EXPECT_EQ(with.second.size(), 3200u);
}
