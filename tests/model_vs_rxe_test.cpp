// The golden model driven with the work requests behind clean Linux Soft-RoCE captures
// (vectors/real/, commands in vectors/real/README.md, rc_ops from rxe_probe.c), compared
// with the captured frames field by field, per direction: opcode, PSN, AckReq, SE, pad count,
// payload length, RETH DMA length, AETH syndrome and MSN, ImmDt. Every difference is named.
// Fields an implementation chooses freely (addresses, keys, IP id, UDP source port) are not
// compared here; the UDP source port rule of the rxe profile is checked on its own.
// Sequences are compared whole, both ways: the model may send neither more nor fewer packets
// than the capture, except where a test states each extra packet and why (send_too_long).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model_pair.h"
#include "rocecert/model/faults.h"
#include "rocecert/pcap/reader.h"
#include "wire_row.h"

using namespace rocecert;
using namespace rocecert::testing;

namespace {

using Row = WireRow;

Row row_of(const wire::ParsedFrame& p) {
  return wire_row(p);
}

struct Captured {
  std::vector<Row> dir[2];  // [0] A→B (from 10.0.0.1 / fd00::1), [1] B→A
  std::vector<std::uint16_t> sport[2];
  std::vector<std::uint32_t> dqpn[2];
};

Captured load(const std::string& name) {
  Captured c;
  pcap::Reader r(std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + name);
  pcap::Record rec;
  while (r.next(rec)) {
    const wire::ParsedFrame p = wire::decode(rec.data, {r.link(), true});
    EXPECT_FALSE(p.has_error);
    const int d = p.ip.src[p.ip.version == 4 ? 3 : 15] == 1 ? 0 : 1;
    c.dir[d].push_back(row_of(p));
    c.sport[d].push_back(p.udp.sport);
    c.dqpn[d].push_back(p.bth.dqpn);
  }
  return c;
}

std::vector<Row> model_rows(const Recorder& rec, int adapter) {
  std::vector<Row> rows;
  for (const auto& f : rec.frames[adapter]) rows.push_back(row_of(wire::decode(f)));
  return rows;
}

std::string show(const std::optional<std::uint32_t>& v) {
  return v ? std::to_string(*v) : std::string("-");
}

// Every difference, named; returns how many.
int compare(const std::string& what, const std::vector<Row>& model, const std::vector<Row>& real) {
  int diffs = 0;
  auto differ = [&](std::size_t i, const char* field, const std::string& m, const std::string& r) {
    if (m == r) return;
    ++diffs;
    ADD_FAILURE() << what << " packet " << i << " (" << wire::opcode_info(real[i].opcode).name
                  << "): " << field << " model " << m << ", rxe " << r;
  };
  if (model.size() != real.size()) {
    ADD_FAILURE() << what << ": model sent " << model.size() << " packets, rxe " << real.size();
    ++diffs;
  }
  for (std::size_t i = 0; i < std::min(model.size(), real.size()) && diffs < 20; ++i) {
    const Row& m = model[i];
    const Row& r = real[i];
    differ(i, "opcode", std::string(wire::opcode_info(m.opcode).name),
           std::string(wire::opcode_info(r.opcode).name));
    differ(i, "psn", std::to_string(m.psn), std::to_string(r.psn));
    differ(i, "ackreq", std::to_string(m.ackreq), std::to_string(r.ackreq));
    differ(i, "se", std::to_string(m.se), std::to_string(r.se));
    differ(i, "padcnt", std::to_string(m.padcnt), std::to_string(r.padcnt));
    differ(i, "payload_len", std::to_string(m.payload_len), std::to_string(r.payload_len));
    differ(i, "dmalen", show(m.dmalen), show(r.dmalen));
    differ(i, "aeth.syndrome", show(m.syndrome), show(r.syndrome));
    differ(i, "aeth.msn", show(m.msn), show(r.msn));
    differ(i, "immdt", show(m.imm), show(r.imm));
  }
  return diffs;
}

// rxe's requester is slow under emulation: after a NAK it may have sent fewer of the packets
// that follow than the model, which puts a whole message on the wire at once. Such a case
// states the model's extra packets one by one: the capture's packets followed by them must be
// the model's whole sequence.
std::vector<Row> followed_by(std::vector<Row> rows, const std::vector<Row>& extra) {
  rows.insert(rows.end(), extra.begin(), extra.end());
  return rows;
}

Row send_packet(wire::Opcode op, std::uint32_t psn, std::uint32_t payload_len,
                bool ackreq = false) {
  Row r;
  r.opcode = wire::to_u8(op);
  r.psn = psn & 0xFFFFFF;
  r.ackreq = ackreq;
  r.padcnt = static_cast<std::uint8_t>((4 - payload_len % 4) % 4);
  r.payload_len = payload_len;
  return r;
}

constexpr std::uint32_t kAll = 0x1 | 0x2 | 0x4 | 0x8;

tx::SendWr wr_of(Pair& t, std::uint64_t id, tx::WrOpcode op, std::uint64_t laddr, std::uint32_t len,
                 std::uint64_t raddr) {
  tx::SendWr w = t.wr(id, op, laddr, len);
  w.remote_addr = raddr;
  w.imm_data = 0x1000 + static_cast<std::uint32_t>(id);  // rxe_probe: htonl(0x1000 + id)
  return w;
}

}  // namespace

