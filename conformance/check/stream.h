// The shadow of one RC or UC requester → responder stream: the requests one QP sends to one
// destination QP, and (RC, once paired) the responses that come back. It reconstructs what the
// two QPs must have done (next PSN, oldest unacknowledged PSN, outstanding READs and atomics,
// the responder's MSN, retry state) and applies the stream and pair rules of rules.def.
//
// Capture gaps are explained, never held against the device: a PSN the tap never showed is a
// frame lost before the tap (fine: it must be resent, or the responder NAKs) or a frame the tap
// missed (a capture error, from the connection's budget; docs/check.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "check_internal.h"
#include "golden.h"
#include "golden_requester.h"
#include "ring.h"
#include "rocecert/check/events.h"
#include "rocecert/proofs/trace_keys.h"
#include "rocecert/proofs/trace_psn.h"

namespace rocecert::check::detail {

// Invalidation generations of rkeys per responder host: a key fact only conflicts with facts
// of the same generation. SEND_WITH_INVALIDATE seen on the wire starts a new one, and so does a
// key event of the --events log (an MR registered or deregistered, a window bound or
// invalidated) at its time; an rkey the log changes at no stated time, or an access within the
// profile's timing tolerance of a logged change, is not judged (kUnjudged).
class KeyEpochs {
 public:
  static constexpr std::uint32_t kUnjudged = 0xFFFFFFFF;
  KeyEpochs(const Events* events, std::int64_t tolerance_ns);
  // The generation of `rkey` on `host` for an access sent at `ts`.
  std::uint32_t get(const IpAddr& host, std::uint32_t rkey, std::int64_t ts) const;
  // Whether the log's last change of `rkey` on `host` before `ts` (clear of it by more than the
  // tolerance, either side) deregistered or invalidated it: an access sent then must be refused.
  bool dead(const IpAddr& host, std::uint32_t rkey, std::int64_t ts) const;
  void invalidate(const IpAddr& host, std::uint32_t rkey);
  std::size_t logged_keys() const { return logged_.size(); }  // rkeys the log changes

 private:
  using Key = std::pair<std::array<std::uint8_t, 16>, std::uint32_t>;
  struct Hash {
    std::size_t operator()(const Key& k) const;
  };
  struct Logged {
    std::vector<std::int64_t> times;  // sorted
    std::vector<bool> kills;          // beside times: a deregistration or an invalidation
    bool untimed = false;
  };
  const Logged* logged(const IpAddr& host, std::uint32_t rkey) const;
  std::optional<std::size_t> changes_before(const Logged& l, std::int64_t ts) const;
  std::unordered_map<Key, std::uint32_t, Hash> gen_;
  std::unordered_map<Key, Logged, Hash> logged_;
  std::int64_t tolerance_ns_ = 0;
};

class Stream {
 public:
  // `budget`: the connection's capture-error budget (shared with the other direction's stream
  // once the checker pairs them: set_budget).
  Stream(Judge& j, ConnIndex conn, wire::Transport t, IpAddr responder, std::uint32_t responder_qpn,
         Budget& budget, GoldenReplay& golden);
  // Where the stream reports from now on (sharded checking moves a stream to the shard of its
  // other direction: shards.h).
  void bind(Judge& j, GoldenReplay& golden);
  Budget& budget() const { return *budget_; }
  void set_budget(Budget& b) { budget_ = &b; }

  void on_request(const Pkt& p);
  // Set by the checker before each request: false while a response of this stream may have gone
  // to an unpaired flow. Silence is then not evidence (psn.timeout, psn.retry_count).
  void set_hears_all(bool v) { hears_all_ = v; }
  // A frame of this stream that failed its ICRC (already reported by wire.icrc): explained as
  // link corruption if the rest of the capture shows it was dropped and sent again.
  void corrupted(const Pkt& p, const Judge::Ticket& t);
  void on_response(const Pkt& p);
  // End of capture: PSNs never seen become gap notes.
  void finish();

