// The completer (IBA §9.7.5.1-§9.7.5.2; rxe_comp.c): responses are matched to send WQEs by PSN.
// An ACK with PSN p completes every SEND/WRITE WQE whose last PSN is not after p (coalesced
// ACKs, docs/spec-notes.md §3.4); READ and atomic WQEs complete only with their own responses,
// whose data are scattered into the WQE's local buffers. NAKs complete the WQE they name with the
// error of docs/spec-notes.md §4.3 and move the QP to ERR. Completions are generated in send-queue
// order.
#include <algorithm>

#include "adapter_impl.h"

namespace rocecert::model {

namespace {

using wire::Operation;

bool not_after(qp::Psn a, qp::Psn b) {
  return qp::psn_diff(a, b) <= 0;
}

}  // namespace

void Adapter::Impl::handle_response(Qp& q, const wire::ParsedFrame& p) {
  qp::QpContext& ctx = q.ctx;
  const qp::Psn psn(p.bth.psn);
  const wire::OpcodeInfo& op = *p.op;
  auto drop = [&](std::string_view why) {
    a.observer_.on_drop({now(), a.id_, why, p.bytes, &p, {}});
  };
  bool progress = false;
  // A response for a PSN this requester has not sent (a stray or forged frame): rxe's check_psn
  // drops it (drivers/infiniband/sw/rxe/rxe_comp.c; IBA Vol. 1 §9.7.5.1.3: a response outside
  // the outstanding window is not acted upon). Taken, an ACK would move comp.psn past next_psn.
  if (!qp::psn_before(psn, ctx.req.next_psn)) return drop("psn_not_sent");

  // Complete, in order, the SEND/WRITE WQEs covered by PSN `upto` (implicit ACK). Stops at the
  // first WQE that is not covered or that only its own response can complete; returns that
  // WQE when `upto` is past its last PSN: its response was lost (implied NAK, docs/spec-notes.md
  // §3.4).
  auto retire_covered = [&](qp::Psn upto) -> SendWqe* {
    for (SendWqe& w : q.sq) {
      if (w.done) continue;
      if (!w.started || !not_after(w.last_psn, upto)) return nullptr;
      if (w.is_read_or_atomic() || w.wr.opcode == tx::WrOpcode::FLUSH) return &w;
      complete_send(q, w, cq::WcStatus::SUCCESS);
      progress = true;
    }
    return nullptr;
  };
  auto find_wqe = [&](qp::Psn at) -> SendWqe* {
    for (SendWqe& w : q.sq) {
      if (w.done || !w.started) continue;
      if (qp::psn_diff(at, w.first_psn) >= 0 && not_after(at, w.last_psn)) return &w;
    }
    return nullptr;
  };
  auto advance_comp = [&](qp::Psn next) {
    if (qp::psn_after(next, ctx.req.comp_psn)) ctx.req.comp_psn = next;
  };
  // An implied NAK counts as a retry and goes back to the oldest unacknowledged PSN (rxe).
  auto implied_nak = [&](SendWqe* w) {
    if (w == nullptr) return false;
    retry_from(q, trace::RetryKind::IMPLIED_NAK, ctx.req.comp_psn);
    return true;
  };

  if (op.operation == Operation::ACK && wire::aeth_kind(p.aeth.syndrome) == wire::AethKind::ACK) {
    SendWqe* blocked = retire_covered(psn);
    if (blocked == nullptr) advance_comp(psn + 1u);
    if (implied_nak(blocked)) return;
  } else if (op.operation == Operation::ACK) {
    const wire::AethKind kind = wire::aeth_kind(p.aeth.syndrome);
    // A NAK for a PSN already acknowledged is a stale copy (delayed or duplicated on the way):
    // rxe ignores a response before comp.psn (drivers/infiniband/sw/rxe/rxe_comp.c, check_psn;
    // docs/spec-notes.md §5.3). Taken, it would send the requester back to a PSN with nothing to
    // resend and keep its timer running.
    if (qp::psn_before(psn, ctx.req.comp_psn)) return drop("stale_nak");
    // A NAK implicitly acknowledges everything before its PSN (docs/spec-notes.md §3.4).
    retire_covered(psn - 1u);
    const bool fatal_nak = kind == wire::AethKind::NAK &&
                           wire::nak_code(p.aeth.syndrome) != wire::NakCode::PSN_SEQUENCE_ERROR;
    if (fatal_nak) {
      SendWqe* w = find_wqe(psn);
      if (w == nullptr) return drop("nak_for_no_wqe");
      // The NAK's code selects the error class and so the WQE's status (docs/spec-notes.md §4.3).
      const auto cls = errors::error_for_syndrome(p.aeth.syndrome)
                           .value_or(errors::ErrorClass::REQ_RESERVED_NAK);
      fail_wqe(q, *w, cls);
      return;
    }
    if (kind == wire::AethKind::RNR_NAK) {
      on_rnr_nak(q, psn, wire::aeth_value(p.aeth.syndrome));
      return;
    }
    if (kind == wire::AethKind::NAK) {
      // PSN sequence error: go back to the PSN the responder expects (docs/spec-notes.md §4.3,
      // §5.3).
      retry_from(q, trace::RetryKind::SEQUENCE_NAK, psn);
      return;
    }
    // A reserved syndrome type (docs/spec-notes.md §4.1): a bad response.
    if (SendWqe* w = find_wqe(psn)) fail_wqe(q, *w, errors::ErrorClass::REQ_BAD_RESPONSE);
    return;
  } else if (op.operation == Operation::READ_RESPONSE || op.operation == Operation::ATOMIC_ACK) {
    SendWqe* w = find_wqe(psn);
    if (w == nullptr) return drop("stale_response");
    const bool atomic_ack = op.operation == Operation::ATOMIC_ACK;
    const bool read = w->wr.opcode == tx::WrOpcode::RDMA_READ;
    const bool zero_len_reply =
        w->wr.opcode == tx::WrOpcode::ATOMIC_WRITE || w->wr.opcode == tx::WrOpcode::FLUSH;
    const bool atomic = w->wr.opcode == tx::WrOpcode::ATOMIC_CMP_AND_SWP ||
                        w->wr.opcode == tx::WrOpcode::ATOMIC_FETCH_AND_ADD;
    if ((atomic_ack && !atomic) || (!atomic_ack && !read && !zero_len_reply)) {
      // A response of the wrong kind for the WQE (docs/spec-notes.md §4.3: BAD_RESP_ERR is the
      // generic status; rxe uses FATAL_ERR for a READ response to a non-READ WQE).
      fail_wqe(q, *w, errors::ErrorClass::REQ_BAD_RESPONSE);
      return;
    }
    // The response acknowledges the WQEs before this one; an earlier READ/atomic still
    // waiting for its own response means that response was lost.
    if (implied_nak(retire_covered(w->first_psn - 1u))) return;
    advance_comp(w->first_psn);
    // Responses come in PSN order: one ahead of the expected PSN means the ones between were
    // lost, one behind is a duplicate (rxe check_psn; docs/spec-notes.md §3.4, §5.3).
    if (qp::psn_before(psn, ctx.req.comp_psn)) return drop("duplicate_response");
    if (qp::psn_after(psn, ctx.req.comp_psn)) {
      retry_from(q, trace::RetryKind::IMPLIED_NAK, ctx.req.comp_psn);
      return;
    }
    if (atomic_ack) {
      std::array<std::uint8_t, 8> orig{};
      for (std::size_t i = 0; i < 8; ++i)
        orig[i] = static_cast<std::uint8_t>(p.atomicacketh.orig >> (8 * i));  // host order, LE
      copy_in(w->sges, 0, orig);
      complete_send(q, *w, cq::WcStatus::SUCCESS);
    } else if (read) {
      const std::uint64_t offset =
          static_cast<std::uint64_t>(qp::psn_diff(psn, w->first_psn)) * ctx.mtu;
      if (!copy_in(w->sges, offset, p.payload())) {
        fail_wqe(q, *w, errors::ErrorClass::REQ_LOCAL_LENGTH);
        return;
      }
      w->read_received += p.payload_len;
      if (op.ends_message()) complete_send(q, *w, cq::WcStatus::SUCCESS);
    } else {
      complete_send(q, *w, cq::WcStatus::SUCCESS);
    }
    progress = true;
    advance_comp(psn + 1u);
  } else {
    return drop("unexpected_response");
  }

  if (progress) {
    // Forward progress reloads the retry counters (IBTA Vol. 1 §9.7.6.1.3, C9-140;
    // docs/spec-notes.md §5.2).
    ctx.req.retry_cnt = ctx.attr.retry_cnt;
    ctx.req.rnr_retry = ctx.attr.rnr_retry;
    ctx.req.started_retry = false;
    q.timeout_retry = false;
  }
  while (!q.sq.empty() && q.sq.front().done) q.sq.pop_front();
  // The timer is re-armed after a response while requests remain outstanding (rxe).
  arm_retransmit(q);
  const bool idle = ctx.req.outstanding_psns() == 0;
  if (idle && ctx.state() == qp::QpState::SQD) {
    const qp::SqDrained d = a.qps_.mark_sq_drained(ctx);
    if (d.notify) {
      a.observer_.on_async_event(
          {now(), a.id_, errors::AsyncEventType::SQ_DRAINED, ctx.qpn.value()});
    }
  }
  schedule_requester(q);
}

}  // namespace rocecert::model
