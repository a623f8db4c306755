// Two adapters on a lossless link, RC/UC/UD QPs brought up through INIT/RTR/RTS, every data
// operation: the frames on the wire, the completions and the memory bytes are checked against
// values written out here from the spec, not taken from the model.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_pair.h"
#include "rocecert/model/bring_up.h"
#include "rocecert/wire/encode.h"

using namespace rocecert;
using namespace rocecert::testing;

namespace {

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 7);
  return v;
}

}  // namespace

TEST(Adapter, RcWriteMovesTheBytesAndCompletes) {
  Pair t;
  const auto data = pattern(2500, 3);
  t.a.ad->memory().write(kBase, data);
  auto w = t.wr(7, tx::WrOpcode::RDMA_WRITE, kBase, 2500);
  w.remote_addr = kBase + 0x1000;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  t.sim.run_until();
  EXPECT_EQ(t.b.ad->memory().read_bytes(kBase + 0x1000, 2500), data);
  EXPECT_EQ(t.rec.tx, (std::vector<std::string>{"A:RC_RDMA_WRITE_FIRST", "A:RC_RDMA_WRITE_MIDDLE",
                                                "A:RC_RDMA_WRITE_LAST", "B:RC_ACKNOWLEDGE"}));
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].wr_id, 7u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(wc[0].opcode, cq::WcOpcode::RDMA_WRITE);
  EXPECT_EQ(wc[0].byte_len, 2500u);
  EXPECT_TRUE(t.poll(t.b).empty());  // a plain WRITE consumes no receive
}

TEST(Adapter, RcReadBringsTheBytesBack) {
  Pair t;
  const auto data = pattern(3000, 9);
  t.b.ad->memory().write(kBase + 0x2000, data);
  auto w = t.wr(8, tx::WrOpcode::RDMA_READ, kBase + 0x100, 3000);
  w.remote_addr = kBase + 0x2000;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  t.sim.run_until();
  EXPECT_EQ(t.a.ad->memory().read_bytes(kBase + 0x100, 3000), data);
  EXPECT_EQ(t.rec.tx, (std::vector<std::string>{
                          "A:RC_RDMA_READ_REQUEST", "B:RC_RDMA_READ_RESPONSE_FIRST",
                          "B:RC_RDMA_READ_RESPONSE_MIDDLE", "B:RC_RDMA_READ_RESPONSE_LAST"}));
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].opcode, cq::WcOpcode::RDMA_READ);
  EXPECT_EQ(wc[0].byte_len, 3000u);
}

TEST(Adapter, RcAtomicsExecuteOnceAndReturnTheOriginal) {
  Pair t;
  t.b.ad->memory().store_u64(kBase + 0x3000, 100);
  auto fa = t.wr(1, tx::WrOpcode::ATOMIC_FETCH_AND_ADD, kBase, 8);
  fa.remote_addr = kBase + 0x3000;
  fa.compare_add = 5;
  auto cs = t.wr(2, tx::WrOpcode::ATOMIC_CMP_AND_SWP, kBase + 8, 8);
  cs.remote_addr = kBase + 0x3000;
  cs.compare_add = 105;
  cs.swap = 0xABCDEF;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, fa), model::PostError::OK);
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, cs), model::PostError::OK);
  t.sim.run_until();
  EXPECT_EQ(t.b.ad->memory().load_u64(kBase + 0x3000), 0xABCDEFu);  // 100 + 5, then swapped
  EXPECT_EQ(t.a.ad->memory().load_u64(kBase), 100u);                // FETCH_ADD's original
  EXPECT_EQ(t.a.ad->memory().load_u64(kBase + 8), 105u);            // CMP_SWAP's original
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 2u);
  EXPECT_EQ(wc[0].opcode, cq::WcOpcode::FETCH_ADD);
  EXPECT_EQ(wc[1].opcode, cq::WcOpcode::COMP_SWAP);
}

