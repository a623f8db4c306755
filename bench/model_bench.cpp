// Simulated frames per second of the golden model (target: >= 1 M/s on one core) for a
// WRITE-heavy load and a SEND/READ mix on one RC QP pair, and the heap held per idle QP.
// `make bench` runs it; docs/bench.md records the figures.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include "rocecert/model/bring_up.h"
#include "rocecert/model/simulation.h"

using namespace rocecert;

namespace {

struct FrameCounter : trace::Observer {
  std::uint64_t frames = 0;
  void on_frame(const trace::FrameEvent& e) override { frames += e.dir == trace::Direction::TX; }
};

struct Bench {
  model::Simulation sim;
  FrameCounter counter;
  model::Adapter* ad[2];
  mem::MrKeys mr[2];
  qp::CqId cq[2];
  qp::Qpn qpn[2];
  static constexpr std::uint64_t kBase = 0x1000000;

  Bench() {
    sim.observers().add(&counter);
    for (int i = 0; i < 2; ++i) {
      model::AdapterConfig c;
      c.name = i == 0 ? "A" : "B";
      c.mac = {2, 0, 0, 0, 0, static_cast<std::uint8_t>(i + 1)};
      c.gid = {0, 0, 0,    0,    0,  0, 0, 0,
               0, 0, 0xFF, 0xFF, 10, 0, 0, static_cast<std::uint8_t>(i + 1)};
      ad[i] = &sim.add_adapter(c);
      const mem::Pd pd = ad[i]->alloc_pd().value;
      mr[i] = ad[i]->reg_mr({pd, kBase, 1 << 20, mem::access_from_u32(0xF), std::nullopt}).value;
      cq[i] = ad[i]->create_cq(1 << 20);
      qp::CreateQpParams p;
      p.pd = qp::PdId{pd.value};
      p.send_cq = p.recv_cq = cq[i];
      p.caps = {4096, 4096, 1, 1, 0};
      qpn[i] = ad[i]->create_qp(p).qpn;
    }
    sim.connect(*ad[0], *ad[1], 1000);
    for (int i = 0; i < 2; ++i) {
      model::BringUp b;
      b.access = 0xE;
      b.max_rd_atomic = b.max_dest_rd_atomic = 16;
      model::bring_up(*ad[i], qpn[i], *ad[1 - i], qpn[1 - i], b);
    }
  }

  tx::SendWr wr(tx::WrOpcode op, std::uint32_t len) {
    tx::SendWr w;
    w.opcode = op;
    w.sg_list = {{kBase, len, mr[0].lkey.value()}};
    w.remote_addr = kBase + 0x80000;
    w.rkey = mr[1].rkey.value();
    return w;
  }
};

void BM_SimWriteHeavy(benchmark::State& state) {
  Bench b;
  for (auto _ : state) {
    for (int i = 0; i < 64; ++i)
      b.ad[0]->post_send(b.qpn[0], b.wr(tx::WrOpcode::RDMA_WRITE, 16384));
    b.sim.run_until();
    b.ad[0]->poll_cq(b.cq[0], 1 << 20);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(b.counter.frames));
  state.counters["frames_per_iter"] =
      static_cast<double>(b.counter.frames) / static_cast<double>(state.iterations());
}

void BM_SimSendReadMix(benchmark::State& state) {
  Bench b;
  for (auto _ : state) {
    for (int i = 0; i < 32; ++i) {
      b.ad[1]->post_recv(b.qpn[1], {1, {{Bench::kBase, 8192, b.mr[1].lkey.value()}}});
      b.ad[0]->post_send(b.qpn[0], b.wr(tx::WrOpcode::SEND, 4096));
      b.ad[0]->post_send(b.qpn[0], b.wr(tx::WrOpcode::RDMA_READ, 16384));
    }
    b.sim.run_until();
    b.ad[0]->poll_cq(b.cq[0], 1 << 20);
    b.ad[1]->poll_cq(b.cq[1], 1 << 20);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(b.counter.frames));
}

// Heap bytes one more idle RC QP costs (created, brought to RTS, no traffic): the QP context,
// its queues' bookkeeping and the table entries.
void BM_MemoryPerIdleQp(benchmark::State& state) {
  constexpr int kQps = 1000;
  double per_qp = 0;
  for (auto _ : state) {
    Bench b;
    const std::size_t before = mallinfo2().uordblks;
    for (int i = 0; i < kQps; ++i) {
      qp::CreateQpParams p;
      p.pd = qp::PdId{1};
      p.send_cq = p.recv_cq = b.cq[0];
      p.caps = {256, 256, 1, 1, 0};
      const auto r = b.ad[0]->create_qp(p);
      model::BringUp up;
      up.max_dest_rd_atomic = 16;
      model::bring_up(*b.ad[0], r.qpn, *b.ad[1], b.qpn[1], up);
    }
    per_qp = static_cast<double>(mallinfo2().uordblks - before) / kQps;
  }
  state.counters["bytes_per_idle_qp"] = per_qp;
}

}  // namespace

BENCHMARK(BM_SimWriteHeavy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimSendReadMix)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MemoryPerIdleQp)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
