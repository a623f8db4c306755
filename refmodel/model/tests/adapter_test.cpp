// Two adapters on a lossless link, RC/UC/UD QPs brought up through INIT/RTR/RTS, every data
// operation: the frames on the wire, the completions and the memory bytes are checked against
// values written out here from the spec, not taken from the model.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rocecert/model/simulation.h"
#include "rocecert/wire/decode.h"

using namespace rocecert;
using model::Adapter;
using qp::AttrBit;
using qp::QpState;

namespace {

struct Recorder : trace::Observer {
  std::vector<std::string> tx;  // "A:RC_SEND_ONLY:psn"
  std::vector<std::string> naks;
  std::vector<std::string> transitions;
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX) return;
    const wire::ParsedFrame p = wire::decode(e.bytes);
    ASSERT_FALSE(p.has_error);
    ASSERT_TRUE(p.icrc_ok);
    tx.push_back(std::string(e.adapter == 0 ? "A:" : "B:") + std::string(p.op->name));
  }
  void on_nak(const trace::NakEvent& e) override { naks.push_back(std::string(e.reason)); }
  void on_qp_transition(const trace::QpTransitionEvent& e) override {
    transitions.push_back(std::to_string(e.qpn) + ":" + std::string(qp::to_string(e.to)));
  }
};

qp::AttrMask mask(std::initializer_list<AttrBit> bits) {
  std::uint32_t m = 0;
  for (AttrBit b : bits) m |= static_cast<std::uint32_t>(b);
  return qp::AttrMask::from_raw(m);
}

std::array<std::uint8_t, 16> ipv4_gid(std::uint8_t last) {
  return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, last};
}

struct Side {
  Adapter* ad = nullptr;
  mem::Pd pd{};
  mem::MrKeys mr{};
  std::uint32_t cq = 0;
  qp::Qpn qpn;
};

constexpr std::uint64_t kBase = 0x100000;  // every MR: [kBase, kBase + 64 KiB)

struct Pair {
  model::Simulation sim;
  Recorder rec;
  Side a, b;

  explicit Pair(qp::QpType type = qp::QpType::RC, std::uint32_t mtu = 1024,
                std::uint32_t access = 0x1 | 0x2 | 0x4 | 0x8) {
    sim.observers().add(&rec);
    model::AdapterConfig ca, cb;
    ca.name = "A";
    ca.mac = {2, 0, 0, 0, 0, 1};
    ca.gid = ipv4_gid(1);
    cb.name = "B";
    cb.mac = {2, 0, 0, 0, 0, 2};
    cb.gid = ipv4_gid(2);
    cb.seed = 2;
    a.ad = &sim.add_adapter(ca);
    b.ad = &sim.add_adapter(cb);
    sim.connect(*a.ad, *b.ad, 1000);
    for (Side* s : {&a, &b}) {
      s->pd = s->ad->alloc_pd().value;
      s->mr = s->ad->reg_mr({s->pd, kBase, 65536, mem::access_from_u32(access), std::nullopt}).value;
      s->cq = s->ad->create_cq(64);
      qp::CreateQpParams p;
      p.type = type;
      p.pd = qp::PdId{s->pd.value};
      p.send_cq = p.recv_cq = qp::CqId{s->cq};
      p.caps = {32, 32, 4, 4, 64};
      const auto r = s->ad->create_qp(p);
      EXPECT_TRUE(r.ok());
      s->qpn = r.qpn;
    }
    bring_up(a, b, type, mtu, 0x100, 0x200, access);
    bring_up(b, a, type, mtu, 0x200, 0x100, access);
  }