namespace {

// The differences compare() reports, collected instead of failing the running test.
std::vector<std::string> differences(const std::vector<Row>& model, const std::vector<Row>& real) {
  ::testing::TestPartResultArray results;
  {
    const ::testing::ScopedFakeTestPartResultReporter intercept(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    compare("case", model, real);
  }
  std::vector<std::string> out;
  for (int i = 0; i < results.size(); ++i) {
    std::string m = results.GetTestPartResult(i).message();
    if (m.rfind("Failed\n", 0) == 0) m.erase(0, 7);  // ADD_FAILURE()'s header
    out.push_back(m);
  }
  return out;
}

}  // namespace

TEST(ModelVsRxeComparison, TheWholeSequenceIsCompared) {
  // The comparison the tests below rely on: one packet more or fewer on the model's side is a
  // difference, wherever it is.
  const std::vector<Row> real = load("rc_ops_mtu4096.pcap").dir[0];
  ASSERT_GT(real.size(), 3u);
  const std::string n = std::to_string(real.size());
  EXPECT_TRUE(differences(real, real).empty());
  std::vector<Row> one_more = real;
  one_more.push_back(real.back());
  EXPECT_EQ(differences(one_more, real),
            std::vector<std::string>{"case: model sent " + std::to_string(real.size() + 1) +
                                     " packets, rxe " + n});
  std::vector<Row> duplicated = real;
  duplicated.insert(duplicated.begin() + 1, real[1]);
  const auto dup = differences(duplicated, real);
  ASSERT_GT(dup.size(), 1u);
  EXPECT_EQ(dup[0], "case: model sent " + std::to_string(real.size() + 1) + " packets, rxe " + n);
  const std::vector<Row> one_fewer(real.begin(), real.end() - 1);
  EXPECT_EQ(differences(one_fewer, real),
            std::vector<std::string>{"case: model sent " + std::to_string(real.size() - 1) +
                                     " packets, rxe " + n});
  // A stated tail is held to the same rule as the capture.
  const std::vector<Row> tail = {real.back()};
  EXPECT_TRUE(differences(one_more, followed_by(real, tail)).empty());
  EXPECT_FALSE(differences(real, followed_by(real, tail)).empty());
  EXPECT_FALSE(differences(followed_by(one_more, tail), followed_by(real, tail)).empty());
}

TEST(ModelVsRxe, RcOpsMtu4096) {
  // rxe_probe rc_ops -m 4096 -p 0x000100: A's first PSN 0x100; B's READ at the end starts at
  // B's sq_psn, 0x400100 in the capture.
  const Captured real = load("rc_ops_mtu4096.pcap");
  Pair t(qp::QpType::RC, 4096, kAll, 0x100, 0x400100);
  for (int i = 0; i < 8; ++i)
    ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {static_cast<std::uint64_t>(100 + i),
                                          {{kBase + 0x20000u + 0x4000u * static_cast<unsigned>(i),
                                            0x4000, t.b.mr.lkey.value()}}}),
              model::PostError::OK);
  using Op = tx::WrOpcode;
  const std::uint64_t rb = kBase;
  struct W {
    Op op;
    std::uint32_t len;
    std::uint64_t raddr;
  };
  const W wrs[] = {{Op::SEND, 1, 0},
                   {Op::SEND, 64, 0},
                   {Op::SEND, 4096, 0},
                   {Op::SEND_WITH_IMM, 64, 0},
                   {Op::SEND_WITH_IMM, 10000, 0},
                   {Op::RDMA_WRITE, 64, rb + 0x100},
                   {Op::RDMA_WRITE, 10000, rb + 0x1000},
                   {Op::RDMA_WRITE_WITH_IMM, 0, rb},
                   {Op::RDMA_WRITE_WITH_IMM, 5000, rb + 0x8000},
                   {Op::RDMA_READ, 64, rb + 0x100},
                   {Op::RDMA_READ, 10000, rb + 0x1000},
                   {Op::ATOMIC_CMP_AND_SWP, 8, rb + 0x40},
                   {Op::ATOMIC_FETCH_AND_ADD, 8, rb + 0x48}};
  std::uint64_t id = 1;
  for (const W& w : wrs) {
    const std::uint64_t laddr = w.op == Op::RDMA_READ ? kBase + 0x4000
                                : w.len == 8          ? kBase + 0x8000 + id * 8
                                                      : kBase;
    ASSERT_EQ(t.a.ad->post_send(t.a.qpn, wr_of(t, id++, w.op, laddr, w.len, w.raddr)),
              model::PostError::OK);
  }
  t.sim.run_until();
  ASSERT_EQ(t.poll(t.a).size(), 13u);
  ASSERT_EQ(t.poll(t.b).size(), 7u);  // 3 SEND, 2 SEND+IMM, 2 WRITE+IMM
  tx::SendWr rd;
  rd.wr_id = 20;
  rd.opcode = Op::RDMA_READ;
  rd.send_flags = tx::kSendSignaled;
  rd.sg_list = {{kBase + 0xC000, 3000, t.b.mr.lkey.value()}};
  rd.remote_addr = kBase + 0x2000;
  rd.rkey = t.a.mr.rkey.value();
  ASSERT_EQ(t.b.ad->post_send(t.b.qpn, rd), model::PostError::OK);
  t.sim.run_until();
  EXPECT_EQ(compare("rc_ops A→B", model_rows(t.rec, 0), real.dir[0]), 0);
  EXPECT_EQ(compare("rc_ops B→A", model_rows(t.rec, 1), real.dir[1]), 0);
}

