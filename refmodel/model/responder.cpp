// The responder (IBA §9.7.5; rxe_resp.c). Checks run in rxe's order (docs/spec-notes.md §4.4): PSN,
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

constexpr std::uint8_t kNakPsnSeq = wire::nak_syndrome(wire::NakCode::PSN_SEQUENCE_ERROR);

// Opcode sequence (docs/spec-notes.md §2.6): what may follow the last accepted request packet.
bool sequence_ok(std::uint16_t prev, const wire::OpcodeInfo& op) {
  if (prev == qp::kNoOpcode) return op.starts_message();
  const wire::OpcodeInfo& p = wire::opcode_info(static_cast<std::uint8_t>(prev));
  if (p.ends_message()) return op.starts_message();
  const bool continues = op.position == Position::MIDDLE || op.position == Position::LAST;
  return continues && op.operation == p.operation;
}

// The QP-level access gate (rxe_resp.c check_op_valid), on the qp_access_flags (mem::Access).
// `flush_placement`: a FLUSH's FETH placement bits, each needing its own right (the matching
// FLUSH_* access, docs/spec-notes.md §8.4; rxe_resp.c check_qp_attr_access).
bool qp_access_ok(std::uint32_t flags, Operation op, std::uint8_t flush_placement) {
  const mem::Access a = mem::access_from_u32(flags);
  switch (op) {
    case Operation::READ_REQUEST:
      return mem::any(a & mem::Access::REMOTE_READ);
    case Operation::WRITE:
    case Operation::ATOMIC_WRITE:
      return mem::any(a & mem::Access::REMOTE_WRITE);
    case Operation::COMPARE_SWAP:
    case Operation::FETCH_ADD:
      return mem::any(a & mem::Access::REMOTE_ATOMIC);
    case Operation::FLUSH:
      return mem::contains(a, mem::required_access(mem::MemOp::FLUSH, flush_placement));
    case Operation::SEND:
    case Operation::READ_RESPONSE:
    case Operation::ACK:
    case Operation::ATOMIC_ACK:
    case Operation::RESYNC:
    case Operation::CNP:
      return true;
  }
  return true;
}

// rxe_resp_check_length (docs/spec-notes.md §4.4 CHK_LENGTH, §1.7).
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
    case Operation::READ_REQUEST:
      return mem::MemOp::REMOTE_READ;
    case Operation::COMPARE_SWAP:
    case Operation::FETCH_ADD:
      return mem::MemOp::REMOTE_ATOMIC;
    case Operation::ATOMIC_WRITE:
      return mem::MemOp::ATOMIC_WRITE;
    case Operation::FLUSH:
      return mem::MemOp::FLUSH;
    case Operation::WRITE:
    case Operation::SEND:
    case Operation::READ_RESPONSE:
    case Operation::ACK:
    case Operation::ATOMIC_ACK:
    case Operation::RESYNC:
    case Operation::CNP:
      break;
  }
  return mem::MemOp::REMOTE_WRITE;
}

}  // namespace

void Adapter::Impl::send_ack(Qp& q, std::uint32_t psn, std::uint8_t syndrome) {
  const qp::QpContext& ctx = q.ctx;
  wire::FrameSpec s = base_spec(q, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
  s.bth.opcode = wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE);
  s.bth.psn = psn;
  s.aeth = {syndrome, ctx.resp.msn.value()};
  transmit_response(q, s);
}

void Adapter::Impl::transmit_response(Qp& q, const wire::FrameSpec& spec) {
  // Only a coalescing responder ever holds an ACK back.
  if (a.config_.profile.ack.mode == AckCoalescing::Mode::COALESCE) flush_pending_ack(q);
  transmit(spec);
}

bool Adapter::Impl::flush_pending_ack(Qp& q) {
  const qp::QpContext& ctx = q.ctx;
  Qp::PendingAck& pa = q.pending_ack;
  if (pa.timer != 0) {
    a.events_.cancel(pa.timer);
    pa.timer = 0;
  }
  pa.unacked = 0;
  if (!pa.armed) return false;
  pa.armed = false;
  wire::FrameSpec s = base_spec(q, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
  s.bth.opcode = wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE);
  s.bth.psn = pa.psn;
  s.aeth = {a.config_.profile.ack_syndrome_credits, pa.msn};
  transmit(s);
  return true;
}

