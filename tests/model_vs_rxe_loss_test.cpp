// The golden model against Linux Soft-RoCE under loss, duplication, reordering and corruption
// (vectors/real/*_loss*, *_reorder_dup, *_corrupt*; netem settings in vectors/real/README.md).
// rxe's pace (how many packets it had out when a NAK came back) depends on its CPU, so these
// runs are replayed in lockstep (tests/support/lockstep.h): the capture says when a packet
// leaves, the model says which packet it is, and every packet on the wire is compared field by
// field. Losses before the tap are inferred only where the capture's netem settings allow them.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "lockstep.h"
#include "rocecert/trace/json_trace.h"

using namespace rocecert;
using namespace rocecert::testing;

namespace {

constexpr std::uint32_t kAll = 0x1 | 0x2 | 0x4 | 0x8;

std::string capture_path(const std::string& name) {
  return std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + name;
}

struct PerftestRun {
  std::string capture;
  tx::WrOpcode op;
  std::uint32_t len;
  int iterations;
  Lockstep::Options opt;
};

struct Result {
  Lockstep::Report report;
  std::vector<cq::Wc> requester_wcs;
  std::size_t receives = 0;
  std::vector<std::uint64_t> moved;  // requests replayed ahead of responses (request lag)
};

// perftest's *_bw: `iterations` identical signaled WRs on one RC QP pair, posted as the send
// queue allows (perftest re-posts as completions come back).
Result replay_once(const PerftestRun& run, const std::vector<CapturedPacket>& cap) {
  std::uint32_t psn_b = 0;
  for (const auto& c : cap)
    if (c.dir == 1 && c.row.opcode != wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE)) psn_b = c.row.psn;
  // perftest asks for the device's max_qp_rd_atom (128 on rxe) as the initiator depth and
  // responder resources (ctx_set_out_reads).
  Pair t(qp::QpType::RC, 1024, kAll, cap.front().row.psn, psn_b, {}, 14, [](model::BringUp& b) {
    b.max_rd_atomic = 128;
    b.max_dest_rd_atomic = 128;
  });
  Result res;
  int posted = 0, recvs = 0;
  auto top_up = [&] {
    for (const cq::Wc& wc : t.poll(t.a)) res.requester_wcs.push_back(wc);
    res.receives += t.poll(t.b).size();
    while (run.op == tx::WrOpcode::SEND && recvs < run.iterations &&
           t.b.ad->post_recv(t.b.qpn, {static_cast<std::uint64_t>(recvs),
                                       {{kBase, 16384, t.b.mr.lkey.value()}}}) ==
               model::PostError::OK)
      ++recvs;
    while (posted < run.iterations) {
      tx::SendWr w = t.wr(static_cast<std::uint64_t>(posted), run.op, kBase, run.len);
      w.remote_addr = kBase + 0x8000;
      if (t.a.ad->post_send(t.a.qpn, w) != model::PostError::OK) break;
      ++posted;
    }
  };
  // ROCECERT_LOCKSTEP_TRACE=FILE writes the model's event trace of the (last) replay.
  std::unique_ptr<trace::JsonTraceWriter> trace_writer;
  std::FILE* trace_file = nullptr;
  if (const char* path = std::getenv("ROCECERT_LOCKSTEP_TRACE")) {
    trace_file = std::fopen(path, "w");
    if (trace_file != nullptr) {
      trace_writer = std::make_unique<trace::JsonTraceWriter>(trace_file);
      t.sim.observers().add(trace_writer.get());
    }
  }
  Lockstep ls(t, run.opt, top_up);
  res.report = ls.run(cap);
  t.sim.run_until(t.sim.events().now() + 1'000'000'000);
  top_up();
  trace_writer.reset();
  if (trace_file != nullptr) std::fclose(trace_file);
  return res;
}

// Replays the capture; with `max_lag_ns`, a request may be replayed ahead of up to 16
// responses that precede it by no more than that (see replay_allowing_request_lag).
Result replay(const PerftestRun& run, sim::SimTime max_lag_ns = 0) {
  const std::vector<CapturedPacket> cap = load_packets(capture_path(run.capture));
  auto once = [&](const std::vector<CapturedPacket>& order) { return replay_once(run, order); };
  if (max_lag_ns == 0) return once(cap);
  std::vector<std::uint64_t> moved;
  Result r = replay_allowing_request_lag<Result>(cap, once, max_lag_ns, 16, moved);
  r.moved = moved;
  return r;
}

}  // namespace

void expect_all_succeeded(const Result& r, int n) {
  ASSERT_EQ(r.requester_wcs.size(), static_cast<std::size_t>(n));
  for (const cq::Wc& wc : r.requester_wcs) EXPECT_EQ(wc.status, cq::WcStatus::SUCCESS) << wc.wr_id;
}