namespace {
// perftest's *_bw tests: n identical WRs of `len` bytes on one RC/UC QP pair; the model starts
// at the PSNs the capture shows.
void perftest_bw(const std::string& capture, qp::QpType type, tx::WrOpcode op, std::uint32_t len,
                 int n, std::uint32_t mtu) {
  const Captured real = load(capture);
  ASSERT_FALSE(real.dir[0].empty());
  const std::uint32_t psn_a = real.dir[0].front().psn;
  const std::uint32_t psn_b = real.dir[1].empty() ? 0 : real.dir[1].front().psn;
  Pair t(type, mtu, kAll, psn_a, psn_b);
  for (int i = 0; i < n && op == tx::WrOpcode::SEND; ++i)
    ASSERT_EQ(t.b.ad->post_recv(
                  t.b.qpn, {static_cast<std::uint64_t>(i), {{kBase, 16384, t.b.mr.lkey.value()}}}),
              model::PostError::OK);
  for (int i = 0; i < n; ++i) {
    tx::SendWr w = t.wr(static_cast<std::uint64_t>(i), op, kBase, len);
    w.remote_addr = kBase + 0x4000;
    w.compare_add = 1;
    ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  }
  t.sim.run_until();
  EXPECT_EQ(compare(capture + " A→B", model_rows(t.rec, 0), real.dir[0]), 0);
  EXPECT_EQ(compare(capture + " B→A", model_rows(t.rec, 1), real.dir[1]), 0);
}
}  // namespace

TEST(ModelVsRxe, RcWriteBw) {
  perftest_bw("rc_write_bw_4096_mtu1024.pcap", qp::QpType::RC, tx::WrOpcode::RDMA_WRITE, 4096, 20,
              1024);
}
TEST(ModelVsRxe, RcReadBw) {
  perftest_bw("rc_read_bw_10000_mtu1024.pcap", qp::QpType::RC, tx::WrOpcode::RDMA_READ, 10000, 20,
              1024);
}
TEST(ModelVsRxe, RcSendBw) {
  perftest_bw("rc_send_bw_10000_mtu1024.pcap", qp::QpType::RC, tx::WrOpcode::SEND, 10000, 20, 1024);
}
TEST(ModelVsRxe, RcAtomicFetchAddBw) {
  perftest_bw("rc_atomic_fadd_bw.pcap", qp::QpType::RC, tx::WrOpcode::ATOMIC_FETCH_AND_ADD, 8, 20,
              1024);
}
TEST(ModelVsRxe, UcWriteBw) {
  perftest_bw("uc_write_bw_10000_mtu1024.pcap", qp::QpType::UC, tx::WrOpcode::RDMA_WRITE, 10000, 20,
              1024);
}

TEST(ModelVsRxe, UdpSourcePortFollowsTheRxeFlowLabelRule) {
  // For every RC capture with traffic both ways, A's QPN is the DestQP of B's packets and vice
  // versa; rxe 6.1's source port must be rxe_udp_sport(own QPN, peer QPN) in both directions.
  int checked = 0;
  for (const char* name :
       {"rc_ops_mtu4096.pcap", "rc_write_bw_4096_mtu1024.pcap", "rc_read_bw_10000_mtu1024.pcap",
        "rc_pingpong_64_mtu1024.pcap", "rc_pingpong_10000_mtu1024_v6.pcap", "multi_qp_errors.pcap",
        "rc_write_bw_4096_mtu1024_q8.pcap"}) {
    const Captured c = load(name);
    for (int d = 0; d < 2; ++d) {
      for (std::size_t i = 0; i < c.dir[d].size(); ++i) {
        const std::uint32_t peer = c.dqpn[d][i];
        // The local QPN: the DestQP of a packet going the other way on the same port.
        for (std::size_t j = 0; j < c.dir[1 - d].size(); ++j) {
          if (c.sport[1 - d][j] != c.sport[d][i]) continue;
          EXPECT_EQ(c.sport[d][i], model::rxe_udp_sport(c.dqpn[1 - d][j], peer)) << name;
          ++checked;
          break;
        }
      }
    }
  }
  EXPECT_GT(checked, 500);
}

// ---- Error scenarios of rxe_probe (vectors/real/rxe_probe.c), lossless ------------------------

namespace {

std::uint32_t first_psn(const Captured& c) {
  return c.dir[0].front().psn;
}

}  // namespace

