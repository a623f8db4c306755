// The adapter's private state and the functions of its three engines (docs/model.md):
//   requester.cpp  send queue → packets (tx), local operations, window and credits
//   responder.cpp  requests in → checks in rxe's order → execute, ACK/NAK, receive completions
//   completer.cpp  responses in → WQE completion in order, READ/atomic results
// plus adapter.cpp (verbs, admission, errors and flush). One Impl per Adapter.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "rocecert/errors/arbitration.h"
#include "rocecert/model/adapter.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"

namespace rocecert::model {

// The wire transport a QP type speaks (its opcodes' top three bits).
inline wire::Transport transport_of(qp::QpType t) {
  switch (t) {
    case qp::QpType::RC:
      return wire::Transport::RC;
    case qp::QpType::UC:
      return wire::Transport::UC;
    case qp::QpType::UD:
      return wire::Transport::UD;
  }
  return wire::Transport::RC;
}

// A gather/scatter list resolved through the key table: host addresses, validated once.
struct ResolvedSge {
  std::uint64_t host_addr = 0;
  std::uint32_t length = 0;
};

struct SendWqe {
  tx::SendWr wr;
  std::uint64_t length = 0;
  bool signaled = false;
  bool started = false;  // PSNs assigned, plan made
  bool done = false;     // completed (CQE generated or retired)
  tx::SegmentPlan plan;
  std::size_t next_pkt = 0;  // next packet of the plan to transmit
  qp::Psn first_psn, last_psn;
  std::vector<ResolvedSge> sges;    // resolved gather (send) or scatter (READ/atomic result)
  std::uint64_t read_received = 0;  // READ: bytes placed so far
  std::uint32_t read_resume = 0;    // READ re-issued by go-back-N: response packets to skip
  bool holds_credit = false;        // READ/atomic/ATOMIC_WRITE: holds an rd_atomic credit

  bool fully_sent() const { return started && next_pkt >= plan.packets.size(); }
  bool is_read_or_atomic() const;
};

struct RecvWqe {
  RecvWr wr;
  std::vector<ResolvedSge> sges;  // resolved when the WQE is taken (LOCAL_WRITE)
  std::uint64_t capacity = 0;
};

struct Srq {
  std::deque<RecvWqe> rq;
  std::uint32_t max_wr = 0;
  std::uint32_t max_sge = 0;
  std::uint32_t limit = 0;  // 0: not armed
};

// One QP of the model, as rxe keeps one `struct rxe_qp` (drivers/infiniband/sw/rxe/rxe_verbs.h):
// the context the state machine works on (attributes, state, PSNs; owned by qp::QpTable, whose
// map nodes never move) plus everything the engines keep per QP: the work queues, the timers,
// the responder's receive in progress and pending ACK, the reaction point's rate controller.
// Each entry point (a frame in, a verb, a timer) looks the QP up once and passes it on.
struct Qp {
  explicit Qp(qp::QpContext& context) : ctx(context) {}
  Qp(const Qp&) = delete;
  Qp& operator=(const Qp&) = delete;