void Adapter::Impl::ack_executed(Qp& q, std::uint32_t psn, bool ackreq) {
  const qp::QpContext& ctx = q.ctx;
  const AckCoalescing& policy = a.config_.profile.ack;
  switch (policy.mode) {
    case AckCoalescing::Mode::ACKREQ:
      if (ackreq) send_ack(q, psn, a.config_.profile.ack_syndrome_credits);
      return;
    case AckCoalescing::Mode::EVERY_PACKET:
      send_ack(q, psn, a.config_.profile.ack_syndrome_credits);
      return;
    case AckCoalescing::Mode::COALESCE:
      break;
  }
  // The ACK that goes out covers the latest executed packet (a coalesced ACK acknowledges
  // every PSN up to its own, IBA §9.7.5.1.1), with the MSN that packet left behind.
  Qp::PendingAck& pa = q.pending_ack;
  pa.psn = psn;
  pa.msn = ctx.resp.msn.value();
  ++pa.unacked;
  if (ackreq && !pa.armed) {
    pa.armed = true;
    if (policy.max_delay_ns != 0) {
      const qp::Qpn qpn = ctx.qpn;
      pa.timer = a.events_.schedule_in(policy.max_delay_ns, [this, qpn] {
        Qp* held = find_qp(qpn);
        if (held == nullptr) return;
        held->pending_ack.timer = 0;
        // A QP that left the receiving states (ERR, RESET) sends nothing (§10.3.1).
        if (!qp::state_rules(held->ctx.state()).rq_processes) {
          held->pending_ack = {};
          return;
        }
        flush_pending_ack(*held);
      });
    }
  }
  if (pa.armed && (policy.max_delay_ns == 0 || pa.unacked >= policy.max_packets))
    flush_pending_ack(q);
}

void Adapter::Impl::complete_receive(Qp& q, const RecvWqe& r, cq::WcStatus status,
                                     std::uint32_t byte_len, std::uint32_t flags, std::uint32_t imm,
                                     std::uint32_t src_qp, bool solicited, cq::WcOpcode opcode) {
  const qp::QpContext& ctx = q.ctx;
  cq::Wc wc;
  wc.wr_id = r.wr.wr_id;
  wc.status = status;
  wc.qp_num = ctx.qpn.value();
  if (status == cq::WcStatus::SUCCESS) {  // only these fields are valid on errors (ibv_poll_cq)
    wc.opcode = opcode;
    wc.byte_len = byte_len;
    wc.wc_flags = flags;
    wc.imm_data = imm;
    wc.src_qp = src_qp;
  }
  complete(ctx.recv_cq, wc, solicited, q, false);
}

void Adapter::Impl::raise_events(const qp::QpContext& ctx, const errors::Outcome& o) {
  for (const errors::AsyncEventType e : o.events) {
    if (e == errors::AsyncEventType::NONE || e == errors::AsyncEventType::CQ_ERR) continue;
    a.observer_.on_async_event({now(), a.id_, e, ctx.qpn.value()});
  }
}

void Adapter::Impl::apply_state_change(Qp& q, errors::StateChange change,
                                       errors::ErrorClass cause) {
  switch (change) {
    case errors::StateChange::NONE:
      return;
    case errors::StateChange::ERR:
      return enter_error(q, cause);
    case errors::StateChange::SQE:
      if (const auto t = a.qps_.enter_sq_error(q.ctx)) {
        a.observer_.on_qp_transition(
            {now(), a.id_, q.ctx.qpn.value(), t->from, t->to, errors::to_string(cause)});
        flush(q);
      }
      return;
  }
}