TEST(Adapter, RcSendWithImmediateLandsInTheReceiveBuffer) {
  Pair t;
  const auto data = pattern(1500, 1);
  t.a.ad->memory().write(kBase, data);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {99, {{kBase + 0x4000, 4096, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  auto w = t.wr(3, tx::WrOpcode::SEND_WITH_IMM, kBase, 1500);
  w.imm_data = 0x01020304;
  w.send_flags |= tx::kSendSolicited;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  t.sim.run_until();
  EXPECT_EQ(t.b.ad->memory().read_bytes(kBase + 0x4000, 1500), data);
  const auto rwc = t.poll(t.b);
  ASSERT_EQ(rwc.size(), 1u);
  EXPECT_EQ(rwc[0].wr_id, 99u);
  EXPECT_EQ(rwc[0].opcode, cq::WcOpcode::RECV);
  EXPECT_EQ(rwc[0].byte_len, 1500u);
  EXPECT_EQ(rwc[0].imm_data, 0x01020304u);
  EXPECT_EQ(rwc[0].wc_flags, cq::kWcWithImm);
  EXPECT_EQ(t.poll(t.a).size(), 1u);
  EXPECT_EQ(t.rec.tx, (std::vector<std::string>{"A:RC_SEND_FIRST", "A:RC_SEND_LAST_WITH_IMMEDIATE",
                                                "B:RC_ACKNOWLEDGE"}));
}

TEST(Adapter, RcWriteWithBadRkeyIsNakedAndBothQpsGoToError) {
  Pair t;
  auto bad = t.wr(5, tx::WrOpcode::RDMA_WRITE, kBase, 64);
  bad.remote_addr = kBase;
  bad.rkey ^= 0x5A;  // wrong key byte
  auto next = t.wr(6, tx::WrOpcode::RDMA_WRITE, kBase, 64);
  next.remote_addr = kBase;
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {77, {{kBase, 64, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, bad), model::PostError::OK);
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, next), model::PostError::OK);
  t.sim.run_until();
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 2u);
  EXPECT_EQ(wc[0].wr_id, 5u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::REM_ACCESS_ERR);
  EXPECT_EQ(wc[1].wr_id, 6u);
  EXPECT_EQ(wc[1].status, cq::WcStatus::WR_FLUSH_ERR);
  const auto rwc = t.poll(t.b);  // the responder's posted receive is flushed
  ASSERT_EQ(rwc.size(), 1u);
  EXPECT_EQ(rwc[0].status, cq::WcStatus::WR_FLUSH_ERR);
  EXPECT_EQ(t.a.ad->qps().find(t.a.qpn)->state(), QpState::ERR);
  EXPECT_EQ(t.b.ad->qps().find(t.b.qpn)->state(), QpState::ERR);
  ASSERT_FALSE(t.rec.naks.empty());
  EXPECT_EQ(t.rec.naks[0], "KEY_MISMATCH");
}

TEST(Adapter, RcSendWithoutReceiveIsRnrNakedAndRetriedUntilAReceiveIsPosted) {
  Pair t;  // min_rnr_timer 12 (0.64 ms), rnr_retry 7 = retry forever
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, t.wr(1, tx::WrOpcode::SEND, kBase, 10)),
            model::PostError::OK);
  t.sim.run_until(2'000'000);  // 2 ms: the first try and three retries 0.64 ms apart
  ASSERT_EQ(t.rec.naks.size(), 4u);
  for (const auto& n : t.rec.naks) EXPECT_EQ(n, "rnr");
  EXPECT_EQ(t.b.ad->qps().find(t.b.qpn)->state(), QpState::RTS);  // an RNR NAK changes nothing
  EXPECT_TRUE(t.poll(t.a).empty());
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {5, {{kBase, 64, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  t.sim.run_until(4'000'000);
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  ASSERT_EQ(t.poll(t.b).size(), 1u);
}

TEST(Adapter, UcWriteAndUdSend) {
  {
    Pair t(qp::QpType::UC);
    const auto data = pattern(3000, 5);
    t.a.ad->memory().write(kBase, data);
    auto w = t.wr(1, tx::WrOpcode::RDMA_WRITE, kBase, 3000);
    w.remote_addr = kBase + 0x8000;
    ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
    t.sim.run_until();
    EXPECT_EQ(t.b.ad->memory().read_bytes(kBase + 0x8000, 3000), data);
    EXPECT_EQ(t.rec.tx, (std::vector<std::string>{"A:UC_RDMA_WRITE_FIRST", "A:UC_RDMA_WRITE_MIDDLE",
                                                  "A:UC_RDMA_WRITE_LAST"}));
    ASSERT_EQ(t.poll(t.a).size(), 1u);
  }
  {
    Pair t(qp::QpType::UD);
    const auto data = pattern(100, 8);
    t.a.ad->memory().write(kBase, data);
    ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {5, {{kBase + 0x100, 1024, t.b.mr.lkey.value()}}}),
              model::PostError::OK);
    qp::AddressVector av;
    av.dgid = t.b.ad->config().gid;
    av.dmac = t.b.ad->config().mac;
    auto w = t.wr(1, tx::WrOpcode::SEND, kBase, 100);
    w.ah = t.a.ad->create_ah(av);
    w.remote_qpn = t.b.qpn.value();
    w.remote_qkey = 0x11111111;
    ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
    t.sim.run_until();
    EXPECT_EQ(t.b.ad->memory().read_bytes(kBase + 0x100 + 40, 100), data);  // after the GRH area
    const auto rwc = t.poll(t.b);
    ASSERT_EQ(rwc.size(), 1u);
    EXPECT_EQ(rwc[0].byte_len, 140u);
    EXPECT_EQ(rwc[0].src_qp, t.a.qpn.value());
    EXPECT_EQ(rwc[0].wc_flags, cq::kWcGrh);
  }
}