  qp::QpContext& ctx;
  Srq* srq = nullptr;  // the SRQ it takes receive WQEs from (ctx.has_srq), if any
  std::deque<SendWqe> sq;
  std::deque<RecvWqe> rq;
  std::optional<RecvWqe> active_recv;  // the receive WQE a multi-packet SEND is filling
  bool requester_scheduled = false;
  std::uint32_t write_imm_total = 0;       // RETH DMA length of the WRITE_WITH_IMM in progress
  sim::EventId retransmit_timer = 0;       // pending local ACK timeout event, 0 if none
  sim::EventId rnr_timer = 0;              // pending RNR wait, 0 if none
  bool timeout_retry = false;              // the retry in progress was started by the ACK timer
  std::uint64_t cnps_received = 0;         // reaction point: CNPs addressed to this QP
  std::unique_ptr<cc::DcqcnSender> dcqcn;  // reaction point's rate and pacer (Profile::dcqcn)
  std::uint16_t ip_id = 0;                 // IPv4 identification, counted per QP so that one QP's
                                           // retransmissions never change another QP's bytes
  std::optional<sim::SimTime> last_cnp_sent;  // notification point: rate limit per QP
  // Responder: the coalesced ACK not sent yet (Profile::ack, COALESCE mode).
  struct PendingAck {
    bool armed = false;     // an AckReq'd packet waits for its ACK
    std::uint32_t psn = 0;  // the latest executed SEND/WRITE packet, and the MSN after it
    std::uint32_t msn = 0;
    std::uint32_t unacked = 0;  // executed packets since the last ACK
    sim::EventId timer = 0;
  } pending_ack;
};

struct Adapter::Impl {
  Adapter& a;
  std::map<std::uint32_t, Qp> qps;  // by QPN, one per context of a.qps_
  std::map<qp::AhId, qp::AddressVector> ahs;
  std::map<qp::SrqId, Srq> srqs;
  std::uint32_t next_srq = 1;
  std::uint32_t next_ah = 1;
  std::uint32_t next_cq = 1;
  TxPacer* pacer = nullptr;  // Adapter::set_tx_pacer
  bool flushing = false;     // a flush is walking the queues: completions must not recurse
  std::vector<std::uint8_t> scratch;

  explicit Impl(Adapter& adapter) : a(adapter) {}

  // adapter.cpp
  // The one lookup of an entry point; nullptr if there is no such QP.
  Qp* find_qp(qp::Qpn qpn) {
    const auto it = qps.find(qpn.value());
    return it == qps.end() ? nullptr : &it->second;
  }
  const Qp* find_qp(qp::Qpn qpn) const {
    const auto it = qps.find(qpn.value());
    return it == qps.end() ? nullptr : &it->second;
  }
  sim::SimTime now() const { return a.events_.now(); }
  mem::QpRef qp_ref(const qp::QpContext& ctx) const {
    return {ctx.qpn.value(), mem::Pd{ctx.pd.value}};
  }
  wire::FrameSpec base_spec(Qp& q, const qp::AddressVector& av, std::uint32_t dest_qpn);
  std::size_t transmit(const wire::FrameSpec& spec);  // returns the frame's length
  // The QP's DCQCN reaction point, made on first use (Profile::dcqcn).
  cc::DcqcnSender& rate_controller(Qp& q);
  // `send_side`: a send WQE's completion (else a receive WQE's); a send and a receive CQ may
  // be the same CQ, so the CQ cannot tell which overran (errors table: CQ_OVERFLOW_SEND vs
  // CQ_OVERFLOW).
  void complete(qp::CqId cq, const cq::Wc& wc, bool solicited, Qp& q, bool send_side);
  // A transport or local error moves the QP to ERR at once (so it takes no more packets); its
  // flush and the report of the transition are handled at the end of the simulated instant,
  // for all QPs that failed in it, in the order errors::arbitrate gives
  // (docs/error-arbitration.md).
  void enter_error(Qp& q, errors::ErrorClass cause);
  void resolve_errors();
  struct PendingError {
    errors::ErrorEvent event;
    qp::QpState from;
  };
  std::vector<PendingError> pending_errors;
  bool resolve_scheduled = false;
  errors::RoundRobinCursor arbitration_cursor;
  void flush(Qp& q);
  bool resolve_sges(const qp::QpContext& ctx, const std::vector<tx::Sge>& sges, mem::MemOp op,
                    std::vector<ResolvedSge>& out, mem::AccessResult& failure,
                    std::uint32_t& bad_key);
  void copy_out(const std::vector<ResolvedSge>& sges, std::uint64_t offset,
                std::span<std::uint8_t> out);  // gather
  bool copy_in(const std::vector<ResolvedSge>& sges, std::uint64_t offset,
               std::span<const std::uint8_t> in);  // scatter; false if it does not fit

  // requester.cpp
  void schedule_requester(Qp& q);
  void schedule_requester_at(Qp& q, sim::SimTime at);
  void run_requester(Qp& q);
  std::size_t send_packet(Qp& q, SendWqe& wqe, const tx::Segment& seg);  // frame bytes
  bool start_wqe(Qp& q, SendWqe& wqe);                                   // false: cannot start now
  void complete_send(Qp& q, SendWqe& wqe, cq::WcStatus status);

