// The responder's ACK policy (Profile::ack; IBA §9.7.5.1.1, docs/spec-notes.md §3.4): rxe's one ACK
// per AckReq'd packet, an ACK for every packet, and coalescing by count and by delay. Expected
// PSNs, MSNs and times are worked out from the rules, not read off the model.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_pair.h"

using namespace rocecert;
using namespace rocecert::testing;

namespace {

struct Response {
  sim::SimTime t;
  std::string op;
  std::uint32_t psn;
  std::uint32_t msn;
  std::uint8_t syndrome;
};

// B's transmitted frames (the responder's side of QP pair A→B).
struct ResponseLog : trace::Observer {
  std::vector<Response> rows;
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX || e.adapter != 1) return;
    const wire::ParsedFrame p = wire::decode(e.bytes);
    rows.push_back({e.t, std::string(p.op->name), p.bth.psn,
                    p.has(wire::Header::Aeth) ? p.aeth.msn : 0,
                    p.has(wire::Header::Aeth) ? p.aeth.syndrome : std::uint8_t{0}});
  }
  std::vector<std::uint32_t> ack_psns() const {
    std::vector<std::uint32_t> v;
    for (const auto& r : rows)
      if (r.op == "RC_ACKNOWLEDGE") v.push_back(r.psn);
    return v;
  }
};

struct AckPair : Pair {
  ResponseLog log;
  explicit AckPair(model::AckCoalescing policy)
      : Pair(qp::QpType::RC, 1024, 0xF, 0x100, 0x200,
             [policy](model::AdapterConfig& c) { c.profile.ack = policy; }) {
    sim.observers().add(&log);
  }
  // `n` WRITEs of `len` bytes, posted back to back at time 0.
  void writes(int n, std::uint32_t len) {
    for (int i = 0; i < n; ++i) {
      tx::SendWr w = wr(static_cast<std::uint64_t>(i), tx::WrOpcode::RDMA_WRITE, kBase, len);
      w.remote_addr = kBase + 0x10000 + static_cast<std::uint64_t>(i) * 0x2000;
      ASSERT_EQ(a.ad->post_send(a.qpn, w), model::PostError::OK);
    }
  }
  void expect_all_succeed(std::size_t n) {
    const auto wc = poll(a);
    ASSERT_EQ(wc.size(), n);
    for (const auto& c : wc) EXPECT_EQ(c.status, cq::WcStatus::SUCCESS);
  }
};

model::AckCoalescing mode(model::AckCoalescing::Mode m, std::uint32_t packets = 16,
                          sim::SimTime delay = 2000) {
  model::AckCoalescing c;
  c.mode = m;
  c.max_packets = packets;
  c.max_delay_ns = delay;
  return c;
}

}  // namespace

TEST(AckPolicy, AckReqModeAcksEachMessageEndAsRxe) {
  AckPair t(mode(model::AckCoalescing::Mode::ACKREQ));
  t.writes(3, 3000);  // 3 packets each: PSNs 0x100-0x102, 0x103-0x105, 0x106-0x108
  t.sim.run_until(10'000'000);
  EXPECT_EQ(t.log.ack_psns(), (std::vector<std::uint32_t>{0x102, 0x105, 0x108}));
  t.expect_all_succeed(3);
}

TEST(AckPolicy, EveryPacketModeAcksEveryPacketWithTheMsnSoFar) {
  AckPair t(mode(model::AckCoalescing::Mode::EVERY_PACKET));
  t.writes(2, 3000);
  t.sim.run_until(10'000'000);
  EXPECT_EQ(t.log.ack_psns(),
            (std::vector<std::uint32_t>{0x100, 0x101, 0x102, 0x103, 0x104, 0x105}));
  // The MSN counts complete messages: 0, 0, 1 for the first WRITE, then 1, 1, 2.
  std::vector<std::uint32_t> msns;
  for (const auto& r : t.log.rows) msns.push_back(r.msn);
  EXPECT_EQ(msns, (std::vector<std::uint32_t>{0, 0, 1, 1, 1, 2}));
  t.expect_all_succeed(2);
}