TEST(Adapter, SharedReceiveQueueServesSeveralQpsAndSignalsItsLimit) {
  Pair t;
  const qp::SrqId srq = t.b.ad->create_srq(16, 1);
  // Two more RC QP pairs whose responders on B share the SRQ.
  std::vector<qp::Qpn> a_qps, b_qps;
  for (int i = 0; i < 2; ++i) {
    qp::CreateQpParams p;
    p.pd = qp::PdId{t.a.pd.value};
    p.send_cq = p.recv_cq = t.a.cq;
    p.caps = {8, 8, 1, 1, 0};
    a_qps.push_back(t.a.ad->create_qp(p).qpn);
    p.pd = qp::PdId{t.b.pd.value};
    p.send_cq = p.recv_cq = t.b.cq;
    p.srq = srq;
    b_qps.push_back(t.b.ad->create_qp(p).qpn);
  }
  for (int i = 0; i < 2; ++i) {
    model::BringUp up;
    up.access = 0xE;
    ASSERT_FALSE(model::bring_up(*t.a.ad, a_qps[static_cast<std::size_t>(i)], *t.b.ad,
                                 b_qps[static_cast<std::size_t>(i)], up));
    ASSERT_FALSE(model::bring_up(*t.b.ad, b_qps[static_cast<std::size_t>(i)], *t.a.ad,
                                 a_qps[static_cast<std::size_t>(i)], up));
  }
  EXPECT_EQ(t.b.ad->post_recv(b_qps[0], {1, {}}), model::PostError::SRQ_ATTACHED);
  for (std::uint64_t i = 0; i < 3; ++i)
    ASSERT_EQ(
        t.b.ad->post_srq_recv(srq, {100 + i, {{kBase + 0x1000 * i, 0x1000, t.b.mr.lkey.value()}}}),
        model::PostError::OK);
  ASSERT_TRUE(t.b.ad->arm_srq_limit(srq, 2));
  struct AsyncSpy : trace::Observer {
    std::vector<std::string> events;
    void on_async_event(const trace::AsyncEvent& e) override {
      events.emplace_back(errors::to_string(e.kind));
    }
  } spy;
  t.sim.observers().add(&spy);
  for (std::size_t i = 0; i < 2; ++i) {
    tx::SendWr w = t.wr(i, tx::WrOpcode::SEND, kBase, 100);
    ASSERT_EQ(t.a.ad->post_send(a_qps[i], w), model::PostError::OK);
  }
  t.sim.run_until();
  const auto rwc = t.poll(t.b);
  ASSERT_EQ(rwc.size(), 2u);
  EXPECT_EQ(rwc[0].wr_id, 100u);  // the SRQ hands out WQEs in posting order, whichever QP asks
  EXPECT_EQ(rwc[0].qp_num, b_qps[0].value());
  EXPECT_EQ(rwc[1].wr_id, 101u);
  EXPECT_EQ(rwc[1].qp_num, b_qps[1].value());
  EXPECT_EQ(spy.events, (std::vector<std::string>{"SRQ_LIMIT_REACHED"}));  // 1 left < 2, once
}

TEST(Adapter, AQpOnAnSrqThatEntersErrRaisesLastWqeReachedUnderIba) {
  // IBA §11.6.3 (errors::raises_last_wqe_reached): once a QP attached to an SRQ is in ERR it
  // takes no more WQEs from it, and says so; the SRQ keeps its WQEs. rxe raises no QP event.
  for (const errors::ErrorProfile profile :
       {errors::ErrorProfile::IBA, errors::ErrorProfile::RXE}) {
    SCOPED_TRACE(std::string(errors::to_string(profile)));
    Pair t(qp::QpType::RC, 1024, 0xF, 0x100, 0x200,
           [profile](model::AdapterConfig& c) { c.profile.error_profile = profile; });
    const qp::SrqId srq = t.b.ad->create_srq(4, 1);
    qp::CreateQpParams p;
    p.pd = qp::PdId{t.b.pd.value};
    p.send_cq = p.recv_cq = t.b.cq;
    p.caps = {4, 4, 1, 1, 0};
    p.srq = srq;
    const qp::Qpn on_srq = t.b.ad->create_qp(p).qpn;
    p.pd = qp::PdId{t.a.pd.value};
    p.send_cq = p.recv_cq = t.a.cq;
    p.srq.reset();
    const qp::Qpn peer = t.a.ad->create_qp(p).qpn;
    model::BringUp up;
    up.access = 0xE;
    ASSERT_FALSE(model::bring_up(*t.b.ad, on_srq, *t.a.ad, peer, up));
    ASSERT_EQ(t.b.ad->post_srq_recv(srq, {7, {{kBase, 64, t.b.mr.lkey.value()}}}),
              model::PostError::OK);
    struct AsyncSpy : trace::Observer {
      std::vector<std::pair<std::string, std::uint32_t>> events;
      void on_async_event(const trace::AsyncEvent& e) override {
        events.emplace_back(errors::to_string(e.kind), e.object);
      }
    } spy;
    t.sim.observers().add(&spy);
    qp::QpAttr attr;
    attr.qp_state = QpState::ERR;
    ASSERT_TRUE(t.b.ad
                    ->modify_qp(on_srq, attr,
                                qp::AttrMask::from_raw(static_cast<std::uint32_t>(AttrBit::STATE)))
                    .ok());
    attr.qp_state = QpState::ERR;  // a QP without an SRQ: no such event
    ASSERT_TRUE(t.b.ad
                    ->modify_qp(t.b.qpn, attr,
                                qp::AttrMask::from_raw(static_cast<std::uint32_t>(AttrBit::STATE)))
                    .ok());
    t.sim.run_until();
    if (profile == errors::ErrorProfile::IBA) {
      EXPECT_EQ(spy.events, (std::vector<std::pair<std::string, std::uint32_t>>{
                                {"QP_LAST_WQE_REACHED", on_srq.value()}}));
    } else {
      EXPECT_TRUE(spy.events.empty());
    }
    EXPECT_TRUE(t.poll(t.b).empty());  // the SRQ's WQE was not flushed by the QP error
  }
}