  void bring_up(Side& s, Side& peer, qp::QpType type, std::uint32_t mtu, std::uint32_t sq_psn,
                std::uint32_t rq_psn, std::uint32_t access) {
    qp::QpAttr at;
    at.qp_state = QpState::INIT;
    at.port_num = 1;
    at.qp_access_flags = access & 0xE;
    at.qkey = 0x11111111;
    const bool ud = type == qp::QpType::UD;
    auto r = s.ad->modify_qp(s.qpn, at, ud ? mask({AttrBit::STATE, AttrBit::PKEY_INDEX, AttrBit::PORT, AttrBit::QKEY})
                                           : mask({AttrBit::STATE, AttrBit::PKEY_INDEX, AttrBit::PORT, AttrBit::ACCESS_FLAGS}));
    ASSERT_TRUE(r.ok()) << static_cast<int>(r.check.error);
    at.qp_state = QpState::RTR;
    qp::path_mtu_from_bytes(mtu, at.path_mtu);
    at.dest_qp_num = peer.qpn.value();
    at.rq_psn = rq_psn;
    at.max_dest_rd_atomic = 4;
    at.min_rnr_timer = 12;
    at.ah_attr.dgid = peer.ad->config().gid;
    at.ah_attr.dmac = peer.ad->config().mac;
    r = s.ad->modify_qp(s.qpn, at,
                        ud ? mask({AttrBit::STATE})
                        : type == qp::QpType::UC
                            ? mask({AttrBit::STATE, AttrBit::AV, AttrBit::PATH_MTU, AttrBit::DEST_QPN, AttrBit::RQ_PSN})
                            : mask({AttrBit::STATE, AttrBit::AV, AttrBit::PATH_MTU, AttrBit::DEST_QPN,
                                    AttrBit::RQ_PSN, AttrBit::MAX_DEST_RD_ATOMIC, AttrBit::MIN_RNR_TIMER}));
    ASSERT_TRUE(r.ok()) << static_cast<int>(r.check.error);
    at.qp_state = QpState::RTS;
    at.sq_psn = sq_psn;
    at.timeout = 14;
    at.retry_cnt = 7;
    at.rnr_retry = 7;
    at.max_rd_atomic = 4;
    r = s.ad->modify_qp(s.qpn, at,
                        type == qp::QpType::RC
                            ? mask({AttrBit::STATE, AttrBit::TIMEOUT, AttrBit::RETRY_CNT, AttrBit::RNR_RETRY,
                                    AttrBit::SQ_PSN, AttrBit::MAX_QP_RD_ATOMIC})
                            : mask({AttrBit::STATE, AttrBit::SQ_PSN}));
    ASSERT_TRUE(r.ok()) << static_cast<int>(r.check.error);
  }

  tx::SendWr wr(std::uint64_t id, tx::WrOpcode op, std::uint64_t laddr, std::uint32_t len) {
    tx::SendWr w;
    w.wr_id = id;
    w.opcode = op;
    w.send_flags = tx::kSendSignaled;
    w.sg_list = {{laddr, len, a.mr.lkey.value()}};
    w.rkey = b.mr.rkey.value();
    return w;
  }

  std::vector<cq::Wc> poll(Side& s) { return s.ad->poll_cq(s.cq, 64); }
};

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
  EXPECT_EQ(t.rec.tx, (std::vector<std::string>{"A:RC_RDMA_READ_REQUEST", "B:RC_RDMA_READ_RESPONSE_FIRST",
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
  EXPECT_EQ(t.a.ad->memory().load_u64(kBase), 100u);                 // FETCH_ADD's original
  EXPECT_EQ(t.a.ad->memory().load_u64(kBase + 8), 105u);             // CMP_SWAP's original
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 2u);
  EXPECT_EQ(wc[0].opcode, cq::WcOpcode::FETCH_ADD);
  EXPECT_EQ(wc[1].opcode, cq::WcOpcode::COMP_SWAP);
}

TEST(Adapter, RcSendWithImmediateLandsInTheReceiveBuffer) {
  Pair t;
  const auto data = pattern(1500, 1);
  t.a.ad->memory().write(kBase, data);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {99, {{kBase + 0x4000, 4096, t.b.mr.lkey.value()}}}), model::PostError::OK);
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
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {77, {{kBase, 64, t.b.mr.lkey.value()}}}), model::PostError::OK);
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

TEST(Adapter, RcSendWithoutReceiveGetsRnrNak) {
  Pair t;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, t.wr(1, tx::WrOpcode::SEND, kBase, 10)), model::PostError::OK);
  t.sim.run_until();
  ASSERT_EQ(t.rec.naks.size(), 1u);
  EXPECT_EQ(t.rec.naks[0], "rnr");
  EXPECT_EQ(t.b.ad->qps().find(t.b.qpn)->state(), QpState::RTS);  // an RNR NAK changes nothing
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
    ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {5, {{kBase + 0x100, 1024, t.b.mr.lkey.value()}}}), model::PostError::OK);
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