void Adapter::Impl::refuse(Qp& q, const wire::ParsedFrame& p, errors::ErrorClass cls,
                           std::optional<RecvWqe>* held, std::string_view detail) {
  qp::QpContext& ctx = q.ctx;
  const errors::Outcome& o = outcome(ctx, cls);
  const std::string_view name = errors::to_string(cls);
  if (ctx.type != qp::QpType::RC) ctx.resp.drop_msg = true;  // UC: drop the rest of the message
  if (held != nullptr && held->has_value() && o.receive_status) {
    complete_receive(q, **held, *o.receive_status);
    held->reset();
    ctx.resp.recv_wqe_active = false;
  } else if (held != nullptr && held->has_value() && held != &q.active_recv) {
    // The table gives no receive status (e.g. RESP_RKEY_VIOLATION, RESP_WRITE_LENGTH on UC:
    // drop().req_ok()): the WQE a WRITE_WITH_IMM would take is not consumed (rxe only peeks
    // at it until the message completes), so it goes back to the head of its queue.
    receive_queue(q).push_front(std::move(**held));
    held->reset();
  }
  switch (o.response) {
    case errors::Response::NAK:
    case errors::Response::RNR_NAK: {
      const std::uint8_t syndrome =
          errors::nak_syndrome(o, ctx.attr.min_rnr_timer).value_or(o.nak_code);
      a.observer_.on_nak(
          {now(), a.id_, ctx.qpn.value(), p.bth.psn, syndrome, detail.empty() ? name : detail});
      send_ack(q, p.bth.psn, syndrome);
      break;
    }
    case errors::Response::ACK:
      if (p.bth.ackreq) send_ack(q, p.bth.psn, a.config_.profile.ack_syndrome_credits);
      break;
    case errors::Response::SILENT_DROP:
    case errors::Response::RESERVED_NAK:
    case errors::Response::NONE:
      a.observer_.on_drop({now(), a.id_, name, p.bytes, &p, errors::to_string(cls)});
      break;
  }
  raise_events(ctx, o);
  apply_state_change(q, o.responder_state, cls);
}