  ConnIndex conn() const { return conn_; }
  wire::Transport transport() const { return transport_; }
  bool started() const { return started_; }
  std::uint32_t first_psn() const { return first_psn_; }
  std::uint32_t next_psn() const { return next_; }
  std::uint64_t responses() const { return responses_; }
  // The first MSN baseline was 0: the capture shows the connection's start.
  bool shows_connection_start() const { return from_start_; }
  // Whether a response for `psn` carrying `msn`, never handed to the stream (its flow was paired
  // at the capture's end), would show the start: no message completed before the first PSN seen.
  bool msn_shows_start(std::uint32_t psn, std::uint32_t msn);
  // What --events is held against (events_rules.cpp).
  const IpAddr& responder() const { return responder_; }
  std::uint32_t responder_qpn() const { return responder_qpn_; }
  const std::optional<IpAddr>& requester() const { return requester_; }
  std::optional<std::uint32_t> requester_qpn() const { return requester_qpn_; }
  struct Fatal {
    std::uint64_t frame = 0;
    std::uint8_t syndrome = 0;
  };
  std::optional<Fatal> fatal() const {
    if (!fatal_) return std::nullopt;
    return Fatal{fatal_frame_, fatal_syndrome_};
  }
  // After a fatal NAK the requester heard: the messages it had sent from the failed one on,
  // and those it sent after (err.after_fatal), each a work request completed in error.
  std::optional<std::uint64_t> failed_messages() const {
    if (!fatal_ || fatal_unheard_) return std::nullopt;
    return failed_messages_;
  }
  // The messages the tap showed sent whose last packet no response acknowledged (RC): each a
  // work request that cannot have completed successfully.
  std::uint64_t unacknowledged_messages() const;
  std::uint64_t resends() const { return resends_; }
  // Requests resent at PSNs the responses had acknowledged (una_ past them).
  std::uint64_t acknowledged_resends() const { return acknowledged_resends_; }
  // Whether the requester sent no new PSN after the first response reached the stream: from
  // then on it only resent (with acknowledged_resends(), it acted as if it never had the
  // responses: the checker's pairing checks).
  bool nothing_new_since_answers() const { return next_at_answer_ && *next_at_answer_ == next_; }
  std::uint64_t rnr_naks_seen() const { return rnr_naks_total_; }
  // The requester QP's and the responder QP's entries of --setup, when it lists them (the
  // requester by its QPN once a response showed it, else by its dest_qp_num).
  const SetupQp* requester_setup() const;
  const SetupQp* responder_setup() const;
  std::uint64_t first_frame() const { return first_frame_; }

 private:
  enum class Access : std::uint8_t { Write, Read, Atomic, Flush };
  struct PsnRec {
    std::uint8_t opcode = 0;
    bool seen = false;       // the tap showed this PSN
    bool read_slot = false;  // reserved by a READ for its responses (not its first PSN)
    bool ends = false;       // completes a message at the responder (MSN + 1)
    std::uint16_t ip_id = 0;
    std::uint32_t payload = 0;
    std::uint32_t icrc = 0;
    std::int64_t tx_ts = 0;  // when the tap last showed it sent
  };
  struct ReadReq {
    std::uint32_t first = 0;
    std::uint32_t npkts = 0;  // 0: not known yet (path MTU unknown)
    std::uint64_t va = 0;
    std::uint32_t rkey = 0;
    std::uint32_t len = 0;
    // The segment the responder answers now: the request, or its latest re-request.
    std::uint32_t seg_psn = 0;
    std::uint32_t seg_len = 0;
    std::uint32_t resp_next = 0;
    bool answered = false;       // a response was seen (the access was granted)
    bool answered_once = false;  // before the current response
    bool repeated = false;       // requested again (its replies carry the MSN of the moment)
    // Sent in the opening: it may be the rest of a READ requested before the capture, re-requested
    // from inside it (answered as a resumed READ).
    bool in_opening = false;
  };
  struct AtomicReq {
    std::uint32_t psn = 0;
    std::uint64_t va = 0;
    std::uint32_t requests = 0;
    std::uint32_t responses = 0;
    std::uint64_t orig = 0;
  };
  struct PendingAccess {
    Access kind;
    std::uint32_t first = 0;
    std::optional<std::uint32_t> last;  // known once the message's last packet was seen
    std::uint32_t rkey = 0;
    std::uint64_t va = 0;
    std::uint32_t len = 0;
    std::uint32_t epoch = 0;
    std::uint64_t frame = 0;
    bool resolved = false;  // granted or refused already
    bool key_dead = false;  // Pkt::key_dead of its request
    // Flush: the FETH placement bits it asks, and whether it flushes the whole region (its
    // range then not checked; docs/spec-notes.md §8.4).
    std::uint8_t placement = 0;
    bool whole_region = false;
    // Whether the key rules judge it: a zero-length READ or WRITE is not key-checked (C9-88;
    // key.zero_length judges it), a zero-length FLUSH is.
    bool key_checked() const { return len != 0 || kind == Access::Flush; }
  };
  struct KeyFact {
    Access kind;
    bool granted;
    std::uint32_t rkey;
    std::uint64_t va;
    std::uint32_t len;
    std::uint32_t epoch;
    std::uint64_t frame;
    std::uint8_t placement;  // Flush: as PendingAccess
    bool whole_region;
  };
  struct NakPoint {
    std::uint32_t psn = 0;
    bool rnr = false;
    std::int64_t not_before = 0;  // RNR: the NAK's time plus its timer
    std::uint64_t frame = 0;
  };

