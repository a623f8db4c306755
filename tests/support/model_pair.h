// Test support: two simulated adapters joined by a link, one QP pair brought up through
// INIT/RTR/RTS, one MR per side at kBase. Used by the model's unit tests and by the comparison
// with real Soft-RoCE captures.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "rocecert/model/bring_up.h"
#include "rocecert/model/simulation.h"
#include "rocecert/wire/decode.h"

namespace rocecert::testing {

using model::Adapter;
using qp::AttrBit;
using qp::QpState;

struct Recorder : trace::Observer {
  std::vector<std::string> tx;                       // "A:RC_SEND_ONLY"
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

inline std::array<std::uint8_t, 16> ipv4_gid(std::uint8_t last) {
  return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, last};
}

struct Side {
  Adapter* ad = nullptr;
  mem::Pd pd{};
  mem::MrKeys mr{};
  qp::CqId cq;
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
                std::uint32_t psn_b = 0x200,
                const std::function<void(model::AdapterConfig&)>& tweak = {},
                std::uint8_t ack_timeout = 14,
                const std::function<void(model::BringUp&)>& tweak_bring_up = {}) {
    timeout_ = ack_timeout;
    tweak_bring_up_ = tweak_bring_up;
    sim.observers().add(&rec);
    model::AdapterConfig ca, cb;
    ca.name = "A";
    ca.mac = {2, 0, 0, 0, 0, 1};
    ca.gid = ipv4_gid(1);
    cb.name = "B";
    cb.mac = {2, 0, 0, 0, 0, 2};
    cb.gid = ipv4_gid(2);
    cb.seed = 2;
    if (tweak) {
      tweak(ca);
      tweak(cb);
    }
    a.ad = &sim.add_adapter(ca);
    b.ad = &sim.add_adapter(cb);
    sim.connect(*a.ad, *b.ad, 1000);
    for (Side* s : {&a, &b}) {
      s->pd = s->ad->alloc_pd().value;
      s->mr =
          s->ad->reg_mr({s->pd, kBase, kMrSize, mem::access_from_u32(access), std::nullopt}).value;
      s->cq = s->ad->create_cq(64);
      qp::CreateQpParams p;
      p.type = type;
      p.pd = qp::PdId{s->pd.value};
      p.send_cq = p.recv_cq = s->cq;
      p.caps = {32, 32, 4, 4, 64};
      const auto r = s->ad->create_qp(p);
      EXPECT_TRUE(r.ok());
      s->qpn = r.qpn;
    }
    bring_up(a, b, type, mtu, psn_a, psn_b, access);
    bring_up(b, a, type, mtu, psn_b, psn_a, access);
  }

  void bring_up(Side& s, Side& peer, qp::QpType, std::uint32_t mtu, std::uint32_t sq_psn,
                std::uint32_t rq_psn, std::uint32_t access) {
    model::BringUp p;
    p.timeout = timeout_;
    p.mtu = mtu;
    p.sq_psn = sq_psn;
    p.rq_psn = rq_psn;
    p.access = access & 0xE;  // the QP gate takes the remote rights
    if (tweak_bring_up_) tweak_bring_up_(p);
    const auto refused = model::bring_up(*s.ad, s.qpn, *peer.ad, peer.qpn, p);
    ASSERT_FALSE(refused.has_value()) << static_cast<int>(refused->check.error);
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

 private:
  std::uint8_t timeout_ = 14;
  std::function<void(model::BringUp&)> tweak_bring_up_;
};

}  // namespace rocecert::testing
