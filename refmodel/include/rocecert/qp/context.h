// The QP context: one plain struct holding all per-QP state the model needs (docs/model.md,
// docs/spec-notes.md §12 checklist). The QP table owns it; the TX, RX and reliability blocks read
// and write its fields directly. No behaviour here beyond trivial helpers and the RESET/ERR effects
// that modify_qp applies (docs/spec-notes.md §6.4, §6.5).
//
// The work queues themselves (SQ/RQ WQE lists) are not here: the model's QP object
// (refmodel/model/adapter_impl.h, model::Qp) holds them next to a reference to this context.
#pragma once

#include <cstdint>
#include <vector>

#include "rocecert/qp/attr.h"
#include "rocecert/qp/ids.h"
#include "rocecert/qp/types.h"

namespace rocecert::qp {

// "No opcode" for the opcode fields below (rxe sets req.opcode / resp.opcode to -1). Real BTH
// opcodes are 0..255.
inline constexpr std::uint16_t kNoOpcode = 0x100;

// Requester side (docs/spec-notes.md §3.2, §5, §12 "per-QP requester state").
struct RequesterState {
  Psn next_psn;  // req.psn: PSN of the next new packet; = sq_psn at RTR -> RTS (§3.2)
  Psn comp_psn;  // comp.psn: oldest unacknowledged PSN; = sq_psn at RTR -> RTS (§3.2, §3.4)
  // Outstanding window bound: stop issuing when next - comp exceeds it (rxe
  // RXE_MAX_UNACKED_PSNS, §3.2). Must stay well below 2^23 (§11.17).
  std::uint32_t max_unacked_psns = 128;
  std::uint32_t ssn = 0;  // send sequence number of the next WQE (rxe qp->ssn); 0 after RESET
  // Opcode of the last packet generated for the WQE in progress, so a message can be resumed
  // mid-way (next-opcode selection, §2.5; go-back-N mid-message restart, §5.3).
  std::uint16_t opcode = kNoOpcode;
  std::uint32_t noack_pkts = 0;  // packets sent since the last AckReq=1 (§3.4, limit 64 in rxe)
  // Retry counters: remaining retries, reloaded from attr.retry_cnt / attr.rnr_retry whenever
  // an ACK makes progress and when modify_qp sets the attribute (§5.2, §5.4, §4.3).
  std::uint8_t retry_cnt = 0;
  std::uint8_t rnr_retry = 0;
  // Free READ/ATOMIC/ATOMIC_WRITE slots as initiator; = attr.max_rd_atomic when set (§3.2).
  std::uint32_t rd_atomic_credits = 0;
  bool need_retry = false;          // go-back-N restart pending (§5.3)
  bool started_retry = false;       // a retry is in progress; a NAK does not restart it (§5.2)
  bool wait_for_rnr_timer = false;  // RNR NAK received, waiting for rnr_deadline (§5.4)
  bool wait_fence = false;          // a fenced WQE waits for earlier READ/atomics (§3.2)
  TimeNs retransmit_deadline = kNoDeadline;  // local ACK timer (§5.2)
  TimeNs rnr_deadline = kNoDeadline;         // RNR wait (§5.4)
  TimeNs ack_timeout = 0;  // local_ack_timeout_ns(attr.timeout); 0 = no timer (§5.1)