  void new_packet(const Pkt& p, std::int32_t gap);
  void old_packet(const Pkt& p);
  void record_atomic(const Pkt& p);  // an atomic request to answer (atomics_)
  // What READ request `p` asks (reads_), and the record of a late or resent one put in its
  // place by PSN (read_holding relies on the order; a new one goes at the end).
  ReadReq read_of(const Pkt& p) const;
  ReadReq& insert_read(const Pkt& p);
  void check_length(const Pkt& p);
  void check_sequence(const Pkt& p);
  void record_request(const Pkt& p, PsnRec& rec);
  void start_resend(const Pkt& p);
  // A new go-back-N round against the QP attributes of --setup; `prev_tx`: when the resent PSN
  // was last sent before (0: unknown), `after_rnr`: the round follows an RNR NAK's wait.
  void judge_round(const Pkt& p, std::int64_t prev_tx, bool after_rnr);
  // read.rd_atomic_limit (rd_atomic.cpp): a new READ, atomic or ATOMIC WRITE against the
  // requester's max_rd_atomic; each response closes what it ends; a count is decided once the
  // capture shows which of the requests counted were still outstanding at the requester.
  void track_rd_atomic(const Pkt& p);
  void close_rd_atomic(const Pkt& p);
  struct RdAtomicCheck;
  void decide_rd_atomic(const RdAtomicCheck& c);
  // golden.request: a SEND or WRITE message's first transmission, packet by packet, against
  // the model's segmentation of the same work request (refmodel/tx/segmenter.h).
  void golden_request(const Pkt& p, std::int32_t gap);
  void judge_message(const Pkt& last);
  void on_ack(const Pkt& p);
  void on_read_response(const Pkt& p);
  bool placement_at(std::uint32_t psn);
  void on_placement_response(const Pkt& p);
  void on_atomic_ack(const Pkt& p);
  // `before_capture`: the responder had these PSNs before the capture began (lead()); those the
  // tap never showed were sent then, not skipped.
  void acknowledge_through(const Pkt& p, std::uint32_t psn_exclusive, bool before_capture = false);
  // The capture began while the responder held requests the capture does not show sent (the
  // tap started during a go-back-N, or with requests in flight): everything through `through`
  // reached the responder before, its messages counted in `msn` (the MSN through `through`,
  // when known). The stream and its golden replay go on from there.
  void lead(const Pkt& p, std::uint32_t through, std::optional<std::uint32_t> msn);
  // In the opening, an MSN `deficit` below the count through `lo_psn` (negative: above the most
  // it can be): requests the responder had before the capture explain it, and are taken (true).
  // False once the opening is over.
  bool opening_explains_msn(const Pkt& p, std::uint32_t lo_psn, std::int32_t deficit);
  void note_lead(const Pkt& p, std::string_view what);  // once per stream
  // Whether response `p`, the first to set the MSN baseline through `lo_psn`, will show the
  // connection's start (a baseline of 0).
  bool shows_start(const Pkt& p, std::uint32_t lo_psn);
  // Whether `msn_before_base` (an MSN before base_) says no message completed before the first
  // PSN seen (the MSN is 0 after RESET: docs/spec-notes.md §3.5).
  bool zero_before_first(std::uint32_t msn_before_base) const;
  // Whether the request at `psn` was sent before the capture began: before the first PSN of the
  // window, or never shown at a PSN before the first request seen.
  bool sent_before_capture(std::uint32_t psn);
  // An ACK ahead of every PSN sent, inside the span of the message whose FIRST was the last
  // one started, with the MSN of the messages before it, in a capture that shows the
  // connection's start.
  bool within_open_message(const Pkt& p);
  // Responses came before the requests they answer (the highest MSN and PSN they carried).
  void mid_connection(std::optional<std::uint32_t> msn, std::optional<std::uint32_t> psn);
  // The AETH's MSN against the messages completed through lo_psn: equal (`exact`), or up to
  // what completed since. `seeds`: an answer sent when its request was accepted (ACK, NAK, READ
  // RESPONSE FIRST/ONLY, ATOMIC ACKNOWLEDGE), which may set the MSN baseline.
  void check_msn(const Pkt& p, std::uint32_t lo_psn, bool exact, bool seeds,
                 std::optional<std::uint32_t> quiet_through = std::nullopt);
  void resolve_access(const Pkt& p, PendingAccess& a, bool granted);
  void check_setup(const Pkt& p, const PendingAccess& a, bool granted);
  void key_fact(const Pkt& p, const PendingAccess& a, bool granted);
  void set_mtu(const Pkt& p, std::uint32_t payload);
  // Its queues' buffers, and its golden replays', cut down to what they hold (Ring::trim): at
  // the start of each packet, where nothing holds a reference into them.
  void trim_queues();
  void fill_read_slots(ReadReq& rr);