void Adapter::Impl::send_read_responses(Qp& q, std::uint32_t psn, std::uint64_t host_addr,
                                        std::uint32_t len, bool from_start) {
  const qp::QpContext& ctx = q.ctx;
  // ceil(len / MTU) responses (one for a zero-length READ) with consecutive PSNs, AETH on
  // FIRST/LAST/ONLY; a READ resumed mid-way goes on with MIDDLE/LAST (rxe;
  // docs/spec-notes.md §11.8).
  const std::uint32_t n = len == 0 ? 1 : (len + ctx.mtu - 1) / ctx.mtu;
  for (std::uint32_t i = 0; i < n; ++i) {
    wire::FrameSpec s = base_spec(q, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
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
    const std::uint32_t chunk = len == 0 ? 0 : std::min<std::uint32_t>(ctx.mtu, len - i * ctx.mtu);
    if (chunk != 0) s.payload = a.memory_.read_bytes(host_addr + std::uint64_t{i} * ctx.mtu, chunk);
    transmit_response(q, s);
  }
}

void Adapter::Impl::send_atomic_ack(Qp& q, std::uint32_t psn, std::uint64_t orig) {
  const qp::QpContext& ctx = q.ctx;
  wire::FrameSpec s = base_spec(q, ctx.attr.ah_attr, ctx.attr.dest_qp_num);
  s.bth.opcode = wire::to_u8(wire::Opcode::RC_ATOMIC_ACKNOWLEDGE);
  s.bth.psn = psn;
  s.aeth = {a.config_.profile.ack_syndrome_credits, ctx.resp.msn.value()};
  s.atomicacketh.orig = orig;
  transmit_response(q, s);
}

qp::ResponderResource* Adapter::Impl::take_resource(qp::QpContext& ctx) {
  // A ring of max_dest_rd_atomic slots, the oldest reused (docs/spec-notes.md §4.5, §8.2;
  // rxe_resp.c rxe_prepare_res); with none, nothing is kept and a repeat is dropped.
  if (ctx.resp.resources.empty()) return nullptr;
  qp::ResponderResource& res = ctx.resp.resources[ctx.resp.res_head];
  ctx.resp.res_head =
      (ctx.resp.res_head + 1) % static_cast<std::uint32_t>(ctx.resp.resources.size());
  return &res;
}

void Adapter::Impl::handle_request(Qp& q, const wire::ParsedFrame& p) {
  qp::QpContext& ctx = q.ctx;
  const wire::OpcodeInfo& op = *p.op;
  const bool rc = ctx.type == qp::QpType::RC;
  const std::uint32_t psn = p.bth.psn;
  auto drop = [&](std::string_view why) {
    a.observer_.on_drop({now(), a.id_, why, p.bytes, &p, {}});
  };
  // Takes the next receive WQE and resolves its buffers (LOCAL_WRITE).
  auto take_recv = [&](RecvWqe& out) -> int {  // 1 ok, 0 none, -1 unusable WQE
    std::deque<RecvWqe>& rq = receive_queue(q);
    if (rq.empty()) return 0;
    out = std::move(rq.front());
    rq.pop_front();
    srq_consumed(q);
    mem::AccessResult failure;
    std::uint32_t bad = 0;
    if (!resolve_sges(ctx, out.wr.sg_list, mem::MemOp::LOCAL_WRITE, out.sges, failure, bad))
      return -1;
    out.capacity = 0;
    for (const ResolvedSge& s : out.sges) out.capacity += s.length;
    return 1;
  };

  // ---- UD: one packet, one receive WQE, a 40-byte GRH area first (docs/spec-notes.md §9.1) ------
  if (ctx.type == qp::QpType::UD) {
    RecvWqe r;
    const int got = take_recv(r);
    if (got == 0) return drop("ud_no_receive_wqe");
    std::optional<RecvWqe> held = std::move(r);
    if (got < 0) return refuse(q, p, errors::ErrorClass::RESP_RECV_WQE_PROTECTION, &held, {});
    if (held->capacity < 40u + p.payload_len)
      return refuse(q, p, errors::ErrorClass::RESP_RECV_BUFFER_TOO_SMALL, &held, {});
    r = std::move(*held);
    std::array<std::uint8_t, 40> grh{};
    const auto ip = p.bytes.subspan(p.ip_off, p.ip_header_len);
    // IPv4: the 20-byte header sits in the last 20 bytes of the GRH area (rxe).
    std::copy(ip.begin(), ip.end(), grh.begin() + (p.ip.version == 4 ? 20 : 0));
    copy_in(r.sges, 0, grh);
    copy_in(r.sges, 40, p.payload());
    const bool imm = (op.flags & wire::kImm) != 0;
    complete_receive(q, r, cq::WcStatus::SUCCESS, 40u + p.payload_len,
                     cq::kWcGrh | (imm ? cq::kWcWithImm : 0u), imm ? p.immdt.value : 0u,
                     p.deth.srcqp, p.bth.se, cq::WcOpcode::RECV);
    return;
  }

  // ---- 1. PSN ------------------------------------------------------------------------------
  const std::int32_t d = qp::psn_diff(qp::Psn(psn), ctx.resp.epsn);
  if (rc) {
    if (d > 0) {
      // A gap: one PSN Sequence Error NAK per gap, carrying the expected PSN
      // (docs/spec-notes.md §3.3).
      if (!ctx.resp.sent_psn_nak) {
        ctx.resp.sent_psn_nak = true;
        a.observer_.on_nak(
            {now(), a.id_, ctx.qpn.value(), ctx.resp.epsn.value(), kNakPsnSeq, "psn_sequence"});
        send_ack(q, ctx.resp.epsn.value(), kNakPsnSeq);
      }
      return drop("psn_ahead");
    }
    if (d < 0) {
      // A duplicate (IBTA Vol. 1 C9-105; docs/spec-notes.md §4.5): SEND/WRITE are re-ACKed (rxe:
      // always), READ responses are regenerated from the responder resources, atomics replayed,
      // never re-executed.
      for (const qp::ResponderResource& res : ctx.resp.resources) {
        if (res.type == qp::ResourceType::ATOMIC && res.first_psn == qp::Psn(psn))
          return send_atomic_ack(q, psn, res.atomic_orig);
      }
      if (op.operation == Operation::COMPARE_SWAP || op.operation == Operation::FETCH_ADD) {
        // No responder resource holds it any more: never re-executed, dropped (errors table
        // RESP_DUPLICATE_UNAVAILABLE: drop().retries(...); rxe duplicate_request, class D).
        return refuse(q, p, errors::ErrorClass::RESP_DUPLICATE_UNAVAILABLE, nullptr, {});
      }
      if (op.operation == Operation::FLUSH || op.operation == Operation::ATOMIC_WRITE) {
        // Its empty READ RESPONSE ONLY again, with the MSN of the moment, from the resource
        // that holds it; none: dropped like a READ whose resource was recycled
        // (docs/spec-notes.md §4.5; rxe duplicate_request).
        const qp::ResourceType type = op.operation == Operation::FLUSH
                                          ? qp::ResourceType::FLUSH
                                          : qp::ResourceType::ATOMIC_WRITE;
        for (const qp::ResponderResource& res : ctx.resp.resources) {
          if (res.type == type && res.first_psn == qp::Psn(psn))
            return send_read_responses(q, psn, 0, 0, /*from_start=*/true);
        }
        return refuse(q, p, errors::ErrorClass::RESP_DUPLICATE_UNAVAILABLE, nullptr, {});
      }
      if (op.operation == Operation::READ_REQUEST) {
        // A READ asked again (its responses were lost, or the requester resumes a partial one):
        // regenerate from the responder resource, re-checking the key (rxe_recheck_mr); a
        // resumed READ continues with MIDDLE/LAST responses as rxe does (docs/spec-notes.md §11.8).
        std::uint64_t va = p.reth.va;
        std::uint32_t len = p.reth.dmalen;
        std::uint32_t rkey = p.reth.rkey;
        bool from_start = true;
        bool found = false;
        for (const qp::ResponderResource& res : ctx.resp.resources) {
          if (res.type != qp::ResourceType::READ || qp::psn_diff(qp::Psn(psn), res.first_psn) < 0 ||
              qp::psn_diff(qp::Psn(psn), res.last_psn) > 0)
            continue;
          found = true;
          const auto skip = static_cast<std::uint32_t>(qp::psn_diff(qp::Psn(psn), res.first_psn));
          va = res.va + std::uint64_t{skip} * ctx.mtu;
          len = res.length - skip * ctx.mtu;
          rkey = res.rkey;
          from_start = skip == 0;
          break;
        }
        // Its resource was recycled: dropped, not re-executed (errors table
        // RESP_DUPLICATE_UNAVAILABLE: drop().retries(...); rxe duplicate_request, class D).
        if (!found)
          return refuse(q, p, errors::ErrorClass::RESP_DUPLICATE_UNAVAILABLE, nullptr, {});
        mem::AccessRequest req{
            mem::MemOp::REMOTE_READ, mem::Key(rkey), qp_ref(ctx), va, len, 0, false};
        const mem::AccessResult r = a.mem_.check(req);
        if (!r.ok())
          return refuse(q, p, errors::ErrorClass::RESP_RKEY_VIOLATION, nullptr,
                        mem::to_string(r.outcome));
        send_read_responses(q, psn, r.host_addr, len, from_start);
        return;
      }
      // A pending coalesced ACK already says ePSN - 1: it is the re-ACK.
      if (!flush_pending_ack(q))
        send_ack(q, (ctx.resp.epsn - 1u).value(), a.config_.profile.ack_syndrome_credits);
      return;
    }
    ctx.resp.sent_psn_nak = false;
  } else {
    // UC (docs/spec-notes.md §3.3, §9.2): a PSN mismatch or drop mode drops until the next
    // FIRST/ONLY, which resynchronises; a message left without its LAST is abandoned (class D1).
    if (d != 0 || ctx.resp.drop_msg) {
      if (!op.starts_message()) {
        ctx.resp.drop_msg = true;
        return drop("uc_psn_or_drop_mode");
      }
      ctx.resp.drop_msg = false;
    }
    if (op.starts_message() && ctx.resp.opcode != qp::kNoOpcode) {
      if (q.active_recv) {
        receive_queue(q).push_front(std::move(*q.active_recv));  // rewind, no completion (rxe D1)
        q.active_recv.reset();
      }
      ctx.resp.opcode = qp::kNoOpcode;
      ctx.resp.write.active = false;
    }
    ctx.resp.epsn = qp::Psn(psn);
  }

  // ---- 2. Opcode sequence --------------------------------------------------------------------
  if (!sequence_ok(ctx.resp.opcode, op))
    return refuse(q, p, errors::ErrorClass::RESP_OPCODE_SEQUENCE, &q.active_recv, {});
  // ---- 3. QP access ------------------------------------------------------------------------
  if (!qp_access_ok(ctx.attr.qp_access_flags, op.operation,
                    p.has(Header::Feth) ? p.feth.placement : std::uint8_t{0}))
    return refuse(q, p, errors::ErrorClass::RESP_QP_ACCESS, &q.active_recv, {});
  // ---- 4. Resources --------------------------------------------------------------------------
  const bool rd_atomic =
      op.operation == Operation::READ_REQUEST || op.operation == Operation::COMPARE_SWAP ||
      op.operation == Operation::FETCH_ADD || op.operation == Operation::ATOMIC_WRITE;
  if (rd_atomic && ctx.attr.max_dest_rd_atomic == 0)
    return refuse(q, p, errors::ErrorClass::RESP_NO_RESOURCES_RD_ATOMIC, nullptr, {});
  std::optional<RecvWqe> imm_recv;  // the WQE a WRITE_WITH_IMM consumes at its last packet
  if (op.takes_recv_wqe()) {
    RecvWqe r;
    const int got = take_recv(r);
    // No WQE: RNR NAK with our min_rnr_timer, nothing changes, the requester retries (RC);
    // UC drops the message (docs/spec-notes.md §4.4).
    if (got == 0) return refuse(q, p, errors::ErrorClass::RESP_RNR, nullptr, "rnr");
    if (got < 0) {
      std::optional<RecvWqe> held = std::move(r);
      return refuse(q, p, errors::ErrorClass::RESP_RECV_WQE_PROTECTION, &held, {});
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
  std::optional<RecvWqe>* held = imm_recv ? &imm_recv : &q.active_recv;
  if (!length_ok(p, ctx.mtu)) return refuse(q, p, errors::ErrorClass::RESP_LENGTH, held, {});
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
      // A misaligned atomic is an invalid request, every other failure a remote access error
      // (docs/spec-notes.md §7.6, §4.4): the errors table maps the outcome.
      const auto cls =
          errors::error_for_access(req.op, target.outcome, errors::AccessSite::RESPONDER)
              .value_or(errors::ErrorClass::RESP_RKEY_VIOLATION);
      return refuse(q, p, cls, held, mem::to_string(target.outcome));
    }
    if (op.operation == Operation::WRITE) {
      ctx.resp.write = {true, target.zero_length_exempt ? 0 : target.host_addr, p.reth.rkey,
                        p.reth.dmalen};
      q.write_imm_total = p.reth.dmalen;
    }
  }
  if (op.operation == Operation::WRITE) {
    // The payload must fit the DMA length announced in the RETH (docs/spec-notes.md §1.7, §4.4).
    const std::uint32_t resid = ctx.resp.write.resid;
    if (p.payload_len > resid || (op.ends_message() && p.payload_len != resid))
      return refuse(q, p, errors::ErrorClass::RESP_WRITE_LENGTH, held, {});
  }

  // ---- Execute ------------------------------------------------------------------------------
  auto advance = [&] {
    ctx.resp.epsn = qp::Psn(psn) + 1u;
    ctx.resp.ack_psn = ctx.resp.epsn;
    ctx.resp.opcode = op.ends_message() ? qp::kNoOpcode : op.value;
  };
  switch (op.operation) {
    case Operation::SEND: {
      RecvWqe& r = *q.active_recv;
      if (!copy_in(r.sges, ctx.resp.recv_offset, p.payload()))
        return refuse(q, p, errors::ErrorClass::RESP_RECV_BUFFER_TOO_SMALL, &q.active_recv, {});
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
        if (inv_failed) {
          if (rc && outcome(ctx, errors::ErrorClass::RESP_INVALIDATE_FAILED).response ==
                        errors::Response::ACK)
            ack_executed(q, psn, p.bth.ackreq);
          // docs/spec-notes.md §11.9: rxe ACKs (above), completes the receive with REM_INV_REQ_ERR
          // and moves the QP to ERR; the IBA profile NAKs instead (errors table).
          std::optional<RecvWqe> failed = std::move(done);
          const errors::Outcome& o = outcome(ctx, errors::ErrorClass::RESP_INVALIDATE_FAILED);
          if (o.response == errors::Response::ACK) {
            complete_receive(q, *failed, o.receive_status.value_or(cq::WcStatus::REM_INV_REQ_ERR));
            return apply_state_change(q, o.responder_state,
                                      errors::ErrorClass::RESP_INVALIDATE_FAILED);
          }
          return refuse(q, p, errors::ErrorClass::RESP_INVALIDATE_FAILED, &failed, {});
        }
        complete_receive(q, done, cq::WcStatus::SUCCESS, ctx.resp.recv_offset, flags, imm, 0,
                         p.bth.se, cq::WcOpcode::RECV);
        // rxe completes before it acknowledges (rxe_resp.c: COMPLETE, then ACKNOWLEDGE): when
        // the receive CQ overruns, the QP is in ERR by now and the requester gets no ACK
        // (vectors/real/README.md, cq_overflow).
        if (rc && qp::state_rules(ctx.state()).rq_processes) ack_executed(q, psn, p.bth.ackreq);
        return;
      }
      if (rc) ack_executed(q, psn, p.bth.ackreq);
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
      if (imm_recv) {
        // rxe reports the RETH DMA length as byte_len (IBTA Vol. 1 §10.7.3.1;
        // docs/spec-notes.md §5.6).
        complete_receive(q, *imm_recv, cq::WcStatus::SUCCESS, q.write_imm_total, cq::kWcWithImm,
                         p.immdt.value, 0, p.bth.se, cq::WcOpcode::RECV_RDMA_WITH_IMM);
      }
      // Acknowledged after the completion, as for SEND: not at all if the CQ overran.
      if (rc && qp::state_rules(ctx.state()).rq_processes) ack_executed(q, psn, p.bth.ackreq);
      return;
    }
    case Operation::READ_REQUEST: {
      ++ctx.resp.msn;  // counted once, when the READ is accepted (C9-148; IBTA Vol. 1 C9-148;
                       // docs/spec-notes.md §3.5)
      const std::uint32_t len = p.reth.dmalen;
      const std::uint32_t n = len == 0 ? 1 : (len + ctx.mtu - 1) / ctx.mtu;
      if (qp::ResponderResource* res = take_resource(ctx)) {
        *res = {qp::ResourceType::READ,
                qp::Psn(psn),
                qp::Psn(psn) + (n - 1),
                qp::Psn(psn) + n,
                p.reth.va,
                len,
                p.reth.rkey,
                p.reth.va + len,
                0,
                0};
      }
      send_read_responses(q, psn, target.host_addr, len, /*from_start=*/true);
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
      if (qp::ResponderResource* res = take_resource(ctx)) {
        *res = {};
        res->type = qp::ResourceType::ATOMIC;
        res->first_psn = res->last_psn = qp::Psn(psn);
        res->atomic_orig = orig;
      }
      send_atomic_ack(q, psn, orig);
      advance();
      return;
    }
    case Operation::ATOMIC_WRITE:
    case Operation::FLUSH: {
      if (op.operation == Operation::ATOMIC_WRITE) a.memory_.write(target.host_addr, p.payload());
      ++ctx.resp.msn;
      // Each takes the next responder resource, so that a duplicate is answered again, never
      // executed again (docs/spec-notes.md §8.2, §4.5; rxe_resp.c rxe_prepare_res).
      if (qp::ResponderResource* res = take_resource(ctx)) {
        *res = {};
        res->type = op.operation == Operation::FLUSH ? qp::ResourceType::FLUSH
                                                     : qp::ResourceType::ATOMIC_WRITE;
        res->first_psn = res->last_psn = qp::Psn(psn);
      }
      // Both are answered by a zero-length READ RESPONSE ONLY (rxe; docs/spec-notes.md §8.4).
      send_read_responses(q, psn, 0, 0, /*from_start=*/true);
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
