#include "stream.h"

#include <fmt/format.h>

#include <algorithm>

#include "rocecert/mem/access_check.h"
#include "rocecert/qp/timers.h"
#include "rocecert/tx/segmenter.h"

namespace rocecert::check::detail {
namespace {

// How far past its FIRST a SEND, whose length the wire does not give, may have reached the
// responder before a capture began (within_open_message); the pairing's slack for requests sent
// before the capture is the same.
constexpr std::int32_t kOpenMessageSlack = 4096;

// Whether the rights (global visibility, persistence) of an MR, window or QP allow a FLUSH
// asking `placement`, by the model's own table (mem::required_access: the right of each
// placement bit asked; docs/spec-notes.md §8.4).
bool flush_allowed(std::uint8_t placement, bool global, bool persistent) {
  mem::Access held = mem::Access::NONE;
  if (global) held |= mem::Access::FLUSH_GLOBAL;
  if (persistent) held |= mem::Access::FLUSH_PERSISTENT;
  return mem::contains(held, mem::required_access(mem::MemOp::FLUSH, placement));
}

using wire::Operation;
using wire::Position;

// The path MTUs a QP can have (IBA Vol. 1 chapter 9; docs/spec-notes.md §1.1).
bool valid_mtu(std::uint32_t m) {
  return m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096;
}
// The most PSNs the shadow keeps per stream: a window far beyond any real one (rxe allows 128
// unacknowledged PSNs), so memory stays bounded by the number of live connections.
constexpr std::size_t kMaxTracked = 1u << 16;
// How far before the first PSN seen a reordered first request may lie.
constexpr std::int32_t kMaxReorder = 1024;

// Operations that complete a message at the responder when their last packet executes
// (docs/spec-notes.md §3.5: SEND/WRITE on their last packet, READ when accepted, each atomic,
// FLUSH and ATOMIC WRITE).
bool ends_message(const wire::OpcodeInfo& op) {
  switch (op.operation) {
    case Operation::SEND:
    case Operation::WRITE:
      return op.ends_message();
    case Operation::READ_REQUEST:
    case Operation::COMPARE_SWAP:
    case Operation::FETCH_ADD:
    case Operation::FLUSH:
    case Operation::ATOMIC_WRITE:
      return true;
    case Operation::READ_RESPONSE:
    case Operation::ACK:
    case Operation::ATOMIC_ACK:
    case Operation::RESYNC:
    case Operation::CNP:
      return false;
  }
  return false;
}
std::string_view position_name(Position p) {
  return wire::to_string(p);
}

}  // namespace

std::size_t KeyEpochs::Hash::operator()(
    const std::pair<std::array<std::uint8_t, 16>, std::uint32_t>& k) const {
  std::size_t h = k.second * 0x9E3779B97F4A7C15ull;
  for (std::uint8_t b : k.first) h = (h ^ b) * 0x100000001B3ull;
  return h;
}

KeyEpochs::KeyEpochs(const Events* events, std::int64_t tolerance_ns)
    : tolerance_ns_(tolerance_ns) {
  if (events == nullptr) return;
  struct Change {
    std::int64_t t;
    bool establishes, kills;
  };
  std::unordered_map<Key, std::vector<Change>, Hash> changes;
  for (const Event& e : events->events) {
    if (e.kind != Event::Kind::Key) continue;
    Logged& l = logged_[{e.host, e.rkey}];
    if (!e.t_ns) {
      l.untimed = true;
      continue;
    }
    changes[{e.host, e.rkey}].push_back({*e.t_ns, e.name == "register" || e.name == "bind",
                                         e.name == "deregister" || e.name == "invalidate"});
  }
  for (auto& [k, list] : changes) {
    Logged& l = logged_[k];
    if (l.untimed) continue;
    std::stable_sort(list.begin(), list.end(),
                     [](const Change& a, const Change& b) { return a.t < b.t; });
    // The key's first meaning, from the registration or bind that gave it, is no change: no
    // access can come before it, and it is the meaning a setup describes (its dut_rkey).
    for (std::size_t i = list.front().establishes ? 1 : 0; i < list.size(); ++i) {
      l.times.push_back(list[i].t);
      l.kills.push_back(list[i].kills);
    }
  }
  std::erase_if(logged_,
                [](const auto& kv) { return !kv.second.untimed && kv.second.times.empty(); });
}

// How many of the log's changes of a key came before `ts`; nullopt within the tolerance of one,
// where which side of it the access fell on is not known.
std::optional<std::size_t> KeyEpochs::changes_before(const Logged& l, std::int64_t ts) const {
  const auto after = std::upper_bound(l.times.begin(), l.times.end(), ts);
  if (after != l.times.end() && *after - ts <= tolerance_ns_) return std::nullopt;
  if (after != l.times.begin() && ts - *std::prev(after) <= tolerance_ns_) return std::nullopt;
  return static_cast<std::size_t>(after - l.times.begin());
}

const KeyEpochs::Logged* KeyEpochs::logged(const IpAddr& host, std::uint32_t rkey) const {
  if (logged_.empty()) return nullptr;
  const auto it = logged_.find({host.b, rkey});
  return it == logged_.end() ? nullptr : &it->second;
}

std::uint32_t KeyEpochs::get(const IpAddr& host, std::uint32_t rkey, std::int64_t ts) const {
  // The wire's generation in the high bits, the log's changes before `ts` in the low 12.
  std::uint32_t wire = 0;
  if (!gen_.empty())
    if (const auto it = gen_.find({host.b, rkey}); it != gen_.end()) wire = it->second;
  const Logged* l = logged(host, rkey);
  if (l == nullptr) return wire << 12;
  if (l->untimed) return kUnjudged;
  const std::optional<std::size_t> before = changes_before(*l, ts);
  return !before || *before >= 4096 ? kUnjudged
                                    : (wire << 12) | static_cast<std::uint32_t>(*before);
}

bool KeyEpochs::dead(const IpAddr& host, std::uint32_t rkey, std::int64_t ts) const {
  const Logged* l = logged(host, rkey);
  if (l == nullptr || l->untimed) return false;
  const std::optional<std::size_t> before = changes_before(*l, ts);
  return before && *before > 0 && l->kills[*before - 1];
}

void KeyEpochs::invalidate(const IpAddr& host, std::uint32_t rkey) {
  ++gen_[{host.b, rkey}];
}

std::string_view Stream::access_name(Access k) {
  switch (k) {
    case Access::Write:
      return "RDMA WRITE";
    case Access::Read:
      return "RDMA READ";
    case Access::Atomic:
      return "atomic";
    case Access::Flush:
      return "FLUSH";
  }
  return "?";
}

Stream::Stream(Judge& j, ConnIndex conn, wire::Transport t, IpAddr responder,
               std::uint32_t responder_qpn, Budget& budget, GoldenReplay& golden)
    : j_(&j),
      conn_(conn),
      transport_(t),
      responder_(responder),
      budget_(&budget),
      responder_qpn_(responder_qpn) {
  if (t == wire::Transport::RC && j.options().golden && !j.options().reconstruct_only) {
    golden_ = std::make_unique<GoldenResponder>(golden, conn, responder, responder_qpn,
                                                j.options().setup.get());
    golden_req_ = std::make_unique<GoldenRequester>(golden, conn);
  }
}

void Stream::bind(Judge& j, GoldenReplay& golden) {
  j_ = &j;
  if (golden_) golden_->bind(golden);
  if (golden_req_) golden_req_->bind(golden);
}

Stream::PsnRec* Stream::rec(std::uint32_t psn) {
  const std::int32_t i = pdiff(psn, base_);
  if (i < 0 || static_cast<std::size_t>(i) >= recs_.size()) return nullptr;
  return &recs_[static_cast<std::size_t>(i)];
}

std::optional<std::uint32_t> Stream::seen_write_end_after(std::uint32_t psn) {
  // The PSNs after a WRITE FIRST up to its LAST are the message's (IBA Vol. 1 §9.5: one PSN per
  // packet, in order), whatever order the tap saw them in; anything else seen there is no answer.
  for (std::uint32_t q = padd(psn, 1);; q = padd(q, 1)) {
    const PsnRec* r = rec(q);
    if (r == nullptr || !r->seen || r->read_slot) return std::nullopt;
    const wire::OpcodeInfo& op = wire::opcode_info(r->opcode);
    if (op.operation != Operation::WRITE || op.starts_message()) return std::nullopt;
    if (op.ends_message()) return q;
  }
}

std::uint32_t Stream::npkts(std::uint32_t len) const {
  return len == 0 ? 1 : (len + *mtu_ - 1) / *mtu_;
}

StateSnapshot Stream::state(std::string expected) const {
  StateSnapshot s;
  if (started_) {
    s.next_psn = next_;
    if (transport_ == wire::Transport::RC) {
      s.oldest_unacked = una_;
      s.outstanding = static_cast<std::uint32_t>(std::max(0, pdiff(next_, una_)));
    }
  }
  if (highest_resp_) s.expected_psn = padd(*highest_resp_, 1);
  if (msn_base_ && !recs_.empty()) {
    std::uint32_t n = *msn_base_;
    bool known = true;
    for (std::size_t i = 0; i < recs_.size(); ++i) {
      if (highest_resp_ && pdiff(padd(base_, static_cast<std::int64_t>(i)), *highest_resp_) > 0)
        break;
      if (!recs_[i].seen) known = false;
      n += recs_[i].ends ? 1u : 0u;
    }
    if (known) s.msn = n & 0xFFFFFF;
  }
  for (const ReadReq& r : reads_) s.outstanding_reads += r.answered ? 0 : 1;
  for (const AtomicReq& a : atomics_) s.outstanding_reads += a.responses == 0 ? 1 : 0;
  s.retries = retries_;
  s.rnr_naks = rnr_naks_;
  s.expected = std::move(expected);
  return s;
}

// ---------------------------------------------------------------------------- link corruption

void Stream::corrupted(const Pkt& p, const Judge::Ticket& t) {
  ++disturbances_;
  if (corrupt_.size() < 64 && t.valid)
    corrupt_.push_back({t, p.psn(), p.frame, p.op->is_request(), false});
}

// ---------------------------------------------------------------------------------- requests

void Stream::trim_queues() {
  recs_.trim();
  rd_atomic_.trim();
  reads_.trim();
  atomics_.trim();
  placements_.trim();
  accesses_.trim();
  psn_anchors_.trim();
  if (golden_) golden_->trim();
  if (golden_req_) golden_req_->trim();
}

void Stream::on_request(const Pkt& p) {
  trim_queues();
  const wire::OpcodeInfo& op = *p.op;
  ++requests_;
  j_->checked(RuleId::SeqTransport, conn_);
  if (op.transport != transport_) {
    j_->violation(RuleId::SeqTransport, "mixed", p, conn_,
                  fmt::format("{} sent to a QP that receives {} traffic", op.name,
                              transport_ == wire::Transport::RC ? "RC" : "UC"));
    return;
  }
  if (!started_) {
    started_ = true;
    first_psn_ = first_seen_psn_ = base_ = una_ = next_ = p.psn();
    requester_ = p.src;
    first_frame_ = p.frame;
  }
  const bool fresh = p.psn() == next_;
  if (!fresh) ++disturbances_;  // a gap, a resend or a duplicate
  if (!ip_id_behind(p.ip_id)) {
    max_ip_id_ = p.ip_id;
    seen_ip_id_ = true;
  }
  if (fatal_ && fresh && op.starts_message()) ++failed_messages_;
  if (golden_) golden_->on_request(p, fresh);
  if (!corrupt_.empty()) {
    // A request that failed its ICRC comes again intact: the link corrupted it; a resend
    // covering a corrupted response shows the requester never got that response.
    std::erase_if(corrupt_, [&](Corrupt& c) {
      if (!c.request) {
        if (pdiff(p.psn(), c.psn) <= 0) c.reacted = true;
        return false;
      }
      if (c.psn != p.psn()) return false;
      j_->explain_violation(c.ticket, fmt::format("corrupted on the link: PSN {:#08x} sent again "
                                                  "intact in frame {}",
                                                  c.psn, p.frame));
      return true;
    });
  }
  if (fatal_ && !fatal_unheard_ &&
      p.ts > fatal_ts_ + static_cast<std::int64_t>(j_->options().profile.fatal_nak_grace_ns)) {
    // A PSN sent before: a resend (a new IPv4 id), or a copy the network delayed (the same
    // bytes; over IPv6 a resend looks the same). Neither is a new request.
    const bool sent_before = pdiff(p.psn(), next_) < 0;
    const PsnRec* r = sent_before ? rec(p.psn()) : nullptr;
    const bool copy = r != nullptr && r->seen && r->icrc == p.icrc && r->ip_id == p.ip_id;
    if (pdiff(p.psn(), fatal_psn_) <= 0 || (sent_before && !copy)) {
      // A timeout resend of what the NAK failed, or of what followed it (the tap may have
      // missed the failed PSN's resend): the NAK was lost after the tap and the requester
      // never heard it, so nothing it sends is held against it (corpus seed 40032).
      fatal_unheard_ = true;
      after_fatal_.clear();
      j_->note(NoteKind::Assumption, conn_, p.frame,
               fmt::format("the fatal NAK of frame {} did not reach the requester (it resends PSN "
                           "{:#08x} after it): err.after_fatal not applied to this QP",
                           fatal_frame_, p.psn()));
    } else if (!sent_before && after_fatal_.size() < 64) {
      after_fatal_.push_back(
          {p,
           fmt::format("{} PSN {:#08x} sent {:.3f} ms after the fatal NAK of frame {}", op.name,
                       p.psn(), static_cast<double>(p.ts - fatal_ts_) / 1e6, fatal_frame_),
           state("nothing: the QP is in the error state after a fatal NAK")});
    }
  }
  const std::int32_t d = pdiff(p.psn(), next_);
  if (d >= 0)
    new_packet(p, d);
  else
    old_packet(p);
  // After the stream's rules: a FIRST packet has shown the path MTU by then.
  if (golden_req_) golden_req_->on_request(p, d >= 0, mtu_);
}

void Stream::check_length(const Pkt& p) {
  const wire::OpcodeInfo& op = *p.op;
  if (op.payload != wire::Payload::DATA) return;
  j_->checked(RuleId::SeqLength, conn_);
  if (op.position == Position::FIRST || op.position == Position::MIDDLE) {
    set_mtu(p, p.payload_len);
    return;
  }
  const std::uint32_t limit = mtu_.value_or(4096);
  if (p.payload_len > limit)
    j_->violation(RuleId::SeqLength, "over_mtu", p, conn_,
                  fmt::format("{} carries {} bytes, more than the path MTU {}", op.name,
                              p.payload_len, limit));
  else if (op.position == Position::LAST && p.payload_len == 0)
    j_->violation(
        RuleId::SeqLength, "empty_last", p, conn_,
        fmt::format("{} carries no payload (a LAST packet carries 1 to MTU bytes)", op.name));
}

void Stream::set_mtu(const Pkt& p, std::uint32_t payload) {
  if (!mtu_) {
    if (!valid_mtu(payload)) {
      j_->violation(RuleId::SeqLength, "not_an_mtu", p, conn_,
                    fmt::format("{} carries {} bytes; FIRST and MIDDLE packets carry exactly the "
                                "path MTU (256, 512, 1024, 2048 or 4096)",
                                p.op->name, payload));
      return;
    }
    mtu_ = payload;
    for (ReadReq& rr : reads_)
      if (rr.npkts == 0) fill_read_slots(rr);
    return;
  }
  if (payload != *mtu_)
    j_->violation(
        RuleId::SeqLength, "not_mtu", p, conn_,
        fmt::format("{} carries {} bytes, the path MTU is {}", p.op->name, payload, *mtu_));
}

// A READ whose length in packets became known: its response PSNs are reserved.
void Stream::fill_read_slots(ReadReq& rr) {
  rr.npkts = npkts(rr.len);
  const std::uint32_t end = padd(rr.first, rr.npkts);
  // Slots already in the window (the READ was followed by other requests)...
  for_each_rec(padd(rr.first, 1), end, [](PsnRec& r) {
    if (!r.seen) {
      r.seen = true;
      r.read_slot = true;
    } else if (!r.read_slot && wire::opcode_info(r.opcode).operation == Operation::READ_REQUEST) {
      // A READ at one of its slots, shown before the path MTU: the rest of this READ
      // re-requested from inside it (docs/spec-notes.md §5.3), no message of its own.
      r.ends = false;
    }
  });
  // ... and, when the READ was the last request, the rest of its span moves the next PSN.
  while (pdiff(end, next_) > 0 && recs_.size() < kMaxTracked) {
    PsnRec r;
    r.seen = true;
    r.read_slot = true;
    recs_.push_back(r);
    next_ = padd(next_, 1);
  }
  if (pdiff(end, next_) > 0) next_ = end;  // beyond what the shadow tracks
}

template <class F>
void Stream::for_each_rec(std::uint32_t from, std::uint32_t to, F&& f) {
  // Only the PSNs the shadow holds: [from, to) clamped to [base_, base_ + size).
  const std::int64_t lo = std::max<std::int64_t>(0, pdiff(from, base_));
  const std::int64_t hi =
      std::min<std::int64_t>(static_cast<std::int64_t>(recs_.size()), pdiff(to, base_));
  for (std::int64_t i = lo; i < hi; ++i) f(recs_[static_cast<std::size_t>(i)]);
}

void Stream::check_sequence(const Pkt& p) {
  const wire::OpcodeInfo& op = *p.op;
  if (seq_known_) {
    j_->checked(RuleId::SeqOpcode, conn_);
    const bool cont = op.position == Position::MIDDLE || op.position == Position::LAST;
    if (in_msg_ && !(cont && op.operation == cur_op_))
      j_->violation(RuleId::SeqOpcode, "message_interrupted", p, conn_,
                    fmt::format("{} while a {} message is open (expected its MIDDLE or LAST)",
                                op.name, cur_op_ == Operation::SEND ? "SEND" : "RDMA WRITE"),
                    state());
    else if (!in_msg_ && cont)
      j_->violation(RuleId::SeqOpcode, "no_first", p, conn_,
                    fmt::format("{} without a FIRST packet before it", op.name), state());
  }
  seq_known_ = true;
  in_msg_ = op.position == Position::FIRST || op.position == Position::MIDDLE;
  cur_op_ = op.operation;
}

void Stream::record_request(const Pkt& p, PsnRec& r) {
  const wire::OpcodeInfo& op = *p.op;
  r.opcode = op.value;
  r.seen = true;
  r.read_slot = false;
  r.ends = ends_message(op);
  r.ip_id = p.ip_id;
  r.payload = p.payload_len;
  r.icrc = p.icrc;
  r.tx_ts = p.ts;
  if (transport_ != wire::Transport::RC) return;
  // The access a request starts: its kind, last PSN (when known), key and range, with the key's
  // generation, frame and state that every access of this request carries.
  auto access = [&p](Access kind, std::optional<std::uint32_t> last, std::uint32_t rkey,
                     std::uint64_t va, std::uint32_t len) {
    PendingAccess a{kind, p.psn(), last, rkey, va, len, p.key_epoch, p.frame};
    a.key_dead = p.key_dead;
    return a;
  };
  if (op.ends_message())
    open_msg_.reset();
  else if (op.starts_message())
    open_msg_ = OpenMessage{p.psn(), op.operation == Operation::WRITE
                                         ? std::optional<std::uint32_t>(p.reth.dmalen)
                                         : std::nullopt};
  if (op.operation == Operation::WRITE && op.starts_message()) {
    // A FIRST lost before the tap comes with the go-back-N after the rest of its message: its
    // LAST may have been shown already.
    const std::optional<std::uint32_t> last =
        op.ends_message() ? std::optional<std::uint32_t>(p.psn()) : seen_write_end_after(p.psn());
    accesses_.push_back(access(Access::Write, last, p.reth.rkey, p.reth.va, p.reth.dmalen));
  } else if (op.operation == Operation::WRITE && op.ends_message()) {
    for (auto it = accesses_.rbegin(); it != accesses_.rend(); ++it)
      if (it->kind == Access::Write && !it->last) {
        it->last = p.psn();
        break;
      }
  } else if (op.operation == Operation::READ_REQUEST) {
    accesses_.push_back(access(Access::Read, p.psn(), p.reth.rkey, p.reth.va, p.reth.dmalen));
  } else if (is_atomic(op.operation)) {
    accesses_.push_back(access(Access::Atomic, p.psn(), p.atomic.rkey, p.atomic.va, 8));
  } else if (op.operation == Operation::ATOMIC_WRITE) {
    // Eight bytes written with the REMOTE_WRITE right (docs/spec-notes.md §8.4): for the keys,
    // a one-packet RDMA WRITE, granted by its answer or any answer past it.
    accesses_.push_back(access(Access::Write, p.psn(), p.reth.rkey, p.reth.va, 8));
  } else if (op.operation == Operation::FLUSH) {
    // The FLUSH right of each placement it asks, on [VA, VA + length) or the whole region
    // (docs/spec-notes.md §8.4); granted, like an ATOMIC WRITE, by its answer or one past it.
    PendingAccess a = access(Access::Flush, p.psn(), p.reth.rkey, p.reth.va, p.reth.dmalen);
    a.placement = p.feth.placement;
    a.whole_region = p.feth.selectivity == 1;
    accesses_.push_back(a);
  }
  while (accesses_.size() > 4096) accesses_.pop_front();
}

void Stream::new_packet(const Pkt& p, std::int32_t gap) {
  const wire::OpcodeInfo& op = *p.op;
  burst_ = false;
  // psn.window, against the oldest unacknowledged PSN as it stands before this packet (a jump
  // past what the shadow tracks starts it again below).
  const std::uint32_t oldest = una_;
  const bool beyond_window = pdiff(padd(p.psn(), 1), oldest) < 0;
  if (nak_wait_) {
    // A NAK PSN sequence error calls for a go-back-N; new PSNs sent well after it, with no
    // resend at all, mean the requester ignored it (docs/spec-notes.md §4.3, §5.3).
    j_->checked(RuleId::PsnRetransmit, conn_);
    const auto grace = static_cast<std::int64_t>(j_->options().profile.fatal_nak_grace_ns);
    if (p.sender_stopped) {
      // The requester's log shows it in ERR before this packet reached the tap: it was sent
      // before, held up on the way, and the QP sends nothing more (a resend is not due).
      nak_wait_.reset();
    } else if (p.ts > nak_wait_->not_before + grace) {
      // While a retry it started is still in progress (no message completed since), a
      // requester may leave the NAK to that retry's timer: rxe does (profiles/rxe.json).
      j_->violation(
          RuleId::PsnRetransmit, nak_wait_in_retry_ ? "ignored_nak_in_retry" : "ignored_nak", p,
          conn_,
          fmt::format("{} sends new PSN {:#08x} {:.3f} ms after the NAK PSN sequence "
                      "error of frame {}, and has resent nothing since{}",
                      op.name, p.psn(), static_cast<double>(p.ts - nak_wait_->not_before) / 1e6,
                      nak_wait_->frame,
                      nak_wait_in_retry_ ? " (the NAK came while a go-back-N it had started "
                                           "was in progress, no message completed since)"
                                         : ""),
          state(fmt::format("a resend from PSN {:#08x}", nak_wait_->psn)));
      nak_wait_.reset();
    }
  }
  j_->checked(RuleId::PsnSequence, conn_);
  if (gap > 0) {
    // PSNs next_..p-1 never reached the tap. Lost before it, they must be resent (RC) or are
    // gone for good (UC, docs/spec-notes.md §3.3); missed by the tap, an ACK will cover them.
    seq_known_ = false;
    if (transport_ == wire::Transport::RC) {
      if (static_cast<std::size_t>(gap) + recs_.size() > kMaxTracked) {
        if (!j_->explain(
                conn_, *budget_, static_cast<std::uint32_t>(gap), p,
                fmt::format("the tap missed {} request packets before PSN {:#08x}", gap, p.psn())))
          j_->violation(RuleId::PsnSequence, "jump", p, conn_,
                        fmt::format("PSN {:#08x} follows {:#08x}: {} PSNs skipped", p.psn(),
                                    padd(next_, -1), gap),
                        state(fmt::format("PSN {:#08x}", next_)));
        recs_.clear();
        base_ = una_ = p.psn();
        msn_base_.reset();
        ends_dropped_known_ = false;
      } else {
        for (std::int32_t i = 0; i < gap; ++i) recs_.emplace_back();
      }
    }
  }
  // The gap is in the window now: a path MTU learnt from this packet places READ slots right.
  next_ = p.psn();
  check_sequence(p);
  check_length(p);
  if (j_->options().golden) golden_request(p, gap);
  next_ = padd(p.psn(), 1);
  if (transport_ != wire::Transport::RC) return;
  // The unwrapped PSN axis follows the new requests (each within 2^23 of the one before).
  axis_at_ = axis_set_ ? unwrap(p.psn()) : 0;
  axis_psn_ = p.psn();
  axis_set_ = true;
  if (recs_.size() >= kMaxTracked) {
    // Beyond any real window: forget the oldest PSNs (their MSN contribution with them).
    recs_.pop_front();
    base_ = padd(base_, 1);
    msn_base_.reset();
    ends_dropped_known_ = false;
  }
  if (recs_.empty()) base_ = p.psn();
  recs_.emplace_back();
  record_request(p, recs_.back());
  if (op.operation == Operation::READ_REQUEST) {
    reads_.push_back(read_of(p));
    ReadReq& rr = reads_.back();
    if (mtu_ || rr.len <= 256) {
      if (!mtu_ && rr.len <= 256) {
        rr.npkts = 1;
      } else {
        fill_read_slots(rr);
      }
    }
    while (reads_.size() > 1024) reads_.pop_front();
  } else if (is_atomic(op.operation)) {
    record_atomic(p);
  } else if (is_placement(op.operation)) {
    placements_.push_back(p.psn());
    while (placements_.size() > 1024) placements_.pop_front();
  }
  if (op.operation == Operation::READ_REQUEST || is_atomic(op.operation) ||
      op.operation == Operation::ATOMIC_WRITE)
    track_rd_atomic(p);
  j_->checked(RuleId::PsnWindow, conn_);
  if (beyond_window || pdiff(next_, una_) < 0)
    j_->violation(RuleId::PsnWindow, "exceeded", p, conn_,
                  fmt::format("2^23 or more PSNs outstanding (oldest unacknowledged {:#08x})",
                              beyond_window ? oldest : una_),
                  state());
  record_epsn_request(p, beyond_window ? std::optional(oldest) : std::nullopt);
}

Stream::ReadReq Stream::read_of(const Pkt& p) const {
  ReadReq rr;
  rr.first = rr.seg_psn = rr.resp_next = p.psn();
  rr.va = p.reth.va;
  rr.rkey = p.reth.rkey;
  rr.len = rr.seg_len = p.reth.dmalen;
  rr.in_opening = !pinned_;
  return rr;
}

Stream::ReadReq& Stream::insert_read(const Pkt& p) {
  auto at = reads_.end();
  while (at != reads_.begin() && pdiff(std::prev(at)->first, p.psn()) > 0) --at;
  return *reads_.insert(at, read_of(p));
}

void Stream::record_atomic(const Pkt& p) {
  atomics_.push_back({p.psn(), p.atomic.va, 1, 0, 0});
  while (atomics_.size() > 1024) atomics_.pop_front();  // far beyond any responder's depth
}

void Stream::old_packet(const Pkt& p) {
  const wire::OpcodeInfo& op = *p.op;
  if (transport_ != wire::Transport::RC) return;  // UC never resends: a reordered original
  const std::int32_t back = pdiff(p.psn(), base_);
  if (back < 0 && back >= -kMaxReorder && base_ == first_psn_ && una_ == base_ &&
      recs_.size() + static_cast<std::size_t>(-back) <= kMaxTracked) {
    // Before the first PSN seen, nothing acknowledged yet: the capture's first requests came
    // out of order. The window grows back to it.
    for (std::int32_t i = 0; i < -back; ++i) recs_.emplace_front();
    base_ = una_ = first_psn_ = p.psn();
    msn_base_.reset();
  }
  PsnRec* r = rec(p.psn());
  if (r && !r->seen) {
    // A PSN the tap had not shown: the original, late (reordered by the link), or the resend
    // of a packet lost before the tap. Both are fine; it is checked against its neighbours.
    record_request(p, *r);
    if (op.operation == Operation::READ_REQUEST) {
      ReadReq& rr = insert_read(p);  // a late READ goes in its place
      if (mtu_) fill_read_slots(rr);
    } else if (is_atomic(op.operation)) {
      record_atomic(p);
    } else if (is_placement(op.operation)) {
      placements_.push_back(p.psn());
    }
    check_length(p);
    burst_ = true;
    last_resent_ = p.psn();
    if (nak_wait_) retry_open_ = true;  // the resend a NAK called for: a retry has begun
    nak_wait_.reset();
    return;
  }
  if (r && r->seen && !r->read_slot && r->icrc == p.icrc && r->ip_id == p.ip_id &&
      r->opcode == op.value) {
    // The very same frame again (IPv4 id included): duplicated by the link or the tap. (IPv6
    // has no id: a resend looks the same.) Either way the responder may answer it again, with
    // the MSN of that moment, so its answers no longer set the MSN baseline.
    ++link_duplicates_;
    if (is_atomic(op.operation))
      for (AtomicReq& a : atomics_)
        if (a.psn == p.psn()) ++a.requests;
    if (op.operation == Operation::READ_REQUEST)
      if (ReadReq* rr = read_holding(p.psn()); rr && rr->first == p.psn()) rr->repeated = true;
    if (p.src.version == 6) {
      // Without an IP id a go-back-N resend is byte for byte its original: it may answer a NAK.
      ++resends_;
      if (nak_wait_ && pdiff(p.psn(), nak_wait_->psn) >= 0) nak_wait_.reset();
    }
    return;
  }
  if (p.src.version == 4 && last_resend_ && last_resend_->psn == p.psn() &&
      last_resend_->ip_id == p.ip_id && last_resend_->icrc == p.icrc) {
    // A link copy of the last resend that its PSN record does not hold (a READ re-requested
    // from inside it: a response slot).
    ++link_duplicates_;
    return;
  }
  if (pdiff(p.psn(), una_) < 0) ++acknowledged_resends_;
  start_resend(p);
}

void Stream::start_resend(const Pkt& p) {
  const wire::OpcodeInfo& op = *p.op;
  ++resends_;
  retry_open_ = true;  // a go-back-N (after a NAK or a timeout) is in progress
  last_resend_ = LastResend{p.psn(), p.ip_id, p.icrc};
  nak_wait_.reset();
  j_->checked(RuleId::PsnRetransmit, conn_);
  PsnRec* r = rec(p.psn());
  const std::int64_t prev_tx = r != nullptr && r->seen ? r->tx_ts : 0;
  if (r != nullptr) r->tx_ts = p.ts;
  ReadReq* rr = read_holding(p.psn());
  if (op.operation == Operation::READ_REQUEST && rr && rr->first != p.psn()) {
    // A READ re-requested mid-way (docs/spec-notes.md §5.3): the rest of the original.
    j_->checked(RuleId::ReadResume, conn_);
    if (!mtu_) {
      // Cannot place it without the path MTU; accept it as the new segment.
    } else {
      const std::uint32_t k = static_cast<std::uint32_t>(pdiff(p.psn(), rr->first));
      const std::uint64_t skip = static_cast<std::uint64_t>(k) * *mtu_;
      if (p.reth.rkey != rr->rkey || p.reth.va != rr->va + skip ||
          static_cast<std::uint64_t>(p.reth.dmalen) + skip != rr->len)
        j_->violation(
            RuleId::ReadResume, "not_the_rest", p, conn_,
            fmt::format("READ re-requested at PSN {:#08x} with VA {:#x}, length {}, "
                        "rkey {:#x}; the rest of the READ of PSN {:#08x} is VA {:#x}, "
                        "length {}, rkey {:#x}",
                        p.psn(), p.reth.va, p.reth.dmalen, p.reth.rkey, rr->first, rr->va + skip,
                        rr->len - std::min<std::uint64_t>(skip, rr->len), rr->rkey),
            state());
    }
    rr->seg_psn = rr->resp_next = p.psn();
    rr->seg_len = p.reth.dmalen;
    rr->repeated = true;
  } else if (r && r->seen && !r->read_slot) {
    // A copy of this resend made by the link is a duplicate, not another resend.
    r->ip_id = p.ip_id;
    r->icrc = p.icrc;
    if (r->opcode != op.value || (op.payload == wire::Payload::DATA && r->payload != p.payload_len))
      j_->violation(RuleId::PsnRetransmit, "different_packet", p, conn_,
                    fmt::format("PSN {:#08x} resent as {} with {} bytes; it was sent as {} with {} "
                                "bytes",
                                p.psn(), op.name, p.payload_len, wire::opcode_info(r->opcode).name,
                                r->payload),
                    state("the same packet as the first time"));
    if (op.operation == Operation::READ_REQUEST && rr) {
      j_->checked(RuleId::ReadResume, conn_);
      if (p.reth.va != rr->va || p.reth.dmalen != rr->len || p.reth.rkey != rr->rkey)
        j_->violation(
            RuleId::ReadResume, "different_request", p, conn_,
            fmt::format("READ of PSN {:#08x} resent with VA {:#x}, length {}, rkey {:#x}; "
                        "it was VA {:#x}, length {}, rkey {:#x}",
                        p.psn(), p.reth.va, p.reth.dmalen, p.reth.rkey, rr->va, rr->len, rr->rkey),
            state());
      rr->seg_psn = rr->resp_next = p.psn();
      rr->seg_len = p.reth.dmalen;
      rr->repeated = true;
    }
  } else if (r && r->read_slot) {
    j_->violation(
        RuleId::PsnRetransmit, "inside_read", p, conn_,
        fmt::format("{} resent at PSN {:#08x}, a PSN of a READ's responses", op.name, p.psn()),
        state());
  }
  if (op.operation == Operation::READ_REQUEST && rr == nullptr && r == nullptr &&
      (mtu_ || p.reth.dmalen <= 256)) {
    // The resend of a READ acknowledged before the tap showed it (its PSN left the window
    // unseen, or the responder had it before the capture began): a responder executes a
    // repeated READ again (IBA Vol. 1 §9.7.5.1; docs/spec-notes.md §8.3), so what answers it
    // answers a READ. Only where its span is known (one packet at any MTU up to 256 bytes).
    ReadReq& again = insert_read(p);
    again.npkts = mtu_ ? npkts(p.reth.dmalen) : 1;
    again.repeated = true;
  }
  if (is_atomic(op.operation)) {
    auto a = std::find_if(atomics_.begin(), atomics_.end(),
                          [&](const AtomicReq& x) { return x.psn == p.psn(); });
    if (a != atomics_.end()) {
      ++a->requests;
    } else if (r == nullptr) {
      // The resend of an atomic acknowledged before the tap showed it (its PSN left the window
      // unseen, or taken for a READ's response slot): its answer answers an atomic.
      record_atomic(p);
    }
  }

  if (burst_ && pdiff(p.psn(), last_resent_) > 0) {
    // The go-back-N goes on (PSNs it passes over were lost before the tap, or the responder
    // had them already).
    last_resent_ = p.psn();
    return;
  }
  // A new go-back-N: from a NAK's PSN (RNR: once its timer ran out), or from the oldest
  // unacknowledged PSN (a timeout, an implicit NAK; an older one when ACKs were lost after
  // the tap). docs/spec-notes.md §5.2-5.4.
  burst_ = true;
  last_resent_ = p.psn();
  ++retries_;
  // A go-back in the opening that starts past the oldest PSN the capture shows unacknowledged:
  // responses the tap never showed had acknowledged those PSNs, sent before the capture began
  // (or missed by the tap). A response's MSN baseline of 0 then shows where the connection's
  // PSNs start, not that the capture shows its start: the requests before the go-back may be
  // resends of requests answered before the capture (docs/check.md, "A capture that begins
  // mid-conversation").
  if (!pinned_ && pdiff(p.psn(), una_) > 0) seeded_ = true;
  // An RNR NAK's wait holds even when a NAK PSN sequence error followed it.
  auto rnr = std::find_if(nak_points_.rbegin(), nak_points_.rend(),
                          [&](const NakPoint& n) { return n.rnr && n.psn == p.psn(); });
  judge_round(p, prev_tx, rnr != nak_points_.rend());
  if (rnr != nak_points_.rend()) {
    j_->checked(RuleId::AckRnrWait, conn_);
    const auto tol = static_cast<std::int64_t>(j_->options().profile.timing_tolerance_ns);
    if (p.ts + tol < rnr->not_before)
      j_->violation(
          RuleId::AckRnrWait, "too_early", p, conn_,
          fmt::format("PSN {:#08x} resent {:.3f} ms before the RNR timer of the NAK of "
                      "frame {} ran out",
                      p.psn(), static_cast<double>(rnr->not_before - p.ts) / 1e6, rnr->frame),
          state("nothing until the RNR timer has run out"));
    nak_points_.erase(std::next(rnr).base());  // waited for: it constrains no later resend
  }
  // Starting after the oldest unacknowledged PSN is explained by resends lost before the tap
  // or by an ACK the tap missed; and after a NAK, originals delayed by the link may still be
  // accepted, so nothing more is decided here.
}

const SetupQp* Stream::requester_setup() const {
  const Setup* s = j_->options().setup.get();
  if (s == nullptr || !requester_) return nullptr;
  if (requester_qpn_)
    if (const SetupQp* q = s->qp(requester_->b, *requester_qpn_)) return q;
  return s->qp_to(requester_->b, responder_qpn_);
}

const SetupQp* Stream::responder_setup() const {
  const Setup* s = j_->options().setup.get();
  return s == nullptr ? nullptr : s->qp(responder_.b, responder_qpn_);
}

namespace {
// Beyond the longest round trip seen, how long a response may still reach the requester.
constexpr std::int64_t kResponseSlackNs = 1'000'000;
// The share of the local ACK timeout two timer resends may lose to the path between the
// requester and the tap when no round trip was seen (1/8).
constexpr qp::TimeNs kTimerShare = 8;
}  // namespace

void Stream::judge_round(const Pkt& p, std::int64_t prev_tx, bool after_rnr) {
  if (transport_ != wire::Transport::RC) return;
  if (!hears_all_) {
    // Its responses may be elsewhere: no round is judged or counted until progress.
    in_round_ = false;
    timer_round_ts_ = 0;
    retry_reported_ = rnr_retry_reported_ = true;
    return;
  }
  // A resend below the round's first PSN, with nothing heard since the round began and not
  // below what was unacknowledged then: the same round, its packets reordered on the way.
  if (in_round_ && responses_ == round_responses_ && pdiff(p.psn(), round_una_) >= 0 &&
      pdiff(p.psn(), round_psn_) < 0) {
    round_psn_ = p.psn();
    return;
  }
  in_round_ = true;
  round_psn_ = p.psn();
  round_una_ = una_;
  round_responses_ = responses_;
  const SetupQp* q = requester_setup();
  if (q == nullptr) return;
  const std::string& setup_file = j_->options().setup->file;
  if (after_rnr) {
    timer_round_ts_ = 0;
    ++rnr_rounds_;
    if (!q->rnr_retry) return;
    j_->checked(RuleId::PsnRnrRetryCount, conn_);
    if (*q->rnr_retry != 7 && rnr_rounds_ > *q->rnr_retry && !rnr_retry_reported_) {
      rnr_retry_reported_ = true;
      j_->violation(RuleId::PsnRnrRetryCount, "beyond_rnr_retry", p, conn_,
                    fmt::format("PSN {:#08x} resent after {} RNR NAKs without progress; QP {} of "
                                "{} has rnr_retry {}",
                                p.psn(), rnr_rounds_, q->name, setup_file, *q->rnr_retry),
                    state("RNR_RETRY_EXC_ERR: the work request fails, the QP goes to ERR"));
    }
    return;
  }
  // A sequence NAK at this PSN not counted yet, or else the requester's own timer.
  const NakPoint* seq = nullptr;
  for (auto it = nak_points_.rbegin(); it != nak_points_.rend(); ++it)
    if (!it->rnr && it->psn == p.psn() && it->frame > counted_nak_frame_) {
      seq = &*it;
      break;
    }
  if (seq != nullptr) {
    counted_nak_frame_ = seq->frame;
    timer_round_ts_ = 0;
  } else {
    // Silence since the PSN was last sent and since the last progress: only the timer can
    // have started this round. Anything heard since (an implicit NAK, a duplicate ACK) is not
    // judged, nor counted.
    const std::int64_t since = std::max(progress_ts_, prev_tx);
    if (prev_tx == 0 || last_response_ts_ > since) return;
    // A timer's go-back-N starts at the oldest unacknowledged PSN (docs/spec-notes.md §5.2),
    // with a new IP id; anything else here is a copy the network delayed (sent before), or
    // starts where the tap missed an ACK: not a round of the timer.
    if (p.psn() != una_ || (p.src.version == 4 && ip_id_behind(p.ip_id))) return;
    // A response the tap showed may reach the requester later than the tap saw it (a tap near
    // the responder, a delay or a copy on the way): within a few round trips of the last one,
    // a resend may be its doing (an implied NAK), not the timer's.
    if (last_response_ts_ != 0 && p.ts - last_response_ts_ < 4 * max_rtt_ + kResponseSlackNs)
      return;
    const std::int64_t previous = timer_round_ts_;
    timer_round_ts_ = p.ts;
    if (q->timeout) {
      // When the timer was armed is not on the wire; that it was armed again no sooner than it
      // last expired is (the previous timeout round, with silence since). The first round after
      // progress is not timed: an implementation may leave its timer running from an earlier
      // request (rxe arms it only when it is not running).
      const qp::TimeNs timeout = qp::local_ack_timeout_ns(*q->timeout);
      // Beyond the tap's and the timer's tolerances, the network's: two resends may be delayed
      // differently on their way to the tap, by up to the longest round trip seen, or (no
      // response at all) by a fraction of the timeout.
      const auto slack =
          static_cast<std::int64_t>(j_->options().profile.timing_tolerance_ns +
                                    j_->options().profile.timer_slack_ns) +
          std::max<std::int64_t>(max_rtt_, static_cast<std::int64_t>(timeout / kTimerShare));
      std::string wrong;
      if (*q->timeout == 0) {
        j_->checked(RuleId::PsnTimeout, conn_);
        wrong = fmt::format(
            "PSN {:#08x} resent after {:.3f} ms of silence; QP {} of {} has "
            "timeout 0 (no retransmission timer)",
            p.psn(), static_cast<double>(p.ts - since) / 1e6, q->name, setup_file);
      } else if (previous != 0) {
        j_->checked(RuleId::PsnTimeout, conn_);
        const std::int64_t waited = p.ts - previous;
        if (waited + slack < static_cast<std::int64_t>(timeout))
          wrong = fmt::format(
              "PSN {:#08x} resent {:.3f} ms after the previous timeout "
              "retransmission, in silence; QP {} of {} has timeout {} ({:.3f} ms)",
              p.psn(), static_cast<double>(waited) / 1e6, q->name, setup_file, *q->timeout,
              static_cast<double>(timeout) / 1e6);
      }
      // A NAK the tap missed would explain an early resend.
      if (!wrong.empty() &&
          !j_->explain(conn_, *budget_, 1, p, wrong + ": a NAK the tap missed would explain it"))
        j_->violation(RuleId::PsnTimeout, *q->timeout == 0 ? "no_timer" : "too_early", p, conn_,
                      wrong, state("nothing before the local ACK timeout"));
    }
  }
  ++retry_rounds_;
  if (!q->retry_cnt) return;
  j_->checked(RuleId::PsnRetryCount, conn_);
  if (retry_rounds_ > *q->retry_cnt && !retry_reported_) {
    retry_reported_ = true;
    j_->violation(
        RuleId::PsnRetryCount, *q->retry_cnt == 7 ? "seven_is_infinite" : "beyond_retry_cnt", p,
        conn_,
        fmt::format("PSN {:#08x}: retry {} without progress; QP {} of {} has retry_cnt {}", p.psn(),
                    retry_rounds_, q->name, setup_file, *q->retry_cnt),
        state("RETRY_EXC_ERR: the work request fails, the QP goes to ERR"));
  }
}

// ------------------------------------------------------------------------- golden.request

namespace {
// Messages longer than this many packets are not compared (memory stays bounded).
constexpr std::size_t kMaxMessagePackets = 4096;
}  // namespace

void Stream::golden_request(const Pkt& p, std::int32_t gap) {
  const wire::OpcodeInfo& op = *p.op;
  if (gap > 0 || (op.operation != Operation::SEND && op.operation != Operation::WRITE)) {
    msg_open_ = false;  // a gap, or not a message the segmenter splits
    return;
  }
  if (op.starts_message()) {
    msg_.clear();
    msg_open_ = true;
    msg_dmalen_ = op.has(wire::Header::Reth) ? p.reth.dmalen : 0;
  }
  if (!msg_open_) return;
  if (msg_.size() >= kMaxMessagePackets) {
    msg_open_ = false;
    return;
  }
  msg_.push_back({op.value, p.psn(), p.payload_len});
  if (!op.ends_message()) return;
  msg_open_ = false;
  judge_message(p);
}

void Stream::judge_message(const Pkt& last) {
  const wire::OpcodeInfo& end = *last.op;
  tx::SegmentRequest req;
  req.transport = transport_;
  if (end.operation == Operation::SEND)
    req.opcode = (end.flags & wire::kInv)   ? tx::WrOpcode::SEND_WITH_INV
                 : (end.flags & wire::kImm) ? tx::WrOpcode::SEND_WITH_IMM
                                            : tx::WrOpcode::SEND;
  else
    req.opcode =
        (end.flags & wire::kImm) ? tx::WrOpcode::RDMA_WRITE_WITH_IMM : tx::WrOpcode::RDMA_WRITE;
  std::uint64_t sent = 0;
  for (const MsgPkt& m : msg_) sent += m.payload;
  // A WRITE's length is its RETH's (what the responder will hold it to); a SEND's, what it
  // carries.
  req.length = end.operation == Operation::WRITE ? msg_dmalen_ : sent;
  // The path MTU: known, or shown by this message's FIRST; a one-packet message of at most the
  // smallest MTU is an ONLY whatever the MTU. Otherwise the message is not compared.
  if (mtu_)
    req.mtu = *mtu_;
  else if (msg_.size() >= 2 && valid_mtu(msg_.front().payload))
    req.mtu = msg_.front().payload;
  else if (req.length <= 256)
    req.mtu = 256;
  else
    return;
  if (req.length / req.mtu >= kMaxMessagePackets) return;
  req.first_psn = msg_.front().psn;
  const tx::SegmentPlan plan = tx::segment(req);
  j_->checked(RuleId::GoldenRequest, conn_);
  auto model = [&] {
    std::string s =
        fmt::format("{} packet{}:", plan.packets.size(), plan.packets.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < plan.packets.size() && i < 4; ++i)
      s += fmt::format(" {} {}B", wire::opcode_info(plan.packets[i].opcode).name,
                       plan.packets[i].length);
    if (plan.packets.size() > 4) s += " ...";
    return s;
  };
  const std::string wr =
      fmt::format("{} of {} bytes at MTU {}", tx::to_string(req.opcode), req.length, req.mtu);
  if (plan.error != tx::SegmentError::NONE) {
    j_->violation(RuleId::GoldenRequest, "refused", last, conn_,
                  fmt::format("a {}: the model's requester would not send it ({})", wr,
                              tx::to_string(plan.error)),
                  state("no such message"));
    return;
  }
  for (std::size_t i = 0; i < std::max(plan.packets.size(), msg_.size()); ++i) {
    const bool have = i < msg_.size(), want = i < plan.packets.size();
    if (have && want && msg_[i].opcode == plan.packets[i].opcode &&
        msg_[i].psn == plan.packets[i].psn && msg_[i].payload == plan.packets[i].length)
      continue;
    std::string got =
        have ? fmt::format("{} PSN {:#08x} with {} bytes", wire::opcode_info(msg_[i].opcode).name,
                           msg_[i].psn, msg_[i].payload)
             : std::string("nothing more");
    std::string expected = want ? fmt::format("{} PSN {:#08x} with {} bytes",
                                              wire::opcode_info(plan.packets[i].opcode).name,
                                              plan.packets[i].psn, plan.packets[i].length)
                                : std::string("nothing more");
    j_->violation(RuleId::GoldenRequest, "differs", last, conn_,
                  fmt::format("packet {} of a {} ({} bytes sent): {}, the model's requester sends "
                              "{}",
                              i + 1, wr, sent, got, expected),
                  state("the model's " + model()));
    return;
  }
}

// --------------------------------------------------------------------------------- responses

// Whether `psn` may be a response slot of a READ whose packet count is not known yet (no path
// MTU seen): within the most packets its length can take (one per 256 bytes).
bool Stream::maybe_read_slot(std::uint32_t psn) const {
  for (auto it = reads_.rbegin(); it != reads_.rend(); ++it) {
    if (it->npkts != 0) continue;
    const std::uint32_t most = std::max<std::uint32_t>(1, (it->len + 255) / 256);
    if (pdiff(psn, it->first) > 0 && pdiff(psn, padd(it->first, most)) < 0) return true;
  }
  return false;
}

Stream::ReadReq* Stream::read_holding(std::uint32_t psn) {
  for (auto it = reads_.rbegin(); it != reads_.rend(); ++it) {
    const std::int32_t k = pdiff(psn, it->first);
    if (k < 0) continue;
    if (it->npkts == 0 ? k == 0 || pdiff(psn, next_) < 0
                       : static_cast<std::uint32_t>(k) < it->npkts)
      return &*it;
    if (k >= 0) break;  // later READs start after this PSN; older ones end before
  }
  return nullptr;
}

void Stream::on_response(const Pkt& p) {
  trim_queues();
  ++responses_;
  if (!next_at_answer_) next_at_answer_ = next_;
  last_response_ts_ = p.ts;
  if (!requester_qpn_) requester_qpn_ = p.bth.dqpn;
  const bool opening = !pinned_;  // for the golden replay: this response may end it
  msn_agreed_ = false;
  if (p.earlier_msn || p.earlier_psn) mid_connection(p.earlier_msn, p.earlier_psn);
  // The pin (below) needs a response beyond every PSN any response showed before it.
  const std::optional<std::uint32_t> top_before = top_resp_psn_;
  raise_psn(top_resp_psn_, p.psn());
  // A response that does not advance (a copy, a re-answer, one overtaken on the way): the
  // responder saw something the tap may not show in its order.
  if (highest_resp_ && pdiff(p.psn(), *highest_resp_) <= 0) ++disturbances_;
  if (!started_) {
    mid_connection(p.has(wire::Header::Aeth) ? std::optional(p.aeth.msn) : std::nullopt,
                   std::nullopt);
    if (!noted_early_response_)
      j_->note(NoteKind::Gap, conn_, p.frame,
               "responses before any request of this QP: the capture starts mid-connection");
    noted_early_response_ = true;
    return;
  }
  // Whatever is judged of it below, a response ends the READs and atomics it answers
  // (read.rd_atomic_limit counts what is outstanding).
  if (!rd_atomic_.empty()) close_rd_atomic(p);
  if ((p.op->operation == Operation::READ_RESPONSE || p.op->operation == Operation::ATOMIC_ACK) &&
      sent_before_capture(p.psn())) {
    // The answer to a READ or atomic sent before the capture began (its PSN precedes the first
    // request the tap showed): what it answers is unknown, so nothing is judged of it. (An ACK
    // or NAK there says nothing the rules hold against the device: a NAK may name a first
    // request lost before the tap.)
    if (!noted_early_response_)
      j_->note(NoteKind::Gap, conn_, p.frame,
               fmt::format("{} for PSN {:#08x} answers a request sent before the capture (the "
                           "first request seen has PSN {:#08x}): such responses are not judged",
                           p.op->name, p.psn(), first_psn_));
    noted_early_response_ = true;
    return;
  }
  if (lead_through_ && pdiff(p.psn(), *lead_through_) <= 0 && pdiff(p.psn(), first_psn_) >= 0) {
    // The answer to a request the responder had before the capture (lead()): a duplicate's, or
    // the original's still on its way; what it answers is not known either.
    return;
  }
  const wire::OpcodeInfo& op = *p.op;
  if (!corrupt_.empty())
    std::erase_if(corrupt_, [&](const Corrupt& c) {
      if (c.request || !c.reacted || pdiff(p.psn(), c.psn) < 0) return false;
      j_->explain_violation(c.ticket, fmt::format("corrupted on the link: the requester resent "
                                                  "what it covered, and frame {} answers again",
                                                  p.frame));
      return true;
    });
  const bool positive_ack =
      op.operation == Operation::ACK && wire::aeth_kind(p.aeth.syndrome) == wire::AethKind::ACK;
  // (A FIRST or ONLY response begins a READ's answer: past the READ's PSN it is none of its span.)
  const bool continues = op.operation == Operation::READ_RESPONSE &&
                         (op.position == Position::MIDDLE || op.position == Position::LAST);
  if ((continues || positive_ack) && !reads_.empty() && reads_.back().npkts == 0 &&
      pdiff(p.psn(), reads_.back().first) > 0 &&
      (padd(reads_.back().first, 1) == next_ || (!recs_.empty() && recs_.back().read_slot))) {
    // The last request was a READ whose packet count is not known yet (no path MTU seen): a
    // response within the most it can take (one per 256 bytes) shows its span; so does an ACK
    // there (a duplicate re-ACKed at ePSN - 1, past the READ: docs/spec-notes.md §4.5). (Not
    // when requests followed the READ: its span ends before the first of them.)
    const ReadReq& rr = reads_.back();
    const std::uint32_t most = std::max<std::uint32_t>(1, (rr.len + 255) / 256);
    if (pdiff(p.psn(), padd(rr.first, most)) < 0)
      while (pdiff(p.psn(), next_) >= 0 && recs_.size() < kMaxTracked) {
        PsnRec r;
        r.seen = true;
        r.read_slot = true;
        recs_.push_back(r);
        next_ = padd(next_, 1);
      }
  }
  j_->checked(RuleId::AckPsn, conn_);
  const std::int32_t ahead = pdiff(p.psn(), next_);
  if (ahead >= 0) {
    if (!pinned_) {
      // In the opening, a response beyond everything the capture showed sent: the requester had
      // sent up to it before the capture began (the tap started during a go-back-N, or with
      // requests and answers in flight; corpus seeds 22 and 183 with their first frames cut).
      const bool nak =
          op.operation == Operation::ACK && wire::aeth_kind(p.aeth.syndrome) != wire::AethKind::ACK;
      std::optional<std::uint32_t> msn;
      if (op.operation == Operation::ACK || op.operation == Operation::ATOMIC_ACK)
        msn = p.aeth.msn;  // the MSN through the PSN it acknowledges (a NAK: the one before)
      lead(p, nak ? padd(p.psn(), -1) : p.psn(), msn);
      return;
    }
    if (within_open_message(p)) {
      // The capture shows the connection's start (a baseline of 0), but it began during a
      // go-back-N over its first messages: the responder had received more of the unfinished
      // message than the resends so far show (its MSN counts no more messages).
      lead(p, p.psn(), p.aeth.msn);
      return;
    }
    const auto need = static_cast<std::uint32_t>(ahead) + 1;
    if (!j_->explain(
            conn_, *budget_, need, p,
            fmt::format("{} for PSN {:#08x}: the tap missed {} requests", op.name, p.psn(), need)))
      j_->violation(
          RuleId::AckPsn, "unsent", p, conn_,
          fmt::format("{} for PSN {:#08x}, but the highest PSN sent is {:#08x}{}", op.name, p.psn(),
                      padd(next_, -1),
                      wire::aeth_kind(p.aeth.syndrome) == wire::AethKind::NAK &&
                              op.operation == Operation::ACK
                          ? " (the two QPs disagree on the PSN: a start PSN kept across a "
                            "reconnect?)"
                          : ""),
          state("no response for a PSN that was never sent"));
    return;
  }
  record_epsn_response(p);
  if (op.operation == Operation::READ_RESPONSE)
    on_read_response(p);
  else if (op.operation == Operation::ATOMIC_ACK)
    on_atomic_ack(p);
  else
    on_ack(p);
  if (!highest_resp_ || pdiff(p.psn(), *highest_resp_) > 0) highest_resp_ = p.psn();
  if (!pinned_ && op.has(wire::Header::Aeth) &&
      wire::aeth_kind(p.aeth.syndrome) == wire::AethKind::ACK) {
    // The opening ends with the first response beyond every PSN answered before, at a PSN the
    // capture shows sent, whose MSN passes every MSN before it and agrees with the baseline an
    // earlier response set: the responder executed a request the capture shows, and counted
    // the messages the capture shows. (A NAK does not end it: an original sent before the
    // capture may still arrive late and be accepted.)
    if (opening_msn_ && pdiff(p.aeth.msn, *opening_msn_) > 0 && top_before &&
        pdiff(p.psn(), *top_before) > 0 && pdiff(p.psn(), first_psn_) >= 0 && msn_agreed_)
      pinned_ = true;
    if (!opening_msn_ || pdiff(p.aeth.msn, *opening_msn_) > 0) opening_msn_ = p.aeth.msn;
  }
  if (golden_) golden_->on_response(p, mtu_, disturbances_ + budget_->used, opening);
  if (golden_req_) golden_req_->on_response(p, mtu_);
}

std::optional<std::uint32_t> Stream::ends_through(std::uint32_t psn) {
  const auto b = ends_bounds(psn);
  if (!b || b->first != b->second) return std::nullopt;
  return b->first;
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> Stream::ends_bounds(std::uint32_t psn) {
  const std::int32_t i = pdiff(psn, base_);
  if (i < -1 || i >= static_cast<std::int32_t>(recs_.size())) return std::nullopt;
  std::uint32_t lo = 0, hi = 0;
  for (std::int32_t k = 0; k <= i; ++k) {
    const PsnRec& r = recs_[static_cast<std::size_t>(k)];
    if (!r.seen) {
      ++hi;  // a PSN never seen may or may not have ended a message
      continue;
    }
    lo += r.ends ? 1 : 0;
    hi += r.ends ? 1 : 0;
  }
  return std::pair{lo, hi};
}

void Stream::check_msn(const Pkt& p, std::uint32_t lo_psn, bool exact, bool seeds,
                       std::optional<std::uint32_t> quiet_through) {
  // PSNs after lo_psn up to quiet_through complete no message (a READ's response slots): when
  // lo_psn itself was folded into the baseline, the count through it is the baseline's.
  if (quiet_through && pdiff(lo_psn, padd(base_, -1)) < 0 &&
      pdiff(*quiet_through, padd(base_, -1)) >= 0)
    lo_psn = padd(base_, -1);
  std::optional<std::uint32_t> lo = ends_through(lo_psn);
  if (!lo && !exact && msn_base_) {
    // Not every PSN through lo_psn was seen: the fewest messages that can have ended.
    if (const auto b = ends_bounds(lo_psn)) lo = b->first;
  }
  if (!lo && !exact && msn_base_ && pdiff(lo_psn, base_) < -1) {
    // A response to an old request (a duplicate READ): its MSN lies between the baseline less
    // one message per PSN since the request, and everything that may have completed since.
    const std::int32_t back = pdiff(padd(base_, -1), lo_psn);
    const auto hi = ends_bounds(padd(next_, -1));
    const std::uint32_t from = padd(*msn_base_, -back);
    const std::int32_t span =
        back + (hi ? static_cast<std::int32_t>(hi->second) : std::max(0, pdiff(next_, base_)));
    j_->checked(RuleId::AckMsn, conn_);
    const std::int32_t above = pdiff(p.aeth.msn, from);
    if ((above < 0 || above > span) && opening_explains_msn(p, padd(base_, -1), -above)) return;
    if (above < 0 || above > span)
      j_->violation(RuleId::AckMsn, "range", p, conn_,
                    fmt::format("{} for PSN {:#08x} carries MSN {}, expected {} to {}", p.op->name,
                                p.psn(), p.aeth.msn, from, padd(from, span)),
                    state(fmt::format("MSN between {} and {}", from, padd(from, span))));
    return;
  }
  if (!lo) return;
  if (!msn_base_) {
    if (seeds) {
      msn_base_ = padd(p.aeth.msn, -static_cast<std::int64_t>(*lo));
      // The MSN is 0 after RESET (docs/spec-notes.md §3.5): a responder that had completed no
      // message before the first request seen shows the connection's start, and no requests
      // the capture missed; else the capture began mid-connection, and the opening goes on.
      if (!seeded_ && zero_before_first(*msn_base_)) pinned_ = from_start_ = true;
      seeded_ = true;
    }
    return;
  }
  const std::uint32_t want = padd(*msn_base_, *lo);
  j_->checked(RuleId::AckMsn, conn_);
  if (exact) {
    msn_agreed_ = p.aeth.msn == want;
    if (p.aeth.msn != want && opening_explains_msn(p, lo_psn, pdiff(want, p.aeth.msn))) return;
    if (p.aeth.msn != want)
      j_->violation(RuleId::AckMsn, "count", p, conn_,
                    fmt::format("{} for PSN {:#08x} carries MSN {}, expected {} (messages "
                                "completed through PSN {:#08x})",
                                p.op->name, p.psn(), p.aeth.msn, want, lo_psn),
                    state(fmt::format("MSN {}", want)));
    return;
  }
  // A duplicate or a data response: the MSN may include what the responder completed since.
  const auto hi = ends_bounds(padd(next_, -1));
  const std::int32_t above = pdiff(p.aeth.msn, want);
  // At most one message ends per PSN: a bound when the PSNs in between are not all known.
  const std::int32_t span = hi ? static_cast<std::int32_t>(hi->second - *lo)
                               : std::max(0, pdiff(padd(next_, -1), lo_psn));
  msn_agreed_ = above >= 0 && above <= span;
  if ((above < 0 || above > span) && opening_explains_msn(p, lo_psn, -above)) return;
  if (above < 0 || above > span)
    j_->violation(RuleId::AckMsn, "range", p, conn_,
                  fmt::format("{} for PSN {:#08x} carries MSN {}, expected {} to {}", p.op->name,
                              p.psn(), p.aeth.msn, want, padd(want, span)),
                  state(fmt::format("MSN between {} and {}", want, padd(want, span))));
}

bool Stream::within_open_message(const Pkt& p) {
  if (!from_start_ || !open_msg_ || !msn_base_ || p.op->operation != Operation::ACK ||
      wire::aeth_kind(p.aeth.syndrome) != wire::AethKind::ACK)
    return false;
  // Inside the message's span, before its last packet (which would complete it, raising the
  // MSN): a WRITE's from its length and the path MTU; a SEND's is not on the wire, so within
  // kOpenMessageSlack PSNs of its FIRST.
  const std::int32_t k = pdiff(p.psn(), open_msg_->first);
  if (k <= 0) return false;
  if (open_msg_->len) {
    if (!mtu_ || static_cast<std::uint32_t>(k) + 1 >= npkts(*open_msg_->len)) return false;
  } else if (k > kOpenMessageSlack) {
    return false;
  }
  const auto n = ends_through(padd(open_msg_->first, -1));
  return n && p.aeth.msn == padd(*msn_base_, *n);
}

bool Stream::sent_before_capture(std::uint32_t psn) {
  if (pdiff(psn, first_psn_) < 0) return true;
  // The window grew back to a late request (a reordered original, or a resend of one sent
  // before the capture): the PSNs between it and the first request seen that the tap never
  // showed were sent before the capture too, start or not (acknowledge_through()).
  if (pdiff(psn, first_seen_psn_) >= 0) return false;
  const PsnRec* r = rec(psn);
  return r != nullptr && !r->seen;
}

bool Stream::msn_shows_start(std::uint32_t psn, std::uint32_t msn) {
  if (from_start_) return true;
  if (seeded_) return false;
  const auto n = ends_through(psn);
  return n && zero_before_first(padd(msn, -static_cast<std::int64_t>(*n)));
}

bool Stream::shows_start(const Pkt& p, std::uint32_t lo_psn) {
  return !from_start_ && p.has(wire::Header::Aeth) && msn_shows_start(lo_psn, p.aeth.msn);
}

bool Stream::zero_before_first(std::uint32_t msn_before_base) const {
  return ends_dropped_known_ &&
         padd(msn_before_base, -static_cast<std::int64_t>(ends_dropped_)) == 0;
}

void Stream::mid_connection(std::optional<std::uint32_t> msn, std::optional<std::uint32_t> psn) {
  // Responses before the requests they answer: the capture began mid-connection, so a
  // baseline of 0 does not show the connection's start (the responses may be late), and the
  // opening lasts until a response passes their MSN and PSN.
  seeded_ = true;
  if (msn && !pinned_ && (!opening_msn_ || pdiff(*msn, *opening_msn_) > 0)) opening_msn_ = msn;
  if (psn) raise_psn(top_resp_psn_, *psn);
}

void Stream::note_lead(const Pkt& p, std::string_view what) {
  if (!noted_lead_)
    j_->note(NoteKind::Gap, conn_, p.frame,
             fmt::format("the capture began while the responder held requests it does not show "
                         "sent: {} for PSN {:#08x} {}; its answers to those requests are not "
                         "judged",
                         p.op->name, p.psn(), what));
  noted_lead_ = true;
}

void Stream::lead(const Pkt& p, std::uint32_t through, std::optional<std::uint32_t> msn) {
  note_lead(p, fmt::format("shows it had received through PSN {:#08x}", through));
  seeded_ = true;
  ++disturbances_;
  raise_psn(lead_through_, through);
  const std::uint32_t end = padd(through, 1);
  acknowledge_through(p, pdiff(end, next_) > 0 ? next_ : end, true);
  if (pdiff(end, next_) > 0) {
    // PSNs the capture never showed sent: the requester sent them before it began. What comes
    // next may continue one of their messages.
    recs_.clear();
    base_ = una_ = next_ = end;
    seq_known_ = false;
    msg_open_ = false;
  }
  if (base_ == end) msn_base_ = msn;  // MSN before base_
  if (!highest_resp_ || pdiff(through, *highest_resp_) > 0) highest_resp_ = through;
  if (golden_)
    golden_->lead(
        end, msn,
        fmt::format("the responder had PSNs through {:#08x} before the capture", through));
}

bool Stream::opening_explains_msn(const Pkt& p, std::uint32_t lo_psn, std::int32_t deficit) {
  if (pinned_) return false;
  if (deficit > 0 && msn_base_ && pdiff(lo_psn, base_) >= -1) {
    // Fewer messages than the capture shows: the responder had the first of them before the
    // capture (duplicates to it). The first PSN by which as many messages as the deficit have
    // ended is where the requests it had stop; its MSN there is the baseline's.
    std::int32_t ended = 0;
    std::uint32_t psn = base_;
    for (std::size_t i = 0; i < recs_.size() && pdiff(psn, lo_psn) <= 0; ++i, psn = padd(psn, 1)) {
      const PsnRec& r = recs_[i];
      if (!r.seen) break;  // whether it ended a message is unknown
      if (r.ends && ++ended == deficit) {
        lead(p, psn, *msn_base_);
        return true;
      }
    }
  }
  // More messages than the capture shows (requests sent before it, executed), or a deficit no
  // PSN accounts for: the MSN is taken as the responder gives it.
  note_lead(p, fmt::format("carries MSN {}, which the requests the capture shows do not account "
                           "for",
                           p.aeth.msn));
  seeded_ = true;
  ++disturbances_;
  const auto n = ends_through(lo_psn);
  if (n && pdiff(lo_psn, base_) >= -1)
    msn_base_ = padd(p.aeth.msn, -static_cast<std::int64_t>(*n));
  else
    msn_base_.reset();
  if (golden_) golden_->lead(std::nullopt, std::nullopt, "the responder's MSN before the capture");
  return true;
}

// Everything before `end` is acknowledged.
void Stream::acknowledge_through(const Pkt& p, std::uint32_t end, bool before_capture) {
  if (pdiff(end, una_) <= 0) return;
  std::uint32_t unseen = 0;
  std::uint32_t first_unseen = 0;
  bool unknown_ends = false;  // PSNs never seen: whether they ended messages is not known
  std::uint32_t psn = pdiff(una_, base_) > 0 ? una_ : base_;
  std::int64_t last_tx = 0;
  for_each_rec(una_, end, [&](PsnRec& r) {
    if (!r.seen) {
      // Before the first request the capture showed (the window grew back to a late one): sent
      // before the capture. (Even when the capture shows the connection's start: the late one
      // may be the connection's first request, overtaken by those after it before the tap.)
      const bool earlier = pdiff(psn, first_seen_psn_) < 0;
      if (!maybe_read_slot(psn)) {
        unknown_ends = true;
        if (!before_capture && !earlier) {
          if (unseen == 0) first_unseen = psn;
          ++unseen;
        }
      }
      r.seen = true;  // accepted by the responder: it was sent
    }
    if (!before_capture) last_tx = std::max(last_tx, r.tx_ts);
    if (r.ends) retry_open_ = false;  // a message completed: a retry in progress is over
    psn = padd(psn, 1);
  });
  // The longest round trip seen: how long a response may still be on its way to the requester
  // after the tap showed it (psn.timeout).
  if (last_tx != 0 && p.ts > last_tx) max_rtt_ = std::max(max_rtt_, p.ts - last_tx);
  if (unseen > 0 && !pinned_) {
    // In the opening: PSNs the requester sent before the capture began (its first requests
    // seen were resends or late copies).
    note_lead(p, fmt::format("acknowledges {} PSNs from {:#08x} the capture does not show sent",
                             unseen, first_unseen));
    unseen = 0;
    // What answers them later is not judged either (their requests may still come, late).
    const std::uint32_t last = padd(end, -1);
    raise_psn(lead_through_, last);
  }
  if (unseen > 0) {
    j_->checked(RuleId::PsnSequence, conn_);
    if (!j_->explain(conn_, *budget_, unseen, p,
                     fmt::format("{} acknowledges {} request packets from PSN {:#08x} that the "
                                 "tap never showed",
                                 p.op->name, unseen, first_unseen)))
      j_->violation(RuleId::PsnSequence, "acknowledged_unseen", p, conn_,
                    fmt::format("{} acknowledges PSN {:#08x}.. ({} PSNs) that were never sent: the "
                                "requester skipped them or the responder accepted a gap",
                                p.op->name, first_unseen, unseen),
                    state(fmt::format("NAK PSN sequence error with PSN {:#08x}", first_unseen)));
  }
  if (unknown_ends) msn_base_.reset();  // their opcodes, hence the messages they end, are unknown
  // Writes (and FLUSHes) whose last packet is acknowledged were granted.
  for (PendingAccess& a : accesses_)
    if (!a.resolved && (a.kind == Access::Write || a.kind == Access::Flush) && a.last &&
        pdiff(*a.last, end) < 0)
      resolve_access(p, a, true);
  accesses_.erase_if(
      [&](const PendingAccess& a) { return a.resolved || (a.last && pdiff(*a.last, end) < 0); });
  // A corrupted request acknowledged before it came again was accepted: not a link error.
  std::erase_if(corrupt_, [&](const Corrupt& c) { return c.request && pdiff(c.psn, end) < 0; });
  una_ = end;
  if (nak_wait_ && pdiff(nak_wait_->psn, una_) < 0) nak_wait_.reset();
  std::erase_if(nak_points_, [&](const NakPoint& n) { return pdiff(n.psn, una_) < 0; });
  // Drop the acknowledged PSNs, folding their messages into the MSN base.
  while (!recs_.empty() && pdiff(base_, una_) < 0) {
    const PsnRec& r = recs_.front();
    if (msn_base_)
      msn_base_ = padd(*msn_base_, r.ends ? 1 : 0);
    else if (unknown_ends || (!mtu_ && r.seen && !r.read_slot &&
                              wire::opcode_info(r.opcode).operation == Operation::READ_REQUEST))
      ends_dropped_known_ = false;  // (a READ's span unknown: what followed may be its slots)
    else
      ends_dropped_ += r.ends ? 1u : 0u;
    recs_.pop_front();
    base_ = padd(base_, 1);
  }
  if (recs_.empty()) base_ = next_;
  retries_ = 0;
  rnr_naks_ = 0;
  // Progress: the timer and both retry counters start again (docs/spec-notes.md §5.2).
  progress_ts_ = p.ts;
  in_round_ = false;
  timer_round_ts_ = 0;
  retry_rounds_ = rnr_rounds_ = 0;
  retry_reported_ = rnr_retry_reported_ = false;
}

void Stream::on_ack(const Pkt& p) {
  const std::uint8_t s = p.aeth.syndrome;
  const std::uint32_t psn = p.psn();
  switch (wire::aeth_kind(s)) {
    case wire::AethKind::ACK: {
      const bool fresh = !highest_resp_ || pdiff(psn, *highest_resp_) >= 0;
      check_msn(p, psn, fresh && pdiff(psn, una_) >= 0, fresh && pdiff(psn, una_) >= 0);
      acknowledge_through(p, padd(psn, 1));
      break;
    }
    case wire::AethKind::RNR_NAK: {
      burst_ = false;  // the resend it calls for is a new go-back-N
      check_msn(p, padd(psn, -1), true, true);
      acknowledge_through(p, psn);
      ++rnr_naks_;
      ++rnr_naks_total_;
      if (const SetupQp* q = responder_setup(); q != nullptr && q->min_rnr_timer) {
        // The responder's own min_rnr_timer (INIT → RTR), not a value of its choosing.
        j_->checked(RuleId::AckRnrTimer, conn_);
        if (wire::aeth_value(s) != *q->min_rnr_timer)
          j_->violation(RuleId::AckRnrTimer, "not_min_rnr_timer", p, conn_,
                        fmt::format("RNR NAK with timer code {}; QP {} of {} has min_rnr_timer {}",
                                    wire::aeth_value(s), q->name, j_->options().setup->file,
                                    *q->min_rnr_timer),
                        state(fmt::format("an RNR NAK with timer code {}", *q->min_rnr_timer)));
      }
      // A copy of an RNR NAK whose wait is still pending (the link's duplicate, or the answer to
      // a duplicated request) does not move the wait: the requester may resend once the timer
      // of the first it got has run out (IBA Vol. 1 §9.7.5.2.8; rxe restarts its timer on each,
      // which waits longer, never less).
      const bool pending = std::any_of(nak_points_.begin(), nak_points_.end(),
                                       [&](const NakPoint& n) { return n.rnr && n.psn == psn; });
      const auto wait = static_cast<std::int64_t>(qp::rnr_timer_ns(wire::aeth_value(s)));
      if (!pending) nak_points_.push_back({psn, true, p.ts + wait, p.frame});
      break;
    }
    case wire::AethKind::NAK: {
      check_msn(p, padd(psn, -1), true, true);
      acknowledge_through(p, psn);
      const std::optional<wire::NakCode> code = wire::nak_code(s);
      if (code == wire::NakCode::PSN_SEQUENCE_ERROR) {
        // A NAK behind the oldest unacknowledged PSN was overtaken by the answers that
        // acknowledged past it (held up on the way back): a requester ignores such a stale
        // response (docs/spec-notes.md §3.4; rxe_comp.c check_psn), so no go-back-N is due.
        if (pdiff(psn, una_) < 0) break;
        burst_ = false;
        nak_points_.push_back({psn, false, 0, p.frame});
        nak_wait_ = NakPoint{psn, false, p.ts, p.frame};
        nak_wait_in_retry_ = retry_open_;
        break;
      }
      if (!fatal_) {
        fatal_ = true;
        fatal_ts_ = p.ts;
        fatal_frame_ = p.frame;
        fatal_psn_ = psn;
        fatal_syndrome_ = s;
        // The message the NAK fails and every one sent after it: each a work request that
        // completes in error (events.flush_all).
        failed_messages_ = 1;
        for (std::int64_t i = std::max<std::int64_t>(0, pdiff(padd(psn, 1), base_));
             i < static_cast<std::int64_t>(recs_.size()); ++i) {
          const PsnRec& r = recs_[static_cast<std::size_t>(i)];
          if (r.seen && !r.read_slot && wire::opcode_info(r.opcode).starts_message())
            ++failed_messages_;
        }
      }
      if (code == wire::NakCode::REMOTE_ACCESS_ERROR) {
        // The access the NAK refuses: of those whose PSNs can hold the NAK's, the one that
        // starts last. One whose last packet is still unknown (lost, or never shown) holds only
        // its first PSN for this: the key and range are checked on the packet with the RETH, and
        // the NAK names the packet in error (IBA Vol. 1 §9.7.5.2; rxe_resp.c check_rkey).
        PendingAccess* refused = nullptr;
        for (PendingAccess& a : accesses_)
          if (!a.resolved && pdiff(psn, a.first) >= 0 &&
              (a.last ? pdiff(psn, *a.last) <= 0 : psn == a.first) &&
              (refused == nullptr || pdiff(a.first, refused->first) > 0))
            refused = &a;
        if (refused != nullptr) {
          PendingAccess& a = *refused;
          if (a.kind == Access::Read || a.kind == Access::Write) {
            j_->checked(RuleId::KeyZeroLength, conn_);
            if (a.len == 0)
              j_->violation(RuleId::KeyZeroLength, "refused", p, conn_,
                            fmt::format("NAK remote access error for a zero-length {} (rkey "
                                        "{:#x}, VA {:#x}) of frame {}",
                                        access_name(a.kind), a.rkey, a.va, a.frame),
                            state("an ACK (or an empty READ RESPONSE ONLY)"));
          }
          resolve_access(p, a, false);
        }
      }
      break;
    }
    case wire::AethKind::RESERVED:
      break;  // ack.syndrome reported it
  }
  while (nak_points_.size() > 64) nak_points_.erase(nak_points_.begin());
}

void Stream::on_read_response(const Pkt& p) {
  const wire::OpcodeInfo& op = *p.op;
  const std::uint32_t psn = p.psn();
  j_->checked(RuleId::ReadResponse, conn_);
  if (placement_at(psn)) return on_placement_response(p);
  if (op.position == Position::FIRST || op.position == Position::MIDDLE) {
    j_->checked(RuleId::SeqLength, conn_);
    set_mtu(p, p.payload_len);
  }
  ReadReq* rr = read_holding(psn);
  if (!rr) {
    PsnRec* r = rec(psn);
    if (r && !r->seen) {
      // (In the opening: sent before the capture, as for an ATOMIC ACKNOWLEDGE.)
      if (pinned_ && !j_->explain(conn_, *budget_, 1, p,
                                  fmt::format("{} for PSN {:#08x}: the tap missed its READ request",
                                              op.name, psn)))
        j_->violation(RuleId::ReadResponse, "no_request", p, conn_,
                      fmt::format("{} for PSN {:#08x}, which no READ request sent", op.name, psn),
                      state());
    } else if (pdiff(psn, base_) >= 0 || reads_.empty()) {
      j_->violation(RuleId::ReadResponse, "no_request", p, conn_,
                    fmt::format("{} for PSN {:#08x}, which is not a PSN of an outstanding READ",
                                op.name, psn),
                    state());
    }
    if (op.has(wire::Header::Aeth)) check_msn(p, psn, false, false);
    acknowledge_through(p, padd(psn, 1));
    return;
  }
  rr->answered_once = rr->answered;
  rr->answered = true;
  if (rr->npkts == 0 && pdiff(psn, rr->first) >= 0) {
    // Responses only carry PSNs of their READ: the PSNs up to this one are its slots.
    for_each_rec(padd(rr->first, 1), padd(psn, 1), [](PsnRec& r) {
      if (!r.seen) {
        r.seen = true;
        r.read_slot = true;
      }
    });
    // The response that ends the READ gives its span, a READ RESPONSE ONLY one PSN: the PSNs
    // after it are no slots of it (a request the tap did not show may have had them).
    if (op.ends_message() && rr->seg_psn == rr->first)
      rr->npkts = static_cast<std::uint32_t>(pdiff(psn, rr->first)) + 1;
  }
  if (pdiff(psn, rr->seg_psn) >= 0 && mtu_) {
    const auto k = static_cast<std::uint32_t>(pdiff(psn, rr->seg_psn));
    const std::uint32_t n_seg = npkts(rr->seg_len);
    const Position want = n_seg == 1       ? Position::ONLY
                          : k == 0         ? Position::FIRST
                          : k + 1 == n_seg ? Position::LAST
                                           : Position::MIDDLE;
    if (psn == rr->resp_next || k == 0) {
      j_->checked(RuleId::ReadOpcode, conn_);
      if (k < n_seg && op.position != want) {
        // A READ sent in the opening of a capture that does not show the connection's start
        // may be the rest of one requested before it; so may the READ at the first PSN the
        // capture shows (re-requested from inside the connection's first message, its answers
        // carry that message's MSN, as the start's would).
        const bool earlier = rr->in_opening && ((!from_start_ && !shows_start(p, rr->first)) ||
                                                rr->first == first_psn_);
        const bool resumed = (rr->seg_psn != rr->first || earlier) && k == 0 &&
                             (op.position == Position::MIDDLE || op.position == Position::LAST);
        j_->violation(RuleId::ReadOpcode, resumed ? "resumed_mid_read" : "position", p, conn_,
                      fmt::format("READ response {} of {} (PSN {:#08x}) is {}, expected {}", k + 1,
                                  n_seg, psn, position_name(op.position), position_name(want)),
                      state(fmt::format("RDMA READ RESPONSE {}", position_name(want))));
      }
    }
    j_->checked(RuleId::ReadLength, conn_);
    const std::uint64_t done = static_cast<std::uint64_t>(k) * *mtu_;
    const std::uint64_t want_len =
        done >= rr->seg_len ? 0 : std::min<std::uint64_t>(*mtu_, rr->seg_len - done);
    if (k >= n_seg || p.payload_len != want_len)
      j_->violation(RuleId::ReadLength, k >= n_seg ? "beyond_length" : "payload", p, conn_,
                    fmt::format("READ response PSN {:#08x} carries {} bytes; the READ of PSN "
                                "{:#08x} asks {} bytes from PSN {:#08x}, so {} here",
                                psn, p.payload_len, rr->first, rr->seg_len, rr->seg_psn, want_len),
                    state(fmt::format("{} bytes", want_len)));
  } else if (!mtu_ && op.position == Position::ONLY) {
    j_->checked(RuleId::ReadLength, conn_);
    if (p.payload_len != rr->seg_len)
      j_->violation(RuleId::ReadLength, "payload", p, conn_,
                    fmt::format("READ RESPONSE ONLY carries {} bytes, the READ asks {}",
                                p.payload_len, rr->seg_len),
                    state(fmt::format("{} bytes", rr->seg_len)));
  }
  rr->resp_next = padd(psn, 1);
  if (op.has(wire::Header::Aeth))
    check_msn(p, rr->first, false,
              op.starts_message() && psn == rr->first && !rr->answered_once && !rr->repeated,
              rr->npkts > 0 ? std::optional<std::uint32_t>(padd(rr->first, rr->npkts - 1))
                            : std::nullopt);
  // The first response of a READ shows its access was granted.
  for (PendingAccess& a : accesses_)
    if (!a.resolved && a.kind == Access::Read && a.first == rr->first) resolve_access(p, a, true);
  acknowledge_through(p, padd(psn, 1));
}

// Whether `psn` is the PSN of a FLUSH or an ATOMIC WRITE request: what the tap showed there
// while the PSN is in the window, else the latest such requests (not a READ's response slot).
bool Stream::placement_at(std::uint32_t psn) {
  if (const PsnRec* r = rec(psn); r != nullptr && r->seen)
    return !r->read_slot && is_placement(wire::opcode_info(r->opcode).operation);
  if (std::find(placements_.rbegin(), placements_.rend(), psn) == placements_.rend()) return false;
  // A READ whose length in packets is not known (the path MTU unknown) claims the PSNs up to
  // the next request; a request seen at this PSN says it ends before.
  const ReadReq* rr = read_holding(psn);
  return rr == nullptr || rr->npkts == 0;
}

// The answer to a FLUSH or an ATOMIC WRITE: one READ RESPONSE ONLY, empty, at the request's PSN
// (docs/spec-notes.md §2.1); a repeated request is answered again the same way (§4.5), with the
// MSN of that moment, so no answer sets the MSN baseline.
void Stream::on_placement_response(const Pkt& p) {
  const wire::OpcodeInfo& op = *p.op;
  const std::uint32_t psn = p.psn();
  j_->checked(RuleId::ReadOpcode, conn_);
  if (op.position != Position::ONLY)
    j_->violation(RuleId::ReadOpcode, "placement", p, conn_,
                  fmt::format("{} answers the FLUSH or ATOMIC WRITE of PSN {:#08x}", op.name, psn),
                  state("RDMA READ RESPONSE ONLY"));
  j_->checked(RuleId::ReadLength, conn_);
  if (p.payload_len != 0)
    j_->violation(RuleId::ReadLength, "placement", p, conn_,
                  fmt::format("the response to the FLUSH or ATOMIC WRITE of PSN {:#08x} carries "
                              "{} bytes",
                              psn, p.payload_len),
                  state("0 bytes"));
  if (op.has(wire::Header::Aeth)) check_msn(p, psn, false, false);
  acknowledge_through(p, padd(psn, 1));
}

void Stream::on_atomic_ack(const Pkt& p) {
  const std::uint32_t psn = p.psn();
  j_->checked(RuleId::AtomicResponse, conn_);
  AtomicReq* a = nullptr;
  for (auto it = atomics_.rbegin(); it != atomics_.rend(); ++it)
    if (it->psn == psn) {
      a = &*it;
      break;
    }
  if (!a) {
    PsnRec* r = rec(psn);
    // In the opening, a PSN the capture does not show sent was sent before it (a request that
    // overtook the first ones seen on the link passed the tap before it started):
    // acknowledge_through() notes the lead, and what it answers is not judged.
    if (!(r && !r->seen &&
          (!pinned_ || j_->explain(conn_, *budget_, 1, p,
                                   fmt::format("ATOMIC ACKNOWLEDGE for PSN {:#08x}: the tap "
                                               "missed its request",
                                               psn)))))
      j_->violation(RuleId::AtomicResponse, "not_atomic", p, conn_,
                    fmt::format("ATOMIC ACKNOWLEDGE for PSN {:#08x}, which is not an atomic "
                                "request",
                                psn),
                    state());
    check_msn(p, psn, false, false);
    acknowledge_through(p, padd(psn, 1));
    return;
  }
  if (a->responses > 0) {
    j_->checked(RuleId::AtomicReplay, conn_);
    if (p.atomic_ack.orig != a->orig)
      j_->violation(RuleId::AtomicReplay, "different_value", p, conn_,
                    fmt::format("repeated atomic PSN {:#08x} answered with original value {:#x}; "
                                "the first answer said {:#x}",
                                psn, p.atomic_ack.orig, a->orig),
                    state(fmt::format("ATOMIC ACKNOWLEDGE with {:#x}", a->orig)));
  } else {
    a->orig = p.atomic_ack.orig;
    j_->checked(RuleId::AtomicAlignment, conn_);
    if (a->va % 8 != 0)
      j_->violation(RuleId::AtomicAlignment, "executed", p, conn_,
                    fmt::format("atomic to VA {:#x} (not 8-byte aligned) was executed", a->va),
                    state("NAK invalid request"));
  }
  ++a->responses;
  for (PendingAccess& acc : accesses_)
    if (!acc.resolved && acc.kind == Access::Atomic && acc.first == psn)
      resolve_access(p, acc, true);
  // A reply to a repeated atomic carries the MSN of the moment: it cannot set the baseline.
  check_msn(p, psn, false, a->responses == 1 && a->requests == 1);
  acknowledge_through(p, padd(psn, 1));
}

void Stream::resolve_access(const Pkt& p, PendingAccess& a, bool granted) {
  a.resolved = true;
  if (a.key_dead && a.key_checked()) {
    // The log deregistered or invalidated the key before the request passed the tap, and
    // nothing established it again: whatever the table held, the key no longer names it.
    j_->checked(RuleId::KeyInvalidated, conn_);
    if (granted)
      j_->violation(RuleId::KeyInvalidated, "granted", p, conn_,
                    fmt::format("{} with rkey {:#x} on [{:#x}, +{}) of frame {} was granted, but "
                                "{} logs the key deregistered or invalidated before it",
                                access_name(a.kind), a.rkey, a.va, a.len, a.frame,
                                j_->options().events ? j_->options().events->file : "the log"),
                    state("NAK remote access error"));
  }
  key_fact(p, a, granted);
  check_setup(p, a, granted);
  record_key_answer(p, a, granted);
}

// With --setup: what the responder's MR table and QP allow, against what it did (IBA Vol. 1
// chapter 10 and chapter 9 R_Key checks; docs/spec-notes.md §7.3, §7.5). Zero-length accesses
// are not key-checked (key.zero_length); a QP the setup does not describe decides nothing.
void Stream::check_setup(const Pkt& p, const PendingAccess& a, bool granted) {
  const Setup* s = j_->options().setup.get();
  if (s == nullptr || !s->keys_known || !a.key_checked()) return;
  // After the wire (SEND WITH INVALIDATE) or the DUT's log changed the key, the setup no longer
  // says what it is: an invalidated region or window may be registered or bound again.
  if (a.epoch != 0) return;
  const SetupQp* q = s->qp(responder_.b, responder_qpn_);
  if (q == nullptr) return;
  const SetupMr* m = s->mr(responder_.b, a.rkey);
  if (m == nullptr && s->has_windows(responder_.b)) return;  // perhaps a memory window
  std::string why;
  bool outside_window = false;  // its own cause: rxe checks a window's accesses on its MR
  const std::string_view what = m && m->window ? "window" : "MR";
  const bool right = a.kind == Access::Write  ? (m && m->remote_write)
                     : a.kind == Access::Read ? (m && m->remote_read)
                     : a.kind == Access::Flush
                         ? (m && flush_allowed(a.placement, m->flush_global, m->flush_persistent))
                         : (m && m->remote_atomic);
  const bool qp_right = a.kind == Access::Write  ? q->remote_write
                        : a.kind == Access::Read ? q->remote_read
                        : a.kind == Access::Flush
                            ? flush_allowed(a.placement, q->flush_global, q->flush_persistent)
                            : q->remote_atomic;
  if (m == nullptr)
    why = fmt::format("no MR of the setup has rkey {:#x}", a.rkey);
  else if (m->pd != q->pd)
    why = fmt::format("{} {} is in another PD than QP {}", what, m->name, q->name);
  else if (m->bound_qp && *m->bound_qp != q->name)
    why = fmt::format("window {} is bound to QP {}, not QP {}", m->name, *m->bound_qp, q->name);
  else if (!(a.kind == Access::Flush && a.whole_region) &&
           (a.va < m->iova || a.va - m->iova > m->length || a.len > m->length - (a.va - m->iova))) {
    why = fmt::format("[{:#x}, +{}) is outside {} {} [{:#x}, +{})", a.va, a.len, what, m->name,
                      m->iova, m->length);
    outside_window = m->window;
  } else if (!right)
    why = fmt::format("{} {} does not grant {}", what, m->name, access_name(a.kind));
  else if (!qp_right)
    why =
        fmt::format("QP {} does not allow {} (NAK invalid request)", q->name, access_name(a.kind));
  j_->checked(RuleId::KeySetup, conn_);
  if (granted && !why.empty())
    j_->violation(RuleId::KeySetup,
                  outside_window ? "granted_outside_window" : "granted_not_allowed", p, conn_,
                  fmt::format("{} with rkey {:#x} on [{:#x}, +{}) of frame {} was granted, but {}",
                              access_name(a.kind), a.rkey, a.va, a.len, a.frame, why),
                  state("a NAK"));
  else if (!granted && why.empty())
    j_->violation(
        RuleId::KeySetup, "refused_but_allowed", p, conn_,
        fmt::format("{} with rkey {:#x} on [{:#x}, +{}) of frame {} was refused, but {} "
                    "{} of QP {}'s PD grants it",
                    access_name(a.kind), a.rkey, a.va, a.len, a.frame, what, m->name, q->name),
        state("the access granted"));
}

// Key enforcement with the MR table taken as static between invalidations (no --setup): an
// access refused inside a range granted before with the same rkey and right (or granted inside
// a range refused before) contradicts any fixed table. docs/spec-notes.md §7.3.
void Stream::key_fact(const Pkt& p, const PendingAccess& a, bool granted) {
  if (!a.key_checked()) return;                 // zero-length READ/WRITE (§4.4)
  if (a.epoch == KeyEpochs::kUnjudged) return;  // the DUT's log changed the key, when is not known
  const std::uint64_t end = a.va + a.len;
  j_->checked(RuleId::KeyStatic, conn_);
  // Looked up, not created: a capture naming ever new rkeys past the bound adds nothing.
  auto& groups = key_facts_[static_cast<std::size_t>(a.kind)];
  const std::uint64_t group_key = std::uint64_t{a.rkey} << 32 | a.epoch;
  const auto found = groups.find(group_key);
  static const std::vector<KeyFact> kNone;
  bool repeated = false;
  for (const KeyFact& f : found != groups.end() ? found->second : kNone) {
    if (f.placement != a.placement) continue;  // FLUSH: another right
    if (f.granted == granted) {
      repeated = repeated || (f.va == a.va && f.len == a.len && f.whole_region == a.whole_region);
      continue;
    }
    // The refused access lies inside the granted one; one flushing the whole region is refused
    // by its key or right alone, and one granted says nothing of the region's bounds.
    const bool g_whole = granted ? a.whole_region : f.whole_region;
    const std::uint64_t g_va = granted ? a.va : f.va, g_end = granted ? end : f.va + f.len;
    const bool r_whole = granted ? f.whole_region : a.whole_region;
    const std::uint64_t r_va = granted ? f.va : a.va, r_end = granted ? f.va + f.len : end;
    const bool contradicts = r_whole || (!g_whole && r_va >= g_va && r_end <= g_end);
    if (contradicts) {
      j_->violation(
          RuleId::KeyStatic, granted ? "granted_after_refusal" : "refused_after_grant", p, conn_,
          fmt::format("{} with rkey {:#x} on [{:#x}, +{}) {} here, {} at frame {} "
                      "(no invalidation between)",
                      access_name(a.kind), a.rkey, a.va, a.len, granted ? "granted" : "refused",
                      f.granted ? "granted" : "refused", f.frame),
          state(granted ? "NAK remote access error" : "the access granted again"));
      return;
    }
  }
  if (!repeated && key_fact_count_ < kMaxKeyFacts) {
    groups[group_key].push_back(
        {a.kind, granted, a.rkey, a.va, a.len, a.epoch, p.frame, a.placement, a.whole_region});
    ++key_fact_count_;
  }
}

std::uint64_t Stream::unacknowledged_messages() const {
  if (transport_ != wire::Transport::RC || recs_.empty()) return 0;
  std::uint64_t n = 0;
  for (std::int64_t k = std::max<std::int64_t>(0, pdiff(una_, base_));
       k < static_cast<std::int64_t>(recs_.size()); ++k) {
    const PsnRec& r = recs_[static_cast<std::size_t>(k)];
    n += r.seen && !r.read_slot && r.ends ? 1 : 0;
  }
  return n;
}

void Stream::finish() {
  if (transport_ != wire::Transport::RC || !started_) return;
  judge_keys_z3();
  judge_psn_z3(true);
  if (golden_) golden_->finish();
  if (golden_req_) golden_req_->finish();
  for (const RdAtomicCheck& c : rd_checks_) decide_rd_atomic(c);
  rd_checks_.clear();
  // Requests after a fatal NAK that the requester (resending nothing it failed) had heard.
  if (fatal_ && !fatal_unheard_) {
    for (const AfterFatal& a : after_fatal_) {
      j_->checked(RuleId::ErrAfterFatal, conn_);
      j_->violation(RuleId::ErrAfterFatal, "request_after_fatal_nak", a.p, conn_, a.message,
                    a.state);
    }
    if (after_fatal_.empty()) j_->checked(RuleId::ErrAfterFatal, conn_);
  }
  std::uint32_t unseen = 0;
  std::uint32_t first = 0;
  for (std::size_t i = 0; i < recs_.size(); ++i)
    if (!recs_[i].seen) {
      if (unseen == 0) first = padd(base_, static_cast<std::int64_t>(i));
      ++unseen;
    }
  if (unseen > 0)
    j_->note(NoteKind::Gap, conn_, 0,
             fmt::format("{} PSNs from {:#08x} never seen, never resent and never acknowledged "
                         "(lost before the tap before the capture ended, or missed by it)",
                         unseen, first));
  if (responses_ == 0 && resends_ == 0 && requests_ > 1)
    j_->note(NoteKind::OneDirection, conn_, 0,
             fmt::format("{} RC requests and no response at all, yet the requester never resent "
                         "anything: the capture shows one direction only",
                         requests_));
}

}  // namespace rocecert::check::detail