  PsnRec* rec(std::uint32_t psn);
  // The PSN of a WRITE LAST the tap showed before the FIRST at `psn`, the PSNs between all shown
  // as the same message's; nullopt when not known.
  std::optional<std::uint32_t> seen_write_end_after(std::uint32_t psn);
  template <class F>
  void for_each_rec(std::uint32_t from, std::uint32_t to, F&& f);  // held PSNs in [from, to)
  static std::string_view access_name(Access k);
  std::optional<std::uint32_t> ends_through(std::uint32_t psn);  // messages in [base_, psn]
  // The fewest and most messages that can have ended in [base_, psn] (unseen PSNs: 0 or 1).
  std::optional<std::pair<std::uint32_t, std::uint32_t>> ends_bounds(std::uint32_t psn);
  ReadReq* read_holding(std::uint32_t psn);
  bool maybe_read_slot(std::uint32_t psn) const;
  std::uint32_t npkts(std::uint32_t len) const;
  StateSnapshot state(std::string expected = {}) const;

  Judge* j_;
  ConnIndex conn_;
  wire::Transport transport_;
  IpAddr responder_;
  Budget* budget_;
  std::optional<IpAddr> requester_;             // the requests' source
  std::optional<std::uint32_t> requester_qpn_;  // the responses' destination QPN
  std::uint64_t first_frame_ = 0;
  std::uint8_t fatal_syndrome_ = 0;
  std::uint64_t rnr_naks_total_ = 0;
  // Retry rounds (go-back-N starts) since the last progress, for the QP attributes of --setup
  // (psn.timeout, psn.retry_count, psn.rnr_retry_count): when and where the round began, what
  // was unacknowledged then and how many responses had come.
  std::int64_t progress_ts_ = 0;       // the last response that acknowledged something new
  std::int64_t last_response_ts_ = 0;  // the last response of any kind
  bool in_round_ = false;
  std::uint32_t round_psn_ = 0, round_una_ = 0;
  std::uint64_t round_responses_ = 0;
  std::uint32_t retry_rounds_ = 0, rnr_rounds_ = 0;
  bool retry_reported_ = false, rnr_retry_reported_ = false;
  std::uint64_t counted_nak_frame_ = 0;  // the sequence NAK whose round was counted last
  std::int64_t timer_round_ts_ = 0;      // the last round the timer started, 0: none since
  bool hears_all_ = true;
  std::int64_t max_rtt_ = 0;  // the longest request → response time the tap showed
  struct LastResend {
    std::uint32_t psn = 0;
    std::uint16_t ip_id = 0;
    std::uint32_t icrc = 0;
  };
  std::optional<LastResend> last_resend_;  // its link copies are duplicates
  struct MsgPkt {
    std::uint8_t opcode = 0;
    std::uint32_t psn = 0;
    std::uint32_t payload = 0;
  };
  std::vector<MsgPkt> msg_;  // the message being sent for the first time, while contiguous
  bool msg_open_ = false;
  // The multi-packet message whose FIRST was the last message start seen, while it is open,
  // with its length when the wire gives it (a WRITE's RETH).
  struct OpenMessage {
    std::uint32_t first = 0;
    std::optional<std::uint32_t> len;
  };
  std::optional<OpenMessage> open_msg_;
  std::uint32_t msg_dmalen_ = 0;
  // The highest IPv4 id of the requester's packets (16-bit serial order): a packet behind it
  // was sent before the one that set it (a copy the network delayed).
  std::uint16_t max_ip_id_ = 0;
  bool seen_ip_id_ = false;
  bool ip_id_behind(std::uint16_t id) const {
    const auto d = static_cast<std::int16_t>(static_cast<std::uint16_t>(id - max_ip_id_));
    return seen_ip_id_ && d < 0;
  }
  std::uint32_t responder_qpn_;

