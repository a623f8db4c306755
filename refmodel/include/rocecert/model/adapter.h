// One simulated RoCEv2 adapter (RNIC): the verbs a host uses on it, and the frame port the
// simulation's link uses. It composes the blocks (mem, qp, tx, rx, reliability, cq) around one
// event queue and one observer (docs/model.md). Deterministic: no wall clock, no unseeded
// randomness; everything that happens leaves through the observer.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rocecert/cc/dcqcn.h"
#include "rocecert/cq/completion_queue.h"
#include "rocecert/errors/arbitration.h"
#include "rocecert/errors/error_table.h"
#include "rocecert/mem/host_memory.h"
#include "rocecert/mem/mem_table.h"
#include "rocecert/qp/qp_table.h"
#include "rocecert/sim/event_queue.h"
#include "rocecert/trace/observer.h"
#include "rocecert/tx/segmenter.h"
#include "rocecert/tx/work_request.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/net.h"

namespace rocecert::model {

// Policies real implementations choose freely (issue: "configuration, with a profile that
// behaves like Linux Soft-RoCE"). Defaults reproduce rxe 6.1 as captured in vectors/real/.
// When the responder acknowledges executed SEND/WRITE packets (IBA §9.7.5.1.1: an ACK with
// PSN p acknowledges every request up to p, so a responder may coalesce; docs/spec-notes.md §3.4).
// NAKs, READ responses and atomic ACKs are never delayed: a pending coalesced ACK goes out
// right before them, so the responder's frames stay in PSN order.
struct AckCoalescing {
  enum class Mode : std::uint8_t {
    ACKREQ,        // rxe: one ACK, at once, for each executed packet with AckReq set
    EVERY_PACKET,  // one ACK, at once, for every executed packet, AckReq or not
    COALESCE,      // an AckReq'd packet arms one ACK, sent when `max_packets` packets are
                   // unacknowledged or `max_delay_ns` after it was armed (hfi1-like)
  } mode = Mode::ACKREQ;
  std::uint32_t max_packets = 16;     // COALESCE: executed packets per ACK at most
  sim::SimTime max_delay_ns = 2'000;  // COALESCE: an armed ACK waits no longer (keep it far
                                      // below the requester's local ACK timeout)
};

struct Profile {
  tx::AckReqPolicy ackreq{};
  AckCoalescing ack{};
  // UDP source port of a QP's packets when the AV does not give one: rxe 6.1 derives it from
  // the flow label computed from (lqpn, rqpn) (IBTA Vol. 1 Annex A17.4; docs/spec-notes.md §1.3).
  enum class SportPolicy : std::uint8_t {
    RXE_FLOW_LABEL,
    FIXED
  } sport = SportPolicy::RXE_FLOW_LABEL;
  std::uint16_t fixed_sport = 0xC000;
  std::uint8_t ipv4_ttl = 64;  // rxe takes the route's TTL, 64 in the captures
  bool ipv4_df = true;
  std::uint16_t pkey = 0xFFFF;
  std::uint8_t ack_syndrome_credits = 0x1F;  // rxe always sends "credits invalid"
  // retry_cnt 7 means "retry forever" in rxe; hfi1/qib count 7 retries (docs/spec-notes.md §11.2).
  bool retry_cnt_7_is_infinite = true;
  // Timer granularity. 0: the IBA values exactly. rxe arms its RNR timer in kernel jiffies
  // (usecs_to_jiffies, HZ=250 on Debian: 4 ms) and the timer wheel fires on the next tick, so
  // an RNR wait lasts (ceil(delay / jiffy) + 1) jiffies: 12 ms for code 18 (5.12 ms), which is
  // the gap seen in the rnr_nak_then_ok capture.
  sim::SimTime rnr_timer_jiffy_ns = 0;
  // Congestion notification (RoCEv2 Annex A17.9; IBTA Vol. 1 Annex A17.9; docs/spec-notes.md §10).
  // rxe neither sends nor consumes CNPs, so the rxe profile leaves this off; a DCQCN-style
  // notification point turns it on: on a CE-marked packet for a QP, one CNP back to the sender QP
  // per interval. Which behaviour the error table (refmodel/errors) gives where the IBA and rxe
  // differ.
  errors::ErrorProfile error_profile = errors::ErrorProfile::RXE;
  // How the flushes of QPs that fail in the same simulated instant are ordered
  // (docs/error-arbitration.md): error class precedence, then time, then QPN; or round robin.
  errors::ArbitrationPolicy arbitration = errors::ArbitrationPolicy::PRECEDENCE;
  bool send_cnp = false;
  sim::SimTime cnp_interval_ns = 50'000;
  std::uint8_t cnp_traffic_class = 0;
  // Reaction point (docs/dcqcn.md): with `dcqcn`, each RC/UC/UD QP's requester is paced by a
  // DCQCN rate controller (refmodel/cc) starting at `line_rate_gbps`, which every CNP for the
  // QP cuts; its packets leave ECN-capable (ECT(0)) so a congestion point can mark them CE.
  // Off in the rxe profile (rxe ignores CNPs, IBTA Vol. 1 Annex A17.9.3; docs/spec-notes.md §10.2).
  bool dcqcn = false;
  double line_rate_gbps = 25.0;
  cc::DcqcnParams dcqcn_params{};
};

struct AdapterConfig {
  std::string name = "A";
  wire::MacAddr mac{};
  std::array<std::uint8_t, 16> gid{};  // IPv4 as ::ffff:a.b.c.d, else IPv6
  std::uint32_t port_mtu = 4096;       // active MTU in bytes
  Profile profile{};
  mem::MemConfig mem{};
  qp::QpTableConfig qp{};
  std::uint64_t seed = 1;
};

struct RecvWr {
  std::uint64_t wr_id = 0;
  std::vector<tx::Sge> sg_list;
};

// What post_send / post_recv answer (the errno a verbs call would return, as a value); the
// list is rocecert/model/post_errors.def.
enum class PostError : std::uint8_t {
#define ROCECERT_POST_ERROR(name, errno_value) name,
#include "rocecert/model/post_errors.def"
#undef ROCECERT_POST_ERROR
};
inline constexpr PostError kAllPostErrors[] = {
#define ROCECERT_POST_ERROR(name, errno_value) PostError::name,
#include "rocecert/model/post_errors.def"
#undef ROCECERT_POST_ERROR
};
// The name in post_errors.def ("NO_SUCH_QP"), which scenarios use too.
std::string_view to_string(PostError e);
// The errno the verbs call returns (post_errors.def); 0 for OK.
int errno_value(PostError e);

// The UDP source port rxe 6.1 uses for a QP pair: rdma_calc_flow_label(lqpn, rqpn) folded by
// rdma_flow_label_to_udp_sport into 0xC000-0xFFFF (include/rdma/ib_verbs.h; IBTA Vol. 1 Annex
// A17.4; docs/spec-notes.md §1.3).
std::uint16_t rxe_udp_sport(std::uint32_t lqpn, std::uint32_t rqpn);

class Adapter;

// Where an adapter's frames go: the simulation's Link, or a harness (e.g. a capture replay
// that compares them with a real device's frames).
class FramePort {
 public:
  virtual ~FramePort() = default;
  virtual void transmit(const Adapter& from, std::vector<std::uint8_t> frame) = 0;
};

// Decides when a requester may put its next request packet on the wire: a rate controller,
// or a harness that releases packets one at a time. Asked before every request packet
// (first transmissions and retransmissions alike); without one, packets go at once.
class TxPacer {
 public:
  virtual ~TxPacer() = default;
  // The earliest time QP `qpn` may send a packet with `payload` bytes: `now` or later, or
  // sim::kNever to hold it until the pacer calls Adapter::kick_requester.
  virtual sim::SimTime earliest_send(std::uint32_t qpn, sim::SimTime now,
                                     std::uint32_t payload) = 0;
  virtual void sent(std::uint32_t qpn, sim::SimTime now, std::uint32_t payload) = 0;
};

class Adapter {
 public:
  Adapter(std::uint32_t id, AdapterConfig config, sim::EventQueue& events,
          trace::Observer& observer);
  ~Adapter();
  Adapter(const Adapter&) = delete;
  Adapter& operator=(const Adapter&) = delete;

