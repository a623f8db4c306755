#include <gtest/gtest.h>

#include "rocecert/cq/completion_queue.h"

using namespace rocecert;
using cq::WcStatus;

TEST(Wc, StatusNumberingIsLibibverbs) {
  // rdma-core libibverbs/verbs.h enum ibv_wc_status, typed here independently.
  EXPECT_EQ(static_cast<int>(WcStatus::WR_FLUSH_ERR), 5);
  EXPECT_EQ(static_cast<int>(WcStatus::REM_ACCESS_ERR), 10);
  EXPECT_EQ(static_cast<int>(WcStatus::RETRY_EXC_ERR), 12);
  EXPECT_EQ(static_cast<int>(WcStatus::RNR_RETRY_EXC_ERR), 13);
  EXPECT_EQ(static_cast<int>(WcStatus::FATAL_ERR), 19);
  EXPECT_EQ(static_cast<int>(WcStatus::TM_RNDV_INCOMPLETE), 23);
  for (int v = 0; v <= 23; ++v) {
    const auto s = static_cast<WcStatus>(v);
    WcStatus back{};
    ASSERT_TRUE(cq::wc_status_from_name(cq::to_string(s), back)) << v;
    EXPECT_EQ(back, s);
  }
}

TEST(Wc, SendOpcodeMapping) {
  EXPECT_EQ(cq::send_wc_opcode(tx::WrOpcode::SEND_WITH_INV), cq::WcOpcode::SEND);
  EXPECT_EQ(cq::send_wc_opcode(tx::WrOpcode::RDMA_WRITE_WITH_IMM), cq::WcOpcode::RDMA_WRITE);
  EXPECT_EQ(cq::send_wc_opcode(tx::WrOpcode::ATOMIC_CMP_AND_SWP), cq::WcOpcode::COMP_SWAP);
  EXPECT_EQ(cq::send_wc_opcode(tx::WrOpcode::ATOMIC_WRITE), cq::WcOpcode::ATOMIC_WRITE);
  EXPECT_EQ(static_cast<int>(cq::WcOpcode::RECV_RDMA_WITH_IMM), 129);
}

TEST(CompletionQueue, FifoAndOverflow) {
  cq::CompletionQueue q(1, 2);
  cq::Wc a, b, c;
  a.wr_id = 1;
  b.wr_id = 2;
  c.wr_id = 3;
  EXPECT_EQ(q.push(a, false), cq::PushResult::OK);
  EXPECT_EQ(q.push(b, false), cq::PushResult::OK);
  EXPECT_EQ(q.push(c, false), cq::PushResult::OVERFLOW);
  EXPECT_TRUE(q.in_error());
  EXPECT_EQ(q.push(c, false), cq::PushResult::CQ_IN_ERROR);
  const auto got = q.poll(10);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].wr_id, 1u);
  EXPECT_EQ(got[1].wr_id, 2u);
}

TEST(CompletionQueue, ATransientOverrunLosesOnlyTheCompletionThatDidNotFit) {
  // rxe_cq_post: -EBUSY and CQ_ERR for the one completion; the CQ takes more once drained.
  cq::CompletionQueue q(1, 2, cq::OverrunMode::TRANSIENT);
  cq::Wc w;
  for (std::uint64_t id = 1; id <= 2; ++id) {
    w.wr_id = id;
    EXPECT_EQ(q.push(w, false), cq::PushResult::OK);
  }
  w.wr_id = 3;
  EXPECT_EQ(q.push(w, false), cq::PushResult::OVERFLOW);
  EXPECT_FALSE(q.in_error());
  EXPECT_EQ(q.push(w, false), cq::PushResult::OVERFLOW);  // still full: lost again
  EXPECT_EQ(q.poll(1).front().wr_id, 1u);
  w.wr_id = 4;
  EXPECT_EQ(q.push(w, false), cq::PushResult::OK);
  const auto got = q.poll(10);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].wr_id, 2u);
  EXPECT_EQ(got[1].wr_id, 4u);
}

TEST(CompletionQueue, NotificationIsOneShotAndHonoursSolicitedOnly) {
  cq::CompletionQueue q(1, 16);
  cq::Wc ok;
  EXPECT_EQ(q.push(ok, false), cq::PushResult::OK);  // not armed
  q.arm(true);
  EXPECT_EQ(q.push(ok, false), cq::PushResult::OK);  // unsolicited: no event
  EXPECT_EQ(q.push(ok, true), cq::PushResult::OK_NOTIFY);
  EXPECT_EQ(q.push(ok, true), cq::PushResult::OK);  // one-shot
  q.arm(true);
  cq::Wc err;
  err.status = WcStatus::REM_ACCESS_ERR;
  EXPECT_EQ(q.push(err, false), cq::PushResult::OK_NOTIFY);  // errors always notify
  q.arm(false);
  EXPECT_EQ(q.push(ok, false), cq::PushResult::OK_NOTIFY);
}
