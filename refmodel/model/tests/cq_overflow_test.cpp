// A completion queue shared by several QPs overruns (multi-QP errors): what rxe does
// according to vectors/real/cq_overflow.pcap and its notes in vectors/real/README.md:
// the responder that cannot post a receive completion sends nothing, its QP goes to ERR and
// CQ_ERR is raised; the requester hears silence, retries on timeout and fails with
// RETRY_EXC_ERR. The other QP on the same CQ, which posted nothing into the full CQ, carries on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_pair.h"

using namespace rocecert;
using namespace rocecert::testing;

namespace {

struct AsyncLog : trace::Observer {
  std::vector<std::string> events;
  void on_async_event(const trace::AsyncEvent& e) override {
    events.push_back(std::to_string(e.adapter) + ":" + std::string(errors::to_string(e.kind)) +
                     ":" + std::to_string(e.object));
  }
};

struct SharedCqPairs : Pair {
  AsyncLog async;
  qp::CqId small_cq;  // on B, capacity 2, shared by b1 and b2
  qp::Qpn a1, a2, b1, b2;

  explicit SharedCqPairs(errors::ErrorProfile profile = errors::ErrorProfile::RXE)
      : Pair(qp::QpType::RC, 1024, 0xF, 0x100, 0x200,
             [profile](model::AdapterConfig& c) { c.profile.error_profile = profile; }) {
    sim.observers().add(&async);
    small_cq = b.ad->create_cq(2);
    auto make = [](Side& s, qp::CqId cq) {
      qp::CreateQpParams p;
      p.type = qp::QpType::RC;
      p.pd = qp::PdId{s.pd.value};
      p.send_cq = p.recv_cq = cq;
      p.caps = {16, 16, 1, 1, 0};
      return s.ad->create_qp(p).qpn;
    };
    a1 = make(a, a.cq);
    a2 = make(a, a.cq);
    b1 = make(b, small_cq);
    b2 = make(b, small_cq);
    model::BringUp up;
    up.access = 0xE;
    up.timeout = 8;    // 1.05 ms
    up.retry_cnt = 2;  // two retries, then RETRY_EXC_ERR
    for (auto [x, y, px, py] :
         {std::tuple{a1, b1, 0x1000u, 0x2000u}, std::tuple{a2, b2, 0x3000u, 0x4000u}}) {
      up.sq_psn = px;
      up.rq_psn = py;
      EXPECT_FALSE(model::bring_up(*a.ad, x, *b.ad, y, up));
      up.sq_psn = py;
      up.rq_psn = px;
      EXPECT_FALSE(model::bring_up(*b.ad, y, *a.ad, x, up));
    }
  }
  void recv(qp::Qpn q, std::uint64_t id) {
    ASSERT_EQ(b.ad->post_recv(q, {id, {{kBase + id * 256, 256, b.mr.lkey.value()}}}),
              model::PostError::OK);
  }
  void send(qp::Qpn q, std::uint64_t id) {
    tx::SendWr w = wr(id, tx::WrOpcode::SEND, kBase, 64);
    ASSERT_EQ(a.ad->post_send(q, w), model::PostError::OK);
  }
};

}  // namespace

TEST(CqOverflow, TheQpThatOverrunsFailsSilentlyAndItsPeerRunsOutOfRetries) {
  SharedCqPairs t;
  for (std::uint64_t i = 0; i < 3; ++i) t.recv(t.b1, 10 + i);
  t.recv(t.b2, 20);
  t.send(t.a1, 1);
  t.send(t.a1, 2);  // b1's two receive completions fill the small CQ
  t.sim.run_until(100'000);
  t.send(t.a2, 3);  // b2's completion finds it full
  t.sim.run_until(50'000'000);

  // B: CQ_ERR once, b2 in ERR, b1 untouched.
  EXPECT_EQ(t.async.events,
            (std::vector<std::string>{"1:CQ_ERR:" + std::to_string(t.small_cq.value)}));
  EXPECT_EQ(t.b.ad->qps().find(t.b2)->state(), QpState::ERR);
  EXPECT_EQ(t.b.ad->qps().find(t.b1)->state(), QpState::RTS);
  // A: a1's SENDs succeeded; a2's was never acknowledged: 1 + 2 retries, then RETRY_EXC_ERR.
  std::vector<cq::Wc> wcs = t.poll(t.a);
  ASSERT_EQ(wcs.size(), 3u);
  EXPECT_EQ(wcs[0].wr_id, 1u);
  EXPECT_EQ(wcs[0].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(wcs[1].wr_id, 2u);
  EXPECT_EQ(wcs[1].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(wcs[2].wr_id, 3u);
  EXPECT_EQ(wcs[2].status, cq::WcStatus::RETRY_EXC_ERR);
  EXPECT_EQ(t.a.ad->qps().find(t.a2)->state(), QpState::ERR);
  EXPECT_EQ(t.a.ad->qps().find(t.a1)->state(), QpState::RTS);
  std::size_t b2_frames = 0;  // b2 sent nothing at all (no ACK, no NAK)
  for (const auto& f : t.rec.frames[1]) {
    const wire::ParsedFrame p = wire::decode(f);
    if (p.bth.dqpn == t.a2.value()) ++b2_frames;
  }
  EXPECT_EQ(b2_frames, 0u);

  // Once the application drains the CQ, b1 (still in RTS) takes the next SEND as usual.
  EXPECT_EQ(t.b.ad->poll_cq(t.small_cq, 8).size(), 2u);  // b1's two; b2's was lost
  t.send(t.a1, 4);
  t.sim.run_until(60'000'000);
  wcs = t.poll(t.a);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, cq::WcStatus::SUCCESS);
  const auto b_wcs = t.b.ad->poll_cq(t.small_cq, 8);
  ASSERT_EQ(b_wcs.size(), 1u);
  EXPECT_EQ(b_wcs[0].wr_id, 12u);
}

TEST(CqOverflow, UnderTheIbaProfileTheCqStaysInErrorAndTakesTheNextQpDown) {
  // IBA §11.4.2.1: an overrun leaves the CQ in error; a QP that later completes into it fails
  // too, though the application drained the CQ meanwhile.
  SharedCqPairs t(errors::ErrorProfile::IBA);
  for (std::uint64_t i = 0; i < 3; ++i) t.recv(t.b1, 10 + i);
  t.recv(t.b2, 20);
  t.send(t.a1, 1);
  t.send(t.a1, 2);
  t.sim.run_until(100'000);
  t.send(t.a2, 3);
  t.sim.run_until(50'000'000);
  EXPECT_EQ(t.b.ad->qps().find(t.b2)->state(), QpState::ERR);
  EXPECT_EQ(t.b.ad->poll_cq(t.small_cq, 8).size(), 2u);
  t.send(t.a1, 4);
  t.sim.run_until(100'000'000);
  EXPECT_EQ(t.b.ad->qps().find(t.b1)->state(), QpState::ERR);
  EXPECT_TRUE(t.b.ad->poll_cq(t.small_cq, 8).empty());
  const auto wcs = t.poll(t.a);
  ASSERT_EQ(wcs.size(), 4u);
  EXPECT_EQ(wcs[3].wr_id, 4u);
  EXPECT_EQ(wcs[3].status, cq::WcStatus::RETRY_EXC_ERR);
}
