// The QP table: QPN allocation, bring-up, all-or-nothing modify (docs/spec-notes.md §6.2 rule 6),
// RESET and ERR effects (§6.4, §6.5), SQD/SQE (§6.6), query.
#include "rocecert/qp/qp_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "rocecert/qp/timers.h"

namespace rocecert::qp {
namespace {

CreateQpParams params(QpType type) {
  CreateQpParams p;
  p.type = type;
  p.pd = PdId{1};
  p.send_cq = CqId{1};
  p.recv_cq = CqId{2};
  p.caps = QpCaps{16, 16, 1, 1, 0};
  return p;
}

Qpn create(QpTable& t, QpType type) {
  const CreateResult r = t.create_qp(params(type));
  EXPECT_TRUE(r.ok()) << to_string(r.error);
  return r.qpn;
}

// Attributes a well-formed bring-up uses.
QpAttr good_attr(QpState next) {
  QpAttr a;
  a.qp_state = next;
  a.pkey_index = 0;
  a.port_num = 1;
  a.qp_access_flags =
      mem::to_u32(mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE | mem::Access::REMOTE_READ);
  a.qkey = 0x11111111;
  a.path_mtu = PathMtu::MTU_1024;
  a.dest_qp_num = 0x12;
  a.rq_psn = 0x00ABCD;
  a.max_dest_rd_atomic = 4;
  a.min_rnr_timer = 12;
  a.ah_attr.dgid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, 2};
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 6;
  a.sq_psn = 0xFFFFF0;
  a.max_rd_atomic = 3;
  return a;
}

// The required mask of each bring-up step, per type (docs/spec-notes.md §6.2).
AttrMask step_mask(QpType type, QpState to) {
  using enum AttrBit;
  AttrMask m = STATE;
  switch (to) {
    case QpState::INIT:
      return m | PKEY_INDEX | PORT | (type == QpType::UD ? QKEY : ACCESS_FLAGS);
    case QpState::RTR:
      if (type == QpType::UD) return m;
      m = m | AV | PATH_MTU | DEST_QPN | RQ_PSN;
      return type == QpType::RC ? m | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER : m;
    case QpState::RTS:
      m = m | SQ_PSN;
      return type == QpType::RC ? m | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC : m;
    case QpState::RESET:
    case QpState::SQD:
    case QpState::SQE:
    case QpState::ERR:
      return m;
  }
  return m;
}

ModifyResult step(QpTable& t, Qpn qpn, QpType type, QpState to) {
  return t.modify_qp(qpn, good_attr(to), step_mask(type, to));
}

// Create a QP and drive it to `target` through legal transitions.
Qpn qp_in_state(QpTable& t, QpType type, QpState target) {
  const Qpn q = create(t, type);
  auto go = [&](QpState s) {
    const ModifyResult r = step(t, q, type, s);
    EXPECT_TRUE(r.ok()) << to_string(r.check.error) << " " << to_string(r.check.attrs);
  };
  switch (target) {
    case QpState::RESET:
      break;
    case QpState::INIT:
      go(QpState::INIT);
      break;
    case QpState::RTR:
      go(QpState::INIT);
      go(QpState::RTR);
      break;
    case QpState::RTS:
    case QpState::SQD:
    case QpState::SQE:
    case QpState::ERR:
      go(QpState::INIT);
      go(QpState::RTR);
      go(QpState::RTS);
      if (target == QpState::SQD) go(QpState::SQD);
      if (target == QpState::SQE) {
        EXPECT_TRUE(t.enter_sq_error(q).has_value());
      }
      if (target == QpState::ERR) go(QpState::ERR);
      break;
  }
  EXPECT_EQ(t.find(q)->state(), target);
  return q;
}

TEST(QpTable, QpnAllocationRxeLike) {
  QpTable t;
  EXPECT_EQ(create(t, QpType::RC), Qpn(0x11));
  EXPECT_EQ(create(t, QpType::UC), Qpn(0x12));
  EXPECT_EQ(create(t, QpType::UD), Qpn(0x13));
  EXPECT_EQ(t.destroy_qp(Qpn(0x12)), ModifyError::OK);
  EXPECT_EQ(create(t, QpType::RC), Qpn(0x14));  // cyclic: not reused at once
  EXPECT_EQ(t.size(), 3u);
}

TEST(QpTable, QpnAllocationLowestFreeAndWrap) {
  QpTableConfig cfg;
  cfg.qpn.policy = QpnPolicy::LOWEST_FREE;
  QpTable lowest(cfg);
  create(lowest, QpType::RC);
  create(lowest, QpType::RC);
  lowest.destroy_qp(Qpn(0x11));
  EXPECT_EQ(create(lowest, QpType::RC), Qpn(0x11));

  QpTableConfig small;
  small.qpn = QpnAllocation{0x20, 0x22, QpnPolicy::CYCLIC};
  QpTable t(small);
  EXPECT_EQ(create(t, QpType::RC), Qpn(0x20));
  EXPECT_EQ(create(t, QpType::RC), Qpn(0x21));
  EXPECT_EQ(create(t, QpType::RC), Qpn(0x22));
  EXPECT_EQ(t.create_qp(params(QpType::RC)).error, ModifyError::QPN_EXHAUSTED);
  t.destroy_qp(Qpn(0x21));
  EXPECT_EQ(create(t, QpType::RC), Qpn(0x21));  // wrapped around to the only free QPN
  t.destroy_qp(Qpn(0x20));
  EXPECT_EQ(create(t, QpType::RC), Qpn(0x20));
}

TEST(QpTable, QpnAllocationIsDeterministic) {
  auto run = [] {
    QpTable t;
    std::vector<std::uint32_t> out;
    for (int i = 0; i < 5; ++i) out.push_back(create(t, QpType::RC).value());
    t.destroy_qp(Qpn(0x13));
    t.destroy_qp(Qpn(0x11));
    for (int i = 0; i < 3; ++i) out.push_back(create(t, QpType::UD).value());
    return out;
  };
  const std::vector<std::uint32_t> a = run();
  EXPECT_EQ(a, run());
  EXPECT_EQ(a, (std::vector<std::uint32_t>{0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18}));
}

TEST(QpTable, CreateChecksCapsAndStartsInReset) {
  QpTable t;
  CreateQpParams p = params(QpType::RC);
  p.caps.max_send_sge = 33;
  EXPECT_EQ(t.create_qp(p).error, ModifyError::INVALID_CAP);
  EXPECT_EQ(t.size(), 0u);
  p = params(QpType::UD);
  p.srq = SrqId{7};
  p.caps.max_recv_wr = 1'000'000;  // ignored with an SRQ
  const CreateResult r = t.create_qp(p);
  ASSERT_TRUE(r.ok());
  const QpContext* c = t.find(r.qpn);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->state(), QpState::RESET);
  EXPECT_EQ(c->type, QpType::UD);
  EXPECT_TRUE(c->has_srq);
  EXPECT_EQ(c->srq, SrqId{7});
  EXPECT_EQ(c->pd, PdId{1});
  EXPECT_EQ(c->send_cq, CqId{1});
  EXPECT_EQ(c->recv_cq, CqId{2});
  EXPECT_EQ(c->mtu, 256u);
}

