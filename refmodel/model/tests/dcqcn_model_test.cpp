// The DCQCN reaction point wired into the model (Profile::dcqcn, docs/dcqcn.md): the
// requester paces its packets at the QP's rate, CNPs for the QP cut it, packets leave ECT(0).
// Expected gaps come from the rate (serialization time), not from the model's output.
#include <gtest/gtest.h>

#include <vector>

#include "model_pair.h"
#include "rocecert/cc/dcqcn.h"
#include "rocecert/model/faults.h"

using namespace rocecert;
using namespace rocecert::testing;

namespace {

struct Sent {
  sim::SimTime t;
  std::size_t bytes;
  std::uint8_t ecn;
};

// A's request packets: when they left, their length and ECN bits.
struct RequestLog : trace::Observer {
  std::vector<Sent> rows;
  std::vector<trace::RateEvent> rates;
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX || e.adapter != 0) return;
    const wire::ParsedFrame p = wire::decode(e.bytes);
    if (p.has_bth && p.op->is_request()) rows.push_back({e.t, e.bytes.size(), p.ip.ecn});
  }
  void on_rate(const trace::RateEvent& e) override { rates.push_back(e); }
};

struct CcPair : Pair {
  RequestLog log;
  explicit CcPair(bool dcqcn, bool send_cnp = false)
      : Pair(qp::QpType::RC, 1024, 0xF, 0x100, 0x200, [dcqcn, send_cnp](model::AdapterConfig& c) {
          c.profile.dcqcn = dcqcn;
          c.profile.line_rate_gbps = 25;
          c.profile.send_cnp = send_cnp;
          c.profile.cnp_interval_ns = 50'000;
        }) {
    sim.observers().add(&log);
  }
  void writes(int n, std::uint32_t len) {
    for (int i = 0; i < n; ++i) {
      tx::SendWr w = wr(static_cast<std::uint64_t>(i), tx::WrOpcode::RDMA_WRITE, kBase, len);
      w.remote_addr = kBase + 0x40000 + static_cast<std::uint64_t>(i) * 0x4000;
      ASSERT_EQ(a.ad->post_send(a.qpn, w), model::PostError::OK);
    }
  }
};

}  // namespace

TEST(DcqcnInModel, OffMeansUnpacedAndNotEcnCapable) {
  CcPair t(false);
  t.writes(1, 8192);
  t.sim.run_until(10'000'000);
  ASSERT_EQ(t.log.rows.size(), 8u);
  for (const Sent& s : t.log.rows) {
    EXPECT_EQ(s.t, 0u);  // the whole message leaves at once
    EXPECT_EQ(s.ecn, 0u);
  }
  EXPECT_EQ(t.a.ad->send_rate_gbps(t.a.qpn), 0.0);
}

TEST(DcqcnInModel, WithoutCnpsPacketsLeaveAtLineRateEcnCapable) {
  CcPair t(true);
  t.writes(2, 8192);
  t.sim.run_until(10'000'000);
  ASSERT_EQ(t.log.rows.size(), 16u);
  for (std::size_t i = 1; i < t.log.rows.size(); ++i) {
    // Each packet waits for the previous one's serialization at 25 Gb/s: ceil(bytes * 8 / 25).
    const auto& prev = t.log.rows[i - 1];
    EXPECT_EQ(t.log.rows[i].t - prev.t,
              cc::RatePacer::serialization_ns(static_cast<std::uint32_t>(prev.bytes), 25'000'000))
        << i;
  }
  for (const Sent& s : t.log.rows) EXPECT_EQ(s.ecn, 2u);  // ECT(0)
  EXPECT_EQ(t.a.ad->send_rate_gbps(t.a.qpn), 25.0);
  ASSERT_EQ(t.poll(t.a).size(), 2u);
}

