// The reliability engine under loss, duplication and reordering (docs/faults.md): each loss pattern
// on its own, then property tests over many seeds of random faults. Expectations come from the
// spec's rules (docs/spec-notes.md §3-§5), the lossless run, and invariants, not from the model's
// output.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <cstdio>
#include <cstdlib>
#include "model_pair.h"
#include "rocecert/model/faults.h"
#include "rocecert/trace/json_trace.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert;
using namespace rocecert::testing;

namespace {

std::vector<std::uint8_t> data_of(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<std::uint8_t>(seed * 31 + i * 7 + (i >> 9));
  return v;
}

model::FaultRule rule(const std::string& text) {
  const auto r = model::parse_fault_rule(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.error;
  return r.rule;
}

struct RetrySpy : trace::Observer {
  std::vector<trace::RetryKind> kinds;
  void on_retry(const trace::RetryEvent& e) override { kinds.push_back(e.kind); }
};

// A pair with short timers: timeout 8 (1.05 ms), min_rnr_timer 1 (10 µs).
struct LossyPair : Pair {
  RetrySpy retries;
  explicit LossyPair(std::uint32_t psn_a = 0x100)
      : Pair(qp::QpType::RC, 1024, 0xF, psn_a, 0x200, {}, 8) {
    sim.observers().add(&retries);
  }
  void faults(std::vector<std::string> rules) {
    model::FaultPlan plan;
    for (const auto& r : rules) plan.rules.push_back(rule(r));
    sim.link(0).set_faults(plan);
  }
  // One RDMA WRITE of `len` bytes through the lossy link: it must land whole and complete once,
  // successfully.
  void write_and_check(std::size_t len, std::uint8_t seed) {
    const auto data = data_of(len, seed);
    a.ad->memory().write(kBase, data);
    tx::SendWr w = wr(1, tx::WrOpcode::RDMA_WRITE, kBase, static_cast<std::uint32_t>(len));
    w.remote_addr = kBase + 0x10000;
    ASSERT_EQ(a.ad->post_send(a.qpn, w), model::PostError::OK);
    sim.run_until(50'000'000);
    EXPECT_EQ(b.ad->memory().read_bytes(kBase + 0x10000, data.size()), data);
    const auto wc = poll(a);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  }
};

}  // namespace

TEST(Reliability, WriteSurvivesTheLossOfItsFirstMiddleOrLastPacket) {
  for (const char* lost : {"RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_MIDDLE", "RC_RDMA_WRITE_LAST"}) {
    SCOPED_TRACE(lost);
    LossyPair t;
    t.faults({std::string("drop opcode=") + lost + " nth=1"});
    t.write_and_check(5 * 1024, 3);
    ASSERT_FALSE(t.retries.kinds.empty());
    // A lost FIRST or MIDDLE is seen by the responder as a gap (PSN sequence NAK); a lost LAST
    // leaves nothing behind it, so only the ACK timer finds it (IBTA Vol. 1 §9.7.6.1.3, C9-140;
    // docs/spec-notes.md §3.3, §5.2).
    EXPECT_EQ(t.retries.kinds[0], std::string(lost) == "RC_RDMA_WRITE_LAST"
                                      ? trace::RetryKind::TIMEOUT
                                      : trace::RetryKind::SEQUENCE_NAK);
  }
}

TEST(Reliability, SeveralPacketsInARowAndAcrossThePsnWrap) {
  LossyPair t(0xFFFFFE);  // the message's PSNs run 0xFFFFFE, 0xFFFFFF, 0, 1, ...
  t.faults({"drop class=write nth=2..4"});
  t.write_and_check(6 * 1024, 5);
  EXPECT_EQ(t.b.ad->qps().find(t.b.qpn)->resp.epsn.value(), 4u);  // 0xFFFFFE + 6, wrapped
}

TEST(Reliability, LostAckIsRecoveredByTheTimerAndADuplicateReAck) {
  LossyPair t;
  t.faults({"drop class=ack nth=1"});
  tx::SendWr w = t.wr(1, tx::WrOpcode::RDMA_WRITE, kBase, 100);
  w.remote_addr = kBase + 0x10000;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  t.sim.run_until(50'000'000);
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(t.retries.kinds, (std::vector<trace::RetryKind>{trace::RetryKind::TIMEOUT}));
  // The WRITE went twice; the responder executed it once and re-ACKed the duplicate.
  EXPECT_EQ(t.b.ad->qps().find(t.b.qpn)->resp.msn.value(), 1u);
}

// A NAK that arrives after the request it names was acknowledged (delayed or duplicated on the
// way) is stale: rxe's completer ignores a response whose PSN is before comp.psn
// (drivers/infiniband/sw/rxe/rxe_comp.c, check_psn; docs/spec-notes.md §5.3). It must not
// rewind the requester: no retry, and no timer left running once everything has completed.
TEST(Reliability, StaleRnrNakAfterTheMessageCompletedIsIgnored) {
  LossyPair t;
  // The RNR NAK for the SEND (no receive posted yet) is delayed by 3 ms; meanwhile the ACK
  // timer (1.05 ms) sends the SEND again, which now finds its receive and is ACKed.
  t.faults({"delay class=nak nth=1 delay=3000000"});
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, t.wr(1, tx::WrOpcode::SEND, kBase, 100)),
            model::PostError::OK);
  t.sim.run_until(5'000);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {42, {{kBase + 0x10000, 0x1000, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  t.sim.run_until(50'000'000);
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(t.retries.kinds, (std::vector<trace::RetryKind>{trace::RetryKind::TIMEOUT}));
  EXPECT_TRUE(t.sim.events().empty()) << "a timer still runs with nothing outstanding";
}