TEST(AckPolicy, CoalescingByCountSendsOneAckPerMaxPackets) {
  AckPair t(mode(model::AckCoalescing::Mode::COALESCE, 4, 1'000'000));
  t.writes(8, 100);  // 8 single-packet WRITEs, PSNs 0x100..0x107, all AckReq'd
  t.sim.run_until(10'000'000);
  // The 4th and the 8th packet reach the count: two ACKs, each for everything up to it.
  ASSERT_EQ(t.log.rows.size(), 2u);
  EXPECT_EQ(t.log.rows[0].psn, 0x103u);
  EXPECT_EQ(t.log.rows[0].msn, 4u);
  EXPECT_EQ(t.log.rows[1].psn, 0x107u);
  EXPECT_EQ(t.log.rows[1].msn, 8u);
  t.expect_all_succeed(8);
}

TEST(AckPolicy, CoalescingByDelaySendsTheAckWhenTheDelayRunsOut) {
  AckPair t(mode(model::AckCoalescing::Mode::COALESCE, 16, 5'000));
  t.writes(3, 100);
  t.sim.run_until(10'000'000);
  // All three arrive at 1 µs (link latency); the first arms the ACK, which leaves 5 µs later
  // and covers the third.
  ASSERT_EQ(t.log.rows.size(), 1u);
  EXPECT_EQ(t.log.rows[0].psn, 0x102u);
  EXPECT_EQ(t.log.rows[0].msn, 3u);
  EXPECT_EQ(t.log.rows[0].t, 1'000u + 5'000u);
  t.expect_all_succeed(3);
}

TEST(AckPolicy, PendingAckGoesOutBeforeAReadResponseAndANak) {
  AckPair t(mode(model::AckCoalescing::Mode::COALESCE, 16, 1'000'000));
  t.writes(2, 100);  // PSNs 0x100, 0x101
  tx::SendWr r = t.wr(9, tx::WrOpcode::RDMA_READ, kBase + 0x8000, 100);
  r.remote_addr = kBase;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, r), model::PostError::OK);  // PSN 0x102
  tx::SendWr bad = t.wr(10, tx::WrOpcode::RDMA_WRITE, kBase, 100);
  bad.remote_addr = kBase;
  bad.rkey ^= 0x100;  // a key B does not have: NAK remote access error
  tx::SendWr good = t.wr(11, tx::WrOpcode::RDMA_WRITE, kBase, 100);
  good.remote_addr = kBase + 0x20000;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, good), model::PostError::OK);  // PSN 0x103: ACK pending
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, bad), model::PostError::OK);   // PSN 0x104
  t.sim.run_until(10'000'000);
  std::vector<std::string> seq;
  for (const auto& row : t.log.rows) seq.push_back(row.op + "@" + std::to_string(row.psn - 0x100));
  EXPECT_EQ(seq, (std::vector<std::string>{"RC_ACKNOWLEDGE@1", "RC_RDMA_READ_RESPONSE_ONLY@2",
                                           "RC_ACKNOWLEDGE@3", "RC_ACKNOWLEDGE@4"}));
  ASSERT_EQ(t.log.rows.size(), 4u);
  EXPECT_EQ(t.log.rows[2].msn, 4u);  // the coalesced ACK for 0x103 carries MSN 4
  EXPECT_EQ(t.log.rows[2].syndrome, 0x1Fu);
  EXPECT_EQ(t.log.rows[3].syndrome, 0x62u);  // NAK remote access error, after the ACK
}

TEST(AckPolicy, ADuplicateWhileAnAckIsPendingGetsThatAckOnly) {
  AckPair t(mode(model::AckCoalescing::Mode::COALESCE, 16, 1'000'000));
  model::FaultPlan plan;
  const auto dup = model::parse_fault_rule("duplicate dir=a>b nth=2");
  ASSERT_TRUE(dup.ok()) << dup.error;
  plan.rules.push_back(dup.rule);
  t.sim.link(0).set_faults(plan);
  t.writes(3, 100);  // the 2nd WRITE arrives twice
  t.sim.run_until(10'000'000);
  // The duplicate flushes the pending ACK (PSN 0x101, which already re-acknowledges it); the
  // third WRITE's ACK leaves when the delay runs out.
  EXPECT_EQ(t.log.ack_psns(), (std::vector<std::uint32_t>{0x101, 0x102}));
  EXPECT_EQ(t.b.ad->qps().find(t.b.qpn)->resp.msn.value(), 3u);
  t.expect_all_succeed(3);
}
