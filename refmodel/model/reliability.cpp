// The reliability engine of the requester (IBA §9.7.6 retransmission, C9-140ff.; rxe_comp.c and
// rxe_req.c; IBTA Vol. 1 §9.7.6.1.3, C9-140, §9.7.5.2.8; docs/spec-notes.md §5.2-§5.4): the local
// ACK timer and retry_cnt, RNR NAKs and rnr_retry, and go-back-N from the oldest unacknowledged
// PSN, resuming in the middle of a message and re-issuing a partly received READ for the rest of
// its data.
#include "adapter_impl.h"
#include "rocecert/qp/timers.h"

namespace rocecert::model {

void Adapter::Impl::cancel_retransmit(Qp& q) {
  if (q.retransmit_timer != 0) a.events_.cancel(q.retransmit_timer);
  q.retransmit_timer = 0;
  q.ctx.req.retransmit_deadline = qp::kNoDeadline;
}

void Adapter::Impl::arm_retransmit(Qp& q) {
  qp::QpContext& ctx = q.ctx;
  cancel_retransmit(q);
  // timeout 0 means no timer (IBTA Vol. 1 §9.7.6.1.3, C9-140; docs/spec-notes.md §5.1); nothing
  // outstanding, nothing to time.
  if (ctx.type != qp::QpType::RC || ctx.req.ack_timeout == 0 || ctx.req.outstanding_psns() == 0)
    return;
  ctx.req.retransmit_deadline = now() + ctx.req.ack_timeout;
  const qp::Qpn qpn = ctx.qpn;
  q.retransmit_timer = a.events_.schedule_at(ctx.req.retransmit_deadline, [this, qpn] {
    Qp* timed_out = find_qp(qpn);
    if (timed_out == nullptr) return;
    timed_out->retransmit_timer = 0;
    on_retransmit_timeout(*timed_out);
  });
}

bool Adapter::Impl::consume_retry(Qp& q, trace::RetryKind kind, qp::Psn from) {
  qp::QpContext& ctx = q.ctx;
  const bool rnr = kind == trace::RetryKind::RNR_NAK;
  std::uint8_t& left = rnr ? ctx.req.rnr_retry : ctx.req.retry_cnt;
  if (left == 0) {
    // Exhausted: the oldest outstanding WQE fails and the QP moves to ERR (IBTA Vol. 1 §9.7.6.1.3,
    // C9-140, §9.7.5.2.8; docs/spec-notes.md §5.2, §5.4).
    cancel_retransmit(q);
    const auto cls =
        rnr ? errors::ErrorClass::REQ_RNR_RETRY_EXCEEDED : errors::ErrorClass::REQ_RETRY_EXCEEDED;
    for (SendWqe& w : q.sq) {
      if (w.done || !w.started) continue;
      fail_wqe(q, w, cls);
      return false;
    }
    enter_error(q, cls);
    return false;
  }
  // 7 means "infinite" for rnr_retry everywhere and for retry_cnt in rxe (docs/spec-notes.md
  // §11.2).
  const bool infinite = left == 7 && (rnr || a.config_.profile.retry_cnt_7_is_infinite);
  if (!infinite) --left;
  a.observer_.on_retry({now(), a.id_, ctx.qpn.value(), kind, from.value(), left});
  return true;
}

void Adapter::Impl::go_back_n(Qp& q, qp::Psn from) {
  qp::QpContext& ctx = q.ctx;
  // Every started WQE from `from` on is sent again: the one holding `from` resumes at that
  // packet (its FIRST if from is its first PSN), a READ is re-issued for its remaining data,
  // later WQEs start over (docs/spec-notes.md §5.3; rxe req_retry).
  // A READ or atomic before `from` that still waits for its response must be asked again: the
  // responder's PSN (a sequence NAK's) can be past it when only its response was lost, and an
  // implicit ACK never completes it (docs/spec-notes.md §3.4).
  for (const SendWqe& w : q.sq) {
    if (w.done || !w.started || !(w.is_read_or_atomic() || w.wr.opcode == tx::WrOpcode::FLUSH))
      continue;
    if (qp::psn_before(w.first_psn, from)) {
      const std::int32_t got = w.wr.opcode == tx::WrOpcode::RDMA_READ
                                   ? static_cast<std::int32_t>(w.read_received / ctx.mtu)
                                   : 0;
      const qp::Psn resume = w.first_psn + static_cast<std::uint32_t>(got);
      if (qp::psn_before(resume, from)) from = resume;
    }
    break;  // only the oldest outstanding one can be behind (later ones follow it)
  }
  for (SendWqe& w : q.sq) {
    if (w.done || !w.started || w.plan.packets.empty()) continue;
    if (qp::psn_diff(w.last_psn, from) < 0)
      continue;  // wholly before `from`: awaiting its ACK only
    const std::int32_t into = qp::psn_diff(from, w.first_psn);
    if (into <= 0) {
      w.next_pkt = 0;
      w.read_resume = 0;
    } else if (w.wr.opcode == tx::WrOpcode::RDMA_READ) {
      w.next_pkt = 0;
      w.read_resume = static_cast<std::uint32_t>(into);
    } else {
      w.next_pkt = static_cast<std::size_t>(into);
    }
  }
  ctx.req.comp_psn = from;
  ctx.req.started_retry = true;
  schedule_requester(q);
}

void Adapter::Impl::retry_from(Qp& q, trace::RetryKind kind, qp::Psn from) {
  if (q.ctx.req.started_retry && !q.timeout_retry) return;
  if (!consume_retry(q, kind, from)) return;
  q.timeout_retry = false;
  go_back_n(q, from);
  arm_retransmit(q);
}

void Adapter::Impl::on_retransmit_timeout(Qp& q) {
  const qp::QpContext& ctx = q.ctx;
  if (!qp::state_rules(ctx.state()).processes_responses) return;
  if (ctx.req.outstanding_psns() == 0) return;
  if (ctx.req.wait_for_rnr_timer) return;  // the RNR wait takes precedence (rxe)
  if (!consume_retry(q, trace::RetryKind::TIMEOUT, ctx.req.comp_psn)) return;
  go_back_n(q, ctx.req.comp_psn);
  q.timeout_retry = true;
  arm_retransmit(q);
}

void Adapter::Impl::on_rnr_nak(Qp& q, qp::Psn psn, std::uint8_t timer_code) {
  qp::QpContext& ctx = q.ctx;
  if (!consume_retry(q, trace::RetryKind::RNR_NAK, psn)) return;
  // Wait for the delay the NAK's 5-bit code names (not our own min_rnr_timer), then go back
  // to the NAKed PSN (IBTA Vol. 1 §9.7.5.2.8; docs/spec-notes.md §5.4). The retransmit timer is off
  // meanwhile.
  cancel_retransmit(q);
  ctx.req.comp_psn = psn;
  ctx.req.wait_for_rnr_timer = true;
  sim::SimTime delay = qp::rnr_timer_ns(timer_code, a.config_.qp.profile.rxe_rnr_code25_typo);
  if (const sim::SimTime jiffy = a.config_.profile.rnr_timer_jiffy_ns; jiffy != 0)
    delay = ((delay + jiffy - 1) / jiffy + 1) * jiffy;
  ctx.req.rnr_deadline = now() + delay;
  if (q.rnr_timer != 0) a.events_.cancel(q.rnr_timer);
  const qp::Qpn qpn = ctx.qpn;
  q.rnr_timer = a.events_.schedule_at(ctx.req.rnr_deadline, [this, qpn, psn] {
    Qp* waited = find_qp(qpn);
    if (waited == nullptr) return;
    waited->rnr_timer = 0;
    qp::QpContext* c = &waited->ctx;
    if (!c->req.wait_for_rnr_timer) return;
    c->req.wait_for_rnr_timer = false;
    c->req.rnr_deadline = qp::kNoDeadline;
    if (!qp::state_rules(c->state()).processes_responses) return;
    // ACKs that came during the wait may have acknowledged the NAKed PSN and more (the RNR NAK
    // was overtaken, or the responder got a copy in time): going back behind comp.psn would
    // leave PSNs outstanding that no WQE resends, and the ACK timer would retry them forever.
    const qp::Psn from = qp::psn_before(psn, c->req.comp_psn) ? c->req.comp_psn : psn;
    go_back_n(*waited, from);
    arm_retransmit(*waited);
  });
}

}  // namespace rocecert::model