  bool started_ = false;
  std::uint32_t first_psn_ = 0;
  // The PSN of the first request the tap showed (first_psn_ may grow back to a late one).
  std::uint32_t first_seen_psn_ = 0;
  std::uint32_t next_ = 0;  // PSN after the highest one sent
  std::uint32_t una_ = 0;   // oldest PSN not acknowledged (as the tap saw the responses)
  std::uint32_t base_ = 0;  // PSN of recs_.front()
  Ring<PsnRec> recs_;
  std::optional<std::uint32_t> mtu_;
  bool seq_known_ = false;  // a capture may start mid-message
  bool in_msg_ = false;
  wire::Operation cur_op_ = wire::Operation::SEND;

  std::optional<std::uint32_t> msn_base_;  // responder's MSN before base_
  // The opening: until the first MSN baseline is 0 (the connection's start), or a response
  // beyond every PSN answered before shows the responder's MSN pass every MSN before it (the
  // highest so far: opening_msn_) and agree with the baseline an earlier response set, the
  // responder may hold requests the capture does not show sent (lead(); docs/check.md, "A
  // capture that begins mid-conversation").
  bool pinned_ = false;
  // The response being handled carried the MSN the baseline expects (check_msn): the baseline
  // an earlier response set is confirmed. (A response that sets it may answer a duplicate with
  // the MSN of requests after it.)
  bool msn_agreed_ = false;
  // A baseline of 0 would no longer show the connection's start: the baseline was set once (one
  // of 0 pins at once), or the capture showed it began mid-connection (mid_connection(), a
  // go-back past what it shows unacknowledged: start_resend()).
  bool seeded_ = false;
  bool from_start_ = false;  // pinned by a baseline of 0: the capture shows the start
  // The messages ended at PSNs acknowledged and dropped from the window before the MSN baseline
  // was first set, and whether each of those PSNs was seen: the baseline (the MSN before base_)
  // less them is the responder's MSN before the first PSN seen (zero_before_first()).
  std::uint32_t ends_dropped_ = 0;
  bool ends_dropped_known_ = true;
  std::optional<std::uint32_t> top_resp_psn_;  // the highest PSN of any response so far
  std::optional<std::uint32_t> lead_through_;  // the highest PSN lead() took
  std::optional<std::uint32_t> opening_msn_;
  bool noted_lead_ = false;
  std::optional<std::uint32_t> highest_resp_;

