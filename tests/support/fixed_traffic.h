// Test and benchmark support: the golden model's RC traffic on a fixed set of QP pairs, as
// long as asked. However long the capture, the connections are the same, so what `rocecert
// check` holds must not grow with it (check_bench --qp-pairs), and the checker must not FAIL
// it, with or without faults on the link (check_long_connections_test).
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include "rocecert/model/bring_up.h"
#include "rocecert/model/simulation.h"

namespace rocecert::testing {

struct FixedTraffic {
  unsigned pairs = 1;        // RC QP pairs between host A (10.9.0.1) and host B (10.9.0.2)
  std::uint64_t frames = 0;  // at least this many (the last round is finished)
  std::uint64_t seed = 0;    // 0: MTU 1024 and first PSNs that wrap in the first rounds
  double faults = 0;         // drop probability per frame and direction (see below)
};

// Each side of each pair sends WRITEs, READs, SENDs and FETCH_ADDs to the other, round after
// round until `t.frames`. Seed 0 is the figures' traffic (docs/bench.md); any other seed draws
// the path MTU, the message sizes, the first PSNs and the WRs of each kind per round. With
// `t.faults` > 0 the link drops frames with that probability in each direction and duplicates
// and reorders them with half of it, and the capture is a tap beside host A: A's frames as sent
// (before the faults), B's as they reach A (after them). Each frame of the capture goes to
// `sink_fn` with its time in ns; returns how many. Stops early if the QPs stop (retries
// exhausted).
inline std::uint64_t fixed_traffic(
    const FixedTraffic& t,
    const std::function<void(std::int64_t, std::span<const std::uint8_t>)>& sink_fn) {
  struct Tap : trace::Observer {
    const std::function<void(std::int64_t, std::span<const std::uint8_t>)>* sink = nullptr;
    std::uint64_t frames = 0;
    bool only_a = false;  // the tap beside A: B's frames come from the link instead
    void write(sim::SimTime at, std::span<const std::uint8_t> bytes) {
      (*sink)(1'800'000'000'000'000'000 + static_cast<std::int64_t>(at), bytes);
      ++frames;
    }
    void on_frame(const trace::FrameEvent& e) override {
      if (e.dir != trace::Direction::TX || (only_a && e.adapter != 0)) return;
      write(e.t, e.bytes);
    }
  };
  const std::uint64_t seed = t.seed;
  const unsigned pairs = t.pairs;
  std::mt19937_64 rng(seed);
  auto draw = [&](std::uint32_t lo, std::uint32_t hi) {  // in [lo, hi]
    return static_cast<std::uint32_t>(lo + rng() % (std::uint64_t{hi} - lo + 1));
  };
  // What the seed decides of the whole run: seed 0 the figures of docs/bench.md, any other drawn
  // (in this order, so that a seed always gives the same traffic).
  struct Shape {
    std::uint32_t mtu, write_max, read_max, send_max;
    std::uint32_t per_round;  // WRs of each kind a QP posts a round
  };
  const Shape shape = [&] {
    if (seed == 0) return Shape{1024, 8592, 3000, 4096, 1};
    Shape d{};
    d.mtu = 256u << draw(0, 4);
    d.write_max = draw(1, 5) * d.mtu * 4;
    d.read_max = draw(1, 4) * d.mtu * 2;
    d.send_max = draw(1, 4) * d.mtu;
    d.per_round = draw(1, 4);
    return d;
  }();
  const std::uint32_t mtu = shape.mtu, write_max = shape.write_max, read_max = shape.read_max;
  const std::uint32_t send_max = shape.send_max, per_round = shape.per_round;
  Tap tap;
  tap.sink = &sink_fn;
  model::Simulation sim;
  sim.observers().add(&tap);
  constexpr std::uint64_t kBase = 0x1000000;
  constexpr std::uint32_t kMr = 1 << 20;
  model::Adapter* ad[2];
  mem::MrKeys mr[2];
  qp::CqId cq[2];
  std::vector<qp::Qpn> qpn[2];
  for (int i = 0; i < 2; ++i) {
    model::AdapterConfig c;
    c.name = i == 0 ? "A" : "B";
    c.mac = {2, 0, 0, 0, 0, static_cast<std::uint8_t>(i + 1)};
    c.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 9, 0, static_cast<std::uint8_t>(i + 1)};
    ad[i] = &sim.add_adapter(c);
    const mem::Pd pd = ad[i]->alloc_pd().value;
    mr[i] = ad[i]->reg_mr({pd, kBase, kMr, mem::access_from_u32(0xF), std::nullopt}).value;
    cq[i] = ad[i]->create_cq(1 << 16);
    for (unsigned k = 0; k < pairs; ++k) {
      qp::CreateQpParams p;
      p.pd = qp::PdId{pd.value};
      p.send_cq = p.recv_cq = cq[i];
      p.caps = {64, 64, 1, 1, 0};
      qpn[i].push_back(ad[i]->create_qp(p).qpn);
    }
  }
  model::Link& link = sim.connect(*ad[0], *ad[1], 2000);
  if (t.faults > 0) {
    model::FaultPlan plan;
    plan.seed = seed + 1;
    for (model::FaultRates* r : {&plan.a_to_b, &plan.b_to_a}) {
      r->drop = t.faults;
      r->duplicate = r->reorder = t.faults / 2;
    }
    link.set_faults(plan);
    tap.only_a = true;
    link.tap(*ad[0], [&](std::vector<std::uint8_t> f) { tap.write(sim.events().now(), f); });
  }
  for (unsigned k = 0; k < pairs; ++k) {
    std::uint32_t psn[2] = {0xFFFFFF - 100 - 7 * k, 0xFFFFFF - 150 - 11 * k};
    if (seed != 0) psn[0] = draw(0, 0xFFFFFF), psn[1] = draw(0, 0xFFFFFF);
    for (int i = 0; i < 2; ++i) {
      model::BringUp b;
      b.mtu = mtu;
      b.access = 0xE;
      b.max_rd_atomic = b.max_dest_rd_atomic = 4;
      b.sq_psn = psn[i];
      b.rq_psn = psn[1 - i];
      model::bring_up(*ad[i], qpn[i][k], *ad[1 - i], qpn[1 - i][k], b);
    }
  }
  auto wr = [&](int from, tx::WrOpcode op, std::uint32_t len, std::uint64_t at) {
    tx::SendWr x;
    x.opcode = op;
    x.sg_list = {{kBase + at, len, mr[from].lkey.value()}};
    x.remote_addr = kBase + at;
    x.rkey = mr[1 - from].rkey.value();
    x.compare_add = 1;
    x.send_flags = tx::kSendSignaled;
    return x;
  };
  std::uint64_t round = 0, before = 0;
  while (tap.frames < t.frames) {
    if (round != 0 && tap.frames == before) break;  // the QPs stopped (retries exhausted)
    before = tap.frames;
    for (unsigned k = 0; k < pairs; ++k)
      for (int i = 0; i < 2; ++i)
        for (std::uint32_t n = 0; n < per_round; ++n) {
          const std::uint64_t at = (round * 0x9000 + k * 0x1000 + n * 0x400) % (kMr - 0x40000);
          const auto size = [&](std::uint32_t max) {
            return seed == 0 ? max - static_cast<std::uint32_t>(round % 5) * 100 : draw(1, max);
          };
          model::RecvWr r;
          r.sg_list = {{kBase + 0x30000, send_max, mr[1 - i].lkey.value()}};
          ad[1 - i]->post_recv(qpn[1 - i][k], r);
          ad[i]->post_send(qpn[i][k], wr(i, tx::WrOpcode::RDMA_WRITE, size(write_max), at));
          ad[i]->post_send(qpn[i][k], wr(i, tx::WrOpcode::RDMA_READ, size(read_max), at + 0x10000));
          const auto send_len =
              seed == 0 ? 1 + static_cast<std::uint32_t>((round * 37) % 4096) : draw(0, send_max);
          ad[i]->post_send(qpn[i][k], wr(i, tx::WrOpcode::SEND, send_len, 0x30000));
          ad[i]->post_send(qpn[i][k],
                           wr(i, tx::WrOpcode::ATOMIC_FETCH_AND_ADD, 8, (at + 0x20000) & ~7ull));
        }
    sim.run_until();
    for (int i = 0; i < 2; ++i)
      while (!ad[i]->poll_cq(cq[i], 1024).empty()) {
      }
    ++round;
  }
  return tap.frames;
}

}  // namespace rocecert::testing