TEST(ModelVsRxeLockstep, RcWriteUnderLossBothWays) {
  // ib_write_bw -n 50 -s 10000 -m 1024, netem loss 5% on both sides: 1709 frames, 16 PSN
  // sequence NAKs, go-back-N from mid-message and whole-window resends after ACK timeouts.
  Lockstep::Options opt;
  opt.requests_may_be_lost = true;
  opt.responses_may_be_lost = true;
  const Result r =
      replay({"rc_write_bw_10000_mtu1024_loss5.pcap", tx::WrOpcode::RDMA_WRITE, 10000, 50, opt});
  EXPECT_TRUE(r.report.mismatches.empty()) << format(r.report);
  EXPECT_EQ(r.report.requests + r.report.responses, 1709u);  // every frame of the capture
  // What the replay had to take as lost must look like 5% loss: 77 of 1703 requests and 7 of
  // 90 responses when this was written.
  EXPECT_LT(r.report.lost_requests, r.report.requests / 10);
  EXPECT_LT(r.report.lost_responses, 12u);
  expect_all_succeeded(r, 50);
  std::printf("%s\n", format(r.report).c_str());
}

TEST(ModelVsRxeLockstep, RcSendUnderReorderingAndDuplication) {
  // ib_send_bw -n 40 -s 4096 -m 1024, netem "delay 1ms reorder 75% 50% duplicate 5%" on A's
  // egress: B sees packets out of order (PSN sequence NAKs, then go-back-N) and twice
  // (duplicates re-ACKed, never executed twice).
  Lockstep::Options opt;
  opt.requests_may_be_duplicated = true;
  opt.reorder_window = 16;
  const Result r =
      replay({"rc_send_bw_4096_mtu1024_reorder_dup.pcap", tx::WrOpcode::SEND, 4096, 40, opt});
  EXPECT_TRUE(r.report.mismatches.empty()) << format(r.report);
  EXPECT_EQ(r.report.requests + r.report.responses, 246u);
  EXPECT_EQ(r.report.lost_requests, 0u);
  expect_all_succeeded(r, 40);
  EXPECT_EQ(r.receives, 40u);  // each SEND consumed one receive, once
  std::printf("%s\n", format(r.report).c_str());
}

TEST(ModelVsRxeLockstep, RcSendWithACorruptedPacket) {
  // ib_send_bw -n 50 -s 64, netem corrupt 2% on A's egress: one SEND arrives with a bad ICRC;
  // B drops it silently, the next one gets a PSN sequence NAK, A resends.
  const Result r = replay({"rc_send_bw_64_mtu1024_corrupt2.pcap", tx::WrOpcode::SEND, 64, 50, {}});
  EXPECT_TRUE(r.report.mismatches.empty()) << format(r.report);
  EXPECT_EQ(r.report.requests + r.report.responses, 103u);
  EXPECT_EQ(r.report.skipped_bad_icrc, 1u);
  expect_all_succeeded(r, 50);
  EXPECT_EQ(r.receives, 50u);
  std::printf("%s\n", format(r.report).c_str());
}

TEST(ModelVsRxeLockstep, RcReadUnderResponseLoss) {
  // ib_read_bw -n 30 -s 10000 -m 1024, netem loss 10% on B's egress: READ responses go
  // missing; A re-requests each READ from its first missing PSN (implied NAK, or ACK timeout).
  Lockstep::Options opt;
  opt.responses_may_be_lost = true;
  // No netem on A's egress, but a request can cross the tap after responses that came back
  // after rxe generated it (frame 11, READ 2, was generated before the gap in READ 1's
  // responses, frame 10, was seen: rxe then resends it after the retry of READ 1, frame 23).
  // Such requests are replayed ahead of those responses, up to 2 ms.
  const Result r =
      replay({"rc_read_bw_10000_mtu1024_resploss10.pcap", tx::WrOpcode::RDMA_READ, 10000, 30, opt},
             2'000'000);
  EXPECT_TRUE(r.report.mismatches.empty()) << format(r.report);
  EXPECT_EQ(r.report.requests + r.report.responses, 2832u);
  EXPECT_EQ(r.report.lost_requests, 0u);
  EXPECT_LT(r.report.lost_responses, r.report.responses / 5);  // 292 of 2826 when written: 10%
  EXPECT_LE(r.moved.size(), 8u);                               // 4 when written
  expect_all_succeeded(r, 30);
  std::printf("%s; %zu requests replayed ahead of responses\n", format(r.report).c_str(),
              r.moved.size());
}
