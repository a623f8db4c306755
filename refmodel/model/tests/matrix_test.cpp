// The model end to end over every data WR opcode × QP type × size class, and every key-check
// failure of docs/spec-notes.md §7.3, each with the NAK and completion status the spec gives.
// Expectations are computed here from the spec's rules (docs/spec-notes.md §2.5, §4.4, §4.3), not
// read from the model.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "model_pair.h"
#include "rocecert/wire/encode.h"

using namespace rocecert;
using namespace rocecert::testing;

namespace {

std::vector<std::uint8_t> bytes(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed ^ (i * 13 + (i >> 8)));
  return v;
}

// The opcode names a requester must send for a message (IBA §9.4 / docs/spec-notes.md §2.5),
// written as the rule reads: ONLY when it fits one MTU, else FIRST, MIDDLE..., LAST; suffixes on
// the last.
std::vector<std::string> expected_requests(const std::string& tp, const std::string& base,
                                           const std::string& last_suffix, std::uint64_t len,
                                           std::uint32_t mtu) {
  const std::uint64_t n = len <= mtu ? 1 : (len + mtu - 1) / mtu;
  if (n == 1) return {tp + base + "_ONLY" + last_suffix};
  std::vector<std::string> v{tp + base + "_FIRST"};
  for (std::uint64_t i = 1; i + 1 < n; ++i) v.push_back(tp + base + "_MIDDLE");
  v.push_back(tp + base + "_LAST" + last_suffix);
  return v;
}

std::vector<std::string> sent_by(const Recorder& rec, const std::string& who) {
  std::vector<std::string> v;
  for (const auto& s : rec.tx)
    if (s.rfind(who, 0) == 0) v.push_back(s.substr(2));
  return v;
}

struct Case {
  qp::QpType type;
  tx::WrOpcode op;
};

}  // namespace

