// The requester (IBA §9.7.2-§9.7.4; rxe_req.c): takes WQEs in order, starts each when the
// fence, the rd_atomic credits and the PSN window allow (docs/spec-notes.md §3.2), asks the
// segmenter for its packets and sends them. UC and UD WQEs complete once their last packet is out
// (§5.6).
#include <algorithm>

#include "adapter_impl.h"

namespace rocecert::model {

namespace {

bool reliable(const qp::QpContext& ctx) {
  return ctx.type == qp::QpType::RC;
}

// The outstanding window (docs/spec-notes.md §3.2): rxe_requester holds a packet while its PSN
// (req.psn, the packet about to go, not the last PSN its message reserved) is past comp.psn +
// RXE_MAX_UNACKED_PSNS; a packet exactly that far ahead still goes. Both points were found by
// the lockstep replay of rc_write_bw_10000_mtu1024_loss5 (tests/model_vs_rxe_loss_test.cpp).
bool window_full(const qp::QpContext& ctx, qp::Psn psn) {
  return reliable(ctx) &&
         qp::psn_diff(psn, ctx.req.comp_psn) > static_cast<std::int32_t>(ctx.req.max_unacked_psns);
}

}  // namespace

void Adapter::Impl::schedule_requester(Qp& q) {
  schedule_requester_at(q, now());
}

void Adapter::Impl::schedule_requester_at(Qp& q, sim::SimTime at) {
  if (q.requester_scheduled) return;
  q.requester_scheduled = true;
  const qp::Qpn qpn = q.ctx.qpn;
  a.events_.schedule_at(at, [this, qpn] {
    if (Qp* found = find_qp(qpn)) run_requester(*found);
  });
}

void Adapter::set_tx_pacer(TxPacer* pacer) {
  impl_->pacer = pacer;
}

void Adapter::kick_requester(qp::Qpn qpn) {
  if (Qp* q = impl_->find_qp(qpn)) impl_->schedule_requester(*q);
}

void Adapter::Impl::run_requester(Qp& q) {
  q.requester_scheduled = false;
  qp::QpContext* ctx = &q.ctx;
  const qp::Qpn qpn = ctx->qpn;
  if (!qp::state_rules(ctx->state()).sq_processes) return;
  if (ctx->req.wait_for_rnr_timer) return;  // nothing goes out before the RNR delay (§5.4)
  for (std::size_t i = 0; i < q.sq.size(); ++i) {
    SendWqe& w = q.sq[i];
    if (w.done || w.fully_sent()) continue;
    if (!w.started) {
      // SQD and SQE start no new WQE (docs/spec-notes.md §6.6); in-flight messages finish.
      if (!qp::state_rules(ctx->state()).sq_starts_wqe) break;
      if (window_full(*ctx, ctx->req.next_psn)) break;
      if (!start_wqe(q, w)) break;
      if (ctx->state() == qp::QpState::ERR || ctx->state() == qp::QpState::SQE) return;
      if (w.done) continue;
    }
    while (!w.fully_sent()) {
      const tx::Segment seg = w.plan.packets[w.next_pkt];
      if (window_full(*ctx, qp::Psn(seg.psn))) break;
      // A go-back-N resend passes over packets an ACK acknowledged since the retry began (a
      // coalesced ACK can land mid-message); rxe's req_retry likewise resumes at comp.psn. A
      // READ skips through read_resume instead, and the last packet is never skipped: an ACK
      // covering it would have completed the WQE.
      if (reliable(*ctx) && !w.is_read_or_atomic() && w.next_pkt + 1 < w.plan.packets.size() &&
          qp::psn_before(qp::Psn(seg.psn), ctx->req.comp_psn)) {
        ++w.next_pkt;
        continue;
      }
      sim::SimTime at = now();
      if (a.config_.profile.dcqcn) at = std::max(at, rate_controller(q).earliest_send(now()));
      if (pacer != nullptr) at = std::max(at, pacer->earliest_send(qpn.value(), now(), seg.length));
      if (at > now()) {
        if (at != sim::kNever) schedule_requester_at(q, at);
        return;
      }
      ++w.next_pkt;
      const std::size_t bytes = send_packet(q, w, seg);
      if (a.config_.profile.dcqcn)
        rate_controller(q).sent(now(), static_cast<std::uint32_t>(bytes));
      if (pacer != nullptr) pacer->sent(qpn.value(), now(), seg.length);
    }
    if (!w.fully_sent()) break;
    if (!reliable(*ctx)) complete_send(q, w, cq::WcStatus::SUCCESS);
  }
  while (!q.sq.empty() && q.sq.front().done) q.sq.pop_front();
  // SQD: drained once nothing started is left unfinished or unacknowledged (rxe's requester
  // checks this each time it runs; an RC QP is usually marked by the completer, on the last ACK).
  if (ctx->state() == qp::QpState::SQD && (!reliable(*ctx) || ctx->req.outstanding_psns() == 0)) {
    bool in_progress = false;
    for (const SendWqe& w : q.sq) in_progress = in_progress || (w.started && !w.done);
    if (!in_progress) {
      const qp::SqDrained d = a.qps_.mark_sq_drained(*ctx);
      if (d.notify)
        a.observer_.on_async_event({now(), a.id_, errors::AsyncEventType::SQ_DRAINED, qpn.value()});
    }
  }
}

bool Adapter::Impl::start_wqe(Qp& q, SendWqe& w) {
  qp::QpContext& ctx = q.ctx;
  const tx::WrOpcode op = w.wr.opcode;
  auto earlier_pending = [&](bool only_read_atomic) {
    for (const SendWqe& e : q.sq) {
      if (&e == &w) break;
      if (!e.done && (!only_read_atomic || e.is_read_or_atomic())) return true;
    }
    return false;
  };
  // IBV_SEND_FENCE: wait for earlier READ/atomic WQEs (docs/spec-notes.md §3.2). LOCAL_INV waits
  // for every earlier WQE (rxe: "local invalidate fence", IBA 10.6.5.1).
  if ((w.wr.send_flags & tx::kSendFence) && earlier_pending(true)) return false;
  if (op == tx::WrOpcode::LOCAL_INV || op == tx::WrOpcode::BIND_MW) {
    if (op == tx::WrOpcode::LOCAL_INV && earlier_pending(false)) return false;
    w.started = true;
    if (op == tx::WrOpcode::LOCAL_INV) {
      const mem::MemErrc e = a.mem_.invalidate(qp_ref(ctx), mem::Key(w.wr.invalidate_rkey));
      if (e == mem::MemErrc::OK) {
        complete_send(q, w, cq::WcStatus::SUCCESS);
      } else {
        fail_wqe(q, w, errors::ErrorClass::REQ_LOCAL_QP_OPERATION);
      }
    } else {
      mem::BindMwWr bind;
      bind.mw_rkey = mem::Key(w.wr.bind_mw_handle);
      bind.new_rkey = mem::Key(w.wr.rkey);
      bind.mr_lkey = mem::Key(w.wr.bind_mr_lkey);
      bind.addr = w.wr.bind_addr;
      bind.length = w.wr.bind_length;
      bind.access = mem::access_from_u32(w.wr.bind_access);
      const auto r = a.mem_.bind_mw(qp_ref(ctx), bind);
      if (r.ok()) {
        complete_send(q, w, cq::WcStatus::SUCCESS);
      } else {
        fail_wqe(q, w, errors::ErrorClass::REQ_MW_BIND);
      }
    }
    return true;
  }
  // A UD WR needs an address vector: rxe_requester's rxe_get_av fails the WQE with
  // LOC_QP_OP_ERR ("no address vector") before it builds the packet (errors table
  // REQ_LOCAL_QP_OPERATION: rxe ERR, IBA SQE).
  if (ctx.type == qp::QpType::UD && ahs.find(w.wr.ah) == ahs.end()) {
    w.started = true;
    fail_wqe(q, w, errors::ErrorClass::REQ_LOCAL_QP_OPERATION);
    return true;
  }
  if (w.is_read_or_atomic()) {
    if (ctx.req.rd_atomic_credits == 0)
      return false;  // max_rd_atomic in flight (docs/spec-notes.md §3.2)
    --ctx.req.rd_atomic_credits;
    w.holds_credit = true;
  }
  // Resolve the local buffers once: gather for what is sent, scatter (LOCAL_WRITE) for the
  // READ data and the atomic result (IBTA Vol. 1 §10.6; docs/spec-notes.md §7.3).
  if (!(w.wr.send_flags & tx::kSendInline)) {
    const bool scatter = op == tx::WrOpcode::RDMA_READ || op == tx::WrOpcode::ATOMIC_CMP_AND_SWP ||
                         op == tx::WrOpcode::ATOMIC_FETCH_AND_ADD;
    mem::AccessResult failure;
    std::uint32_t bad_key = 0;
    if (!resolve_sges(ctx, w.wr.sg_list, scatter ? mem::MemOp::LOCAL_WRITE : mem::MemOp::LOCAL_READ,
                      w.sges, failure, bad_key)) {
      // A local SGE that fails its check: LOC_PROT_ERR by the IB convention, LOC_QP_OP_ERR in
      // rxe (docs/spec-notes.md §5.5, §11.20); the errors table holds both.
      w.started = true;
      fail_wqe(q, w,
               scatter ? errors::ErrorClass::REQ_LOCAL_SCATTER_PROTECTION
                       : errors::ErrorClass::REQ_LOCAL_PROTECTION);
      return true;
    }
  }
  tx::SegmentRequest sr;
  sr.transport = transport_of(ctx.type);
  sr.opcode = op;
  sr.length = w.length;
  sr.mtu = ctx.type == qp::QpType::UD ? a.config_.port_mtu : ctx.mtu;
  sr.solicited = (w.wr.send_flags & tx::kSendSolicited) != 0;
  sr.first_psn = ctx.req.next_psn.value();
  sr.packets_since_ackreq = ctx.req.noack_pkts;
  sr.ackreq = a.config_.profile.ackreq;
  w.plan = tx::segment(sr);
  w.started = true;
  if (w.plan.error != tx::SegmentError::NONE) {
    // A UD message longer than the MTU is silently not sent and completes successfully
    // (C10-93.1.1; rxe). Anything else was refused at post time already.
    const bool ud_too_long =
        ctx.type == qp::QpType::UD && w.plan.error == tx::SegmentError::MESSAGE_TOO_LONG;
    if (ud_too_long) {
      complete_send(q, w, cq::WcStatus::SUCCESS);
    } else {
      fail_wqe(q, w, errors::ErrorClass::REQ_LOCAL_QP_OPERATION);
    }
    return true;
  }
  w.first_psn = ctx.req.next_psn;
  w.last_psn = ctx.req.next_psn + (w.plan.psn_count - 1);
  ctx.req.next_psn += w.plan.psn_count;
  ctx.req.noack_pkts = w.plan.packets_since_ackreq;
  return true;
}

std::size_t Adapter::Impl::send_packet(Qp& q, SendWqe& w, const tx::Segment& seg) {
  const qp::QpContext& ctx = q.ctx;
  const bool ud = ctx.type == qp::QpType::UD;
  qp::AddressVector av = ctx.attr.ah_attr;
  std::uint32_t dqpn = ctx.attr.dest_qp_num;
  if (ud) {
    auto it = ahs.find(w.wr.ah);
    if (it != ahs.end()) av = it->second;
    dqpn = w.wr.remote_qpn;
  }
  wire::FrameSpec s = base_spec(q, av, dqpn);
  s.bth.opcode = seg.opcode;
  s.bth.psn = seg.psn;
  s.bth.ackreq = seg.ackreq;
  s.bth.se = seg.se;
  const wire::OpcodeInfo& info = wire::opcode_info(seg.opcode);
  const tx::SendWr& wr = w.wr;
  if (info.has(wire::Header::Reth)) {
    s.reth.va = wr.remote_addr;
    s.reth.rkey = wr.rkey;
    s.reth.dmalen = static_cast<std::uint32_t>(w.length);
    if (wr.opcode == tx::WrOpcode::RDMA_READ) {
      // A READ re-issued after a loss asks for the data not yet received, from the PSN of its
      // first missing response (docs/spec-notes.md §5.3); responses that arrived since the go-back
      // count.
      const std::int32_t acked = qp::psn_diff(ctx.req.comp_psn, w.first_psn);
      if (acked > 0 && static_cast<std::uint32_t>(acked) < w.plan.psn_count &&
          static_cast<std::uint32_t>(acked) > w.read_resume)
        w.read_resume = static_cast<std::uint32_t>(acked);
    }
    if (wr.opcode == tx::WrOpcode::RDMA_READ && w.read_resume != 0) {
      const std::uint64_t skip = std::uint64_t{w.read_resume} * ctx.mtu;
      s.bth.psn = (w.first_psn + w.read_resume).value();
      s.reth.va += skip;
      s.reth.dmalen = static_cast<std::uint32_t>(w.length - skip);
    }
  }
  if (info.has(wire::Header::AtomicEth)) {
    s.atomiceth.va = wr.remote_addr;
    s.atomiceth.rkey = wr.rkey;
    const bool cas = wr.opcode == tx::WrOpcode::ATOMIC_CMP_AND_SWP;
    s.atomiceth.swap_add = cas ? wr.swap : wr.compare_add;
    s.atomiceth.compare = cas ? wr.compare_add : 0;
  }
  if (info.has(wire::Header::ImmDt)) s.immdt.value = wr.imm_data;
  if (info.has(wire::Header::Ieth)) s.ieth.rkey = wr.invalidate_rkey;
  if (info.has(wire::Header::Deth)) s.deth = {wr.remote_qkey, ctx.qpn.value()};
  if (info.has(wire::Header::Feth)) s.feth = {wr.flush_type, wr.flush_level};
  s.payload.resize(seg.length);
  if (seg.length != 0) {
    if (wr.send_flags & tx::kSendInline) {
      std::copy_n(wr.inline_data.begin() + static_cast<std::ptrdiff_t>(seg.offset), seg.length,
                  s.payload.begin());
    } else {
      copy_out(w.sges, seg.offset, s.payload);
    }
  }
  // With a reaction point the packets are ECN-capable, ECT(0), unless the path sets ECN bits
  // itself (RoCEv2 Annex A17.9; IBTA Vol. 1 Annex A17.9; docs/spec-notes.md §10.1).
  if (a.config_.profile.dcqcn && s.ip.ecn == 0) s.ip.ecn = 2;
  const std::size_t bytes = transmit(s);
  // The local ACK timer starts with a request when it is not already running (rxe
  // update_state; IBTA Vol. 1 §9.7.6.1.3, C9-140; docs/spec-notes.md §5.2).
  if (reliable(ctx) && q.retransmit_timer == 0) arm_retransmit(q);
  return bytes;
}

void Adapter::Impl::fail_wqe(Qp& q, SendWqe& w, errors::ErrorClass cls) {
  const errors::Outcome& o = outcome(q.ctx, cls);
  complete_send(q, w, o.requester_status.value_or(cq::WcStatus::GENERAL_ERR));
  raise_events(q.ctx, o);
  apply_state_change(q, o.requester_state, cls);
}

void Adapter::Impl::complete_send(Qp& q, SendWqe& w, cq::WcStatus status) {
  qp::QpContext& ctx = q.ctx;
  w.done = true;
  if (w.holds_credit) {
    ++ctx.req.rd_atomic_credits;
    w.holds_credit = false;
  }
  // A CQE for a signaled WR, and always for an error (IBA 10.7.3.1; IBTA Vol. 1 §10.7.3.1;
  // docs/spec-notes.md §5.6).
  if (!w.signaled && status == cq::WcStatus::SUCCESS) return;
  cq::Wc wc;
  wc.wr_id = w.wr.wr_id;
  wc.status = status;
  wc.qp_num = ctx.qpn.value();
  if (status == cq::WcStatus::SUCCESS) {
    wc.opcode = cq::send_wc_opcode(w.wr.opcode).value_or(cq::WcOpcode::SEND);
    wc.byte_len = static_cast<std::uint32_t>(w.length);
    if (w.wr.opcode == tx::WrOpcode::SEND_WITH_IMM ||
        w.wr.opcode == tx::WrOpcode::RDMA_WRITE_WITH_IMM)
      wc.wc_flags |= cq::kWcWithImm;
  }
  complete(ctx.send_cq, wc, false, q, true);
}

}  // namespace rocecert::model