TEST(ModelVsRxe, WriteBadRkey) {
  const Captured real = load("err_write_bad_rkey.pcap");
  Pair t(qp::QpType::RC, 1024, kAll, first_psn(real), 0);
  tx::SendWr w = t.wr(1, tx::WrOpcode::RDMA_WRITE, kBase, 64);
  w.remote_addr = kBase;
  w.rkey ^= 0x5a5a00;  // rxe_probe write_bad_rkey
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  t.sim.run_until();
  EXPECT_EQ(compare("write_bad_rkey A→B", model_rows(t.rec, 0), real.dir[0]), 0);
  EXPECT_EQ(compare("write_bad_rkey B→A", model_rows(t.rec, 1), real.dir[1]), 0);
  EXPECT_EQ(t.poll(t.a).at(0).status, cq::WcStatus::REM_ACCESS_ERR);
}

TEST(ModelVsRxe, AtomicToAQpWithoutRemoteAtomic) {
  const Captured real = load("err_atomic_qp_denied.pcap");
  Pair t(qp::QpType::RC, 1024, 0x1 | 0x2 | 0x4, first_psn(real), 0);  // no REMOTE_ATOMIC
  tx::SendWr rd = t.wr(1, tx::WrOpcode::RDMA_READ, kBase + 0x10000, 64);
  rd.remote_addr = kBase;
  tx::SendWr fa = t.wr(2, tx::WrOpcode::ATOMIC_FETCH_AND_ADD, kBase + 0x18008, 8);
  fa.remote_addr = kBase + 0x40;
  fa.compare_add = 5;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, rd), model::PostError::OK);
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, fa), model::PostError::OK);
  t.sim.run_until();
  EXPECT_EQ(compare("atomic_qp_denied A→B", model_rows(t.rec, 0), real.dir[0]), 0);
  EXPECT_EQ(compare("atomic_qp_denied B→A", model_rows(t.rec, 1), real.dir[1]), 0);
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 2u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(wc[1].status, cq::WcStatus::REM_INV_REQ_ERR);
}