TEST(QpTable, RcBringUpInitialisesContext) {
  QpTable t;
  const Qpn q = create(t, QpType::RC);
  const ModifyResult init = step(t, q, QpType::RC, QpState::INIT);
  ASSERT_TRUE(init.ok());
  ASSERT_TRUE(init.transition.has_value());
  EXPECT_EQ(*init.transition, (QpTransition{q, QpState::RESET, QpState::INIT, false}));

  const ModifyResult rtr = step(t, q, QpType::RC, QpState::RTR);
  ASSERT_TRUE(rtr.ok());
  const QpContext& c = *t.find(q);
  EXPECT_EQ(c.resp.epsn, Psn(0x00ABCD));  // rq_psn -> ePSN at INIT -> RTR (§3.3)
  EXPECT_EQ(c.resp.res_ring_size, 4u);
  EXPECT_EQ(c.resp.resources.size(), 4u);
  EXPECT_EQ(c.mtu, 1024u);
  EXPECT_EQ(c.attr.dest_qp_num, 0x12u);
  EXPECT_EQ(c.attr.min_rnr_timer, 12);

  const ModifyResult rts = step(t, q, QpType::RC, QpState::RTS);
  ASSERT_TRUE(rts.ok());
  EXPECT_EQ(*rts.transition, (QpTransition{q, QpState::RTR, QpState::RTS, false}));
  EXPECT_EQ(c.req.next_psn, Psn(0xFFFFF0));  // sq_psn -> next and comp PSN (§3.2)
  EXPECT_EQ(c.req.comp_psn, Psn(0xFFFFF0));
  EXPECT_EQ(c.req.ack_timeout, local_ack_timeout_ns(14));
  EXPECT_EQ(c.req.retry_cnt, 7);
  EXPECT_EQ(c.req.rnr_retry, 6);
  EXPECT_EQ(c.req.rd_atomic_credits, 3u);  // no rounding by default
  EXPECT_EQ(c.state(), QpState::RTS);
}

