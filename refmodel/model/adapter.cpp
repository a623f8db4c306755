// Verbs, frame admission, completions, errors and flush (docs/model.md).
#include "adapter_impl.h"

#include <algorithm>
#include <cerrno>

#include "rocecert/model/simulation.h"

namespace rocecert::model {

std::string_view to_string(PostError e) {
  switch (e) {
#define ROCECERT_POST_ERROR(name, errno_value) \
  case PostError::name:                        \
    return #name;
#include "rocecert/model/post_errors.def"
#undef ROCECERT_POST_ERROR
  }
  return "?";
}

int errno_value(PostError e) {
  switch (e) {
#define ROCECERT_POST_ERROR(name, errno_value) \
  case PostError::name:                        \
    return errno_value;
#include "rocecert/model/post_errors.def"
#undef ROCECERT_POST_ERROR
  }
  return EINVAL;
}

bool SendWqe::is_read_or_atomic() const {
  return wr.opcode == tx::WrOpcode::RDMA_READ || wr.opcode == tx::WrOpcode::ATOMIC_CMP_AND_SWP ||
         wr.opcode == tx::WrOpcode::ATOMIC_FETCH_AND_ADD || wr.opcode == tx::WrOpcode::ATOMIC_WRITE;
}

namespace {

qp::QpTableConfig qp_config(const AdapterConfig& c) {
  qp::QpTableConfig q = c.qp;
  qp::PathMtu mtu{};
  if (qp::path_mtu_from_bytes(c.port_mtu, mtu)) {
    q.device.active_mtu = mtu;
    if (qp::mtu_bytes(q.device.max_mtu) < c.port_mtu) q.device.max_mtu = mtu;
  }
  return q;
}

mem::MemConfig mem_config(const AdapterConfig& c) {
  mem::MemConfig m = c.mem;
  if (m.seed == 0) m.seed = c.seed;
  return m;
}

}  // namespace

// rdma_calc_flow_label + rdma_flow_label_to_udp_sport (include/rdma/ib_verbs.h; IBTA Vol. 1 Annex
// A17.4; docs/spec-notes.md §1.3).
std::uint16_t rxe_udp_sport(std::uint32_t lqpn, std::uint32_t rqpn) {
  std::uint64_t v = std::uint64_t{lqpn} * rqpn;
  v ^= v >> 20;
  v ^= v >> 40;
  const auto fl = static_cast<std::uint32_t>(v & 0xFFFFF);
  std::uint32_t low = fl & 0x3FFF;
  low ^= (fl & 0xFC000) >> 14;
  return static_cast<std::uint16_t>(low | 0xC000);
}

Adapter::Adapter(std::uint32_t id, AdapterConfig config, sim::EventQueue& events,
                 trace::Observer& observer)
    : id_(id),
      config_(std::move(config)),
      events_(events),
      observer_(observer),
      mem_(mem_config(config_)),
      qps_(qp_config(config_)),
      impl_(std::make_unique<Impl>(*this)) {}

Adapter::~Adapter() = default;

mem::Result<mem::Pd> Adapter::alloc_pd() {
  return mem_.alloc_pd();
}

mem::Result<mem::MrKeys> Adapter::reg_mr(const mem::MrRegistration& reg) {
  return mem_.reg_mr(reg);
}

qp::CqId Adapter::create_cq(std::uint32_t capacity) {
  const qp::CqId cq{impl_->next_cq++};
  // The errors profile decides whether an overrun leaves the CQ in error (IBA) or not (rxe).
  const auto overrun = errors::cq_error_is_sticky(config_.profile.error_profile)
                           ? cq::OverrunMode::STICKY
                           : cq::OverrunMode::TRANSIENT;
  cqs_.emplace(cq, cq::CompletionQueue(cq.value, capacity, overrun));
  return cq;
}

qp::AhId Adapter::create_ah(const qp::AddressVector& av) {
  const qp::AhId ah{impl_->next_ah++};
  impl_->ahs[ah] = av;
  return ah;
}

qp::CreateResult Adapter::create_qp(const qp::CreateQpParams& params) {
  const qp::CreateResult r = qps_.create_qp(params);
  if (!r.ok()) return r;
  Qp& q = impl_->qps.try_emplace(r.qpn.value(), *qps_.find(r.qpn)).first->second;
  if (params.srq) {
    const auto it = impl_->srqs.find(*params.srq);
    if (it != impl_->srqs.end()) q.srq = &it->second;
  }
  return r;
}

qp::ModifyResult Adapter::modify_qp(qp::Qpn qpn, const qp::QpAttr& attr, qp::AttrMask mask) {
  Qp* q = impl_->find_qp(qpn);
  if (q == nullptr) return qps_.modify_qp(qpn, attr, mask);  // QP_NOT_FOUND
  const qp::ModifyResult r = qps_.modify_qp(q->ctx, attr, mask);
  if (r.ok() && r.transition) {
    observer_.on_qp_transition(
        {events_.now(), id_, qpn.value(), r.transition->from, r.transition->to, "modify_qp"});
    if (r.transition->to == qp::QpState::RESET) {
      // Entering RESET discards every WQE without completions (docs/spec-notes.md §6.4).
      q->sq.clear();
      q->rq.clear();
      q->active_recv.reset();
    } else if (r.transition->flush_due) {
      impl_->flush(*q);
    }
    if (r.transition->to == qp::QpState::RTS) impl_->schedule_requester(*q);
    // SQD: the requester sees the drain state (rxe: the next time its task runs) and marks the
    // queue drained once nothing started is unfinished or unacknowledged (docs/spec-notes.md
    // §6.6); an RC queue with requests in flight is marked by the completer, on the last ACK.
    // The requester decides whether it is drained (requester.cpp), as rxe's does when it runs.
    if (r.transition->to == qp::QpState::SQD) impl_->schedule_requester(*q);
  }
  return r;
}

PostError Adapter::post_send(qp::Qpn qpn, const tx::SendWr& wr) {
  Qp* qo = impl_->find_qp(qpn);
  if (qo == nullptr) return PostError::NO_SUCH_QP;
  Qp& q = *qo;
  const qp::QpContext* ctx = &q.ctx;
  // What the state allows: qp::kStateRules (rocecert/qp/transitions.h).
  const qp::StateRules rules = qp::state_rules(ctx->state());
  if (!rules.post_send) return PostError::INVALID_STATE;
  const wire::Transport t = transport_of(ctx->type);
  const bool local_op = wr.opcode == tx::WrOpcode::LOCAL_INV || wr.opcode == tx::WrOpcode::BIND_MW;
  if (local_op) {
    // LOCAL_INV: RC only; BIND_MW: RC and UC (docs/spec-notes.md §2.5, rxe_wr_opcode_info).
    if (ctx->type == qp::QpType::UD ||
        (wr.opcode == tx::WrOpcode::LOCAL_INV && ctx->type != qp::QpType::RC))
      return PostError::INVALID_OPCODE;
  } else if (tx::wire_opcode(t, wr.opcode, wire::Position::ONLY) == tx::kNoOpcode) {
    return PostError::INVALID_OPCODE;
  }
  if (wr.sg_list.size() > ctx->caps.max_send_sge) return PostError::TOO_MANY_SGE;
  if ((wr.send_flags & tx::kSendInline) && wr.inline_data.size() > ctx->caps.max_inline_data)
    return PostError::INLINE_TOO_LONG;
  const bool atomic = wr.opcode == tx::WrOpcode::ATOMIC_CMP_AND_SWP ||
                      wr.opcode == tx::WrOpcode::ATOMIC_FETCH_AND_ADD;
  if (atomic && (wr.total_length() != 8 || (wr.remote_addr & 7) != 0)) return PostError::BAD_ATOMIC;
  if (wr.total_length() > tx::kMaxMessageLength) return PostError::MESSAGE_TOO_LONG;
  std::size_t live = 0;
  for (const SendWqe& w : q.sq) live += w.done ? 0 : 1;
  if (live >= ctx->caps.max_send_wr) return PostError::QUEUE_FULL;

  SendWqe wqe;
  wqe.wr = wr;
  wqe.length = wr.total_length();
  wqe.signaled = ctx->sq_sig_all || (wr.send_flags & tx::kSendSignaled) != 0;
  q.sq.push_back(std::move(wqe));
  if (rules.flush_on_post) {
    impl_->flush(q);  // WRs posted in ERR complete with WR_FLUSH_ERR
  } else {
    impl_->schedule_requester(q);
  }
  return PostError::OK;
}

PostError Adapter::post_recv(qp::Qpn qpn, const RecvWr& wr) {
  Qp* qo = impl_->find_qp(qpn);
  if (qo == nullptr) return PostError::NO_SUCH_QP;
  Qp& q = *qo;
  const qp::QpContext* ctx = &q.ctx;
  const qp::StateRules rules = qp::state_rules(ctx->state());
  if (!rules.post_recv) return PostError::INVALID_STATE;
  if (ctx->has_srq) return PostError::SRQ_ATTACHED;  // receives go to the SRQ (ibv: EINVAL)
  if (wr.sg_list.size() > ctx->caps.max_recv_sge) return PostError::TOO_MANY_SGE;
  if (q.rq.size() >= ctx->caps.max_recv_wr) return PostError::QUEUE_FULL;
  RecvWqe r;
  r.wr = wr;
  q.rq.push_back(std::move(r));
  if (rules.flush_on_post) impl_->flush(q);
  return PostError::OK;
}

qp::SrqId Adapter::create_srq(std::uint32_t max_wr, std::uint32_t max_sge) {
  const qp::SrqId id{impl_->next_srq++};
  Srq& srq = impl_->srqs[id];
  srq.max_wr = max_wr;
  srq.max_sge = max_sge;
  return id;
}

std::uint64_t Adapter::cnps_received(qp::Qpn qpn) const {
  const Qp* q = impl_->find_qp(qpn);
  return q == nullptr ? 0 : q->cnps_received;
}

void Adapter::Impl::maybe_send_cnp(Qp& q, const wire::ParsedFrame& p, std::uint32_t sender_qpn) {
  const sim::SimTime interval = a.config_.profile.cnp_interval_ns;
  if (q.last_cnp_sent && now() - *q.last_cnp_sent < interval) return;
  q.last_cnp_sent = now();
  // CNP: BTH opcode 0x81, BECN set, DestQP = the QP whose packets were marked, PSN 0, A 0,
  // then 16 reserved bytes (Annex A17.9.3; IBTA Vol. 1 Annex A17.9.3; docs/spec-notes.md §10.2).
  // Sent back to the packet's source.
  qp::AddressVector av;
  av.dmac = p.eth.src;
  if (p.ip.version == 4) {
    av.dgid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    std::copy_n(p.ip.src.begin(), 4, av.dgid.begin() + 12);
  } else {
    av.dgid = p.ip.src;
  }
  av.hop_limit = a.config_.profile.ipv4_ttl;
  av.traffic_class = a.config_.profile.cnp_traffic_class;
  wire::FrameSpec s = base_spec(q, av, sender_qpn);
  s.bth.opcode = wire::to_u8(wire::Opcode::CNP_CNP);
  s.bth.becn = true;
  s.bth.psn = 0;
  transmit(s);
}

PostError Adapter::post_srq_recv(qp::SrqId srq, const RecvWr& wr) {
  auto it = impl_->srqs.find(srq);
  if (it == impl_->srqs.end()) return PostError::NO_SUCH_SRQ;
  if (wr.sg_list.size() > it->second.max_sge) return PostError::TOO_MANY_SGE;
  if (it->second.rq.size() >= it->second.max_wr) return PostError::QUEUE_FULL;
  RecvWqe r;
  r.wr = wr;
  it->second.rq.push_back(std::move(r));
  return PostError::OK;
}

bool Adapter::arm_srq_limit(qp::SrqId srq, std::uint32_t limit) {
  auto it = impl_->srqs.find(srq);
  if (it == impl_->srqs.end() || limit > it->second.max_wr) return false;
  it->second.limit = limit;
  return true;
}

std::deque<RecvWqe>& Adapter::Impl::receive_queue(Qp& q) {
  return q.ctx.has_srq && q.srq != nullptr ? q.srq->rq : q.rq;
}

void Adapter::Impl::srq_consumed(const Qp& q) {
  Srq* srq = q.ctx.has_srq ? q.srq : nullptr;
  if (srq == nullptr || srq->limit == 0 || srq->rq.size() >= srq->limit) return;
  srq->limit = 0;
  a.observer_.on_async_event(
      {now(), a.id_, errors::AsyncEventType::SRQ_LIMIT_REACHED, q.ctx.srq.value});
}

std::vector<cq::Wc> Adapter::poll_cq(qp::CqId cq, std::size_t max) {
  auto it = cqs_.find(cq);
  if (it == cqs_.end()) return {};
  return it->second.poll(max);
}

PostError Adapter::req_notify_cq(qp::CqId cq, bool solicited_only) {
  auto it = cqs_.find(cq);
  if (it == cqs_.end()) return PostError::NO_SUCH_CQ;
  it->second.arm(solicited_only);
  return PostError::OK;
}

// ---- frames in ------------------------------------------------------------------------------

void Adapter::receive(std::vector<std::uint8_t> frame) {
  const wire::ParsedFrame p = wire::decode(frame);  // untrusted: every check, ICRC included
  observer_.on_frame({events_.now(), id_, trace::Direction::RX, frame, &p});
  // Every admission check is a RECEIVER class of the errors table (errors/error_classes.def).
  using enum errors::ErrorClass;
  auto drop = [&](std::string_view reason, std::optional<errors::ErrorClass> cls) {
    observer_.on_drop({events_.now(), id_, reason, frame, &p,
                       cls ? errors::to_string(*cls) : std::string_view{}});
  };
  // Admission, in rxe_rcv order (docs/spec-notes.md §1.9); every failure is a silent drop.
  if (p.has_error || !p.roce || !p.has_bth) return drop("malformed", PKT_MALFORMED);
  if (!std::equal(p.ip.dst.begin(), p.ip.dst.begin() + (p.ip.version == 4 ? 4 : 16),
                  config_.gid.begin() + (p.ip.version == 4 ? 12 : 0)))
    return drop("not_our_address", PKT_MALFORMED);
  if (p.bth.tver != 0) return drop("tver", PKT_MALFORMED);
  Qp* q = impl_->find_qp(qp::Qpn(p.bth.dqpn));
  qp::QpContext* ctx = q != nullptr ? &q->ctx : nullptr;
  if (p.op->transport == wire::Transport::CNP) {
    // A CNP carries no transport semantics: no PSN, no NAK, no sequence effect (IBTA Vol. 1 Annex
    // A17.9.3; docs/spec-notes.md §10.2); it only tells the reaction point that its packets to the
    // peer met congestion.
    if (ctx == nullptr) return drop("cnp_for_no_qp", std::nullopt);
    if (!p.icrc_ok)
      return drop("icrc", PKT_ICRC_ERROR);  // the reason every other packet with a bad ICRC gets
    ++q->cnps_received;
    if (config_.profile.dcqcn) {
      // Reaction point (Annex A17.9; docs/dcqcn.md): the CNP cuts the QP's rate.
      cc::DcqcnSender& rc = impl_->rate_controller(*q);
      rc.on_cnp(events_.now());
      const cc::DcqcnReactionPoint& rp = rc.reaction_point();
      observer_.on_rate({events_.now(), id_, p.bth.dqpn, rp.current_rate_gbps(),
                         rp.target_rate_gbps(), rp.alpha(), "cnp"});
    }
    return;
  }
  if (p.bth.dqpn == 0 || ctx == nullptr) return drop("no_such_qp", PKT_INVALID_DEST_QP);
  if (p.op->transport != transport_of(ctx->type))
    return drop("transport_mismatch", PKT_INVALID_DEST_QP);
  const qp::StateRules rules = qp::state_rules(ctx->state());
  const bool admitted = p.op->is_request() ? rules.rq_processes : rules.processes_responses;
  if (!admitted) return drop("qp_state", PKT_QP_NOT_READY);
  // A connected QP takes packets only from the address it is connected to (rxe check_addr;
  // errors table PKT_ADDRESS_MISMATCH: drop). The destination was checked above.
  if (ctx->type != qp::QpType::UD) {
    const std::array<std::uint8_t, 16>& peer = ctx->attr.ah_attr.dgid;
    if (!std::equal(p.ip.src.begin(), p.ip.src.begin() + (p.ip.version == 4 ? 4 : 16),
                    peer.begin() + (p.ip.version == 4 ? 12 : 0)))
      return drop("address_mismatch", PKT_ADDRESS_MISMATCH);
  }
  // P_Key (docs/spec-notes.md §1.5): low 15 bits equal and non-zero, one of the two a full member.
  const std::uint16_t ours = config_.profile.pkey;
  if ((p.bth.pkey & 0x7FFF) != (ours & 0x7FFF) || (p.bth.pkey & 0x7FFF) == 0 ||
      ((p.bth.pkey | ours) & 0x8000) == 0)
    return drop("pkey", PKT_PKEY_VIOLATION);
  if (ctx->type == qp::QpType::UD && p.deth.qkey != ctx->attr.qkey)
    return drop("qkey", PKT_QKEY_VIOLATION);
  if (!p.icrc_ok) return drop("icrc", PKT_ICRC_ERROR);
  if (p.ip.ecn == 3 && config_.profile.send_cnp) {
    impl_->maybe_send_cnp(*q, p,
                          ctx->type == qp::QpType::UD ? p.deth.srcqp : ctx->attr.dest_qp_num);
  }
  if (p.op->is_request()) {
    impl_->handle_request(*q, p);
  } else {
    impl_->handle_response(*q, p);
  }
}

bool Adapter::deliver_request(qp::Qpn qpn, const wire::ParsedFrame& p) {
  Qp* q = impl_->find_qp(qpn);
  if (q == nullptr || !p.has_bth || p.op == nullptr || !p.op->is_request()) return false;
  if (p.op->transport != transport_of(q->ctx.type)) return false;
  if (!qp::state_rules(q->ctx.state()).rq_processes) return false;
  impl_->handle_request(*q, p);
  return true;
}

bool Adapter::deliver_response(qp::Qpn qpn, const wire::ParsedFrame& p) {
  Qp* q = impl_->find_qp(qpn);
  if (q == nullptr || !p.has_bth || p.op == nullptr || p.op->is_request()) return false;
  if (p.op->transport != transport_of(q->ctx.type)) return false;
  if (!qp::state_rules(q->ctx.state()).processes_responses) return false;
  impl_->handle_response(*q, p);
  return true;
}

bool Adapter::replay_set_path_mtu(qp::Qpn qpn, std::uint32_t mtu) {
  Qp* q = impl_->find_qp(qpn);
  qp::PathMtu path{};
  if (q == nullptr || !qp::path_mtu_from_bytes(mtu, path)) return false;
  q->ctx.attr.path_mtu = path;
  q->ctx.mtu = mtu;
  return true;
}

// ---- helpers shared by the engines -----------------------------------------------------------

wire::FrameSpec Adapter::Impl::base_spec(Qp& q, const qp::AddressVector& av,
                                         std::uint32_t dest_qpn) {
  const qp::QpContext& ctx = q.ctx;
  wire::FrameSpec s;
  s.eth.src = a.config_.mac;
  s.eth.dst = av.dmac;
  const bool v4 = qp::is_ipv4_mapped(a.config_.gid);
  s.ip.version = v4 ? 4 : 6;
  s.ip.dscp = static_cast<std::uint8_t>(av.traffic_class >> 2);
  s.ip.ecn = static_cast<std::uint8_t>(av.traffic_class & 3);
  s.ip.ttl = av.hop_limit;
  if (v4) {
    std::copy_n(a.config_.gid.begin() + 12, 4, s.ip.src.begin());
    std::copy_n(av.dgid.begin() + 12, 4, s.ip.dst.begin());
    s.ip.id = q.ip_id++;  // covered by the ICRC
    s.ip.frag = a.config_.profile.ipv4_df ? 0x4000 : 0;
  } else {
    s.ip.src = a.config_.gid;
    s.ip.dst = av.dgid;
    s.ip.flow_label = av.flow_label;
  }
  s.udp.sport = av.udp_sport != 0 ? av.udp_sport
                : a.config_.profile.sport == Profile::SportPolicy::FIXED
                    ? a.config_.profile.fixed_sport
                    : rxe_udp_sport(ctx.qpn.value(), dest_qpn);
  s.bth.pkey = a.config_.profile.pkey;
  s.bth.dqpn = dest_qpn;
  return s;
}

std::size_t Adapter::Impl::transmit(const wire::FrameSpec& spec) {
  wire::FrameSpec s = spec;
  wire::finalize(s);
  if (a.link_ == nullptr && !a.observer_.needs_frame_bytes()) {
    // Nobody reads the bytes (the checker's golden responder reads the spec): not encoded.
    trace::FrameEvent e{now(), a.id_, trace::Direction::TX, {}};
    e.spec = &s;
    a.observer_.on_frame(e);
    return wire::encoded_length(s);
  }
  std::vector<std::uint8_t> frame = wire::encode(s);
  const std::size_t length = frame.size();
  if (a.observer_.needs_decoded_frames()) {
    // Decoded once here for every observer. The ICRC was just computed by encode() unless the
    // spec carries one of its own, so only such a frame has it verified.
    wire::DecodeOptions opts;
    opts.verify_icrc = s.icrc.has_value();
    wire::ParsedFrame p = wire::decode(frame, opts);
    if (!opts.verify_icrc && p.has_icrc) {
      p.icrc_computed = p.icrc;
      p.icrc_checked = true;
      p.icrc_ok = true;
    }
    a.observer_.on_frame({now(), a.id_, trace::Direction::TX, frame, &p, &s});
  } else {
    a.observer_.on_frame({now(), a.id_, trace::Direction::TX, frame, nullptr, &s});
  }
  if (a.link_ != nullptr) a.link_->transmit(a, std::move(frame));
  return length;
}

cc::DcqcnSender& Adapter::Impl::rate_controller(Qp& q) {
  if (!q.dcqcn) {
    q.dcqcn = std::make_unique<cc::DcqcnSender>(a.config_.profile.dcqcn_params,
                                                a.config_.profile.line_rate_gbps);
  }
  return *q.dcqcn;
}

double Adapter::send_rate_gbps(qp::Qpn qpn) const {
  const Qp* q = impl_->find_qp(qpn);
  if (!config_.profile.dcqcn || q == nullptr) return 0;
  // Evaluated on a copy: the time-driven updates up to now are applied to the copy only, and a
  // QP without a rate controller yet answers what a fresh one would (docs/dcqcn.md).
  cc::DcqcnReactionPoint rp = q->dcqcn ? q->dcqcn->reaction_point()
                                       : cc::DcqcnReactionPoint(config_.profile.dcqcn_params,
                                                                config_.profile.line_rate_gbps);
  return rp.rate_gbps(events_.now());
}

void Adapter::Impl::complete(qp::CqId cq_id, const cq::Wc& wc, bool solicited, Qp& q,
                             bool send_side) {
  auto it = a.cqs_.find(cq_id);
  if (it == a.cqs_.end()) return;
  const cq::PushResult r = it->second.push(wc, solicited);
  if (r == cq::PushResult::OK || r == cq::PushResult::OK_NOTIFY) {
    a.observer_.on_cqe({now(), a.id_, cq_id.value, wc, solicited});
    return;
  }
  if (r == cq::PushResult::OVERFLOW) {
    // A CQ overrun is a CQ error (IBA §11.4.2.1): async CQ_ERR.
    a.observer_.on_async_event({now(), a.id_, errors::AsyncEventType::CQ_ERR, cq_id.value});
  }
  if (flushing) return;
  // What the overrun does to the QP that could not complete: the errors table (rxe: a full
  // receive CQ moves the QP to ERR, a full send CQ loses the completion and nothing else).
  if (q.ctx.state() == qp::QpState::ERR) return;
  const auto cls =
      send_side ? errors::ErrorClass::CQ_OVERFLOW_SEND : errors::ErrorClass::CQ_OVERFLOW;
  const errors::Outcome& o = outcome(q.ctx, cls);
  // The table's events besides CQ_ERR (raised above): IBA QP_FATAL on the QP (error_classes.def
  // rows CQ_OVERFLOW and CQ_OVERFLOW_SEND: raise(CQ_ERR, QP_FATAL)).
  raise_events(q.ctx, o);
  apply_state_change(q, send_side ? o.requester_state : o.responder_state, cls);
}

void Adapter::Impl::enter_error(Qp& q, errors::ErrorClass cause) {
  const qp::QpContext& ctx = q.ctx;
  const auto t = a.qps_.enter_error(q.ctx);
  if (!t) return;
  // Timers are cancelled (docs/spec-notes.md §6.5).
  if (q.retransmit_timer != 0) a.events_.cancel(q.retransmit_timer);
  if (q.rnr_timer != 0) a.events_.cancel(q.rnr_timer);
  q.retransmit_timer = q.rnr_timer = 0;
  errors::ErrorEvent ev;
  ev.time_ns = now();
  ev.qp = {a.id_, ctx.qpn.value()};
  ev.error = cause;
  pending_errors.push_back({ev, t->from});
  if (!resolve_scheduled) {
    resolve_scheduled = true;
    // Scheduled now, it runs after every event already queued for this instant.
    a.events_.schedule_in(0, [this] { resolve_errors(); });
  }
}

void Adapter::Impl::resolve_errors() {
  resolve_scheduled = false;
  std::vector<errors::ErrorEvent> events;
  for (const PendingError& p : pending_errors) events.push_back(p.event);
  const errors::Arbitration order =
      errors::arbitrate(events, a.config_.profile.arbitration, arbitration_cursor);
  arbitration_cursor = order.cursor;
  const std::vector<PendingError> pending = std::move(pending_errors);
  pending_errors.clear();
  for (const errors::ErrorEvent& e : order.order) {
    Qp* q = find_qp(qp::Qpn(e.qp.qpn));
    if (q == nullptr) continue;
    qp::QpState from = qp::QpState::RTS;
    for (const PendingError& p : pending)
      if (p.event.qp.qpn == e.qp.qpn && p.event.error == e.error) from = p.from;
    a.observer_.on_qp_transition(
        {now(), a.id_, e.qp.qpn, from, qp::QpState::ERR, errors::to_string(e.error)});
    if (q->ctx.state() == qp::QpState::ERR) flush(*q);
  }
}

void Adapter::Impl::flush(Qp& q) {
  // docs/spec-notes.md §6.5: every outstanding SQ WQE, in order, then every RQ WQE, with
  // WR_FLUSH_ERR; error completions are always generated, signaled or not (§5.6).
  qp::QpContext& ctx = q.ctx;
  const bool sq_only = qp::state_rules(ctx.state()).flush == qp::QueueFlush::SEND_QUEUE;
  flushing = true;
  for (SendWqe& w : q.sq) {
    if (w.done) continue;
    w.done = true;
    cq::Wc wc;
    wc.wr_id = w.wr.wr_id;
    wc.status = cq::WcStatus::WR_FLUSH_ERR;
    wc.qp_num = ctx.qpn.value();
    complete(ctx.send_cq, wc, false, q, true);
  }
  q.sq.clear();
  if (!sq_only && ctx.has_srq && q.active_recv) {
    // A WQE taken from the SRQ by a message in progress completes in error; the SRQ itself
    // is not flushed by a QP error (docs/spec-notes.md §6.5).
    cq::Wc wc;
    wc.wr_id = q.active_recv->wr.wr_id;
    wc.status = cq::WcStatus::WR_FLUSH_ERR;
    wc.qp_num = ctx.qpn.value();
    q.active_recv.reset();
    complete(ctx.recv_cq, wc, false, q, false);
  }
  if (!sq_only && !ctx.has_srq) {
    if (q.active_recv) {
      q.rq.push_front(std::move(*q.active_recv));
      q.active_recv.reset();
    }
    while (!q.rq.empty()) {
      cq::Wc wc;
      wc.wr_id = q.rq.front().wr.wr_id;
      wc.status = cq::WcStatus::WR_FLUSH_ERR;
      wc.qp_num = ctx.qpn.value();
      q.rq.pop_front();
      complete(ctx.recv_cq, wc, false, q, false);
    }
  }
  flushing = false;
  ctx.flush_pending = false;
  // IBA: a QP on an SRQ that is in ERR will consume no more WQEs from it: Last WQE Reached
  // (IBA §11.6.3; errors::raises_last_wqe_reached). rxe raises no QP event.
  if (!sq_only &&
      errors::raises_last_wqe_reached(a.config_.profile.error_profile, ctx.has_srq, true))
    a.observer_.on_async_event(
        {now(), a.id_, errors::AsyncEventType::QP_LAST_WQE_REACHED, ctx.qpn.value()});
}

bool Adapter::Impl::resolve_sges(const qp::QpContext& ctx, const std::vector<tx::Sge>& sges,
                                 mem::MemOp op, std::vector<ResolvedSge>& out,
                                 mem::AccessResult& failure, std::uint32_t& bad_key) {
  out.clear();
  for (const tx::Sge& s : sges) {
    if (s.length == 0)
      continue;  // zero-length SGEs are skipped without lookup (IBTA Vol. 1 §10.6;
                 // docs/spec-notes.md §7.3)
    mem::AccessRequest req;
    req.op = op;
    req.key = mem::Key(s.lkey);
    req.qp = qp_ref(ctx);
    req.va = s.addr;
    req.length = s.length;
    const mem::AccessResult r = a.mem_.check(req);
    if (!r.ok()) {
      failure = r;
      bad_key = s.lkey;
      a.observer_.on_access_denied(
          {now(), a.id_, ctx.qpn.value(), s.lkey, s.addr, s.length, mem::to_string(r.outcome)});
      return false;
    }
    out.push_back({r.host_addr, s.length});
  }
  return true;
}

void Adapter::Impl::copy_out(const std::vector<ResolvedSge>& sges, std::uint64_t offset,
                             std::span<std::uint8_t> out) {
  std::size_t done = 0;
  for (const ResolvedSge& s : sges) {
    if (done == out.size()) break;
    if (offset >= s.length) {
      offset -= s.length;
      continue;
    }
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(s.length - offset, out.size() - done));
    a.memory_.read(s.host_addr + offset, out.subspan(done, n));
    done += n;
    offset = 0;
  }
}

bool Adapter::Impl::copy_in(const std::vector<ResolvedSge>& sges, std::uint64_t offset,
                            std::span<const std::uint8_t> in) {
  std::size_t done = 0;
  for (const ResolvedSge& s : sges) {
    if (done == in.size()) break;
    if (offset >= s.length) {
      offset -= s.length;
      continue;
    }
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(s.length - offset, in.size() - done));
    a.memory_.write(s.host_addr + offset, in.subspan(done, n));
    done += n;
    offset = 0;
  }
  return done == in.size();
}

}  // namespace rocecert::model