  std::uint32_t id() const { return id_; }
  const AdapterConfig& config() const { return config_; }

  // --- verbs -------------------------------------------------------------------------------
  mem::Result<mem::Pd> alloc_pd();
  mem::Result<mem::MrKeys> reg_mr(const mem::MrRegistration& reg);
  qp::CqId create_cq(std::uint32_t capacity);
  // An address handle for UD sends (SendWr::ah names it).
  qp::AhId create_ah(const qp::AddressVector& av);
  qp::CreateResult create_qp(const qp::CreateQpParams& params);
  qp::ModifyResult modify_qp(qp::Qpn qpn, const qp::QpAttr& attr, qp::AttrMask mask);
  PostError post_send(qp::Qpn qpn, const tx::SendWr& wr);
  PostError post_recv(qp::Qpn qpn, const RecvWr& wr);
  // Shared receive queues (ibv_create_srq, ibv_post_srq_recv, ibv_modify_srq's srq_limit).
  // A QP created with `srq` takes its receive WQEs from it; a QP error does not flush it
  // (docs/spec-notes.md §6.5).
  qp::SrqId create_srq(std::uint32_t max_wr, std::uint32_t max_sge);
  PostError post_srq_recv(qp::SrqId srq, const RecvWr& wr);
  // Arms the SRQ limit: when fewer than `limit` WQEs remain, the asynchronous event
  // SRQ_LIMIT_REACHED fires once and the limit disarms (IBA §11.5.2.4).
  bool arm_srq_limit(qp::SrqId srq, std::uint32_t limit);
  // Up to `max` completions, oldest first; none from a CQ the adapter does not have.
  std::vector<cq::Wc> poll_cq(qp::CqId cq, std::size_t max);
  PostError req_notify_cq(qp::CqId cq, bool solicited_only);  // OK or NO_SUCH_CQ