TEST(Reliability, LostReadResponseResumesTheRead) {
  LossyPair t;
  t.faults({"drop class=read_response nth=2"});
  const auto data = data_of(4 * 1024, 9);
  t.b.ad->memory().write(kBase + 0x20000, data);
  tx::SendWr w = t.wr(1, tx::WrOpcode::RDMA_READ, kBase + 0x100, 4 * 1024);
  w.remote_addr = kBase + 0x20000;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  t.sim.run_until(50'000'000);
  EXPECT_EQ(t.a.ad->memory().read_bytes(kBase + 0x100, data.size()), data);
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  // The READ was re-issued from the PSN of the missing response (docs/spec-notes.md §5.3).
  int reads = 0;
  std::set<std::uint32_t> read_psns;
  for (const auto& f : t.rec.frames[0]) {
    const wire::ParsedFrame p = wire::decode(f);
    if (p.op->operation == wire::Operation::READ_REQUEST) {
      ++reads;
      read_psns.insert(p.bth.psn);
    }
  }
  EXPECT_EQ(reads, 2);
  EXPECT_EQ(read_psns, (std::set<std::uint32_t>{0x100, 0x101}));
}

TEST(Reliability, LostAtomicResponseIsReplayedNotReExecuted) {
  LossyPair t;
  t.faults({"drop class=atomic_ack nth=1"});
  t.b.ad->memory().store_u64(kBase + 0x3000, 1000);
  tx::SendWr w = t.wr(1, tx::WrOpcode::ATOMIC_FETCH_AND_ADD, kBase, 8);
  w.remote_addr = kBase + 0x3000;
  w.compare_add = 7;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  t.sim.run_until(50'000'000);
  EXPECT_EQ(t.b.ad->memory().load_u64(kBase + 0x3000), 1007u);  // added once
  EXPECT_EQ(t.a.ad->memory().load_u64(kBase), 1000u);           // the original, from the replay
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
}