TEST(Adapter, CongestionNotificationPointSendsRateLimitedCnps) {
  Pair t(qp::QpType::RC, 1024, 0xF, 0x100, 0x200, [](model::AdapterConfig& c) {
    c.profile.send_cnp = true;
    c.profile.cnp_interval_ns = 50'000;
  });
  // A's packets leave with ECN CE set, as if a switch had marked them (the traffic class is
  // outside the ICRC, IBTA Vol. 1 Annex A17.4.5.2, A17.9; docs/spec-notes.md §1.4).
  struct CnpSpy : trace::Observer {
    std::vector<std::uint32_t> cnp_dqpn;
    void on_frame(const trace::FrameEvent& e) override {
      const wire::ParsedFrame p = wire::decode(e.bytes);
      if (e.dir == trace::Direction::TX && p.has_bth && p.bth.opcode == 0x81) {
        EXPECT_TRUE(p.bth.becn);
        EXPECT_EQ(p.payload_len, 0u);
        EXPECT_TRUE(p.icrc_ok);
        cnp_dqpn.push_back(p.bth.dqpn);
      }
    }
  } spy;
  t.sim.observers().add(&spy);
  wire::FrameSpec s;
  s.eth.src = t.a.ad->config().mac;
  s.eth.dst = t.b.ad->config().mac;
  std::copy_n(t.a.ad->config().gid.begin() + 12, 4, s.ip.src.begin());
  std::copy_n(t.b.ad->config().gid.begin() + 12, 4, s.ip.dst.begin());
  s.ip.ecn = 3;
  s.bth.opcode = wire::to_u8(wire::Opcode::RC_RDMA_WRITE_ONLY);
  s.bth.dqpn = t.b.qpn.value();
  s.reth = {kBase, t.b.mr.rkey.value(), 4};
  s.payload = {1, 2, 3, 4};
  for (std::uint32_t i = 0; i < 3; ++i) {  // three marked packets within 50 µs: one CNP
    s.bth.psn = 0x100 + i;
    wire::finalize(s);
    t.b.ad->receive(wire::encode(s));
  }
  t.sim.run_until(100'000);
  s.bth.psn = 0x103;  // one more after the interval: a second CNP
  wire::finalize(s);
  t.b.ad->receive(wire::encode(s));
  t.sim.run_until(200'000);
  EXPECT_EQ(spy.cnp_dqpn, (std::vector<std::uint32_t>{t.a.qpn.value(), t.a.qpn.value()}));
  EXPECT_EQ(t.a.ad->cnps_received(t.a.qpn), 2u);  // the reaction point saw both
  EXPECT_EQ(t.b.ad->memory().read_bytes(kBase, 4), (std::vector<std::uint8_t>{1, 2, 3, 4}));
}

TEST(Adapter, QpsFailingInTheSameInstantAreFlushedInArbitrationOrder) {
  // Two QP pairs on the same CQs; both get a bad-rkey NAK in the same instant. The failing
  // WQEs complete in the order their NAKs arrive; the flushes that follow are ordered by the
  // arbitration policy (precedence: class tier, time, then QPN; docs/error-arbitration.md).
  Pair t;
  std::array<qp::Qpn, 2> qa, qb;
  for (std::size_t i = 0; i < 2; ++i) {
    qp::CreateQpParams p;
    p.caps = {8, 8, 1, 1, 0};
    p.pd = qp::PdId{t.a.pd.value};
    p.send_cq = p.recv_cq = t.a.cq;
    qa[i] = t.a.ad->create_qp(p).qpn;
    p.pd = qp::PdId{t.b.pd.value};
    p.send_cq = p.recv_cq = t.b.cq;
    qb[i] = t.b.ad->create_qp(p).qpn;
  }
  // Brought up higher QPN first: its requester runs first, so its NAK is handled first.
  for (std::size_t i : {std::size_t{1}, std::size_t{0}}) {
    model::BringUp up;
    up.access = 0xE;
    ASSERT_FALSE(model::bring_up(*t.a.ad, qa[i], *t.b.ad, qb[i], up));
    ASSERT_FALSE(model::bring_up(*t.b.ad, qb[i], *t.a.ad, qa[i], up));
  }
  ASSERT_LT(qa[0].value(), qa[1].value());
  // The higher QPN's bad WRITE goes first, then the lower one's; each is followed by a WR that
  // will be flushed.
  for (std::size_t i : {std::size_t{1}, std::size_t{0}}) {
    tx::SendWr bad = t.wr(10 * (i + 1), tx::WrOpcode::RDMA_WRITE, kBase, 64);
    bad.remote_addr = kBase;
    bad.rkey ^= 0x5A00;
    tx::SendWr next = bad;
    next.wr_id = 10 * (i + 1) + 1;
    next.rkey = t.b.mr.rkey.value();
    ASSERT_EQ(t.a.ad->post_send(qa[i], bad), model::PostError::OK);
    ASSERT_EQ(t.a.ad->post_send(qa[i], next), model::PostError::OK);
  }
  t.sim.run_until();
  std::vector<std::string> got;
  for (const cq::Wc& wc : t.poll(t.a))
    got.push_back(std::to_string(wc.wr_id) + ":" + std::string(cq::to_string(wc.status)));
  EXPECT_EQ(got, (std::vector<std::string>{"20:REM_ACCESS_ERR", "10:REM_ACCESS_ERR",  // NAK order
                                           "11:WR_FLUSH_ERR", "21:WR_FLUSH_ERR"}));   // QPN order
}

TEST(Adapter, TheIbaProfileRaisesTheTablesAffiliatedAsyncEvents) {
  // IBA: a responder-detected access violation raises QP_ACCESS_ERR on the responder's QP
  // (docs/errors.md, RESP_RKEY_VIOLATION); rxe raises none (multi_qp_errors capture).
  for (const auto profile : {errors::ErrorProfile::IBA, errors::ErrorProfile::RXE}) {
    Pair t(qp::QpType::RC, 1024, 0xF, 0x100, 0x200,
           [profile](model::AdapterConfig& c) { c.profile.error_profile = profile; });
    struct AsyncSpy : trace::Observer {
      std::vector<std::string> events;
      void on_async_event(const trace::AsyncEvent& e) override {
        events.emplace_back(errors::to_string(e.kind));
      }
    } spy;
    t.sim.observers().add(&spy);
    tx::SendWr bad = t.wr(1, tx::WrOpcode::RDMA_WRITE, kBase, 64);
    bad.remote_addr = kBase;
    bad.rkey ^= 0x100;
    ASSERT_EQ(t.a.ad->post_send(t.a.qpn, bad), model::PostError::OK);
    t.sim.run_until();
    const auto& row =
        errors::outcome(errors::ErrorClass::RESP_RKEY_VIOLATION, qp::QpType::RC, profile);
    std::vector<std::string> want;
    for (const auto e : row.events)
      if (e != errors::AsyncEventType::NONE && e != errors::AsyncEventType::CQ_ERR)
        want.emplace_back(errors::to_string(e));
    EXPECT_EQ(spy.events, want);
    if (profile == errors::ErrorProfile::IBA) {
      EXPECT_FALSE(want.empty());
    }
  }
}

TEST(Adapter, ACnpWithABadIcrcIsDroppedAsAnIcrcDrop) {
  // A CNP carries an ICRC like every RoCEv2 packet (Annex A17.9.3); one that fails it is
  // dropped for its ICRC, as any other packet is, not reported as a CNP for an unknown QP.
  Pair t;
  struct DropSpy : trace::Observer {
    std::vector<std::string> reasons;
    void on_drop(const trace::DropEvent& e) override { reasons.emplace_back(e.reason); }
  } spy;
  t.sim.observers().add(&spy);
  wire::FrameSpec s;
  s.eth.src = t.b.ad->config().mac;
  s.eth.dst = t.a.ad->config().mac;
  std::copy_n(t.b.ad->config().gid.begin() + 12, 4, s.ip.src.begin());
  std::copy_n(t.a.ad->config().gid.begin() + 12, 4, s.ip.dst.begin());
  s.bth.opcode = wire::to_u8(wire::Opcode::CNP_CNP);
  s.bth.becn = true;
  s.bth.dqpn = t.a.qpn.value();
  wire::finalize(s);
  std::vector<std::uint8_t> bad = wire::encode(s);
  bad.back() ^= 0xFF;  // the last byte of the ICRC
  ASSERT_FALSE(wire::decode(bad).icrc_ok);
  t.a.ad->receive(bad);
  EXPECT_EQ(spy.reasons, (std::vector<std::string>{"icrc"}));
  EXPECT_EQ(t.a.ad->cnps_received(t.a.qpn), 0u);
  // A good CNP for a QP the adapter does not have keeps its own reason.
  s.bth.dqpn = t.a.qpn.value() + 100;
  wire::finalize(s);
  t.a.ad->receive(wire::encode(s));
  EXPECT_EQ(spy.reasons, (std::vector<std::string>{"icrc", "cnp_for_no_qp"}));
  // And a good one for the QP counts.
  s.bth.dqpn = t.a.qpn.value();
  wire::finalize(s);
  t.a.ad->receive(wire::encode(s));
  EXPECT_EQ(t.a.ad->cnps_received(t.a.qpn), 1u);
}

TEST(Adapter, UnknownSrqAndCqHaveTheirOwnPostErrors) {
  Pair t;
  const qp::SrqId srq = t.b.ad->create_srq(4, 1);
  const model::RecvWr wr{1, {{kBase, 64, t.b.mr.lkey.value()}}};
  EXPECT_EQ(t.b.ad->post_srq_recv(qp::SrqId{srq.value + 1}, wr), model::PostError::NO_SUCH_SRQ);
  EXPECT_EQ(t.b.ad->post_srq_recv(srq, wr), model::PostError::OK);
  EXPECT_EQ(t.b.ad->req_notify_cq(qp::CqId{t.b.cq.value + 1}, false), model::PostError::NO_SUCH_CQ);
  EXPECT_EQ(t.b.ad->req_notify_cq(t.b.cq, false), model::PostError::OK);
  EXPECT_EQ(model::to_string(model::PostError::NO_SUCH_SRQ), "NO_SUCH_SRQ");
  EXPECT_EQ(model::to_string(model::PostError::NO_SUCH_CQ), "NO_SUCH_CQ");
  // An unknown QP is still NO_SUCH_QP.
  EXPECT_EQ(t.b.ad->post_recv(qp::Qpn(t.b.qpn.value() + 100), wr), model::PostError::NO_SUCH_QP);
}

// deliver_request: a decoded request handed straight to a QP, as a capture replay does with
// another device's frames (their addresses, QPN and ICRC are not the model's): it is executed
// and answered exactly as if it had come in through receive().
TEST(Adapter, DeliverRequestExecutesADecodedRequestOnTheGivenQp) {
  Pair t;
  wire::FrameSpec s;
  s.bth.opcode = wire::to_u8(wire::Opcode::RC_RDMA_WRITE_ONLY);
  s.bth.dqpn = 0xABCDEF;  // not B's QPN: deliver_request does not demultiplex
  s.bth.psn = t.b.ad->qps().find(t.b.qpn)->resp.epsn.value();
  s.bth.ackreq = true;
  s.reth = {kBase + 16, t.b.mr.rkey.value(), 4};
  s.payload = {1, 2, 3, 4};
  wire::finalize(s);
  const std::vector<std::uint8_t> frame = wire::encode(s);
  wire::ParsedFrame p = wire::decode(frame);
  p.icrc_ok = false;  // not looked at either
  EXPECT_TRUE(t.b.ad->deliver_request(t.b.qpn, p));
  t.sim.run_until();
  EXPECT_EQ(t.b.ad->memory().read_bytes(kBase + 16, 4), (std::vector<std::uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(t.rec.tx, (std::vector<std::string>{"B:RC_ACKNOWLEDGE"}));
  // A response, or a QP that does not exist, is not taken.
  wire::FrameSpec ack;
  ack.bth.opcode = wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE);
  wire::finalize(ack);
  const std::vector<std::uint8_t> ack_frame = wire::encode(ack);
  EXPECT_FALSE(t.b.ad->deliver_request(t.b.qpn, wire::decode(ack_frame)));
  EXPECT_FALSE(t.b.ad->deliver_request(qp::Qpn(0x777), p));
}

// A requester with no link, as the checker's golden requester replay runs one: what it sends
// is seen by its observer, and the responses are handed to its completer (deliver_response).
struct LoneRequester : trace::Observer {
  sim::EventQueue events;
  model::Adapter ad;
  qp::Qpn qpn{};
  qp::CqId cq{};
  std::uint32_t lkey = 0;
  std::vector<std::uint32_t> sent;  // PSNs
  static model::AdapterConfig config(std::uint32_t window) {
    model::AdapterConfig c;
    c.qp.device.max_unacked_psns = window;
    return c;
  }
  explicit LoneRequester(std::uint32_t window = 128) : ad(0, config(window), events, *this) {
    const mem::Pd pd = ad.alloc_pd().value;
    lkey = ad.reg_mr({pd, 0, 1u << 20, mem::Access::LOCAL_WRITE, std::nullopt}).value.lkey.value();
    cq = ad.create_cq(64);
    qp::CreateQpParams cp;
    cp.type = qp::QpType::RC;
    cp.pd = qp::PdId{pd.value};
    cp.send_cq = cp.recv_cq = cq;
    cp.caps = {64, 1, 1, 1, 0};
    qpn = ad.create_qp(cp).qpn;
    model::BringUp b;
    b.sq_psn = 100;
    std::array<std::uint8_t, 16> peer{};
    peer[15] = 2;
    EXPECT_FALSE(model::bring_up(ad, qpn, peer, {}, qp::Qpn(9), b));
  }
  bool needs_frame_bytes() const override { return false; }
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir == trace::Direction::TX && e.spec != nullptr) sent.push_back(e.spec->bth.psn);
  }
  void send(std::uint64_t id) {
    tx::SendWr wr;
    wr.wr_id = id;
    wr.opcode = tx::WrOpcode::SEND;
    wr.send_flags = tx::kSendSignaled;
    wr.sg_list.push_back({0, 8, lkey});
    EXPECT_EQ(ad.post_send(qpn, wr), model::PostError::OK);
  }
};

TEST(Adapter, DeliverResponseHandsADecodedResponseToTheCompleter) {
  LoneRequester r;
  r.send(1);
  r.events.run_until(r.events.now());
  EXPECT_EQ(r.sent, (std::vector<std::uint32_t>{100}));
  wire::FrameSpec ack;
  ack.bth.opcode = wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE);
  ack.bth.dqpn = 0xABCDEF;  // not the QP's number: deliver_response does not demultiplex
  ack.bth.psn = 100;
  ack.aeth = {0x1F, 1};
  wire::finalize(ack);
  const std::vector<std::uint8_t> frame = wire::encode(ack);
  EXPECT_TRUE(r.ad.deliver_response(r.qpn, wire::decode(frame)));
  const std::vector<cq::Wc> wc = r.ad.poll_cq(r.cq, 4);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].wr_id, 1u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  // A request, or a QP that does not exist, is not taken.
  wire::FrameSpec req;
  req.bth.opcode = wire::to_u8(wire::Opcode::RC_SEND_ONLY);
  wire::finalize(req);
  const std::vector<std::uint8_t> req_frame = wire::encode(req);
  EXPECT_FALSE(r.ad.deliver_response(r.qpn, wire::decode(req_frame)));
  EXPECT_FALSE(r.ad.deliver_response(qp::Qpn(0x777), wire::decode(frame)));
}