TEST(QpTable, RxeProfileRoundsRdAtomic) {
  QpTableConfig cfg;
  cfg.profile = rxe_profile();
  QpTable t(cfg);
  const Qpn q = qp_in_state(t, QpType::RC, QpState::RTS);
  const QpContext& c = *t.find(q);
  EXPECT_EQ(c.attr.max_rd_atomic, 4);  // 3 -> 4
  EXPECT_EQ(c.req.rd_atomic_credits, 4u);
  EXPECT_EQ(c.attr.max_dest_rd_atomic, 4);  // 4 stays 4
  QpAttr a;
  a.qp_state = QpState::SQD;
  ASSERT_TRUE(t.modify_qp(q, a, AttrMask(AttrBit::STATE)).ok());
  t.mark_sq_drained(q);
  a.max_dest_rd_atomic = 5;
  ASSERT_TRUE(t.modify_qp(q, a, AttrBit::STATE | AttrBit::MAX_DEST_RD_ATOMIC).ok());
  EXPECT_EQ(c.attr.max_dest_rd_atomic, 8);
  EXPECT_EQ(c.resp.resources.size(), 8u);
}

TEST(QpTable, UcAndUdBringUp) {
  QpTable t;
  const Qpn uc = qp_in_state(t, QpType::UC, QpState::RTS);
  EXPECT_EQ(t.find(uc)->resp.epsn, Psn(0x00ABCD));
  EXPECT_EQ(t.find(uc)->req.next_psn, Psn(0xFFFFF0));
  const Qpn ud = qp_in_state(t, QpType::UD, QpState::RTS);
  EXPECT_EQ(t.find(ud)->attr.qkey, 0x11111111u);
  // RC attributes on a UD QP are refused by the table.
  QpAttr a = good_attr(QpState::RTS);
  EXPECT_EQ(t.modify_qp(ud, a, AttrBit::STATE | AttrBit::TIMEOUT).check.error,
            ModifyError::UNEXPECTED_ATTR);
}