TEST(Reliability, RetryExhaustionFailsTheWqeAndFlushesTheRest) {
  LossyPair t;
  // A fresh QP with retry_cnt 2, aimed at a QPN that B does not have: nothing ever answers.
  qp::CreateQpParams p;
  p.pd = qp::PdId{t.a.pd.value};
  p.send_cq = p.recv_cq = t.a.cq;
  p.caps = {8, 8, 1, 1, 0};
  const qp::Qpn q = t.a.ad->create_qp(p).qpn;
  model::BringUp up;
  up.retry_cnt = 2;
  up.timeout = 8;
  ASSERT_FALSE(model::bring_up(*t.a.ad, q, *t.b.ad, qp::Qpn(0x777), up));  // no such QP on B
  for (std::uint64_t i = 1; i <= 3; ++i)
    ASSERT_EQ(t.a.ad->post_send(q, t.wr(i, tx::WrOpcode::RDMA_WRITE, kBase, 64)),
              model::PostError::OK);
  t.sim.run_until(100'000'000);
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 3u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::RETRY_EXC_ERR);
  EXPECT_EQ(wc[1].status, cq::WcStatus::WR_FLUSH_ERR);
  EXPECT_EQ(wc[2].status, cq::WcStatus::WR_FLUSH_ERR);
  EXPECT_EQ(t.a.ad->qps().find(q)->state(), qp::QpState::ERR);
  EXPECT_EQ(t.retries.kinds.size(), 2u);  // two retries, then exhaustion
}

namespace {

// One workload: WRITEs, READs, SENDs and FETCH_ADDs of assorted sizes, all signaled.
struct Workload {
  struct Op {
    tx::WrOpcode op;
    std::uint32_t len;
    std::uint64_t local, remote;
  };
  std::vector<Op> ops;
  explicit Workload(std::uint64_t seed) {
    wire::SplitMix64 rng(seed);
    for (std::uint64_t i = 0; i < 24; ++i) {
      const std::uint32_t kind = rng.below(4);
      const std::uint32_t len = 1 + rng.below(5000);
      Op o{tx::WrOpcode::RDMA_WRITE, len, kBase + i * 0x2000, kBase + 0x40000 + i * 0x2000};
      if (kind == 1) o.op = tx::WrOpcode::RDMA_READ;
      if (kind == 2) o.op = tx::WrOpcode::SEND;
      if (kind == 3) {
        o.op = tx::WrOpcode::ATOMIC_FETCH_AND_ADD;
        o.len = 8;
        o.remote = kBase + 0x80000 + 8 * (i % 4);  // four shared counters
      }
      ops.push_back(o);
    }
  }
};

struct Outcome {
  std::vector<std::uint8_t> a_mem, b_mem;
  std::map<std::uint64_t, cq::WcStatus> send_wc;
  std::map<std::uint64_t, int> send_count;
  int recv_count = 0;
  bool psn_window_ok = true;
};

// Checks, at every request the requester sends, that its PSN lies in the requester's window
// [comp_psn, next_psn) (docs/spec-notes.md §3.2).
struct WindowWatch : trace::Observer {
  const Adapter* requester = nullptr;
  qp::Qpn qpn;
  bool ok = true;
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX || e.adapter != 0) return;
    const wire::ParsedFrame p = wire::decode(e.bytes);
    if (!p.has_bth || !p.op->is_request()) return;
    const qp::QpContext* ctx = requester->qps().find(qpn);
    const qp::Psn psn(p.bth.psn);
    if (qp::psn_before(psn, ctx->req.comp_psn) || !qp::psn_before(psn, ctx->req.next_psn)) {
      if (ok)
        std::fprintf(stderr, "window: t=%llu %s psn %u comp %u next %u\n",
                     static_cast<unsigned long long>(e.t), std::string(p.op->name).c_str(),
                     psn.value(), ctx->req.comp_psn.value(), ctx->req.next_psn.value());
      ok = false;
    }
    if (ctx->req.outstanding_psns() > ctx->req.max_unacked_psns + 64) ok = false;
  }
};