// DeviceLimits::max_unacked_psns: the requester's window (rxe's 128 by default) holds a packet
// whose PSN is more than that past the oldest unacknowledged one.
TEST(Adapter, TheRequestersWindowIsTheDevicesMaxUnackedPsns) {
  for (const std::uint32_t window : {4u, 128u}) {
    LoneRequester r(window);
    for (std::uint64_t i = 0; i < 10; ++i) r.send(i);
    r.events.run_until(r.events.now());
    EXPECT_EQ(r.sent.size(), window == 4 ? 5u : 10u) << "window " << window;
  }
}

// The checker's golden responder reads what the model sends from FrameEvent::spec alone: an
// adapter without a link whose observers need no bytes does not encode its frames, and what
// such an observer sees is what a decoding observer sees of the encoded frames.
TEST(Adapter, WithoutALinkAndObserversOfTheSpecAloneFramesAreNotEncoded) {
  struct Seen {
    std::uint8_t opcode;
    std::uint32_t psn;
    std::uint8_t syndrome;
    std::uint32_t msn;
    std::vector<std::uint8_t> payload;
    bool operator==(const Seen&) const = default;
  };
  struct SpecOnly : trace::Observer {
    std::vector<Seen> seen;
    bool needs_frame_bytes() const override { return false; }
    void on_frame(const trace::FrameEvent& e) override {
      ASSERT_NE(e.spec, nullptr);
      EXPECT_TRUE(e.bytes.empty());
      EXPECT_EQ(e.parsed, nullptr);
      const wire::FrameSpec& s = *e.spec;
      // The spec may hold headers its opcode does not carry; only the carried ones are sent.
      const wire::Aeth aeth =
          wire::opcode_info(s.bth.opcode).has(wire::Header::Aeth) ? s.aeth : wire::Aeth{};
      seen.push_back({s.bth.opcode, s.bth.psn, aeth.syndrome, aeth.msn, s.payload});
    }
  };
  struct Decoding : trace::Observer {
    std::vector<Seen> seen;
    bool needs_decoded_frames() const override { return true; }
    void on_frame(const trace::FrameEvent& e) override {
      ASSERT_NE(e.parsed, nullptr);
      ASSERT_NE(e.spec, nullptr);
      EXPECT_EQ(wire::encoded_length(*e.spec), e.bytes.size());
      const wire::ParsedFrame& p = *e.parsed;
      const wire::ByteSpan pl = p.payload();
      seen.push_back(
          {p.bth.opcode, p.bth.psn, p.aeth.syndrome, p.aeth.msn, {pl.begin(), pl.end()}});
    }
  };
  // The same requests to a responder that observes specs and to one that decodes.
  auto run = [](trace::Observer& o) {
    sim::EventQueue events;
    model::AdapterConfig c;
    c.profile.ack.mode = model::AckCoalescing::Mode::EVERY_PACKET;
    model::Adapter ad(0, c, events, o);
    const mem::Pd pd = ad.alloc_pd().value;
    const mem::Access all = mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE |
                            mem::Access::REMOTE_READ | mem::Access::REMOTE_ATOMIC;
    const std::uint32_t rkey =
        ad.reg_mr({pd, kBase, 0x10000, all, std::nullopt}).value.rkey.value();
    std::vector<std::uint8_t> data(3000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 13 + 5);
    ad.memory().write(kBase + 0x800, data);
    qp::CreateQpParams cp;
    cp.type = qp::QpType::RC;
    cp.pd = qp::PdId{pd.value};
    cp.send_cq = cp.recv_cq = ad.create_cq(64);
    cp.caps = {1, 16, 1, 1, 0};
    const qp::CreateResult cr = ad.create_qp(cp);
    model::BringUp b;
    b.mtu = 1024;
    b.rq_psn = 0xFFFFFE;  // the READ's responses wrap the PSN
    b.access = mem::to_u32(all);
    std::array<std::uint8_t, 16> peer{};
    peer[15] = 1;
    EXPECT_FALSE(model::bring_up(ad, cr.qpn, peer, {}, qp::Qpn(1), b));
    auto deliver = [&](wire::FrameSpec s) {
      s.bth.dqpn = cr.qpn.value();
      wire::finalize(s);
      const std::vector<std::uint8_t> frame = wire::encode(s);
      EXPECT_TRUE(ad.deliver_request(cr.qpn, wire::decode(frame)));
      events.run_until(events.now() + 1'000'000);  // 1 ms: anything paced goes out
    };
    wire::FrameSpec w;
    w.bth.opcode = wire::to_u8(wire::Opcode::RC_RDMA_WRITE_ONLY);
    w.bth.psn = 0xFFFFFE;
    w.bth.ackreq = true;
    w.reth = {kBase, rkey, 7};
    w.payload = {1, 2, 3, 4, 5, 6, 7};  // padded on the wire
    deliver(w);
    wire::FrameSpec r;
    r.bth.opcode = wire::to_u8(wire::Opcode::RC_RDMA_READ_REQUEST);
    r.bth.psn = 0xFFFFFF;
    r.reth = {kBase + 0x800, rkey, 3000};
    deliver(r);
    wire::FrameSpec bad = w;  // a key the MR table does not hold: NAK remote access error
    bad.bth.psn = 2;
    bad.reth.rkey = rkey ^ 0x100;
    deliver(bad);
  };
  SpecOnly spec_only;
  Decoding decoding;
  run(spec_only);
  run(decoding);
  ASSERT_EQ(decoding.seen.size(), 5u);  // ACK, three READ responses, NAK
  EXPECT_EQ(decoding.seen[1].payload.size(), 1024u);
  EXPECT_EQ(decoding.seen[3].payload.size(), 3000u - 2048u);
  EXPECT_NE(decoding.seen[4].syndrome, 0u);
  EXPECT_EQ(spec_only.seen, decoding.seen);
}

