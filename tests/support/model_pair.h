// Test support: two simulated adapters joined by a link, one QP pair brought up through
// INIT/RTR/RTS, one MR per side at kBase. Used by the model's unit tests and by the comparison
// with real Soft-RoCE captures.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rocecert/model/simulation.h"
#include "rocecert/wire/decode.h"

namespace rocecert::testing {

using model::Adapter;
using qp::AttrBit;
using qp::QpState;

struct Recorder : trace::Observer {
  std::vector<std::string> tx;  // "A:RC_SEND_ONLY"
  std::vector<std::vector<std::uint8_t>> frames[2];  // transmitted frames, per adapter
  std::vector<std::string> naks;
  std::vector<std::string> transitions;
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX) return;
    const wire::ParsedFrame p = wire::decode(e.bytes);
    ASSERT_FALSE(p.has_error);
    ASSERT_TRUE(p.icrc_ok);
    tx.push_back(std::string(e.adapter == 0 ? "A:" : "B:") + std::string(p.op->name));
    frames[e.adapter & 1].emplace_back(e.bytes.begin(), e.bytes.end());
  }
  void on_nak(const trace::NakEvent& e) override { naks.push_back(std::string(e.reason)); }
  void on_qp_transition(const trace::QpTransitionEvent& e) override {
    transitions.push_back(std::to_string(e.qpn) + ":" + std::string(qp::to_string(e.to)));
  }
};

inline qp::AttrMask mask(std::initializer_list<AttrBit> bits) {
  std::uint32_t m = 0;
  for (AttrBit b : bits) m |= static_cast<std::uint32_t>(b);
  return qp::AttrMask::from_raw(m);
}

inline std::array<std::uint8_t, 16> ipv4_gid(std::uint8_t last) {
  return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, last};
}

struct Side {
  Adapter* ad = nullptr;
  mem::Pd pd{};
  mem::MrKeys mr{};
  std::uint32_t cq = 0;
  qp::Qpn qpn;
};

constexpr std::uint64_t kBase = 0x100000;  // every MR: [kBase, kBase + kMrSize)
constexpr std::uint64_t kMrSize = 0x100000;

struct Pair {
  model::Simulation sim;
  Recorder rec;
  Side a, b;

  explicit Pair(qp::QpType type = qp::QpType::RC, std::uint32_t mtu = 1024,
                std::uint32_t access = 0x1 | 0x2 | 0x4 | 0x8, std::uint32_t psn_a = 0x100,
                std::uint32_t psn_b = 0x200) {
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
      s->mr = s->ad->reg_mr({s->pd, kBase, kMrSize, mem::access_from_u32(access), std::nullopt}).value;
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
    bring_up(a, b, type, mtu, psn_a, psn_b, access);
    bring_up(b, a, type, mtu, psn_b, psn_a, access);
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

}  // namespace rocecert::testing
