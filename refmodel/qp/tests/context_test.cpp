// RESET and ERR effects on the context (docs/spec-notes.md §6.4, §6.5) and the trivial helpers.
#include "rocecert/qp/context.h"

#include <gtest/gtest.h>

namespace rocecert::qp {
namespace {

// A context as it might look mid-traffic.
QpContext busy_context() {
  QpContext c;
  c.qpn = Qpn(0x11);
  c.attr.qp_state = QpState::RTS;
  c.attr.retry_cnt = 5;
  c.attr.rnr_retry = 7;
  c.attr.max_rd_atomic = 4;
  c.attr.timeout = 14;
  c.attr.sq_draining = true;
  c.req.next_psn = Psn(110);
  c.req.comp_psn = Psn(100);
  c.req.ssn = 9;
  c.req.opcode = 0x01;  // RC_SEND_MIDDLE
  c.req.noack_pkts = 17;
  c.req.retry_cnt = 1;
  c.req.rnr_retry = 3;
  c.req.rd_atomic_credits = 1;
  c.req.need_retry = true;
  c.req.started_retry = true;
  c.req.wait_for_rnr_timer = true;
  c.req.wait_fence = true;
  c.req.retransmit_deadline = 5'000;
  c.req.rnr_deadline = 6'000;
  c.req.ack_timeout = 67'108'864;
  c.req.max_unacked_psns = 64;
  c.resp.epsn = Psn(200);
  c.resp.ack_psn = Psn(199);
  c.resp.msn = Msn(42);
  c.resp.opcode = 0x06;  // RC_RDMA_WRITE_FIRST
  c.resp.sent_psn_nak = true;
  c.resp.drop_msg = true;
  c.resp.write = WriteContext{true, 0x1000, 0x1234, 100};
  c.resp.recv_wqe_active = true;
  c.resp.recv_offset = 64;
  c.resp.res_ring_size = 2;
  c.resp.res_head = 1;
  c.resp.resources.resize(2);
  c.resp.resources[0].type = ResourceType::READ;
  c.resp.resources[1].type = ResourceType::ATOMIC;
  return c;
}

TEST(QpContext, ResetClearsRuntimeStateKeepsAttributes) {
  QpContext c = busy_context();
  const QpAttr attr_before = c.attr;
  reset_runtime_state(c);
  // Requester back to its initial values, counters at their reload values.
  EXPECT_EQ(c.req.ssn, 0u);
  EXPECT_EQ(c.req.opcode, kNoOpcode);
  EXPECT_EQ(c.req.noack_pkts, 0u);
  EXPECT_EQ(c.req.retry_cnt, 5);
  EXPECT_EQ(c.req.rnr_retry, 7);
  EXPECT_EQ(c.req.rd_atomic_credits, 4u);
  EXPECT_FALSE(c.req.need_retry);
  EXPECT_FALSE(c.req.started_retry);
  EXPECT_FALSE(c.req.wait_for_rnr_timer);
  EXPECT_FALSE(c.req.wait_fence);
  EXPECT_EQ(c.req.retransmit_deadline, kNoDeadline);
  EXPECT_EQ(c.req.rnr_deadline, kNoDeadline);
  EXPECT_EQ(c.req.ack_timeout, 67'108'864u);  // derived from the kept attribute
  EXPECT_EQ(c.req.max_unacked_psns, 64u);     // configuration
  // Responder: MSN 0, flags cleared, resources freed, ring size kept.
  EXPECT_EQ(c.resp.msn, Msn(0));
  EXPECT_EQ(c.resp.opcode, kNoOpcode);
  EXPECT_FALSE(c.resp.sent_psn_nak);
  EXPECT_FALSE(c.resp.drop_msg);
  EXPECT_EQ(c.resp.write, WriteContext{});
  EXPECT_FALSE(c.resp.recv_wqe_active);
  EXPECT_EQ(c.resp.recv_offset, 0u);
  EXPECT_EQ(c.resp.res_ring_size, 2u);
  EXPECT_EQ(c.resp.res_head, 0u);
  ASSERT_EQ(c.resp.resources.size(), 2u);
  for (const ResponderResource& r : c.resp.resources) EXPECT_EQ(r, ResponderResource{});
  // Attributes are kept (except the drain flag); the state itself is the QP table's business.
  QpAttr expect_attr = attr_before;
  expect_attr.sq_draining = false;
  EXPECT_EQ(c.attr, expect_attr);
  EXPECT_FALSE(c.flush_pending);
}

TEST(QpContext, EnterErrorCancelsTimersAndFlags) {
  QpContext c = busy_context();
  enter_error_state(c);
  EXPECT_TRUE(c.flush_pending);
  EXPECT_EQ(c.req.retransmit_deadline, kNoDeadline);
  EXPECT_EQ(c.req.rnr_deadline, kNoDeadline);
  EXPECT_FALSE(c.req.wait_for_rnr_timer);
  EXPECT_FALSE(c.req.need_retry);
  EXPECT_FALSE(c.attr.sq_draining);
  // Nothing else is touched: PSNs and MSN stay for the flush and for inspection.
  EXPECT_EQ(c.req.next_psn, Psn(110));
  EXPECT_EQ(c.resp.msn, Msn(42));
}

TEST(QpContext, OutstandingPsnsWrap) {
  RequesterState r;
  r.comp_psn = Psn(0xFFFFFE);
  r.next_psn = Psn(3);
  EXPECT_EQ(r.outstanding_psns(), 5u);
  r.next_psn = r.comp_psn;
  EXPECT_EQ(r.outstanding_psns(), 0u);
}

}  // namespace
}  // namespace rocecert::qp