// An ATOMIC WRITE and a FLUSH (IBA 1.5) each take a responder resource: repeated, each is
// answered again by its empty READ RESPONSE ONLY with the MSN of the moment, never executed
// again (docs/spec-notes.md §4.5, §8.2).
TEST(Adapter, RepeatedAtomicWriteAndFlushAreAnsweredAgainNotExecuted) {
  const std::uint32_t flush =
      mem::to_u32(mem::Access::FLUSH_GLOBAL | mem::Access::FLUSH_PERSISTENT);
  Pair t(qp::QpType::RC, 1024, 0x1 | 0x2 | 0x4 | 0x8 | flush, 0x100, 0x200, {}, 14,
         [&](model::BringUp& b) { b.access |= flush; });
  const std::uint32_t epsn = t.b.ad->qps().find(t.b.qpn)->resp.epsn.value();
  auto deliver = [&](wire::Opcode op, std::uint32_t psn) {
    wire::FrameSpec s;
    s.bth.opcode = wire::to_u8(op);
    s.bth.dqpn = t.b.qpn.value();
    s.bth.psn = psn;
    s.bth.ackreq = true;
    s.reth = {kBase + 64, t.b.mr.rkey.value(), 8};
    if (op == wire::Opcode::RC_ATOMIC_WRITE) s.payload = {1, 2, 3, 4, 5, 6, 7, 8};
    if (op == wire::Opcode::RC_FLUSH) s.feth = {1, 0};  // global visibility, a range
    wire::finalize(s);
    const std::vector<std::uint8_t> frame = wire::encode(s);
    EXPECT_TRUE(t.b.ad->deliver_request(t.b.qpn, wire::decode(frame)));
    t.sim.run_until();
  };
  auto last_answer = [&] { return wire::decode(t.rec.frames[1].back()); };
  deliver(wire::Opcode::RC_ATOMIC_WRITE, epsn);
  EXPECT_EQ(t.b.ad->memory().read_bytes(kBase + 64, 8),
            (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  t.b.ad->memory().write(kBase + 64, std::vector<std::uint8_t>(8, 0));
  deliver(wire::Opcode::RC_FLUSH, epsn + 1);
  EXPECT_EQ(last_answer().aeth.msn, 2u);
  deliver(wire::Opcode::RC_ATOMIC_WRITE, epsn);  // repeated: not written again
  EXPECT_EQ(t.b.ad->memory().read_bytes(kBase + 64, 8), std::vector<std::uint8_t>(8, 0));
  EXPECT_EQ(last_answer().bth.psn, epsn);
  EXPECT_EQ(last_answer().aeth.msn, 2u);
  deliver(wire::Opcode::RC_FLUSH, epsn + 1);
  EXPECT_EQ(last_answer().bth.psn, epsn + 1);
  EXPECT_EQ(last_answer().payload_len, 0u);
  EXPECT_EQ(t.rec.tx, (std::vector<std::string>(4, "B:RC_RDMA_READ_RESPONSE_ONLY")));
  EXPECT_EQ(t.b.ad->qps().find(t.b.qpn)->resp.epsn.value(), epsn + 2);
}

namespace {

// Sends `t` a FLUSH asking `placement` (FETH) on 8 bytes of its MR, at its ePSN; returns the
// answer.
wire::ParsedFrame flush_answer(Pair& t, std::uint8_t placement) {
  wire::FrameSpec s;
  s.bth.opcode = wire::to_u8(wire::Opcode::RC_FLUSH);
  s.bth.dqpn = t.b.qpn.value();
  s.bth.psn = t.b.ad->qps().find(t.b.qpn)->resp.epsn.value();
  s.bth.ackreq = true;
  s.reth = {kBase + 64, t.b.mr.rkey.value(), 8};
  s.feth = {placement, 0};
  wire::finalize(s);
  const std::vector<std::uint8_t> frame = wire::encode(s);
  t.b.ad->deliver_request(t.b.qpn, wire::decode(frame));
  t.sim.run_until();
  EXPECT_FALSE(t.rec.frames[1].empty());
  if (t.rec.frames[1].empty()) return {};
  return wire::decode(t.rec.frames[1].back());
}

}  // namespace

// A FLUSH needs the MR's right for each placement it asks (docs/spec-notes.md §8.4): both asked
// of an MR that grants global visibility only is a remote access error (NAK 0x62), in either
// error profile, as in rxe since FLUSH came (Linux 6.2: rxe_mr.c lookup_mr wants every right
// asked; before, one of them was enough, but those kernels had no FLUSH).
TEST(Adapter, FlushNeedsTheMrRightOfEachPlacement) {
  const std::uint32_t both = mem::to_u32(mem::Access::FLUSH_GLOBAL | mem::Access::FLUSH_PERSISTENT);
  const std::uint32_t global = mem::to_u32(mem::Access::FLUSH_GLOBAL);
  for (const errors::ErrorProfile profile : {errors::ErrorProfile::RXE, errors::ErrorProfile::IBA})
    for (const std::uint8_t placement : {std::uint8_t{1}, std::uint8_t{2}, std::uint8_t{3}}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(profile)) + " placement " +
                   std::to_string(placement));
      // The QP allows both placements, the MR global visibility only.
      Pair t(
          qp::QpType::RC, 1024, 0x1 | 0x2 | 0x4 | 0x8 | global, 0x100, 0x200,
          [&](model::AdapterConfig& c) { c.profile.error_profile = profile; }, 14,
          [&](model::BringUp& b) { b.access |= both; });
      const wire::ParsedFrame answer = flush_answer(t, placement);
      if (placement == 1) {
        EXPECT_EQ(answer.bth.opcode, wire::to_u8(wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY));
      } else {
        EXPECT_EQ(answer.bth.opcode, wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE));
        EXPECT_EQ(answer.aeth.syndrome, 0x62);  // NAK remote access error
      }
    }
}