// docs/spec-notes.md §6.2 rule 6: no state or attribute change after any rejected modify.
TEST(QpTable, RejectedModifyChangesNothing) {
  QpProfile profiles[2] = {QpProfile{}, rxe_profile()};
  int rejected = 0;
  for (const QpProfile& profile : profiles) {
    QpTableConfig cfg;
    cfg.profile = profile;
    QpTable t(cfg);
    for (QpType type : {QpType::RC, QpType::UC, QpType::UD}) {
      for (QpState s : kAllQpStates) {
        if (s == QpState::SQE && type == QpType::RC) continue;  // RC never enters SQE
        const Qpn q = qp_in_state(t, type, s);
        std::vector<std::pair<QpAttr, AttrMask>> requests;
        // Every target with the bare STATE bit, with the full good mask, and with bad values.
        for (QpState to : kAllQpStates) {
          requests.emplace_back(good_attr(to), AttrMask(AttrBit::STATE));
          requests.emplace_back(good_attr(to), step_mask(type, to));
          QpAttr bad = good_attr(to);
          bad.timeout = 32;
          bad.retry_cnt = 8;
          bad.rnr_retry = 8;
          bad.min_rnr_timer = 32;
          bad.path_mtu = PathMtu::MTU_4096;
          bad.pkey_index = 1;
          bad.port_num = 2;
          bad.dest_qp_num = 0;
          bad.sq_psn = 0x1000000;
          bad.rq_psn = 0x1000000;
          bad.max_dest_rd_atomic = 200;
          bad.max_rd_atomic = 200;
          bad.qp_access_flags = 0x20;
          requests.emplace_back(bad, step_mask(type, to));
          requests.emplace_back(bad, step_mask(type, to) | AttrBit::ALT_PATH);
          QpAttr bad_cur = good_attr(to);
          bad_cur.cur_qp_state = static_cast<QpState>(9);
          requests.emplace_back(bad_cur, step_mask(type, to) | AttrBit::CUR_STATE);
        }
        QpAttr out_of_range;
        out_of_range.qp_state = static_cast<QpState>(7);
        requests.emplace_back(out_of_range, AttrMask(AttrBit::STATE));
        for (const auto& [attr, mask] : requests) {
          QpTable scratch = t;  // each request starts from the QP in state s
          const ModifyResult r = scratch.modify_qp(q, attr, mask);
          if (r.ok()) continue;
          ++rejected;
          EXPECT_FALSE(r.transition.has_value());
          EXPECT_EQ(*scratch.find(q), *t.find(q))
              << to_string(type) << " " << to_string(s) << " -> " << to_string(attr.qp_state)
              << " mask " << to_string(mask) << ": " << to_string(r.check.error);
        }
      }
    }
  }
  EXPECT_GT(rejected, 1000);
}

TEST(QpTable, EveryValueBoundaryRejectsWithoutChange) {
  QpTable t;
  const Qpn q = qp_in_state(t, QpType::RC, QpState::RTR);
  const QpContext before = *t.find(q);
  struct Case {
    void (*mutate)(QpAttr&);
    ModifyError want;
  };
  const Case cases[] = {
      {[](QpAttr& a) { a.timeout = 32; }, ModifyError::INVALID_TIMEOUT},
      {[](QpAttr& a) { a.retry_cnt = 8; }, ModifyError::INVALID_RETRY_CNT},
      {[](QpAttr& a) { a.rnr_retry = 8; }, ModifyError::INVALID_RNR_RETRY},
      {[](QpAttr& a) { a.sq_psn = 0x1000000; }, ModifyError::INVALID_SQ_PSN},
      {[](QpAttr& a) { a.max_rd_atomic = 129; }, ModifyError::INVALID_MAX_RD_ATOMIC},
      {[](QpAttr& a) { a.min_rnr_timer = 32; }, ModifyError::INVALID_MIN_RNR_TIMER},
  };
  for (const Case& c : cases) {
    QpAttr a = good_attr(QpState::RTS);
    c.mutate(a);
    const ModifyResult r =
        t.modify_qp(q, a, step_mask(QpType::RC, QpState::RTS) | AttrBit::MIN_RNR_TIMER);
    EXPECT_EQ(r.check.error, c.want);
    EXPECT_EQ(*t.find(q), before);
  }
  // The same request with legal boundary values passes.
  QpAttr ok = good_attr(QpState::RTS);
  ok.timeout = 31;
  ok.retry_cnt = 7;
  ok.rnr_retry = 7;
  ok.sq_psn = 0xFFFFFF;
  ok.max_rd_atomic = 128;
  ok.min_rnr_timer = 31;
  EXPECT_TRUE(
      t.modify_qp(q, ok, step_mask(QpType::RC, QpState::RTS) | AttrBit::MIN_RNR_TIMER).ok());
}