  // next_psn - comp_psn (mod 2^24): PSNs sent and not yet acknowledged.
  constexpr std::uint32_t outstanding_psns() const {
    return (next_psn.value() - comp_psn.value()) & Psn::kMask;
  }
  friend bool operator==(const RequesterState&, const RequesterState&) = default;
};

// Kinds of responder resource (docs/spec-notes.md §8.2): READ, atomics, and the IBA 1.5 FLUSH and
// ATOMIC_WRITE, which also take a slot in rxe.
enum class ResourceType : std::uint8_t { NONE, READ, ATOMIC, FLUSH, ATOMIC_WRITE };

// One slot of the responder resource ring (docs/spec-notes.md §8.2, §8.3).
struct ResponderResource {
  ResourceType type = ResourceType::NONE;
  Psn first_psn;                  // PSN of the request
  Psn last_psn;                   // READ: first + ceil(len / MTU) - 1; atomic: first
  Psn cur_psn;                    // next response PSN to generate
  std::uint64_t va = 0;           // READ: original RETH VA
  std::uint32_t length = 0;       // READ: original RETH DMA length
  std::uint32_t rkey = 0;         // READ: original RETH rkey
  std::uint64_t cur_va = 0;       // READ: progress pointer
  std::uint32_t resid = 0;        // READ: bytes still to send
  std::uint64_t atomic_orig = 0;  // atomic: the original value, replayed for duplicates (§8.3)
  friend bool operator==(const ResponderResource&, const ResponderResource&) = default;
};

// The RDMA WRITE message being received (docs/spec-notes.md §12 "current WRITE context"): the RETH
// of the FIRST packet, consumed by the MIDDLE/LAST packets.
struct WriteContext {
  bool active = false;
  std::uint64_t va = 0;  // next byte to write
  std::uint32_t rkey = 0;
  std::uint32_t resid = 0;  // bytes still expected
  friend bool operator==(const WriteContext&, const WriteContext&) = default;
};

// Responder side (docs/spec-notes.md §3.3, §3.5, §4, §8.2, §12 "per-QP responder state").
struct ResponderState {
  Psn epsn;     // expected PSN; = rq_psn at INIT -> RTR (§3.3)
  Psn ack_psn;  // PSN rxe's duplicate re-ACK is based on (ack_psn - 1, §4.5, §4.6)
  Msn msn;      // Message Sequence Number, 0 after RESET (§3.5)
  std::uint16_t opcode = kNoOpcode;  // last accepted request opcode: sequence check (§2.6)
  bool sent_psn_nak = false;         // a PSN Sequence Error NAK was sent for this gap (§3.3)
  bool drop_msg = false;             // UC drop mode: drop until the next FIRST/ONLY (§3.3, §9.2)
  WriteContext write;
  // The receive WQE being filled by a multi-packet SEND (its SGL cursor). The WQE itself is in
  // the RQ/SRQ owner's list.
  bool recv_wqe_active = false;
  std::uint32_t recv_offset = 0;  // bytes already placed in it
  // Responder resource ring (§8.2): res_ring_size = attr.max_dest_rd_atomic (rounded up in the
  // rxe profile) slots; res_head is the slot the next accepted READ/atomic takes, evicting the
  // oldest.
  std::uint32_t res_ring_size = 0;
  std::uint32_t res_head = 0;
  std::vector<ResponderResource> resources;  // res_ring_size entries
  friend bool operator==(const ResponderState&, const ResponderState&) = default;
};

// All state of one QP.
struct QpContext {
  // Identity, fixed at create_qp.
  Qpn qpn;
  QpType type = QpType::RC;
  PdId pd;
  CqId send_cq;
  CqId recv_cq;
  bool has_srq = false;
  SrqId srq;                // meaningful when has_srq
  QpCaps caps;              // as granted at create
  bool sq_sig_all = false;  // every send WR completes with a CQE (§5.6)

  // The attributes as last applied by modify_qp. attr.qp_state is the QP's state;
  // attr.sq_draining is set on entering SQD and cleared by mark_sq_drained (§6.6).
  QpAttr attr;
  std::uint32_t mtu = 256;  // mtu_bytes(attr.path_mtu), payload bytes per packet (§1.7)
  // Set when the QP enters ERR (flush both queues, §6.5) or SQE (flush the send queue, §6.6);
  // the flush (errors/cq blocks) clears it once done.
  bool flush_pending = false;

  RequesterState req;
  ResponderState resp;

  constexpr QpState state() const { return attr.qp_state; }
  friend bool operator==(const QpContext&, const QpContext&) = default;
};

// Effects of entering RESET (docs/spec-notes.md §6.4, rxe_qp_reset): requester and responder
// runtime state back to their initial values, MSN 0, flags cleared, timers cancelled, responder
// resources freed (the ring keeps its size). The attributes are kept; the PSNs are set again by the
// next INIT -> RTR -> RTS. Discarding queued WQEs without completions is the queue owners' part.
void reset_runtime_state(QpContext& ctx);

// Effects of entering ERR that belong to the QP context (docs/spec-notes.md §6.5 step 4): timers
// cancelled, retry waits dropped, SQD drain abandoned, flush_pending set. The flush itself (steps
// 1-3, 5) belongs to later blocks.
void enter_error_state(QpContext& ctx);

}  // namespace rocecert::qp