TEST(DcqcnInModel, CnpsCutTheRateAndWidenTheGaps) {
  CcPair t(true, /*send_cnp=*/true);
  // A switch marks every A→B packet CE; B (the notification point) answers with at most one
  // CNP per 50 µs; A (the reaction point) cuts its rate on each.
  model::FaultPlan plan;
  plan.a_to_b.ecn_ce = 1.0;
  t.sim.link(0).set_faults(plan);
  const std::vector<std::uint8_t> data(64 * 1024, 0x5A);
  t.a.ad->memory().write(kBase, data);
  t.writes(4, 64 * 1024);
  t.sim.run_until(100'000'000);
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 4u);
  for (const auto& c : wc) EXPECT_EQ(c.status, cq::WcStatus::SUCCESS);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(t.b.ad->memory().read_bytes(kBase + 0x40000 + static_cast<std::uint64_t>(i) * 0x4000,
                                          0x4000),
              std::vector<std::uint8_t>(data.begin(), data.begin() + 0x4000));
  ASSERT_GT(t.a.ad->cnps_received(t.a.qpn), 1u);
  ASSERT_EQ(t.log.rates.size(), t.a.ad->cnps_received(t.a.qpn));
  // The first CNP halves the rate (alpha starts at 1: Rc = Rc (1 - 1/2)).
  EXPECT_DOUBLE_EQ(t.log.rates.front().rate_gbps, 12.5);
  EXPECT_DOUBLE_EQ(t.log.rates.front().target_gbps, 25.0);
  // Later CNPs keep it down (between two of them the timer may raise it a little: with every
  // packet marked, packets and so CNPs get rarer as the rate falls), never below the minimum.
  const double min_rate = static_cast<double>(model::Profile{}.dcqcn_params.min_rate_kbps) / 1e6;
  for (const auto& e : t.log.rates) {
    EXPECT_LT(e.rate_gbps, 25.0);
    EXPECT_GE(e.rate_gbps, min_rate);
  }
  EXPECT_LT(t.log.rates.back().rate_gbps, 1.0);
  // After the first cut, the gaps are at least the serialization time at 12.5 Gb/s.
  const sim::SimTime cut = t.log.rates.front().t;
  for (std::size_t i = 1; i < t.log.rows.size(); ++i) {
    if (t.log.rows[i - 1].t < cut) continue;
    EXPECT_GE(t.log.rows[i].t - t.log.rows[i - 1].t,
              cc::RatePacer::serialization_ns(static_cast<std::uint32_t>(t.log.rows[i - 1].bytes),
                                              12'500'000))
        << i;
  }
}

TEST(DcqcnInModel, TheRateRecoversOnceMarkingStops) {
  CcPair t(true, /*send_cnp=*/true);
  model::FaultPlan plan;
  const auto r = model::parse_fault_rule("ecn_ce dir=a>b nth=1..3");
  ASSERT_TRUE(r.ok()) << r.error;
  plan.rules.push_back(r.rule);
  t.sim.link(0).set_faults(plan);
  t.writes(1, 4096);
  t.sim.run_until(1'000'000);
  ASSERT_EQ(t.a.ad->cnps_received(t.a.qpn), 1u);  // three marks within 50 µs: one CNP
  EXPECT_LT(t.a.ad->send_rate_gbps(t.a.qpn), 25.0);
  // Timer-driven recovery (fast recovery, then additive and hyper increase) brings it back.
  t.sim.run_until(1'000'000'000);
  EXPECT_DOUBLE_EQ(t.a.ad->send_rate_gbps(t.a.qpn), 25.0);
}

// A getter: callable on a const adapter, and asking changes nothing (no rate controller is made
// for the QP, no time-driven update is applied to the QP's own one).
static_assert(requires(const model::Adapter& a) { a.send_rate_gbps(qp::Qpn{}); });

TEST(DcqcnInModel, TheRateQueryIsAConstGetter) {
  CcPair t(true, /*send_cnp=*/true);
  const model::Adapter& a = *t.a.ad;
  EXPECT_EQ(a.send_rate_gbps(t.a.qpn), 25.0);  // no rate controller yet: the line rate
  EXPECT_EQ(a.send_rate_gbps(qp::Qpn(t.a.qpn.value() + 100)), 0.0);  // no such QP
  model::FaultPlan plan;
  const auto r = model::parse_fault_rule("ecn_ce dir=a>b nth=1..3");
  ASSERT_TRUE(r.ok()) << r.error;
  plan.rules.push_back(r.rule);
  t.sim.link(0).set_faults(plan);
  t.writes(1, 4096);
  t.sim.run_until(1'000'000);
  ASSERT_EQ(a.cnps_received(t.a.qpn), 1u);
  const double cut = a.send_rate_gbps(t.a.qpn);
  EXPECT_LT(cut, 25.0);
  EXPECT_EQ(a.send_rate_gbps(t.a.qpn), cut);  // asking twice gives the same answer
  t.sim.run_until(1'000'000'000);
  EXPECT_DOUBLE_EQ(a.send_rate_gbps(t.a.qpn), 25.0);  // recovered, seen through the copy
}