TEST(ModelMatrix, EveryDataOpcodeTypeAndSizeClass) {
  constexpr std::uint32_t kMtu = 1024;
  const std::uint64_t sizes[] = {0, 1, kMtu - 1, kMtu, kMtu + 1, 3 * kMtu, 5 * kMtu + 3, 64 * 1024};
  const Case cases[] = {
      {qp::QpType::RC, tx::WrOpcode::SEND},
      {qp::QpType::RC, tx::WrOpcode::SEND_WITH_IMM},
      {qp::QpType::RC, tx::WrOpcode::SEND_WITH_INV},
      {qp::QpType::RC, tx::WrOpcode::RDMA_WRITE},
      {qp::QpType::RC, tx::WrOpcode::RDMA_WRITE_WITH_IMM},
      {qp::QpType::RC, tx::WrOpcode::RDMA_READ},
      {qp::QpType::UC, tx::WrOpcode::SEND},
      {qp::QpType::UC, tx::WrOpcode::SEND_WITH_IMM},
      {qp::QpType::UC, tx::WrOpcode::RDMA_WRITE},
      {qp::QpType::UC, tx::WrOpcode::RDMA_WRITE_WITH_IMM},
  };
  int runs = 0;
  for (const Case& c : cases) {
    for (std::uint64_t len : sizes) {
      SCOPED_TRACE(std::string(qp::to_string(c.type)) + " " + std::string(tx::to_string(c.op)) +
                   " len " + std::to_string(len));
      Pair t(c.type, kMtu);
      const auto data = bytes(len, static_cast<std::uint8_t>(len));
      // The WR's local buffer is `src` on A and its remote one `dst` on B, whatever the opcode:
      // a SEND or WRITE carries A's src to B's dst, a READ brings B's dst back into A's src.
      const std::uint64_t src = kBase + 0x1000, dst = kBase + 0x40000;
      const bool read = c.op == tx::WrOpcode::RDMA_READ;
      (read ? t.b : t.a).ad->memory().write(read ? dst : src, data);
      // Where the bytes must land, checked below: it does not hold them before the operation.
      model::Adapter& target = *(read ? t.a : t.b).ad;
      const std::uint64_t landing = read ? src : dst;
      if (len > 0) {
        ASSERT_NE(target.memory().read_bytes(landing, len), data);
      }
      const bool recv = c.op == tx::WrOpcode::SEND || c.op == tx::WrOpcode::SEND_WITH_IMM ||
                        c.op == tx::WrOpcode::SEND_WITH_INV ||
                        c.op == tx::WrOpcode::RDMA_WRITE_WITH_IMM;
      if (recv) {
        ASSERT_EQ(t.b.ad->post_recv(t.b.qpn, {42, {{dst, 0x20000, t.b.mr.lkey.value()}}}),
                  model::PostError::OK);
      }
      tx::SendWr w = t.wr(1, c.op, src, static_cast<std::uint32_t>(len));
      w.remote_addr = dst;
      w.imm_data = 0xCAFE;
      w.invalidate_rkey = 0;  // names no fast-reg MR: the invalidation fails at the responder
      if (c.op == tx::WrOpcode::SEND_WITH_INV) w.invalidate_rkey = 0xFFFFFF00;
      ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
      t.sim.run_until();
      ++runs;

      const std::string tp = c.type == qp::QpType::RC ? "RC_" : "UC_";
      std::vector<std::string> want = {tp + "RDMA_READ_REQUEST"};
      if (c.op == tx::WrOpcode::SEND) want = expected_requests(tp, "SEND", "", len, kMtu);
      if (c.op == tx::WrOpcode::SEND_WITH_IMM)
        want = expected_requests(tp, "SEND", "_WITH_IMMEDIATE", len, kMtu);
      if (c.op == tx::WrOpcode::SEND_WITH_INV)
        want = expected_requests(tp, "SEND", "_WITH_INVALIDATE", len, kMtu);
      if (c.op == tx::WrOpcode::RDMA_WRITE)
        want = expected_requests(tp, "RDMA_WRITE", "", len, kMtu);
      if (c.op == tx::WrOpcode::RDMA_WRITE_WITH_IMM)
        want = expected_requests(tp, "RDMA_WRITE", "_WITH_IMMEDIATE", len, kMtu);
      EXPECT_EQ(sent_by(t.rec, "A:"), want);
      // The responder's answer: RC ACKs the last packet (AckReq there), READs come back as
      // responses; UC never answers.
      std::vector<std::string> answer;
      if (c.type == qp::QpType::RC) {
        if (read) {
          const std::uint64_t n = len <= kMtu ? 1 : (len + kMtu - 1) / kMtu;
          if (n == 1) {
            answer = {"RC_RDMA_READ_RESPONSE_ONLY"};
          } else {
            answer.push_back("RC_RDMA_READ_RESPONSE_FIRST");
            for (std::uint64_t i = 1; i + 1 < n; ++i)
              answer.push_back("RC_RDMA_READ_RESPONSE_MIDDLE");
            answer.push_back("RC_RDMA_READ_RESPONSE_LAST");
          }
        } else {
          answer = {"RC_ACKNOWLEDGE"};
        }
      }
      EXPECT_EQ(sent_by(t.rec, "B:"), answer);
      // Memory: the bytes arrived where they should (A's src for a READ, B's dst otherwise), and
      // not one byte further.
      EXPECT_EQ(target.memory().read_bytes(landing, len), data);
      EXPECT_EQ(target.memory().read_bytes(landing + len, 1), std::vector<std::uint8_t>{0});
      // Completions: the requester's, and the receive for SEND / WRITE_WITH_IMM.
      const auto swc = t.poll(t.a);
      ASSERT_EQ(swc.size(), 1u);
      EXPECT_EQ(swc[0].status, cq::WcStatus::SUCCESS);
      EXPECT_EQ(swc[0].byte_len, len);
      if (recv) {
        const auto rwc = t.poll(t.b);
        ASSERT_EQ(rwc.size(), 1u);
        if (c.op == tx::WrOpcode::SEND_WITH_INV) {
          // rxe (docs/spec-notes.md §11.9): a failed invalidation completes the receive with
          // REM_INV_REQ_ERR and moves the responder QP to ERR.
          EXPECT_EQ(rwc[0].status, cq::WcStatus::REM_INV_REQ_ERR);
        } else {
          EXPECT_EQ(rwc[0].status, cq::WcStatus::SUCCESS);
          EXPECT_EQ(rwc[0].byte_len, len);
          EXPECT_EQ(rwc[0].opcode, c.op == tx::WrOpcode::RDMA_WRITE_WITH_IMM
                                       ? cq::WcOpcode::RECV_RDMA_WITH_IMM
                                       : cq::WcOpcode::RECV);
        }
      }
    }
  }
  EXPECT_EQ(runs, 80);
}

namespace {

struct KeyCase {
  const char* name;
  tx::WrOpcode op;
  std::function<void(Pair&, tx::SendWr&)> spoil;
  std::uint8_t nak;     // expected AETH syndrome from B
  cq::WcStatus status;  // expected on A
};

}  // namespace