  // read.rd_atomic_limit: the READ / atomic / ATOMIC WRITE messages outstanding as the tap
  // sees it (no response at or beyond their last PSN yet), oldest first, and the counts that
  // reached max_rd_atomic, waiting for the capture to show which of them were real.
  struct RdAtomic {
    std::uint32_t first = 0;
    std::uint32_t len = 0;  // READ: its DMA length (its last PSN follows from the path MTU)
    bool read = false;
    std::uint64_t id = 0;
  };
  Ring<RdAtomic> rd_atomic_;
  std::uint64_t rd_next_id_ = 0;
  struct RdAtomicCheck {
    Pkt p;  // the request sent while `count` were outstanding
    StateSnapshot state;
    std::uint32_t limit = 0, count = 0;
    bool opening = false;        // opened in the stream's opening
    std::uint64_t first_id = 0;  // the counted messages: ids first_id .. first_id + count - 1
    // Of those: ended by their own last response after p (they were outstanding at the
    // requester), ended by a later response with theirs never seen (the tap missed it), or
    // forgotten (too many outstanding to follow).
    std::uint32_t confirmed = 0, missed = 0, forgotten = 0;
  };
  std::vector<RdAtomicCheck> rd_checks_;
  Ring<ReadReq> reads_;
  Ring<AtomicReq> atomics_;
  // The PSNs of FLUSH and ATOMIC WRITE requests (IBA 1.5): each answered by an empty READ
  // RESPONSE ONLY at its own PSN.
  Ring<std::uint32_t> placements_;
  Ring<PendingAccess> accesses_;
  // key.static's facts per (kind, rkey, epoch), each group in arrival order with one entry per
  // distinct (granted, va, len): an access is compared with its own key's facts only, and a
  // repeated access takes no room (at most kMaxKeyFacts in all).
  static constexpr std::size_t kMaxKeyFacts = 4096;
  std::unordered_map<std::uint64_t, std::vector<KeyFact>> key_facts_[4];
  std::size_t key_fact_count_ = 0;
  // z3.key: the distinct answered accesses (the first frames of each), judged at finish().
  struct KeyAnswer {
    proofs::trace::KeyObservation obs;
    std::uint64_t request_frame = 0, response_frame = 0;
    std::uint32_t dqpn = 0, psn = 0;
  };
  std::vector<KeyAnswer> key_answers_;
  struct KeyAnswerHash {
    std::size_t operator()(const proofs::trace::KeyObservation& o) const;
  };
  struct KeyAnswerEq {
    bool operator()(const proofs::trace::KeyObservation& a,
                    const proofs::trace::KeyObservation& b) const;
  };
  std::unordered_set<proofs::trace::KeyObservation, KeyAnswerHash, KeyAnswerEq> key_answer_seen_;
  std::uint64_t key_answers_dropped_ = 0;  // beyond kMaxKeyAnswers
  void record_key_answer(const Pkt& p, const PendingAccess& a, bool granted);
  void judge_keys_z3();
  // The responder's expected PSN (ack.epsn, z3.psn; epsn.cpp), on an unwrapped PSN axis: u(psn)
  // is the PSN's distance from the latest new request's, added to that one's place on the axis.
  bool axis_set_ = false;
  std::uint32_t axis_psn_ = 0;
  std::int64_t axis_at_ = 0;
  std::int64_t unwrap(std::uint32_t psn) const { return axis_at_ + pdiff(psn, axis_psn_); }
  enum class PsnWhat : std::uint8_t { ACK, READ_RESPONSE, ATOMIC_ACK, NAK_PSN, RNR, NAK, REQUEST };
  // A frame's bound on the ePSN: a response's lower bound, or a new request's window.
  struct PsnFactRec {
    proofs::trace::PsnObservation obs;  // AT_LEAST or REQUEST, at the frame's position
    std::uint32_t dqpn = 0, psn = 0;
    PsnWhat what = PsnWhat::ACK;
    std::int64_t bound() const {
      return obs.fact == proofs::trace::PsnFact::REQUEST ? obs.psn + 2 - proofs::trace::kPsnWindow
                                                         : obs.psn;
    }
  };
  // The highest bound so far, and at each new request (first sent) the highest bound then,
  // its own included: what a NAK that request set off is held against.
  std::optional<PsnFactRec> epsn_floor_;
  struct PsnAnchor {
    std::int64_t u = 0;
    std::uint64_t frame = 0;
    std::optional<PsnFactRec> floor;
  };
  Ring<PsnAnchor> psn_anchors_;
  bool psn_anchors_dropped_ = false;
  std::uint32_t epsn_explained_ = 0;  // ack.epsn violations set aside as capture errors
  // z3.psn: the facts for the solver (each NAK's, with the bound it is held against), and the
  // frames they come from (PsnObservation::group indexes psn_frames_).
  std::vector<proofs::trace::PsnObservation> psn_facts_;
  struct PsnFrame {
    std::uint64_t frame = 0;
    std::uint32_t dqpn = 0, psn = 0;
    PsnWhat what = PsnWhat::ACK;
    std::int64_t value = 0, acked = 0;  // its bound (REQUEST: PSN and acknowledged frontier)
    std::uint64_t trigger = 0;          // NAK: the frame of the request that set it off
  };
  std::vector<PsnFrame> psn_frames_;
  std::unordered_map<std::uint64_t, std::size_t> psn_group_of_;  // frame → group, this batch
  std::uint64_t psn_batches_ = 0;
  void record_epsn_response(const Pkt& p);
  void record_epsn_request(const Pkt& p, std::optional<std::uint32_t> beyond_from);
  std::size_t psn_group(const PsnFactRec& f);
  static std::string_view psn_what_name(PsnWhat w);
  void judge_psn_z3(bool last);
  std::vector<NakPoint> nak_points_;
  std::optional<NakPoint> nak_wait_;  // a NAK PSN sequence error not yet answered by a resend
  bool nak_wait_in_retry_ = false;    // it came while a retry was in progress
  // A resend round (go-back-N) began and no message has completed since: rxe leaves a NAK that
  // comes then to the retry's timer (comp.started_retry, rxe_comp.c).
  bool retry_open_ = false;

