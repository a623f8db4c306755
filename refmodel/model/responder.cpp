// The responder (IBA §9.7.5; rxe_resp.c). Checks run in rxe's order (digest §4.4): PSN,
// opcode sequence, QP access, resources (RNR), length, R_Key/bounds; then the request is
// executed against host memory and answered (ACK, READ responses, atomic ACK) or refused (NAK,
// and for RC errors the QP moves to ERR). UC never answers; UD completes single packets.
#include <algorithm>

#include "adapter_impl.h"

namespace rocecert::model {

namespace {

using wire::Header;
using wire::Operation;
using wire::Position;

constexpr std::uint8_t kNakPsnSeq = 0x60, kNakInvReq = 0x61, kNakRemAccess = 0x62,
                       kNakRemOp = 0x63;

bool consumes_recv_wqe(const wire::OpcodeInfo& op) {
  // digest §2.1 "RWQE": SEND FIRST/ONLY take one; WRITE with immediate takes one at LAST/ONLY.
  if (op.operation == Operation::SEND) return op.starts_message();
  return op.operation == Operation::WRITE && (op.flags & wire::kImm) && op.ends_message();
}

// Opcode sequence (digest §2.6): what may follow the last accepted request packet.
bool sequence_ok(std::uint16_t prev, const wire::OpcodeInfo& op) {
  if (prev == qp::kNoOpcode) return op.starts_message();
  const wire::OpcodeInfo& p = wire::opcode_info(static_cast<std::uint8_t>(prev));
  if (p.ends_message()) return op.starts_message();
  const bool continues = op.position == Position::MIDDLE || op.position == Position::LAST;
  return continues && op.operation == p.operation;
}

// The QP-level access gate (digest §4.4 CHK_OP_VALID), with the ibv_access_flags values.
bool qp_access_ok(std::uint32_t flags, Operation op) {
  switch (op) {
    case Operation::READ_REQUEST: return flags & 0x4;
    case Operation::WRITE:
    case Operation::ATOMIC_WRITE: return flags & 0x2;
    case Operation::COMPARE_SWAP:
    case Operation::FETCH_ADD: return flags & 0x8;
    case Operation::FLUSH: return flags & 0x300;
    case Operation::SEND:
    case Operation::READ_RESPONSE:
    case Operation::ACK:
    case Operation::ATOMIC_ACK:
    case Operation::RESYNC:
    case Operation::CNP: return true;
  }
  return true;
}

// rxe_resp_check_length (digest §4.4 CHK_LENGTH, §1.7).
bool length_ok(const wire::ParsedFrame& p, std::uint32_t mtu) {
  const wire::OpcodeInfo& op = *p.op;
  if (op.payload == wire::Payload::DATA) {
    switch (op.position) {
      case Position::FIRST:
      case Position::MIDDLE:
        if (p.payload_len != mtu) return false;
        break;
      case Position::LAST:
        if (p.payload_len == 0 || p.payload_len > mtu) return false;
        break;
      case Position::ONLY:
        if (p.payload_len > mtu) return false;
        break;
    }
  }
  if (p.has(Header::Reth) && p.reth.dmalen > (1u << 31)) return false;
  return true;
}

mem::MemOp remote_op(Operation op) {
  switch (op) {
    case Operation::READ_REQUEST: return mem::MemOp::REMOTE_READ;
    case Operation::COMPARE_SWAP:
    case Operation::FETCH_ADD: return mem::MemOp::REMOTE_ATOMIC;
    case Operation::ATOMIC_WRITE: return mem::MemOp::ATOMIC_WRITE;
    case Operation::FLUSH: return mem::MemOp::FLUSH;
    case Operation::WRITE:
    case Operation::SEND:
    case Operation::READ_RESPONSE:
    case Operation::ACK:
    case Operation::ATOMIC_ACK:
    case Operation::RESYNC:
    case Operation::CNP: break;
  }
  return mem::MemOp::REMOTE_WRITE;
}

}  // namespace

void Adapter::Impl::send_ack(qp::QpContext& ctx, std::uint32_t psn, std::uint8_t syndrome) {
  wire::FrameSpec s = base_spec(ctx, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
  s.bth.opcode = wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE);
  s.bth.psn = psn;
  s.aeth = {syndrome, ctx.resp.msn.value()};
  transmit(s);
}

void Adapter::Impl::nak_and_error(qp::QpContext& ctx, std::uint32_t psn, std::uint8_t syndrome,
                                  std::string_view reason) {
  a.observer_.on_nak({now(), a.id_, ctx.qpn.value(), psn, syndrome, reason});
  send_ack(ctx, psn, syndrome);
  enter_error(ctx, reason);
}

void Adapter::Impl::handle_request(qp::QpContext& ctx, const wire::ParsedFrame& p) {
  const wire::OpcodeInfo& op = *p.op;
  QpQueues& q = queues[ctx.qpn.value()];
  const bool rc = ctx.type == qp::QpType::RC;
  const std::uint32_t psn = p.bth.psn;
  auto drop = [&](std::string_view why) { a.observer_.on_drop({now(), a.id_, why, p.bytes}); };
  auto complete_recv = [&](RecvWqe& r, cq::WcStatus status, std::uint32_t byte_len,
                           std::uint32_t flags, std::uint32_t imm, std::uint32_t src_qp, bool se,
                           cq::WcOpcode opcode) {
    cq::Wc wc;
    wc.wr_id = r.wr.wr_id;
    wc.status = status;
    wc.qp_num = ctx.qpn.value();
    if (status == cq::WcStatus::SUCCESS) {
      wc.opcode = opcode;
      wc.byte_len = byte_len;
      wc.wc_flags = flags;
      wc.imm_data = imm;
      wc.src_qp = src_qp;
    }
    complete(ctx.recv_cq.value, wc, se, ctx.qpn);
  };
  // Takes the next receive WQE and resolves its buffers (LOCAL_WRITE).
  auto take_recv = [&](RecvWqe& out) -> int {  // 1 ok, 0 none, -1 unusable WQE
    std::deque<RecvWqe>& rq = receive_queue(ctx);
    if (rq.empty()) return 0;
    out = std::move(rq.front());
    rq.pop_front();
    srq_consumed(ctx);
    mem::AccessResult failure;
    std::uint32_t bad = 0;
    if (!resolve_sges(ctx, out.wr.sg_list, mem::MemOp::LOCAL_WRITE, out.sges, failure, bad))
      return -1;
    out.capacity = 0;
    for (const ResolvedSge& s : out.sges) out.capacity += s.length;
    return 1;
  };

  // ---- UD: one packet, one receive WQE, a 40-byte GRH area first (digest §9.1) -------------
  if (ctx.type == qp::QpType::UD) {
    RecvWqe r;
    const int got = take_recv(r);
    if (got == 0) return drop("ud_no_receive_wqe");
    if (got < 0) {
      complete_recv(r, cq::WcStatus::LOC_PROT_ERR, 0, 0, 0, 0, false, cq::WcOpcode::RECV);
      return enter_error(ctx, "receive_wqe_protection");
    }
    if (r.capacity < 40u + p.payload_len) {
      // rxe: a buffer too small is a malformed WQE: LOC_QP_OP_ERR and ERR (digest §4.4, §11.6).
      complete_recv(r, cq::WcStatus::LOC_QP_OP_ERR, 0, 0, 0, 0, false, cq::WcOpcode::RECV);
      return enter_error(ctx, "receive_buffer_too_small");
    }
    std::array<std::uint8_t, 40> grh{};
    const auto ip = p.bytes.subspan(p.ip_off, p.ip_header_len);
    // IPv4: the 20-byte header sits in the last 20 bytes of the GRH area (rxe).
    std::copy(ip.begin(), ip.end(), grh.begin() + (p.ip.version == 4 ? 20 : 0));
    copy_in(r.sges, 0, grh);
    copy_in(r.sges, 40, p.payload());
    const bool imm = (op.flags & wire::kImm) != 0;
    complete_recv(r, cq::WcStatus::SUCCESS, 40u + p.payload_len,
                  cq::kWcGrh | (imm ? cq::kWcWithImm : 0u), imm ? p.immdt.value : 0u,
                  p.deth.srcqp, p.bth.se, cq::WcOpcode::RECV);
    return;
  }

  // ---- 1. PSN ------------------------------------------------------------------------------
  const std::int32_t d = qp::psn_diff(qp::Psn(psn), ctx.resp.epsn);
  if (rc) {
    if (d > 0) {
      // A gap: one PSN Sequence Error NAK per gap, carrying the expected PSN (digest §3.3).
      if (!ctx.resp.sent_psn_nak) {
        ctx.resp.sent_psn_nak = true;
        a.observer_.on_nak({now(), a.id_, ctx.qpn.value(), ctx.resp.epsn.value(), kNakPsnSeq, "psn_sequence"});
        send_ack(ctx, ctx.resp.epsn.value(), kNakPsnSeq);
      }
      return drop("psn_ahead");
    }
    if (d < 0) {
      // A duplicate (digest §4.5): SEND/WRITE are re-ACKed (rxe: always), READ responses are
      // regenerated from the responder resources, atomics replayed, never re-executed.
      for (const qp::ResponderResource& res : ctx.resp.resources) {
        if (res.type == qp::ResourceType::ATOMIC && res.first_psn == qp::Psn(psn)) {
          wire::FrameSpec s = base_spec(ctx, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
          s.bth.opcode = wire::to_u8(wire::Opcode::RC_ATOMIC_ACKNOWLEDGE);
          s.bth.psn = psn;
          s.aeth = {a.config_.profile.ack_syndrome_credits, ctx.resp.msn.value()};
          s.atomicacketh.orig = res.atomic_orig;
          transmit(s);
          return;
        }
      }
      if (op.operation == Operation::READ_REQUEST) {
        // A READ asked again (its responses were lost, or the requester resumes a partial one):
        // regenerate from the responder resource, re-checking the key (rxe_recheck_mr); a
        // resumed READ continues with MIDDLE/LAST responses as rxe does (digest §11.8).
        std::uint64_t va = p.reth.va;
        std::uint32_t len = p.reth.dmalen;
        std::uint32_t rkey = p.reth.rkey;
        bool from_start = true;
        for (const qp::ResponderResource& res : ctx.resp.resources) {
          if (res.type != qp::ResourceType::READ || qp::psn_diff(qp::Psn(psn), res.first_psn) < 0 ||
              qp::psn_diff(qp::Psn(psn), res.last_psn) > 0)
            continue;
          const auto skip = static_cast<std::uint32_t>(qp::psn_diff(qp::Psn(psn), res.first_psn));
          va = res.va + std::uint64_t{skip} * ctx.mtu;
          len = res.length - skip * ctx.mtu;
          rkey = res.rkey;
          from_start = skip == 0;
          break;
        }
        mem::AccessRequest req{mem::MemOp::REMOTE_READ, mem::Key(rkey), qp_ref(ctx), va, len, 0, false};
        const mem::AccessResult r = a.mem_.check(req);
        if (!r.ok()) return nak_and_error(ctx, psn, kNakRemAccess, mem::to_string(r.outcome));
        const std::uint32_t n = len == 0 ? 1 : (len + ctx.mtu - 1) / ctx.mtu;
        for (std::uint32_t i = 0; i < n; ++i) {
          wire::FrameSpec s = base_spec(ctx, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
          wire::Opcode o = wire::Opcode::RC_RDMA_READ_RESPONSE_MIDDLE;
          if (i + 1 == n) {
            o = from_start && n == 1 ? wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY
                                     : wire::Opcode::RC_RDMA_READ_RESPONSE_LAST;
          } else if (i == 0 && from_start) {
            o = wire::Opcode::RC_RDMA_READ_RESPONSE_FIRST;
          }
          s.bth.opcode = wire::to_u8(o);
          s.bth.psn = (psn + i) & qp::Psn::kMask;
          s.aeth = {a.config_.profile.ack_syndrome_credits, ctx.resp.msn.value()};
          const std::uint32_t chunk = std::min<std::uint32_t>(ctx.mtu, len - i * ctx.mtu);
          if (!r.zero_length_exempt && chunk != 0)
            s.payload = a.memory_.read_bytes(r.host_addr + std::uint64_t{i} * ctx.mtu, chunk);
          transmit(s);
        }
        return;
      }
      send_ack(ctx, (ctx.resp.epsn - 1u).value(), a.config_.profile.ack_syndrome_credits);
      return;
    }
    ctx.resp.sent_psn_nak = false;
  } else {
    // UC (digest §3.3, §9.2): a PSN mismatch or drop mode drops until the next FIRST/ONLY,
    // which resynchronises; a message left without its LAST is abandoned (class D1).
    if (d != 0 || ctx.resp.drop_msg) {
      if (!op.starts_message()) {
        ctx.resp.drop_msg = true;
        return drop("uc_psn_or_drop_mode");
      }
      ctx.resp.drop_msg = false;
    }
    if (op.starts_message() && ctx.resp.opcode != qp::kNoOpcode) {
      if (q.active_recv) {
        receive_queue(ctx).push_front(std::move(*q.active_recv));  // rewind, no completion (rxe D1)
        q.active_recv.reset();
      }
      ctx.resp.opcode = qp::kNoOpcode;
      ctx.resp.write.active = false;
    }
    ctx.resp.epsn = qp::Psn(psn);
  }

  // ---- 2. Opcode sequence --------------------------------------------------------------------
  if (!sequence_ok(ctx.resp.opcode, op)) {
    if (rc) return nak_and_error(ctx, psn, kNakInvReq, "opcode_sequence");
    ctx.resp.drop_msg = true;
    return drop("uc_opcode_sequence");
  }
  // ---- 3. QP access ------------------------------------------------------------------------
  if (!qp_access_ok(ctx.attr.qp_access_flags, op.operation)) {
    if (rc) return nak_and_error(ctx, psn, kNakInvReq, "qp_access");
    ctx.resp.drop_msg = true;
    return drop("uc_qp_access");
  }
  // ---- 4. Resources --------------------------------------------------------------------------
  const bool rd_atomic = op.operation == Operation::READ_REQUEST ||
                         op.operation == Operation::COMPARE_SWAP ||
                         op.operation == Operation::FETCH_ADD ||
                         op.operation == Operation::ATOMIC_WRITE;
  if (rd_atomic && ctx.attr.max_dest_rd_atomic == 0)
    return nak_and_error(ctx, psn, kNakInvReq, "no_responder_resources");
  std::optional<RecvWqe> imm_recv;  // the WQE a WRITE_WITH_IMM consumes at its last packet
  if (consumes_recv_wqe(op)) {
    RecvWqe r;
    const int got = take_recv(r);
    if (got == 0) {
      if (!rc) {
        ctx.resp.drop_msg = true;
        return drop("uc_no_receive_wqe");
      }
      // RNR NAK with our min_rnr_timer; nothing changes, the requester retries (digest §4.4).
      const auto syndrome = static_cast<std::uint8_t>(0x20 | (ctx.attr.min_rnr_timer & 0x1F));
      a.observer_.on_nak({now(), a.id_, ctx.qpn.value(), psn, syndrome, "rnr"});
      send_ack(ctx, psn, syndrome);
      return;
    }
    if (got < 0) {
      complete_recv(r, cq::WcStatus::LOC_PROT_ERR, 0, 0, 0, 0, false, cq::WcOpcode::RECV);
      if (rc) return nak_and_error(ctx, psn, kNakRemOp, "receive_wqe_protection");
      return enter_error(ctx, "receive_wqe_protection");
    }
    if (op.operation == Operation::SEND) {
      q.active_recv = std::move(r);
      ctx.resp.recv_wqe_active = true;
      ctx.resp.recv_offset = 0;
    } else {
      imm_recv = std::move(r);
    }
  }
  // ---- 5. Length -----------------------------------------------------------------------------
  if (!length_ok(p, ctx.mtu)) {
    if (rc) return nak_and_error(ctx, psn, kNakInvReq, "length");
    ctx.resp.drop_msg = true;
    return drop("uc_length");
  }
  // ---- 6. R_Key and bounds --------------------------------------------------------------------
  mem::AccessResult target;
  const bool keyed = op.has(Header::Reth) || op.has(Header::AtomicEth);
  if (keyed) {
    mem::AccessRequest req;
    req.op = remote_op(op.operation);
    req.qp = qp_ref(ctx);
    if (op.has(Header::AtomicEth)) {
      req.key = mem::Key(p.atomiceth.rkey);
      req.va = p.atomiceth.va;
      req.length = 8;
    } else {
      req.key = mem::Key(p.reth.rkey);
      req.va = p.reth.va;
      req.length = op.operation == Operation::ATOMIC_WRITE ? 8 : p.reth.dmalen;
      if (op.operation == Operation::FLUSH) {
        req.flush_placement = p.feth.placement;
        req.flush_whole_region = p.feth.selectivity == 1;
      }
    }
    target = a.mem_.check(req);
    if (!target.ok()) {
      a.observer_.on_access_denied({now(), a.id_, ctx.qpn.value(), req.key.value(), req.va,
                                    req.length, mem::to_string(target.outcome)});
      if (!rc) {
        ctx.resp.drop_msg = true;
        return drop("uc_rkey");
      }
      // A misaligned atomic is an invalid request, every other failure a remote access error
      // (digest §7.6, §4.4).
      const bool misaligned = target.outcome == mem::AccessOutcome::UNALIGNED_ATOMIC;
      return nak_and_error(ctx, psn, misaligned ? kNakInvReq : kNakRemAccess,
                           mem::to_string(target.outcome));
    }
    if (op.operation == Operation::WRITE) {
      ctx.resp.write = {true, target.zero_length_exempt ? 0 : target.host_addr, p.reth.rkey, p.reth.dmalen};
      q.write_imm_total = p.reth.dmalen;
    }
  }
  if (op.operation == Operation::WRITE) {
    // The payload must fit the DMA length announced in the RETH (digest §1.7, §4.4).
    const std::uint32_t resid = ctx.resp.write.resid;
    if (p.payload_len > resid || (op.ends_message() && p.payload_len != resid)) {
      if (rc) return nak_and_error(ctx, psn, kNakInvReq, "write_length");
      ctx.resp.drop_msg = true;
      return drop("uc_write_length");
    }
  }

  // ---- Execute ------------------------------------------------------------------------------
  const std::uint8_t ack_ok = a.config_.profile.ack_syndrome_credits;
  auto advance = [&] {
    ctx.resp.epsn = qp::Psn(psn) + 1u;
    ctx.resp.ack_psn = ctx.resp.epsn;
    ctx.resp.opcode = op.ends_message() ? qp::kNoOpcode : op.value;
  };
  switch (op.operation) {
    case Operation::SEND: {
      RecvWqe& r = *q.active_recv;
      if (!copy_in(r.sges, ctx.resp.recv_offset, p.payload())) {
        // rxe: the message does not fit: malformed WQE, NAK 0x63, LOC_QP_OP_ERR (digest §11.6).
        complete_recv(r, cq::WcStatus::LOC_QP_OP_ERR, 0, 0, 0, 0, false, cq::WcOpcode::RECV);
        q.active_recv.reset();
        if (rc) return nak_and_error(ctx, psn, kNakRemOp, "receive_buffer_too_small");
        return enter_error(ctx, "receive_buffer_too_small");
      }
      ctx.resp.recv_offset += p.payload_len;
      advance();
      if (op.ends_message()) {
        std::uint32_t flags = 0, imm = 0;
        if (op.flags & wire::kImm) {
          flags |= cq::kWcWithImm;
          imm = p.immdt.value;
        }
        bool inv_failed = false;
        if (op.flags & wire::kInv) {
          const mem::MemErrc e = a.mem_.invalidate(qp_ref(ctx), mem::Key(p.ieth.rkey));
          inv_failed = e != mem::MemErrc::OK;
          if (!inv_failed) {
            flags |= cq::kWcWithInv;
            imm = p.ieth.rkey;
          }
        }
        ++ctx.resp.msn;
        RecvWqe done = std::move(r);
        q.active_recv.reset();
        ctx.resp.recv_wqe_active = false;
        if (rc && p.bth.ackreq) send_ack(ctx, psn, ack_ok);
        if (inv_failed) {
          // rxe (digest §11.9): the receive completes with REM_INV_REQ_ERR and the QP goes to
          // ERR without a NAK; the requester's WR still succeeds if it was ACKed.
          complete_recv(done, cq::WcStatus::REM_INV_REQ_ERR, 0, 0, 0, 0, false, cq::WcOpcode::RECV);
          return enter_error(ctx, "invalidate_failed");
        }
        complete_recv(done, cq::WcStatus::SUCCESS, ctx.resp.recv_offset, flags, imm, 0, p.bth.se,
                      cq::WcOpcode::RECV);
        return;
      }
      if (rc && p.bth.ackreq) send_ack(ctx, psn, ack_ok);
      return;
    }
    case Operation::WRITE: {
      if (p.payload_len != 0) a.memory_.write(ctx.resp.write.va, p.payload());
      ctx.resp.write.va += p.payload_len;
      ctx.resp.write.resid -= p.payload_len;
      advance();
      if (op.ends_message()) {
        ctx.resp.write.active = false;
        ++ctx.resp.msn;
      }
      if (rc && p.bth.ackreq) send_ack(ctx, psn, ack_ok);
      if (imm_recv) {
        // rxe reports the RETH DMA length as byte_len (digest §5.6).
        complete_recv(*imm_recv, cq::WcStatus::SUCCESS, q.write_imm_total, cq::kWcWithImm,
                      p.immdt.value, 0, p.bth.se, cq::WcOpcode::RECV_RDMA_WITH_IMM);
      }
      return;
    }
    case Operation::READ_REQUEST: {
      ++ctx.resp.msn;  // counted once, when the READ is accepted (C9-148; digest §3.5)
      const std::uint32_t len = p.reth.dmalen;
      const std::uint32_t n = len == 0 ? 1 : (len + ctx.mtu - 1) / ctx.mtu;
      if (!ctx.resp.resources.empty()) {
        qp::ResponderResource& res = ctx.resp.resources[ctx.resp.res_head];
        ctx.resp.res_head = (ctx.resp.res_head + 1) % static_cast<std::uint32_t>(ctx.resp.resources.size());
        res = {qp::ResourceType::READ, qp::Psn(psn), qp::Psn(psn) + (n - 1), qp::Psn(psn) + n,
               p.reth.va, len, p.reth.rkey, p.reth.va + len, 0, 0};
      }
      for (std::uint32_t i = 0; i < n; ++i) {
        wire::FrameSpec s = base_spec(ctx, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
        const wire::Opcode o = n == 1 ? wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY
                               : i == 0 ? wire::Opcode::RC_RDMA_READ_RESPONSE_FIRST
                               : i + 1 == n ? wire::Opcode::RC_RDMA_READ_RESPONSE_LAST
                                            : wire::Opcode::RC_RDMA_READ_RESPONSE_MIDDLE;
        s.bth.opcode = wire::to_u8(o);
        s.bth.psn = (psn + i) & qp::Psn::kMask;
        s.aeth = {ack_ok, ctx.resp.msn.value()};
        const std::uint32_t chunk = len == 0 ? 0 : std::min<std::uint32_t>(ctx.mtu, len - i * ctx.mtu);
        if (chunk != 0) s.payload = a.memory_.read_bytes(target.host_addr + std::uint64_t{i} * ctx.mtu, chunk);
        transmit(s);
      }
      ctx.resp.epsn = qp::Psn(psn) + n;
      ctx.resp.opcode = qp::kNoOpcode;
      return;
    }
    case Operation::COMPARE_SWAP:
    case Operation::FETCH_ADD: {
      const std::uint64_t orig =
          op.operation == Operation::COMPARE_SWAP
              ? a.memory_.compare_swap(target.host_addr, p.atomiceth.compare, p.atomiceth.swap_add)
              : a.memory_.fetch_add(target.host_addr, p.atomiceth.swap_add);
      ++ctx.resp.msn;
      if (!ctx.resp.resources.empty()) {
        qp::ResponderResource& res = ctx.resp.resources[ctx.resp.res_head];
        ctx.resp.res_head = (ctx.resp.res_head + 1) % static_cast<std::uint32_t>(ctx.resp.resources.size());
        res = {};
        res.type = qp::ResourceType::ATOMIC;
        res.first_psn = res.last_psn = qp::Psn(psn);
        res.atomic_orig = orig;
      }
      wire::FrameSpec s = base_spec(ctx, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
      s.bth.opcode = wire::to_u8(wire::Opcode::RC_ATOMIC_ACKNOWLEDGE);
      s.bth.psn = psn;
      s.aeth = {ack_ok, ctx.resp.msn.value()};
      s.atomicacketh.orig = orig;
      transmit(s);
      advance();
      return;
    }
    case Operation::ATOMIC_WRITE:
    case Operation::FLUSH: {
      if (op.operation == Operation::ATOMIC_WRITE) a.memory_.write(target.host_addr, p.payload());
      ++ctx.resp.msn;
      // Both are answered by a zero-length READ RESPONSE ONLY (rxe; digest §8.4).
      wire::FrameSpec s = base_spec(ctx, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
      s.bth.opcode = wire::to_u8(wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY);
      s.bth.psn = psn;
      s.aeth = {ack_ok, ctx.resp.msn.value()};
      transmit(s);
      advance();
      return;
    }
    case Operation::READ_RESPONSE:
    case Operation::ACK:
    case Operation::ATOMIC_ACK:
    case Operation::RESYNC:
    case Operation::CNP:
      return drop("not_a_request");
  }
}

}  // namespace rocecert::model