  // The receive queue a QP takes its WQEs from: its own, or its SRQ's.
  std::deque<RecvWqe>& receive_queue(Qp& q);
  void srq_consumed(const Qp& q);  // SRQ limit event

  // reliability.cpp: timers, retries and go-back-N (IBA §9.7.6; rxe_comp.c, rxe_req.c)
  void arm_retransmit(Qp& q);  // (re)start the local ACK timer if anything is outstanding
  void cancel_retransmit(Qp& q);
  void on_retransmit_timeout(Qp& q);
  // Counts one retry against retry_cnt; false (and the QP in ERR) when none is left.
  bool consume_retry(Qp& q, trace::RetryKind kind, qp::Psn from);
  void go_back_n(Qp& q, qp::Psn from);
  // A NAK or an implied NAK asks for a retry: started unless one (not started by the timer) is
  // already in progress (rxe: "started_retry && !timeout_retry"), which would only multiply
  // retransmissions of the same packets.
  void retry_from(Qp& q, trace::RetryKind kind, qp::Psn from);
  void on_rnr_nak(Qp& q, qp::Psn psn, std::uint8_t timer_code);

  // Notification point: a CE-marked packet arrived for `q` from `sender_qpn`.
  void maybe_send_cnp(Qp& q, const wire::ParsedFrame& p, std::uint32_t sender_qpn);

  // responder.cpp
  void handle_request(Qp& q, const wire::ParsedFrame& p);
  void send_ack(Qp& q, std::uint32_t psn, std::uint8_t syndrome);
  // Every responder frame leaves through here: a pending coalesced ACK goes first.
  void transmit_response(Qp& q, const wire::FrameSpec& spec);
  // An executed SEND/WRITE packet: ACKed now, later (coalesced) or not, per Profile::ack.
  void ack_executed(Qp& q, std::uint32_t psn, bool ackreq);
  // Sends the pending coalesced ACK, if any; true if one was sent.
  bool flush_pending_ack(Qp& q);
  void send_read_responses(Qp& q, std::uint32_t psn, std::uint64_t host_addr, std::uint32_t len,
                           bool from_start);
  // The ATOMIC ACKNOWLEDGE of `psn`, carrying `orig` (a fresh atomic or a repeat's resource).
  void send_atomic_ack(Qp& q, std::uint32_t psn, std::uint64_t orig);
  // The next responder resource slot (oldest reused), nullptr if the QP has none.
  qp::ResponderResource* take_resource(qp::QpContext& ctx);
  // A request refused for error class `cls` (refmodel/errors): the receive WQE it holds, if
  // any, completes with the table's status; the NAK / RNR NAK / silent drop; the state change.
  void refuse(Qp& q, const wire::ParsedFrame& p, errors::ErrorClass cls,
              std::optional<RecvWqe>* held, std::string_view detail);
  void complete_receive(Qp& q, const RecvWqe& r, cq::WcStatus status, std::uint32_t byte_len = 0,
                        std::uint32_t flags = 0, std::uint32_t imm = 0, std::uint32_t src_qp = 0,
                        bool solicited = false, cq::WcOpcode opcode = cq::WcOpcode::RECV);
  const errors::Outcome& outcome(const qp::QpContext& ctx, errors::ErrorClass cls) const {
    return errors::outcome(cls, ctx.type, a.config_.profile.error_profile);
  }
  // The requester side of an error class: the WQE completes with the table's status and the
  // QP takes the table's state change (ERR, SQE for UC/UD under the IBA profile, or none).
  void fail_wqe(Qp& q, SendWqe& w, errors::ErrorClass cls);
  // Raises the affiliated asynchronous events an outcome names (CQ_ERR is raised where the CQ
  // overruns, so it is skipped here).
  void raise_events(const qp::QpContext& ctx, const errors::Outcome& o);
  // Applies a requester- or responder-side state change of the table to `q`.
  void apply_state_change(Qp& q, errors::StateChange change, errors::ErrorClass cause);

  // completer.cpp
  void handle_response(Qp& q, const wire::ParsedFrame& p);
};

}  // namespace rocecert::model