TEST(QpTable, EnteringResetResetsContext) {
  QpTable t;
  const Qpn q = qp_in_state(t, QpType::RC, QpState::RTS);
  QpContext& c = *t.find(q);
  // Traffic happened.
  c.req.next_psn = c.req.next_psn + 20;
  c.req.opcode = 0x00;
  c.req.retry_cnt = 2;
  c.req.retransmit_deadline = 1'000;
  c.resp.msn = Msn(17);
  c.resp.opcode = 0x0A;
  c.resp.sent_psn_nak = true;
  c.resp.drop_msg = true;
  c.resp.res_head = 3;
  c.resp.resources[0].type = ResourceType::READ;
  const QpAttr attr_before = c.attr;

  QpAttr a;
  a.qp_state = QpState::RESET;
  const ModifyResult r = t.modify_qp(q, a, AttrMask(AttrBit::STATE));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r.transition, (QpTransition{q, QpState::RTS, QpState::RESET, false}));
  EXPECT_EQ(c.state(), QpState::RESET);
  EXPECT_EQ(c.resp.msn, Msn(0));
  EXPECT_EQ(c.resp.opcode, kNoOpcode);
  EXPECT_EQ(c.req.opcode, kNoOpcode);
  EXPECT_FALSE(c.resp.sent_psn_nak);
  EXPECT_FALSE(c.resp.drop_msg);
  EXPECT_EQ(c.resp.res_head, 0u);
  EXPECT_EQ(c.resp.resources[0], ResponderResource{});
  EXPECT_EQ(c.req.retransmit_deadline, kNoDeadline);
  EXPECT_EQ(c.req.retry_cnt, 7);  // reload value
  EXPECT_EQ(c.attr.timeout, attr_before.timeout);
  EXPECT_EQ(c.attr.dest_qp_num, attr_before.dest_qp_num);

  // And it comes back up with fresh PSNs.
  ASSERT_TRUE(step(t, q, QpType::RC, QpState::INIT).ok());
  QpAttr rtr = good_attr(QpState::RTR);
  rtr.rq_psn = 77;
  ASSERT_TRUE(t.modify_qp(q, rtr, step_mask(QpType::RC, QpState::RTR)).ok());
  EXPECT_EQ(c.resp.epsn, Psn(77));
}

TEST(QpTable, EnteringErrFlagsFlush) {
  QpTable t;
  const Qpn q = qp_in_state(t, QpType::RC, QpState::RTS);
  QpContext& c = *t.find(q);
  c.req.retransmit_deadline = 123;
  c.req.rnr_deadline = 456;
  QpAttr a;
  a.qp_state = QpState::ERR;
  const ModifyResult r = t.modify_qp(q, a, AttrMask(AttrBit::STATE));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r.transition, (QpTransition{q, QpState::RTS, QpState::ERR, true}));
  EXPECT_TRUE(c.flush_pending);
  EXPECT_EQ(c.req.retransmit_deadline, kNoDeadline);
  EXPECT_EQ(c.req.rnr_deadline, kNoDeadline);
  // ERR -> ERR is legal and asks for a flush again; ERR -> RTS is not.
  EXPECT_TRUE(t.modify_qp(q, a, AttrMask(AttrBit::STATE)).transition->flush_due);
  a.qp_state = QpState::RTS;
  EXPECT_EQ(t.modify_qp(q, a, AttrMask(AttrBit::STATE)).check.error,
            ModifyError::ILLEGAL_TRANSITION);
  // ERR -> RESET clears the pending flush (queues discarded without completions, §6.4).
  a.qp_state = QpState::RESET;
  ASSERT_TRUE(t.modify_qp(q, a, AttrMask(AttrBit::STATE)).ok());
  EXPECT_FALSE(c.flush_pending);
}

TEST(QpTable, ResetToErrFollowsProfile) {
  QpTable current;
  const Qpn q = create(current, QpType::RC);
  QpAttr a;
  a.qp_state = QpState::ERR;
  EXPECT_EQ(current.modify_qp(q, a, AttrMask(AttrBit::STATE)).check.error,
            ModifyError::ILLEGAL_TRANSITION);
  QpTableConfig cfg;
  cfg.profile.reset_to_err_allowed = true;
  QpTable old_kernel(cfg);
  const Qpn q2 = create(old_kernel, QpType::RC);
  const ModifyResult r = old_kernel.modify_qp(q2, a, AttrMask(AttrBit::STATE));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.transition->flush_due);
}