TEST(ModelVsRxe, SendLongerThanTheReceiveBuffer) {
  // rxe 6.1: NAK remote operational error (0x63) and LOC_QP_OP_ERR at the responder
  // (docs/spec-notes.md §11.6); the IB convention would be NAK invalid request and LOC_LEN_ERR.
  const Captured real = load("err_send_too_long.pcap");
  Pair t(qp::QpType::RC, 1024, kAll, first_psn(real), 0);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {100, {{kBase + 0x20000, 4096, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {101, {{kBase + 0x30000, 64, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, t.wr(1, tx::WrOpcode::SEND, kBase, 2000)),
            model::PostError::OK);
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, t.wr(2, tx::WrOpcode::SEND, kBase, 4096)),
            model::PostError::OK);
  t.sim.run_until();
  // rxe's requester had sent only the FIRST packet of the 4096-byte SEND when the NAK of that
  // packet came back; the model puts the whole message on the wire at once: its MIDDLE,
  // MIDDLE and LAST packets follow, which the responder (in ERR) drops.
  const std::uint32_t psn = first_psn(real);
  const std::vector<Row> extra = {send_packet(wire::Opcode::RC_SEND_MIDDLE, psn + 3, 1024),
                                  send_packet(wire::Opcode::RC_SEND_MIDDLE, psn + 4, 1024),
                                  send_packet(wire::Opcode::RC_SEND_LAST, psn + 5, 1024, true)};
  EXPECT_EQ(compare("send_too_long A→B", model_rows(t.rec, 0), followed_by(real.dir[0], extra)), 0);
  EXPECT_EQ(compare("send_too_long B→A", model_rows(t.rec, 1), real.dir[1]), 0);
  const auto awc = t.poll(t.a);
  ASSERT_EQ(awc.size(), 2u);
  EXPECT_EQ(awc[1].status, cq::WcStatus::REM_OP_ERR);
  const auto bwc = t.poll(t.b);
  ASSERT_EQ(bwc.size(), 2u);
  EXPECT_EQ(bwc[0].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(bwc[0].byte_len, 2000u);
  EXPECT_EQ(bwc[1].status, cq::WcStatus::LOC_QP_OP_ERR);
}

TEST(ModelVsRxe, SendWithInvalidateOfMemoryWindows) {
  const Captured real = load("send_inv_memory_window.pcap");
  Pair t(qp::QpType::RC, 1024, kAll | 0x10, first_psn(real), 0x300);  // MW_BIND on the MRs
  std::uint32_t key[2];
  for (int i = 0; i < 2; ++i) {
    const auto mw = t.b.ad->mem_table().alloc_mw(t.b.pd, mem::MwType::TYPE_2).value;
    key[i] = mem::inc_rkey(mw.rkey).value();
    tx::SendWr bind;
    bind.wr_id = 50u + static_cast<unsigned>(i);
    bind.opcode = tx::WrOpcode::BIND_MW;
    bind.send_flags = tx::kSendSignaled;
    bind.bind_mw_handle = mw.rkey.value();
    bind.rkey = key[i];
    bind.bind_mr_lkey = t.b.mr.lkey.value();
    bind.bind_addr = kBase + 0x10000u * static_cast<unsigned>(i);
    bind.bind_length = 0x10000;
    bind.bind_access = 0x2 | 0x4;
    ASSERT_EQ(t.b.ad->post_send(t.b.qpn, bind), model::PostError::OK);
  }
  t.sim.run_until();
  const auto binds = t.poll(t.b);
  ASSERT_EQ(binds.size(), 2u);
  EXPECT_EQ(binds[0].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(binds[1].status, cq::WcStatus::SUCCESS);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {100, {{kBase + 0x20000, 4096, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {101, {{kBase + 0x30000, 4096, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  tx::SendWr w1 = t.wr(1, tx::WrOpcode::RDMA_WRITE, kBase, 64);
  w1.remote_addr = kBase + 0x100;
  w1.rkey = key[0];
  tx::SendWr s2 = t.wr(2, tx::WrOpcode::SEND_WITH_INV, kBase, 64);
  s2.invalidate_rkey = key[0];
  tx::SendWr s3 = t.wr(3, tx::WrOpcode::SEND_WITH_INV, kBase, 3000);
  s3.invalidate_rkey = key[1];
  for (const auto& w : {w1, s2, s3}) ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
  t.sim.run_until();
  tx::SendWr w4 = w1;  // MW1 is invalid now
  w4.wr_id = 4;
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w4), model::PostError::OK);
  t.sim.run_until();
  EXPECT_EQ(compare("send_inv_mw A→B", model_rows(t.rec, 0), real.dir[0]), 0);
  EXPECT_EQ(compare("send_inv_mw B→A", model_rows(t.rec, 1), real.dir[1]), 0);
  const auto awc = t.poll(t.a);
  ASSERT_EQ(awc.size(), 4u);
  EXPECT_EQ(awc[3].status, cq::WcStatus::REM_ACCESS_ERR);
  const auto bwc = t.poll(t.b);
  ASSERT_GE(bwc.size(), 2u);
  EXPECT_EQ(bwc[0].wc_flags & cq::kWcWithInv, cq::kWcWithInv);
  EXPECT_EQ(bwc[0].imm_data, key[0]);  // the invalidated rkey
  EXPECT_EQ(bwc[1].byte_len, 3000u);
}

TEST(ModelVsRxe, UdPingpong) {
  for (const char* name : {"ud_pingpong_1024.pcap", "ud_pingpong_1024_v6.pcap"}) {
    SCOPED_TRACE(name);
    const Captured real = load(name);
    Pair t(qp::QpType::UD, 4096, kAll, real.dir[0].front().psn, real.dir[1].front().psn);
    qp::AddressVector to_b, to_a;
    to_b.dgid = t.b.ad->config().gid;
    to_b.dmac = t.b.ad->config().mac;
    to_a.dgid = t.a.ad->config().gid;
    to_a.dmac = t.a.ad->config().mac;
    const qp::AhId ah_b = t.a.ad->create_ah(to_b), ah_a = t.b.ad->create_ah(to_a);
    for (std::uint64_t i = 0; i < 10; ++i) {
      // ping from A, pong from B, each into a posted 1024 + 40 byte receive
      ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {i, {{kBase + 0x1000, 1064, t.b.mr.lkey.value()}}}),
                model::PostError::OK);
      ASSERT_EQ(t.a.ad->post_recv(t.a.qpn, {i, {{kBase + 0x1000, 1064, t.a.mr.lkey.value()}}}),
                model::PostError::OK);
      tx::SendWr ping = t.wr(i, tx::WrOpcode::SEND, kBase, 1024);
      ping.ah = ah_b;
      ping.remote_qpn = t.b.qpn.value();
      ping.remote_qkey = 0x11111111;
      ASSERT_EQ(t.a.ad->post_send(t.a.qpn, ping), model::PostError::OK);
      t.sim.run_until();
      tx::SendWr pong = ping;
      pong.sg_list[0].lkey = t.b.mr.lkey.value();
      pong.ah = ah_a;
      pong.remote_qpn = t.a.qpn.value();
      ASSERT_EQ(t.b.ad->post_send(t.b.qpn, pong), model::PostError::OK);
      t.sim.run_until();
    }
    EXPECT_EQ(compare(std::string(name) + " A→B", model_rows(t.rec, 0), real.dir[0]), 0);
    EXPECT_EQ(compare(std::string(name) + " B→A", model_rows(t.rec, 1), real.dir[1]), 0);
    EXPECT_EQ(t.poll(t.b).size(), 20u);  // 10 receives and 10 sends
  }
}

// ---- Timers and retries ------------------------------------------------------------------------

TEST(ModelVsRxe, RnrNakThenOk) {
  // rxe_probe rnr_then_ok: SEND 64 and SEND 3000 before B has any receive; B's min_rnr_timer is
  // 18 (5.12 ms), A's rnr_retry 7 (forever); B posts two receives after 40 ms. Every round: the
  // first packet gets an RNR NAK, the next one a PSN sequence error NAK (the PSN is ahead), the
  // rest are dropped; A waits out the RNR delay and goes back. rxe's RNR wait is rounded to
  // jiffies (the profile knob below), which gives the capture's four failed rounds.
  const Captured real = load("rnr_nak_then_ok.pcap");
  Pair t(qp::QpType::RC, 1024, kAll, first_psn(real), 0x300,
         [](model::AdapterConfig& c) { c.profile.rnr_timer_jiffy_ns = 4'000'000; });
  qp::QpAttr at;
  at.min_rnr_timer = 18;
  ASSERT_TRUE(t.b.ad
                  ->modify_qp(t.b.qpn, at,
                              qp::AttrMask::from_raw(
                                  static_cast<std::uint32_t>(qp::AttrBit::MIN_RNR_TIMER)))
                  .ok());
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, t.wr(1, tx::WrOpcode::SEND, kBase, 64)),
            model::PostError::OK);
  ASSERT_EQ(t.a.ad->post_send(t.a.qpn, t.wr(2, tx::WrOpcode::SEND, kBase, 3000)),
            model::PostError::OK);
  t.sim.run_until(40'000'000);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {100, {{kBase + 0x20000, 4096, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {101, {{kBase + 0x30000, 4096, t.b.mr.lkey.value()}}}),
            model::PostError::OK);
  t.sim.run_until(100'000'000);
  EXPECT_EQ(compare("rnr_then_ok A→B", model_rows(t.rec, 0), real.dir[0]), 0);
  EXPECT_EQ(compare("rnr_then_ok B→A", model_rows(t.rec, 1), real.dir[1]), 0);
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 2u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::SUCCESS);
  EXPECT_EQ(wc[1].status, cq::WcStatus::SUCCESS);
}

TEST(ModelVsRxe, RetryExceededWithoutPeer) {
  // rxe_probe retry_exceeded: SEND to a QPN that does not exist on B, timeout 14 (67.1 ms),
  // retry_cnt 3: the request goes out 4 times, nothing ever answers, then RETRY_EXC_ERR.
  const Captured real = load("retry_exceeded_no_peer.pcap");
  Pair t(qp::QpType::RC, 1024, kAll, first_psn(real), 0x300);
  // A fresh QP on A aimed at a QPN that B does not have.
  qp::CreateQpParams p;
  p.pd = qp::PdId{t.a.pd.value};
  p.send_cq = p.recv_cq = t.a.cq;
  p.caps = {8, 8, 1, 1, 0};
  const qp::Qpn lonely = t.a.ad->create_qp(p).qpn;
  model::BringUp up;
  up.sq_psn = first_psn(real);
  up.retry_cnt = 3;
  up.timeout = 14;
  ASSERT_FALSE(model::bring_up(*t.a.ad, lonely, *t.b.ad, qp::Qpn(t.b.qpn.value() + 0x1000), up));
  tx::SendWr w = t.wr(1, tx::WrOpcode::SEND, kBase, 64);
  ASSERT_EQ(t.a.ad->post_send(lonely, w), model::PostError::OK);
  t.sim.run_until(1'000'000'000);
  EXPECT_EQ(compare("retry_exceeded A→B", model_rows(t.rec, 0), real.dir[0]), 0);
  EXPECT_TRUE(t.rec.frames[1].empty());
  const auto wc = t.poll(t.a);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, cq::WcStatus::RETRY_EXC_ERR);
  EXPECT_EQ(t.a.ad->qps().find(lonely)->state(), qp::QpState::ERR);
}

// ---- Several QPs, two simultaneous errors (isolation) -----------------------------------------

namespace {

struct Completion {
  int side;  // 0 = A, 1 = B
  int qp;    // 1..4
  std::uint64_t wr_id;
  std::string status;
};

std::string status_name(const std::string& text) {
  if (text.rfind("success", 0) == 0) return "SUCCESS";
  if (text.rfind("remote access error", 0) == 0) return "REM_ACCESS_ERR";
  if (text.rfind("Work Request Flushed Error", 0) == 0) return "WR_FLUSH_ERR";
  return text;
}

// The completions rxe_probe printed (vectors/real/multi_qp_errors.completions.txt), per QP in
// the order each QP saw them.
std::vector<Completion> rxe_completions() {
  std::vector<Completion> out;
  std::ifstream in(std::string(ROCECERT_SOURCE_DIR) +
                   "/vectors/real/multi_qp_errors.completions.txt");
  std::string line;
  while (std::getline(in, line)) {
    const auto wc = line.find(" wc wr_id=");
    if (wc == std::string::npos) continue;
    Completion c;
    c.side = line.find("rxe_a A ") != std::string::npos ? 0 : 1;
    c.qp = line[line.find(" QP") + 3] - '0';
    c.wr_id = std::stoull(line.substr(wc + 10));
    c.status = status_name(line.substr(line.find("status=") + 7));
    out.push_back(c);
  }
  return out;
}

std::vector<Completion> of_qp(const std::vector<Completion>& all, int side, int qp) {
  std::vector<Completion> v;
  for (const auto& c : all)
    if (c.side == side && c.qp == qp) v.push_back(c);
  return v;
}

}  // namespace

TEST(ModelVsRxe, MultiQpErrorsStayIsolated) {
  // rxe_probe multi_qp_errors -m 1024 -p 0xa00000: four RC QP pairs sharing one CQ per side;
  // bad-rkey WRITEs on QP2 and QP3 back to back while QP1 and QP4 keep working.
  const Captured real = load("multi_qp_errors.pcap");
  Pair t(qp::QpType::RC, 1024, kAll, 0x100, 0x200);
  std::array<qp::Qpn, 4> qa, qb;
  for (std::size_t i = 0; i < 4; ++i) {
    qp::CreateQpParams p;
    p.caps = {64, 64, 1, 1, 0};
    p.pd = qp::PdId{t.a.pd.value};
    p.send_cq = p.recv_cq = t.a.cq;
    qa[i] = t.a.ad->create_qp(p).qpn;
    p.pd = qp::PdId{t.b.pd.value};
    p.send_cq = p.recv_cq = t.b.cq;
    qb[i] = t.b.ad->create_qp(p).qpn;
  }
  for (std::size_t i = 0; i < 4; ++i) {
    model::BringUp up;
    up.access = 0xE;
    up.retry_cnt = 3;
    up.max_rd_atomic = up.max_dest_rd_atomic = 16;
    up.sq_psn = 0xa00000 + 0x1000 * static_cast<std::uint32_t>(i);
    up.rq_psn = 0xe00000 + 0x1000 * static_cast<std::uint32_t>(i);
    ASSERT_FALSE(model::bring_up(*t.a.ad, qa[i], *t.b.ad, qb[i], up));
    std::swap(up.sq_psn, up.rq_psn);
    ASSERT_FALSE(model::bring_up(*t.b.ad, qb[i], *t.a.ad, qa[i], up));
  }
  const std::uint64_t rb = kBase;
  const std::uint32_t rk = t.b.mr.rkey.value(), bad = rk ^ 0x5a5a00;
  auto send = [&](std::size_t q, tx::WrOpcode op, std::uint64_t loff, std::uint32_t len,
                  std::uint64_t raddr, std::uint32_t key, std::uint64_t id) {
    tx::SendWr w = t.wr(id, op, kBase + loff, len);
    w.remote_addr = raddr;
    w.rkey = key;
    w.imm_data = 0x1000 + static_cast<std::uint32_t>(id);
    EXPECT_EQ(t.a.ad->post_send(qa[q], w), model::PostError::OK);
  };
  for (std::size_t i = 0; i < 4; ++i)
    for (std::uint64_t j = 0; j < 4; ++j)
      ASSERT_EQ(
          t.b.ad->post_recv(
              qb[i], {(i + 1) * 1000 + 900 + j,
                      {{kBase + 0x30000 + i * 0x4000 + j * 0x1000, 0x1000, t.b.mr.lkey.value()}}}),
          model::PostError::OK);
  // Phase 1.
  for (std::uint64_t r = 0; r < 3; ++r)
    for (std::size_t i = 0; i < 4; ++i)
      send(i, tx::WrOpcode::RDMA_WRITE, 0, 2048, rb + i * 0x8000 + r * 0x800, rk,
           (i + 1) * 1000 + r);
  t.sim.run_until(t.sim.events().now() + 10'000'000);
  // Phase 2.
  std::uint64_t k = 100;
  send(0, tx::WrOpcode::RDMA_WRITE, 0, 1024, rb, rk, 1000 + k);
  send(3, tx::WrOpcode::RDMA_WRITE, 0, 1024, rb + 0x18000, rk, 4000 + k);
  ++k;
  send(1, tx::WrOpcode::RDMA_WRITE, 0, 64, rb + 0x8000, bad, 2100);
  send(2, tx::WrOpcode::RDMA_WRITE, 0, 64, rb + 0x10000, bad, 3100);
  // rxe_probe's host (an emulated VM) posted the next WRs after the NAKs were back: the
  // capture shows no more packet on QP2/QP3. Let one round trip pass before posting more.
  t.sim.run_until(t.sim.events().now() + 10'000);
  for (std::uint64_t r = 0; r < 4; ++r) {
    send(0, tx::WrOpcode::RDMA_READ, 0x20000 + r * 0x400, 1024, rb + 0x400, rk, 1000 + k);
    send(3, tx::WrOpcode::RDMA_READ, 0x28000 + r * 0x400, 1024, rb + 0x18400, rk, 4000 + k);
    ++k;
    if (r == 0) {
      send(1, tx::WrOpcode::RDMA_WRITE, 0, 64, rb + 0x8000, rk, 2101);
      send(2, tx::WrOpcode::RDMA_WRITE, 0, 64, rb + 0x10000, rk, 3101);
    }
    if (r < 3) {
      send(0, tx::WrOpcode::RDMA_WRITE, 0, 1024, rb + 0x800, rk, 1000 + k);
      send(3, tx::WrOpcode::RDMA_WRITE, 0, 1024, rb + 0x18800, rk, 4000 + k);
      ++k;
    }
  }
  t.sim.run_until(t.sim.events().now() + 10'000'000);
  // Phase 3.
  send(0, tx::WrOpcode::RDMA_WRITE_WITH_IMM, 0, 512, rb + 0x1000, rk, 1200);
  send(3, tx::WrOpcode::RDMA_WRITE_WITH_IMM, 0, 512, rb + 0x19000, rk, 4200);
  send(1, tx::WrOpcode::RDMA_WRITE, 0, 64, rb + 0x8000, rk, 2200);
  t.sim.run_until(t.sim.events().now() + 10'000'000);

  // Frames, flow by flow (A→B and B→A of each QP pair), against the capture's flows.
  for (std::size_t i = 0; i < 4; ++i) {
    for (int d = 0; d < 2; ++d) {
      const std::uint32_t real_dqpn =
          0x21 + static_cast<std::uint32_t>(i);  // both sides 0x21..0x24
      std::vector<Row> want;
      for (std::size_t n = 0; n < real.dir[d].size(); ++n)
        if (real.dqpn[d][n] == real_dqpn) want.push_back(real.dir[d][n]);
      const std::uint32_t model_dqpn = (d == 0 ? qb[i] : qa[i]).value();
      std::vector<Row> got;
      for (const auto& f : t.rec.frames[d]) {
        const wire::ParsedFrame p = wire::decode(f);
        if (p.bth.dqpn == model_dqpn) got.push_back(row_of(p));
      }
      EXPECT_EQ(compare("multi_qp_errors QP" + std::to_string(i + 1) + (d == 0 ? " A→B" : " B→A"),
                        got, want),
                0);
    }
  }
  // Completions, per QP, against rxe_probe's log.
  std::vector<Completion> model;
  for (int side = 0; side < 2; ++side) {
    for (const cq::Wc& wc : (side == 0 ? t.a : t.b).ad->poll_cq((side == 0 ? t.a : t.b).cq, 1000)) {
      int q = 0;
      for (std::size_t i = 0; i < 4; ++i)
        if (wc.qp_num == (side == 0 ? qa[i] : qb[i]).value()) q = static_cast<int>(i) + 1;
      model.push_back({side, q, wc.wr_id, std::string(cq::to_string(wc.status))});
    }
  }
  const auto real_wc = rxe_completions();
  ASSERT_EQ(real_wc.size(), 45u);  // 35 on A (12 + 20 + 3), 10 on B
  for (int side = 0; side < 2; ++side) {
    for (int q = 1; q <= 4; ++q) {
      const auto got = of_qp(model, side, q), want = of_qp(real_wc, side, q);
      std::string g, w;
      for (const auto& c : got) g += std::to_string(c.wr_id) + ":" + c.status + " ";
      for (const auto& c : want) w += std::to_string(c.wr_id) + ":" + c.status + " ";
      EXPECT_EQ(g, w) << "side " << side << " QP" << q;
    }
  }
  // Isolation: QP1 and QP4 stay RTS on both sides, QP2 and QP3 are in ERR on both.
  for (std::size_t i = 0; i < 4; ++i) {
    const qp::QpState want = (i == 1 || i == 2) ? qp::QpState::ERR : qp::QpState::RTS;
    EXPECT_EQ(t.a.ad->qps().find(qa[i])->state(), want) << "A QP" << i + 1;
    EXPECT_EQ(t.b.ad->qps().find(qb[i])->state(), want) << "B QP" << i + 1;
  }
}

// ---- Loss on the wire ---------------------------------------------------------------------------

TEST(ModelVsRxe, UcWriteUnderLoss) {
  // ib_write_bw -c UC -n 50 -s 4096 -m 1024 with netem loss 5% on A's egress; the capture tap
  // sits after netem, so a lost packet is simply absent (a PSN gap). Drop exactly those PSNs on
  // the model's link: what reaches B must be what the capture shows, and UC never retransmits.
  const Captured real = load("uc_write_bw_4096_mtu1024_loss5.pcap");
  const std::uint32_t first = real.dir[0].front().psn;
  const std::uint32_t total = 50 * 4;  // 50 messages of 4 packets
  std::set<std::uint32_t> seen;
  for (const Row& r : real.dir[0]) seen.insert(r.psn);
  model::FaultPlan plan;
  for (std::uint32_t i = 0; i < total; ++i) {
    const std::uint32_t psn = (first + i) & 0xFFFFFF;
    if (!seen.count(psn))
      plan.rules.push_back(model::parse_fault_rule("drop dir=a>b psn=" + std::to_string(psn)).rule);
  }
  EXPECT_EQ(plan.rules.size(), 14u);  // the capture notes: 14 forward PSN gaps
  Pair t(qp::QpType::UC, 1024, kAll, first, 0);
  t.sim.link(0).set_faults(plan);
  struct RxAtB : trace::Observer {
    std::vector<Row> rows;
    void on_frame(const trace::FrameEvent& e) override {
      if (e.dir == trace::Direction::RX && e.adapter == 1)
        rows.push_back(row_of(wire::decode(e.bytes)));
    }
  } rx;
  t.sim.observers().add(&rx);
  std::size_t completed = 0;
  for (std::uint64_t i = 0; i < 50; ++i) {  // in batches of 25: the send queue holds 32
    tx::SendWr w = t.wr(i, tx::WrOpcode::RDMA_WRITE, kBase, 4096);
    w.remote_addr = kBase + 0x10000;
    ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
    if (i % 25 == 24) {
      t.sim.run_until();
      completed += t.poll(t.a).size();
    }
  }
  EXPECT_EQ(compare("uc_write_bw loss A→B", rx.rows, real.dir[0]), 0);
  EXPECT_EQ(completed, 50u);  // UC completes every WR once its packets are out
}
