// RESET and ERR effects on the QP context (docs/spec-notes.md §6.4, §6.5).
#include "rocecert/qp/context.h"

#include <utility>

namespace rocecert::qp {

void reset_runtime_state(QpContext& ctx) {
  // docs/spec-notes.md §6.4 (rxe_qp_reset): req.opcode, resp.opcode, MSN, drop-message flag,
  // sent-NAK flag, retry flags and ACK counters back to their initial values; responder resources
  // freed. The window bound is configuration, kept; the PSNs stay until RTR/RTS set them again.
  RequesterState req;
  req.max_unacked_psns = ctx.req.max_unacked_psns;
  req.next_psn = ctx.req.next_psn;
  req.comp_psn = ctx.req.comp_psn;
  req.ack_timeout = ctx.req.ack_timeout;  // derived from attr.timeout, which RESET keeps
  req.retry_cnt = ctx.attr.retry_cnt;     // counters at their configured reload values
  req.rnr_retry = ctx.attr.rnr_retry;
  req.rd_atomic_credits = ctx.attr.max_rd_atomic;
  ctx.req = req;

  ResponderState resp;
  resp.epsn = ctx.resp.epsn;
  resp.ack_psn = ctx.resp.ack_psn;
  resp.res_ring_size = ctx.resp.res_ring_size;
  resp.resources.assign(resp.res_ring_size, ResponderResource{});
  ctx.resp = std::move(resp);

  ctx.attr.sq_draining = false;
  ctx.flush_pending = false;  // RESET discards the queues without completions (§6.4)
}

void enter_error_state(QpContext& ctx) {
  // docs/spec-notes.md §6.5 step 4: timers are cancelled; responder resources are no longer served.
  // Queued and in-flight work is flushed by the owners of the queues (flush_pending).
  ctx.req.retransmit_deadline = kNoDeadline;
  ctx.req.rnr_deadline = kNoDeadline;
  ctx.req.wait_for_rnr_timer = false;
  ctx.req.need_retry = false;
  ctx.req.started_retry = false;
  ctx.attr.sq_draining = false;  // a drain in progress is abandoned (SQD -> ERR)
  ctx.flush_pending = true;
}

}  // namespace rocecert::qp