Outcome run_workload(std::uint64_t seed, const model::FaultPlan& plan,
                     const std::function<void(model::AdapterConfig&)>& tweak = {}) {
  Pair t(qp::QpType::RC, 1024, 0xF, 0x100, 0x200, tweak, 8);
  WindowWatch watch;
  watch.requester = t.a.ad;
  watch.qpn = t.a.qpn;
  t.sim.observers().add(&watch);
  t.sim.link(0).set_faults(plan);
  std::FILE* dbg = nullptr;
  std::unique_ptr<trace::JsonTraceWriter> writer;
  if (std::getenv("ROCECERT_DEBUG_TRACE") && !plan.empty() &&
      std::to_string(seed) ==
          (std::getenv("ROCECERT_DEBUG_SEED") ? std::getenv("ROCECERT_DEBUG_SEED") : "")) {
    dbg = std::fopen(std::getenv("ROCECERT_DEBUG_TRACE"), "w");
    writer = std::make_unique<trace::JsonTraceWriter>(dbg);
    t.sim.observers().add(writer.get());
  }
  const Workload w(seed);
  for (std::uint64_t i = 0; i < 0x60000; i += 8) {
    t.a.ad->memory().store_u64(kBase + i, i * 0x9E3779B97F4A7C15ull + seed);
    t.b.ad->memory().store_u64(kBase + i, i * 0xC2B2AE3D27D4EB4Full + seed);
  }
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    const auto& o = w.ops[i];
    if (o.op == tx::WrOpcode::SEND) {
      EXPECT_EQ(t.b.ad->post_recv(
                    t.b.qpn, {i, {{kBase + 0x90000 + i * 0x2000, 0x2000, t.b.mr.lkey.value()}}}),
                model::PostError::OK);
    }
    tx::SendWr wr = t.wr(i, o.op, o.local, o.len);
    wr.remote_addr = o.remote;
    wr.compare_add = i + 1;
    EXPECT_EQ(t.a.ad->post_send(t.a.qpn, wr), model::PostError::OK);
  }
  t.sim.run_until(2'000'000'000);
  Outcome out;
  out.a_mem = t.a.ad->memory().read_bytes(kBase, 0xC0000);
  out.b_mem = t.b.ad->memory().read_bytes(kBase, 0xC0000);
  for (const cq::Wc& wc : t.poll(t.a)) {
    out.send_wc[wc.wr_id] = wc.status;
    ++out.send_count[wc.wr_id];
  }
  out.recv_count = static_cast<int>(t.poll(t.b).size());
  out.psn_window_ok = watch.ok;
  writer.reset();
  if (dbg) std::fclose(dbg);
  return out;
}

}  // namespace

namespace {

// 5 % loss, 3 % duplication, 3 % reordering each way, drawn from `seed`.
model::FaultPlan random_faults(std::uint64_t seed) {
  model::FaultPlan plan;
  plan.seed = seed;
  for (model::FaultRates* r : {&plan.a_to_b, &plan.b_to_a}) {
    r->drop = 0.05;
    r->duplicate = 0.03;
    r->reorder = 0.03;
  }
  return plan;
}

// Every signaled WR completed exactly once and successfully (retry_cnt 7 retries forever), the
// receives and the memory on both sides equal the lossless run (nothing written twice, no
// atomic executed twice), and requests stayed in the PSN window.
void expect_same_result(const Outcome& o, const Outcome& clean) {
  ASSERT_EQ(o.send_wc.size(), 24u);
  for (const auto& [id, n] : o.send_count) EXPECT_EQ(n, 1) << "wr " << id;
  for (const auto& [id, st] : o.send_wc) EXPECT_EQ(st, cq::WcStatus::SUCCESS) << "wr " << id;
  EXPECT_EQ(o.recv_count, clean.recv_count);
  EXPECT_TRUE(o.a_mem == clean.a_mem);
  EXPECT_TRUE(o.b_mem == clean.b_mem);
  EXPECT_TRUE(o.psn_window_ok);
}

}  // namespace

TEST(ReliabilityProperties, RandomLossDuplicationAndReorderingNeverChangeTheResult) {
  int seeds = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Outcome clean = run_workload(seed, {});
    ASSERT_EQ(clean.send_wc.size(), 24u);
    expect_same_result(run_workload(seed, random_faults(seed)), clean);
    ++seeds;
  }
  EXPECT_EQ(seeds, 40);
}

