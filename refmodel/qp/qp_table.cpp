// The QP table (docs/spec-notes.md §6, §12): create/destroy/query/modify with all-or-nothing
// modify.
#include "rocecert/qp/qp_table.h"

#include <algorithm>

#include "rocecert/qp/timers.h"

namespace rocecert::qp {

namespace {

// The stored value of max_rd_atomic / max_dest_rd_atomic (IBTA Vol. 1 §9.7.6.1.3, C9-140;
// docs/spec-notes.md §5.1, §11.14). The rounding stays within 8 bits: the largest power of two that
// fits is 128, rxe's device limit.
std::uint8_t rd_atomic_value(std::uint8_t requested, const QpProfile& profile) {
  if (!profile.round_rd_atomic_pow2) return requested;
  return static_cast<std::uint8_t>(std::min<std::uint32_t>(round_up_pow2(requested), 0x80));
}

// Store the attributes named by `mask` and update the values derived from them. Only called
// after every check has passed.
void apply_attrs(QpContext& ctx, const QpAttr& a, AttrMask mask, const QpProfile& profile) {
  QpAttr& cur = ctx.attr;
  if (mask.has(AttrBit::EN_SQD_ASYNC_NOTIFY)) cur.en_sqd_async_notify = a.en_sqd_async_notify;
  if (mask.has(AttrBit::ACCESS_FLAGS)) cur.qp_access_flags = a.qp_access_flags;
  if (mask.has(AttrBit::PKEY_INDEX)) cur.pkey_index = a.pkey_index;
  if (mask.has(AttrBit::PORT)) cur.port_num = a.port_num;
  if (mask.has(AttrBit::QKEY)) cur.qkey = a.qkey;
  if (mask.has(AttrBit::AV)) cur.ah_attr = a.ah_attr;
  if (mask.has(AttrBit::PATH_MTU)) {
    cur.path_mtu = a.path_mtu;
    ctx.mtu = mtu_bytes(a.path_mtu);
  }
  if (mask.has(AttrBit::TIMEOUT)) {
    cur.timeout = a.timeout;
    ctx.req.ack_timeout = local_ack_timeout_ns(a.timeout);  // IBTA Vol. 1 §9.7.6.1.3, C9-140;
                                                            // docs/spec-notes.md §5.1
  }
  // Setting a retry count also reloads the live counter (rxe_qp_from_attr).
  if (mask.has(AttrBit::RETRY_CNT)) {
    cur.retry_cnt = a.retry_cnt;
    ctx.req.retry_cnt = a.retry_cnt;
  }
  if (mask.has(AttrBit::RNR_RETRY)) {
    cur.rnr_retry = a.rnr_retry;
    ctx.req.rnr_retry = a.rnr_retry;
  }
  // RQ_PSN is legal only at INIT -> RTR (§6.2): it sets the expected PSN (docs/spec-notes.md §3.3).
  if (mask.has(AttrBit::RQ_PSN)) {
    cur.rq_psn = a.rq_psn & Psn::kMask;
    ctx.resp.epsn = Psn(cur.rq_psn);
    ctx.resp.ack_psn = ctx.resp.epsn;
  }
  if (mask.has(AttrBit::MAX_QP_RD_ATOMIC)) {
    cur.max_rd_atomic = rd_atomic_value(a.max_rd_atomic, profile);
    ctx.req.rd_atomic_credits = cur.max_rd_atomic;  // docs/spec-notes.md §3.2
  }
  if (mask.has(AttrBit::MIN_RNR_TIMER)) cur.min_rnr_timer = a.min_rnr_timer;
  // SQ_PSN is legal only at RTR -> RTS (§6.2): it sets the next PSN and comp.psn
  // (docs/spec-notes.md §3.2).
  if (mask.has(AttrBit::SQ_PSN)) {
    cur.sq_psn = a.sq_psn & Psn::kMask;
    ctx.req.next_psn = Psn(cur.sq_psn);
    ctx.req.comp_psn = Psn(cur.sq_psn);
  }
  // A new responder resource count reallocates the ring (rxe frees and reallocates it).
  if (mask.has(AttrBit::MAX_DEST_RD_ATOMIC)) {
    cur.max_dest_rd_atomic = rd_atomic_value(a.max_dest_rd_atomic, profile);
    ctx.resp.res_ring_size = cur.max_dest_rd_atomic;
    ctx.resp.res_head = 0;
    ctx.resp.resources.assign(ctx.resp.res_ring_size, ResponderResource{});
  }
  if (mask.has(AttrBit::PATH_MIG_STATE)) cur.path_mig_state = a.path_mig_state;
  if (mask.has(AttrBit::DEST_QPN)) cur.dest_qp_num = a.dest_qp_num;
  if (mask.has(AttrBit::RATE_LIMIT)) cur.rate_limit = a.rate_limit;
  // ALT_PATH is refused on RoCE and CAP is never legal for RC/UC/UD: nothing to store.
}

// Effects of moving from `from` to `to` (STATE was in the mask, or an internal transition).
void apply_state(QpContext& ctx, QpState from, QpState to) {
  ctx.attr.qp_state = to;
  ctx.attr.cur_qp_state = to;
  switch (to) {
    case QpState::RESET:
      reset_runtime_state(ctx);  // docs/spec-notes.md §6.4
      break;
    case QpState::SQD:
      // RTS -> SQD starts the drain; SQD -> SQD (attribute change) does not restart it.
      if (from != QpState::SQD) ctx.attr.sq_draining = true;
      break;
    case QpState::ERR:
      enter_error_state(ctx);  // docs/spec-notes.md §6.5; the flush is the caller's
      break;
    case QpState::SQE:
      // A UC/UD send-side error: the send queue is flushed, the receive side keeps working.
      ctx.attr.sq_draining = false;
      ctx.flush_pending = true;
      break;
    case QpState::INIT:
    case QpState::RTR:
    case QpState::RTS:
      ctx.attr.sq_draining = false;
      break;
  }
}

}  // namespace

QpTable::QpTable(QpTableConfig config) : config_(config), next_qpn_(config.qpn.first) {}

std::optional<std::uint32_t> QpTable::allocate_qpn_() {
  const std::uint32_t first = std::max<std::uint32_t>(config_.qpn.first, 2);
  const std::uint32_t last = std::min<std::uint32_t>(config_.qpn.last, Qpn::kMulticast - 1);
  if (first > last) return std::nullopt;
  const std::uint32_t span = last - first + 1;
  std::uint32_t start = first;
  if (config_.qpn.policy == QpnPolicy::CYCLIC && next_qpn_ >= first && next_qpn_ <= last) {
    start = next_qpn_;
  }
  for (std::uint32_t i = 0; i < span; ++i) {
    const std::uint32_t candidate = first + (start - first + i) % span;
    if (qps_.find(candidate) == qps_.end()) {
      next_qpn_ = candidate == last ? first : candidate + 1;
      return candidate;
    }
  }
  return std::nullopt;
}

CreateResult QpTable::create_qp(const CreateQpParams& params) {
  const ModifyCheck caps = validate_caps(params.caps, params.srq.has_value(), config_.device);
  if (!caps.ok()) return CreateResult{caps.error, Qpn{}};
  const std::optional<std::uint32_t> qpn = allocate_qpn_();
  if (!qpn) return CreateResult{ModifyError::QPN_EXHAUSTED, Qpn{}};

  QpContext ctx;
  ctx.qpn = Qpn(*qpn);
  ctx.type = params.type;
  ctx.pd = params.pd;
  ctx.send_cq = params.send_cq;
  ctx.recv_cq = params.recv_cq;
  ctx.has_srq = params.srq.has_value();
  ctx.srq = params.srq.value_or(SrqId{});
  ctx.caps = params.caps;
  ctx.sq_sig_all = params.sq_sig_all;
  ctx.attr.cap = params.caps;
  ctx.mtu = mtu_bytes(ctx.attr.path_mtu);
  ctx.req.max_unacked_psns = config_.device.max_unacked_psns;
  qps_.emplace(*qpn, std::move(ctx));
  return CreateResult{ModifyError::OK, Qpn(*qpn)};
}

ModifyError QpTable::destroy_qp(Qpn qpn) {
  return qps_.erase(qpn.value()) == 1 ? ModifyError::OK : ModifyError::QP_NOT_FOUND;
}

const QpContext* QpTable::find(Qpn qpn) const {
  const auto it = qps_.find(qpn.value());
  return it == qps_.end() ? nullptr : &it->second;
}

QpContext* QpTable::find(Qpn qpn) {
  const auto it = qps_.find(qpn.value());
  return it == qps_.end() ? nullptr : &it->second;
}

ModifyResult QpTable::modify_qp(Qpn qpn, const QpAttr& attr, AttrMask mask) {
  QpContext* ctx = find(qpn);
  if (ctx == nullptr) return ModifyResult{{ModifyError::QP_NOT_FOUND, {}, QpState::RESET}, {}};
  return modify_qp(*ctx, attr, mask);
}

ModifyResult QpTable::modify_qp(QpContext& context, const QpAttr& attr, AttrMask mask) {
  QpContext* ctx = &context;
  const Qpn qpn = ctx->qpn;
  const QpState from = ctx->state();

  // Everything is checked before anything is written (docs/spec-notes.md §6.2 rule 6).
  const ModifyCheck check = check_modify(ctx->type, from, mask, attr.qp_state, attr.cur_qp_state,
                                         config_.profile, ctx->attr.sq_draining);
  if (!check.ok()) return ModifyResult{check, {}};
  ModifyCheck values = validate_attr_values(ctx->type, attr, mask, config_.device, config_.profile);
  if (!values.ok()) {
    values.next = from;
    return ModifyResult{values, {}};
  }

  apply_attrs(*ctx, attr, mask, config_.profile);
  ModifyResult result{check, {}};
  if (mask.has(AttrBit::STATE)) {
    apply_state(*ctx, from, check.next);
    result.transition = QpTransition{qpn, from, check.next, check.next == QpState::ERR};
  }
  return result;
}

std::optional<QpAttr> QpTable::query_qp(Qpn qpn) const {
  const QpContext* ctx = find(qpn);
  if (ctx == nullptr) return std::nullopt;
  QpAttr out = ctx->attr;
  out.cur_qp_state = ctx->state();
  out.sq_psn = ctx->req.next_psn.value();
  out.rq_psn = ctx->resp.epsn.value();
  out.cap = ctx->caps;
  return out;
}

std::optional<QpTransition> QpTable::enter_error(Qpn qpn) {
  QpContext* ctx = find(qpn);
  if (ctx == nullptr) return std::nullopt;
  return enter_error(*ctx);
}

std::optional<QpTransition> QpTable::enter_error(QpContext& ctx) {
  const QpState from = ctx.state();
  if (from == QpState::RESET || from == QpState::ERR) return std::nullopt;
  apply_state(ctx, from, QpState::ERR);
  return QpTransition{ctx.qpn, from, QpState::ERR, true};
}

std::optional<QpTransition> QpTable::enter_sq_error(Qpn qpn) {
  QpContext* ctx = find(qpn);
  if (ctx == nullptr) return std::nullopt;
  return enter_sq_error(*ctx);
}

std::optional<QpTransition> QpTable::enter_sq_error(QpContext& ctx) {
  if (ctx.type == QpType::RC || ctx.state() != QpState::RTS) return std::nullopt;
  apply_state(ctx, QpState::RTS, QpState::SQE);
  return QpTransition{ctx.qpn, QpState::RTS, QpState::SQE, true};
}

SqDrained QpTable::mark_sq_drained(Qpn qpn) {
  QpContext* ctx = find(qpn);
  if (ctx == nullptr) return SqDrained{};
  return mark_sq_drained(*ctx);
}

SqDrained QpTable::mark_sq_drained(QpContext& ctx) {
  if (ctx.state() != QpState::SQD || !ctx.attr.sq_draining) return SqDrained{};
  ctx.attr.sq_draining = false;
  return SqDrained{true, ctx.attr.en_sqd_async_notify};
}

}  // namespace rocecert::qp