TEST(ModelMatrix, KeyChecksGiveTheSpecNakAndStatus) {
  const KeyCase cases[] = {
      {"wrong key byte", tx::WrOpcode::RDMA_WRITE, [](Pair&, tx::SendWr& w) { w.rkey ^= 0x01; },
       0x62, cq::WcStatus::REM_ACCESS_ERR},
      {"wrong index", tx::WrOpcode::RDMA_READ, [](Pair&, tx::SendWr& w) { w.rkey += 0x100; }, 0x62,
       cq::WcStatus::REM_ACCESS_ERR},
      {"one byte past the end", tx::WrOpcode::RDMA_WRITE,
       [](Pair&, tx::SendWr& w) { w.remote_addr = kBase + kMrSize - w.sg_list[0].length + 1; },
       0x62, cq::WcStatus::REM_ACCESS_ERR},
      {"one byte before the start", tx::WrOpcode::RDMA_READ,
       [](Pair&, tx::SendWr& w) { w.remote_addr = kBase - 1; }, 0x62, cq::WcStatus::REM_ACCESS_ERR},
      {"va+len wraps 2^64", tx::WrOpcode::RDMA_WRITE,
       [](Pair&, tx::SendWr& w) { w.remote_addr = 0xFFFFFFFFFFFFFF00ull; }, 0x62,
       cq::WcStatus::REM_ACCESS_ERR},
      {"wrong PD", tx::WrOpcode::RDMA_WRITE,
       [](Pair& t, tx::SendWr& w) {
         const mem::Pd other = t.b.ad->alloc_pd().value;
         w.rkey = t.b.ad
                      ->reg_mr({other, kBase, 4096,
                                mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE, std::nullopt})
                      .value.rkey.value();
         w.remote_addr = kBase;
       },
       0x62, cq::WcStatus::REM_ACCESS_ERR},
      {"MR without REMOTE_READ", tx::WrOpcode::RDMA_READ,
       [](Pair& t, tx::SendWr& w) {
         w.rkey = t.b.ad
                      ->reg_mr({t.b.pd, kBase, 4096,
                                mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE, std::nullopt})
                      .value.rkey.value();
         w.remote_addr = kBase;
       },
       0x62, cq::WcStatus::REM_ACCESS_ERR},
      {"MR without REMOTE_ATOMIC", tx::WrOpcode::ATOMIC_FETCH_AND_ADD,
       [](Pair& t, tx::SendWr& w) {
         w.rkey = t.b.ad
                      ->reg_mr({t.b.pd, kBase, 4096,
                                mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE, std::nullopt})
                      .value.rkey.value();
         w.remote_addr = kBase;
       },
       0x62, cq::WcStatus::REM_ACCESS_ERR},
      {"deregistered MR", tx::WrOpcode::RDMA_WRITE,
       [](Pair& t, tx::SendWr& w) {
         const auto mr =
             t.b.ad
                 ->reg_mr({t.b.pd, kBase, 4096,
                           mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE, std::nullopt})
                 .value;
         w.rkey = mr.rkey.value();
         w.remote_addr = kBase;
         EXPECT_EQ(t.b.ad->mem_table().dereg_mr(mr.id), mem::MemErrc::OK);
       },
       0x62, cq::WcStatus::REM_ACCESS_ERR},
  };
  for (const KeyCase& k : cases) {
    SCOPED_TRACE(k.name);
    Pair t;
    std::vector<std::uint8_t> syndromes;
    struct NakSpy : trace::Observer {
      std::vector<std::uint8_t>* out;
      void on_nak(const trace::NakEvent& e) override { out->push_back(e.syndrome); }
    } spy;
    spy.out = &syndromes;
    t.sim.observers().add(&spy);
    tx::SendWr w = t.wr(9, k.op, kBase, k.op == tx::WrOpcode::ATOMIC_FETCH_AND_ADD ? 8 : 64);
    w.remote_addr = kBase + 0x100;
    k.spoil(t, w);
    ASSERT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::OK);
    t.sim.run_until();
    ASSERT_EQ(syndromes.size(), 1u);
    EXPECT_EQ(syndromes[0], k.nak);
    const auto wc = t.poll(t.a);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, k.status);
    EXPECT_EQ(t.a.ad->qps().find(t.a.qpn)->state(), qp::QpState::ERR);
    EXPECT_EQ(t.b.ad->qps().find(t.b.qpn)->state(), qp::QpState::ERR);
  }
}

TEST(ModelMatrix, UnalignedAtomicIsRefusedAtPostAndNakedInvalidRequestAtTheResponder) {
  Pair t;
  tx::SendWr w = t.wr(1, tx::WrOpcode::ATOMIC_FETCH_AND_ADD, kBase, 8);
  w.remote_addr = kBase + 4;
  EXPECT_EQ(t.a.ad->post_send(t.a.qpn, w), model::PostError::BAD_ATOMIC);  // rxe: EINVAL at post
  // A requester that does send it (another implementation) meets the responder's check:
  // NAK Invalid Request (docs/spec-notes.md §7.6), not Remote Access.
  std::vector<std::uint8_t> syndromes;
  struct NakSpy : trace::Observer {
    std::vector<std::uint8_t>* out;
    void on_nak(const trace::NakEvent& e) override { out->push_back(e.syndrome); }
  } spy;
  spy.out = &syndromes;
  t.sim.observers().add(&spy);
  wire::FrameSpec s;
  s.eth.src = t.a.ad->config().mac;
  s.eth.dst = t.b.ad->config().mac;
  std::copy_n(t.a.ad->config().gid.begin() + 12, 4, s.ip.src.begin());
  std::copy_n(t.b.ad->config().gid.begin() + 12, 4, s.ip.dst.begin());
  s.bth.opcode = wire::to_u8(wire::Opcode::RC_FETCH_ADD);
  s.bth.dqpn = t.b.qpn.value();
  s.bth.psn = 0x100;  // B's expected PSN
  s.bth.ackreq = true;
  s.atomiceth = {kBase + 4, t.b.mr.rkey.value(), 1, 0};
  wire::finalize(s);
  t.b.ad->receive(wire::encode(s));
  t.sim.run_until();
  ASSERT_EQ(syndromes.size(), 1u);
  EXPECT_EQ(syndromes[0], 0x61);
}