  // CNPs received for a QP (the reaction point's record).
  std::uint64_t cnps_received(qp::Qpn qpn) const;
  // The rate QP `qpn`'s requester may send at (Profile::dcqcn), in Gb/s; 0: not paced or no
  // such QP. A pure query: it changes no state of the adapter.
  double send_rate_gbps(qp::Qpn qpn) const;

  mem::HostMemory& memory() { return memory_; }
  mem::MemTable& mem_table() { return mem_; }
  const qp::QpTable& qps() const { return qps_; }

  // --- wire --------------------------------------------------------------------------------
  void attach(FramePort* port) { link_ = port; }
  // Request pacing (TxPacer above); nullptr: none. Not owned.
  void set_tx_pacer(TxPacer* pacer);
  // Lets QP `qpn`'s requester try again (after a pacer that answered kNever allows it).
  void kick_requester(qp::Qpn qpn);
  // A frame arrives from the link (called from a link delivery event).
  void receive(std::vector<std::uint8_t> frame);
  // A decoded request handed straight to QP `qpn`'s responder, past receive()'s admission
  // (address, destination QPN, P_Key, ICRC): for a harness that replays another device's
  // requests into this model's responder (`rocecert check`'s golden replay), whose frames carry
  // that device's addresses and QPNs. `p.payload()` must hold `p.payload_len` bytes. Ignored
  // unless the QP exists and its state processes requests. Returns whether it was processed.
  bool deliver_request(qp::Qpn qpn, const wire::ParsedFrame& p);
  // The same for a decoded response, handed to QP `qpn`'s completer (the golden replay of
  // another device's requester). Ignored unless the QP exists and its state processes responses.
  bool deliver_response(qp::Qpn qpn, const wire::ParsedFrame& p);
  // For the same harness: QP `qpn`'s path MTU set in place, in whatever state it is, outside the
  // verbs (which fix it at INIT -> RTR, IBA Vol. 1 §11.2.4.2): the capture being replayed showed
  // it only after the replay had begun with a guess. The caller sees to it that nothing the QP
  // posted or received so far would have been cut into packets differently. False: no such QP,
  // or `mtu` is not a path MTU (256 .. 4096).
  bool replay_set_path_mtu(qp::Qpn qpn, std::uint32_t mtu);

  struct Impl;  // requester, responder and completer state (refmodel/model/*.cpp)

 private:
  std::uint32_t id_;
  AdapterConfig config_;
  sim::EventQueue& events_;
  trace::Observer& observer_;
  mem::HostMemory memory_;
  mem::MemTable mem_;
  qp::QpTable qps_;
  std::map<qp::CqId, cq::CompletionQueue> cqs_;
  FramePort* link_ = nullptr;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rocecert::model