  bool burst_ = false;
  std::uint32_t last_resent_ = 0;
  std::uint32_t retries_ = 0;
  std::uint32_t rnr_naks_ = 0;
  bool fatal_ = false;
  std::int64_t fatal_ts_ = 0;
  std::uint64_t fatal_frame_ = 0;
  std::uint32_t fatal_psn_ = 0;
  bool fatal_unheard_ = false;         // the requester resent what the NAK failed: it never got it
  std::uint64_t failed_messages_ = 0;  // failed_messages()
  struct AfterFatal {
    Pkt p;
    std::string message;
    StateSnapshot state;
  };
  std::vector<AfterFatal> after_fatal_;  // judged at the end (the NAK may prove unheard)
  std::uint64_t responses_ = 0;
  std::uint64_t requests_ = 0;
  std::uint64_t resends_ = 0;
  std::uint64_t acknowledged_resends_ = 0;
  std::optional<std::uint32_t> next_at_answer_;  // next_ at the first response
  std::uint64_t link_duplicates_ = 0;
  bool noted_early_response_ = false;
  struct Corrupt {
    Judge::Ticket ticket;
    std::uint32_t psn = 0;
    std::uint64_t frame = 0;
    bool request = false;
    bool reacted = false;  // response: the requester resent a PSN it covers since
  };
  std::vector<Corrupt> corrupt_;
  // Gaps, resends, duplicates and corrupted frames seen: what may put the golden replay's
  // model out of step with the device without a fault of the device.
  std::uint64_t disturbances_ = 0;
  std::unique_ptr<GoldenResponder> golden_;  // RC only, unless Options::golden is off
  std::unique_ptr<GoldenRequester> golden_req_;
};

// --events against the wire (events_rules.cpp): events.wc_status, events.flush. After every
// stream's finish().
// `capture_end_ns`: the time of the capture's last frame (a QP state logged after it cannot be
// set against the wire).
void check_events(Judge& j, const Events& events, const std::vector<const Stream*>& streams,
                  std::int64_t capture_end_ns);

}  // namespace rocecert::check::detail