TEST(QpTable, InternalErrorTransitions) {
  QpTable t;
  const Qpn rts = qp_in_state(t, QpType::RC, QpState::RTS);
  const auto tr = t.enter_error(rts);
  ASSERT_TRUE(tr.has_value());
  EXPECT_EQ(*tr, (QpTransition{rts, QpState::RTS, QpState::ERR, true}));
  EXPECT_FALSE(t.enter_error(rts).has_value());  // already in ERR
  const Qpn reset = create(t, QpType::RC);
  EXPECT_FALSE(t.enter_error(reset).has_value());
  EXPECT_FALSE(t.enter_error(Qpn(0x999)).has_value());
}

TEST(QpTable, SqeForUdAndUcOnly) {
  QpTable t;
  const Qpn rc = qp_in_state(t, QpType::RC, QpState::RTS);
  EXPECT_FALSE(t.enter_sq_error(rc).has_value());
  const Qpn ud = qp_in_state(t, QpType::UD, QpState::RTS);
  const auto tr = t.enter_sq_error(ud);
  ASSERT_TRUE(tr.has_value());
  EXPECT_EQ(*tr, (QpTransition{ud, QpState::RTS, QpState::SQE, true}));
  EXPECT_TRUE(t.find(ud)->flush_pending);
  EXPECT_FALSE(t.enter_sq_error(ud).has_value());  // not in RTS any more
  // SQE -> RTS with the UD optional bits (CUR_STATE matching, QKEY).
  QpAttr a;
  a.qp_state = QpState::RTS;
  a.cur_qp_state = QpState::SQE;
  a.qkey = 0x22;
  const ModifyResult r = t.modify_qp(ud, a, AttrBit::STATE | AttrBit::CUR_STATE | AttrBit::QKEY);
  ASSERT_TRUE(r.ok()) << to_string(r.check.error);
  EXPECT_EQ(t.find(ud)->attr.qkey, 0x22u);
  EXPECT_EQ(t.find(ud)->state(), QpState::RTS);
}

TEST(QpTable, SqdDrainAndResume) {
  QpTable t;
  const Qpn q = qp_in_state(t, QpType::RC, QpState::RTS);
  QpAttr a;
  a.qp_state = QpState::SQD;
  a.en_sqd_async_notify = true;
  ASSERT_TRUE(t.modify_qp(q, a, AttrBit::STATE | AttrBit::EN_SQD_ASYNC_NOTIFY).ok());
  EXPECT_TRUE(t.find(q)->attr.sq_draining);
  EXPECT_TRUE(t.query_qp(q)->sq_draining);
  // While draining only SQD -> ERR is allowed.
  a.qp_state = QpState::RTS;
  EXPECT_EQ(t.modify_qp(q, a, AttrMask(AttrBit::STATE)).check.error, ModifyError::SQ_DRAINING);
  a.qp_state = QpState::SQD;
  a.timeout = 20;
  EXPECT_EQ(t.modify_qp(q, a, AttrBit::STATE | AttrBit::TIMEOUT).check.error,
            ModifyError::SQ_DRAINING);
  // Drained: the event is requested, attributes may change, and RTS resumes.
  const SqDrained d = t.mark_sq_drained(q);
  EXPECT_TRUE(d.drained);
  EXPECT_TRUE(d.notify);
  EXPECT_FALSE(t.mark_sq_drained(q).drained);
  ASSERT_TRUE(t.modify_qp(q, a, AttrBit::STATE | AttrBit::TIMEOUT).ok());
  EXPECT_FALSE(t.find(q)->attr.sq_draining);  // SQD -> SQD does not restart the drain
  EXPECT_EQ(t.find(q)->req.ack_timeout, local_ack_timeout_ns(20));
  a.qp_state = QpState::RTS;
  ASSERT_TRUE(t.modify_qp(q, a, AttrMask(AttrBit::STATE)).ok());

  // SQD -> ERR is allowed while draining.
  const Qpn q2 = qp_in_state(t, QpType::UC, QpState::SQD);
  a.qp_state = QpState::ERR;
  const ModifyResult err = t.modify_qp(q2, a, AttrMask(AttrBit::STATE));
  ASSERT_TRUE(err.ok());
  EXPECT_FALSE(t.find(q2)->attr.sq_draining);
  EXPECT_FALSE(t.mark_sq_drained(q2).drained);
}