// A FLUSH needs the QP's right for each placement it asks (docs/spec-notes.md §8.4; rxe_resp.c
// check_qp_attr_access): persistence on a QP that allows only global visibility is an invalid
// request (NAK 0x61), whatever the MR grants.
TEST(Adapter, FlushNeedsTheQpRightOfEachPlacement) {
  const std::uint32_t both = mem::to_u32(mem::Access::FLUSH_GLOBAL | mem::Access::FLUSH_PERSISTENT);
  const std::uint32_t global = mem::to_u32(mem::Access::FLUSH_GLOBAL);
  for (const std::uint8_t placement : {std::uint8_t{1}, std::uint8_t{2}, std::uint8_t{3}}) {
    SCOPED_TRACE(placement);
    // The MR grants both placements, the QP global visibility only.
    Pair t(qp::QpType::RC, 1024, 0x1 | 0x2 | 0x4 | 0x8 | both, 0x100, 0x200, {}, 14,
           [&](model::BringUp& b) { b.access = 0x2 | 0x4 | 0x8 | global; });
    const wire::ParsedFrame answer = flush_answer(t, placement);
    if (placement == 1) {
      EXPECT_EQ(answer.bth.opcode, wire::to_u8(wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY));
    } else {
      EXPECT_EQ(answer.bth.opcode, wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE));
      EXPECT_EQ(answer.aeth.syndrome, 0x61);  // NAK invalid request
    }
  }
}