TEST(ReliabilityProperties, CoalescedAcksUnderRandomFaultsGiveTheSameResult) {
  // The responder coalesces (8 packets or 20 µs, far below the 1 ms ACK timeout): fewer ACKs,
  // so a lost one costs more, but the outcome must not change.
  const auto coalesce = [](model::AdapterConfig& c) {
    c.profile.ack.mode = model::AckCoalescing::Mode::COALESCE;
    c.profile.ack.max_packets = 8;
    c.profile.ack.max_delay_ns = 20'000;
  };
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Outcome clean = run_workload(seed, {});
    for (const model::FaultPlan& p : {model::FaultPlan{}, random_faults(seed)})
      expect_same_result(run_workload(seed, p, coalesce), clean);
  }
}

TEST(ReliabilityProperties, AFaultFreeQpIsByteIdenticalToItsRunAlone) {
  // Two QP pairs on one link; every fault is aimed at QP pair 1 by rules. QP pair 2's frames
  // must be exactly those it sends when it runs alone.
  auto run = [](bool with_qp1, bool faults) {
    Pair t(qp::QpType::RC, 1024, 0xF, 0x100, 0x200);
    qp::CreateQpParams p;
    p.caps = {64, 64, 1, 1, 0};
    p.pd = qp::PdId{t.a.pd.value};
    p.send_cq = p.recv_cq = t.a.cq;
    const qp::Qpn a2 = t.a.ad->create_qp(p).qpn;
    p.pd = qp::PdId{t.b.pd.value};
    p.send_cq = p.recv_cq = t.b.cq;
    const qp::Qpn b2 = t.b.ad->create_qp(p).qpn;
    model::BringUp up;
    up.access = 0xE;
    up.timeout = 8;
    up.sq_psn = 0x5000;
    up.rq_psn = 0x6000;
    EXPECT_FALSE(model::bring_up(*t.a.ad, a2, *t.b.ad, b2, up));
    std::swap(up.sq_psn, up.rq_psn);
    EXPECT_FALSE(model::bring_up(*t.b.ad, b2, *t.a.ad, a2, up));
    if (faults) {
      model::FaultPlan plan;
      for (const char* r : {"drop qp=%B nth=2", "duplicate qp=%B nth=5", "drop qp=%A nth=3",
                            "reorder qp=%B nth=7"}) {
        std::string text(r);
        const auto at = text.find('%');
        text.replace(at, 2, std::to_string((text[at + 1] == 'A' ? t.a.qpn : t.b.qpn).value()));
        plan.rules.push_back(rule(text));
      }
      t.sim.link(0).set_faults(plan);
    }
    for (std::uint64_t i = 0; i < 6; ++i) {
      if (with_qp1) {
        tx::SendWr w = t.wr(i, tx::WrOpcode::RDMA_WRITE, kBase, 3000);
        w.remote_addr = kBase + 0x10000;
        EXPECT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
      }
      tx::SendWr w2 = t.wr(100 + i, i % 2 ? tx::WrOpcode::RDMA_READ : tx::WrOpcode::RDMA_WRITE,
                           kBase + 0x20000, 2500);
      w2.remote_addr = kBase + 0x30000;
      EXPECT_EQ(t.a.ad->post_send(a2, w2), model::PostError::OK);
    }
    t.sim.run_until(1'000'000'000);
    std::vector<std::vector<std::uint8_t>> qp2;
    for (int d = 0; d < 2; ++d) {
      for (const auto& f : t.rec.frames[d]) {
        const wire::ParsedFrame fp = wire::decode(f);
        if (fp.bth.dqpn == (d == 0 ? b2 : a2).value()) qp2.push_back(f);
      }
    }
    return qp2;
  };
  const auto alone = run(false, false);
  const auto shared = run(true, true);
  ASSERT_FALSE(alone.empty());
  EXPECT_EQ(shared, alone);
}