TEST(QpTable, QueryReportsLiveValues) {
  QpTable t;
  const Qpn q = qp_in_state(t, QpType::RC, QpState::RTS);
  t.find(q)->req.next_psn = Psn(0x000005);  // TX sent some packets (and wrapped)
  t.find(q)->resp.epsn = Psn(0x00ABD0);
  const std::optional<QpAttr> a = t.query_qp(q);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->qp_state, QpState::RTS);
  EXPECT_EQ(a->cur_qp_state, QpState::RTS);
  EXPECT_EQ(a->sq_psn, 5u);
  EXPECT_EQ(a->rq_psn, 0x00ABD0u);
  EXPECT_EQ(a->cap, params(QpType::RC).caps);
  EXPECT_EQ(a->path_mtu, PathMtu::MTU_1024);
  EXPECT_FALSE(t.query_qp(Qpn(0x999)).has_value());
}

TEST(QpTable, UnknownQp) {
  QpTable t;
  QpAttr a;
  a.qp_state = QpState::INIT;
  EXPECT_EQ(t.modify_qp(Qpn(0x11), a, AttrMask(AttrBit::STATE)).check.error,
            ModifyError::QP_NOT_FOUND);
  EXPECT_EQ(t.destroy_qp(Qpn(0x11)), ModifyError::QP_NOT_FOUND);
  EXPECT_EQ(t.find(Qpn(0x11)), nullptr);
}

TEST(QpTable, ForEachInQpnOrder) {
  QpTableConfig cfg;
  cfg.qpn = QpnAllocation{0x30, 0x32, QpnPolicy::CYCLIC};
  QpTable t(cfg);
  create(t, QpType::RC);
  create(t, QpType::RC);
  create(t, QpType::RC);
  t.destroy_qp(Qpn(0x30));
  create(t, QpType::UD);  // wraps to 0x30
  std::vector<std::uint32_t> order;
  t.for_each([&](const QpContext& c) { order.push_back(c.qpn.value()); });
  EXPECT_EQ(order, (std::vector<std::uint32_t>{0x30, 0x31, 0x32}));
}

// The overloads that take a context already looked up act as the Qpn ones on that QP only.
TEST(QpTable, ContextOverloadsActOnTheGivenQp) {
  QpTable t;
  const Qpn other = qp_in_state(t, QpType::UD, QpState::RTS);
  const Qpn ud = qp_in_state(t, QpType::UD, QpState::RTS);
  QpContext& ctx = *t.find(ud);
  const ModifyResult r = t.modify_qp(ctx, good_attr(QpState::RTS), AttrMask(AttrBit::STATE));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r.transition.has_value());
  EXPECT_EQ(r.transition->qpn, ud);
  const auto sqe = t.enter_sq_error(ctx);
  ASSERT_TRUE(sqe.has_value());
  EXPECT_EQ(*sqe, (QpTransition{ud, QpState::RTS, QpState::SQE, true}));
  EXPECT_EQ(t.find(other)->state(), QpState::RTS);
  const auto err = t.enter_error(ctx);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(*err, (QpTransition{ud, QpState::SQE, QpState::ERR, true}));
  EXPECT_FALSE(t.enter_error(ctx).has_value());  // already in ERR
  EXPECT_FALSE(t.mark_sq_drained(ctx).drained);  // not in SQD
  EXPECT_EQ(t.find(other)->state(), QpState::RTS);
}

}  // namespace
}  // namespace rocecert::qp
