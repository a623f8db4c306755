// The golden replay of an RC requester against the model's requester, in lockstep
// (golden_requester.h).
#include "golden_requester.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>

#include "golden.h"
#include "golden_model.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::check::detail {

namespace {

using wire::Operation;

// Payload bytes handed to the model's completer (READ responses): never compared, only counted.
constexpr std::size_t kMaxFedPayload = 16384;
const std::array<std::uint8_t, kMaxFedPayload> kZeros{};

constexpr std::size_t kMaxQueue = 4096;  // device packets waiting for their messages
constexpr std::size_t kMaxSeen = 4096;   // PSNs of messages not posted yet
constexpr std::size_t kMaxPull = 512;    // model packets passed over for one device request
constexpr unsigned kHeldAge = 64;        // a held model packet is lost after this many requests
constexpr std::size_t kMaxHeld = 1024;
constexpr std::size_t kMtuWait = 256;  // device packets waited for the path MTU at the start
constexpr std::size_t kRecentCopies = 64;
constexpr std::size_t kSentLog = 256;  // model packets kept to compare resends of acked PSNs
constexpr std::uint64_t kMaxMessage = 0x8000'0000u;  // IBA Vol. 1 §9.4: at most 2^31 bytes

std::uint32_t packets_for(std::uint64_t len, std::uint32_t mtu) {
  return len == 0 ? 1u : static_cast<std::uint32_t>((len + mtu - 1) / mtu);
}

// The work request opcode a message's first packet names; nullopt: not replayed.
std::optional<tx::WrOpcode> wr_opcode(const wire::OpcodeInfo& first, const wire::OpcodeInfo& last) {
  switch (first.operation) {
    case Operation::SEND:
      if (last.flags & wire::kInv) return tx::WrOpcode::SEND_WITH_INV;
      if (last.flags & wire::kImm) return tx::WrOpcode::SEND_WITH_IMM;
      return tx::WrOpcode::SEND;
    case Operation::WRITE:
      return (last.flags & wire::kImm) ? tx::WrOpcode::RDMA_WRITE_WITH_IMM
                                       : tx::WrOpcode::RDMA_WRITE;
    case Operation::READ_REQUEST:
      return tx::WrOpcode::RDMA_READ;
    case Operation::COMPARE_SWAP:
      return tx::WrOpcode::ATOMIC_CMP_AND_SWP;
    case Operation::FETCH_ADD:
      return tx::WrOpcode::ATOMIC_FETCH_AND_ADD;
    case Operation::ATOMIC_WRITE:
      return tx::WrOpcode::ATOMIC_WRITE;
    case Operation::FLUSH:
      return tx::WrOpcode::FLUSH;
    case Operation::RESYNC:
    case Operation::READ_RESPONSE:
    case Operation::ACK:
    case Operation::ATOMIC_ACK:
    case Operation::CNP:
      break;  // not replayed (a resync)
  }
  return std::nullopt;
}

}  // namespace

// The model adapter whose requester plays the device's, and the packets it sent.
struct GoldenRequester::Model final : trace::Observer, model::TxPacer, ReplayModel {
  std::uint32_t lkey = 0;
  // The PSN the model will send next, as far as what it sent and its retries show: a device
  // request behind it is a go-back the model has not made (on_retry moves it back).
  std::uint32_t cursor = 0;
  int credits = 0;
  std::deque<Sent> out;       // sent, not taken yet
  std::deque<Sent> sent_log;  // the latest packets it sent

  static model::AdapterConfig config(const Options& o) {
    model::AdapterConfig c = base_config("golden-requester", o);
    // The device's limits are not on the wire (read.rd_atomic_limit and psn.window judge them):
    // the model's requester is held by none of its own.
    c.qp.device.max_unacked_psns = 1u << 22;
    c.qp.device.max_qp_wr = 1u << 16;
    c.profile.retry_cnt_7_is_infinite = true;  // psn.retry_count judges the counts
    return c;
  }
  explicit Model(const Options& o) : ReplayModel(config(o), *this) { ad.set_tx_pacer(this); }
  ~Model() override { ad.set_tx_pacer(nullptr); }

  bool needs_frame_bytes() const override { return false; }
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX || e.spec == nullptr) return;
    const wire::FrameSpec& f = *e.spec;
    const wire::OpcodeInfo& op = wire::opcode_info(f.bth.opcode);
    if (!op.is_request()) return;
    const Sent s = Sent::of(f.bth, static_cast<std::uint32_t>(f.payload.size()), f.reth,
                            f.atomiceth, f.ieth, f.feth);
    const std::uint32_t span =
        op.operation == Operation::READ_REQUEST ? packets_for(f.reth.dmalen, mtu) : 1;
    cursor = padd(s.psn, span);
    out.push_back(s);
    sent_log.push_back(s);
    if (sent_log.size() > kSentLog) sent_log.pop_front();
  }
  // The model's latest packet at `psn` among the recent ones, nullptr: none.
  const Sent* sent_at(std::uint32_t psn) const {
    for (auto it = sent_log.rbegin(); it != sent_log.rend(); ++it)
      if (it->psn == psn) return &*it;
    return nullptr;
  }
  void on_retry(const trace::RetryEvent& e) override { cursor = e.from_psn; }

  sim::SimTime earliest_send(std::uint32_t, sim::SimTime now, std::uint32_t) override {
    return credits > 0 ? now : sim::kNever;
  }
  void sent(std::uint32_t, sim::SimTime, std::uint32_t) override { --credits; }
};

GoldenRequester::Sent GoldenRequester::Sent::of(const wire::Bth& bth, std::uint32_t payload,
                                                const wire::Reth& reth,
                                                const wire::AtomicEth& atomic,
                                                const wire::Ieth& ieth, const wire::Feth& feth) {
  const wire::OpcodeInfo& op = wire::opcode_info(bth.opcode);
  Sent s;
  s.psn = bth.psn;
  s.opcode = bth.opcode;
  s.payload = payload;
  if (op.has(wire::Header::Reth)) s.reth = reth;
  if (op.has(wire::Header::AtomicEth)) s.atomic = atomic;
  if (op.has(wire::Header::Ieth)) s.ieth = ieth;
  if (op.has(wire::Header::Feth)) s.feth = feth;
  return s;
}

GoldenRequester::GoldenRequester(GoldenReplay& replay, ConnIndex conn)
    : replay_(&replay), conn_(conn) {}

GoldenRequester::~GoldenRequester() = default;

void GoldenRequester::start(std::uint32_t psn, std::optional<std::uint32_t> mtu) {
  auto m = std::make_unique<Model>(replay_->options());
  model::Adapter& ad = m->ad;
  const mem::Pd pd = ad.alloc_pd().value;
  // One MR over all of memory for the gather and scatter lists (memory discards its contents).
  const auto mr = ad.reg_mr({pd, 0, ~std::uint64_t{0}, mem::Access::LOCAL_WRITE, std::nullopt});
  m->lkey = mr.value.lkey.value();
  model::BringUp b;
  b.sq_psn = psn;
  b.access = mem::to_u32(mem::Access::LOCAL_WRITE);
  b.retry_cnt = 7;
  b.rnr_retry = 7;  // infinite (IBA Vol. 1 §9.7.5.2.8); psn.rnr_retry_count judges the counts
  b.max_rd_atomic = 128;
  if (!m->open_rc(pd, {1u << 16, 1, 1, 1, 0}, mtu, b)) {
    stopped_ = true;
    stop_reason_ = "the model could not set up its requester QP";
    return;
  }
  m->start_psn = m->cursor = psn;
  model_ = std::move(m);
  messages_posted_ = 0;
  longest_guessed_ = 0;
  post_psn_ = psn;  // what waits (seen_, queue_) is kept: a restart for the path MTU keeps it
}

void GoldenRequester::on_request(const Pkt& p, bool fresh, std::optional<std::uint32_t> mtu) {
  if (stopped_) return;
  if (mtu) mtu_ = mtu;
  if (!model_) {
    // (Re)start on a new message, its first transmission: nothing before it is known.
    if (!fresh || !p.op->starts_message()) return;
    if (want_start_ && pdiff(p.psn(), *want_start_) < 0) return;
    start(p.psn(), mtu);
    if (!model_) return;
    want_start_.reset();
    if (!first_frame_) first_frame_ = p.frame;
  }
  if (pdiff(p.psn(), model_->start_psn) < 0) return;  // before the replay's start
  if (!model_->mtu_guessed && mtu && *mtu != model_->mtu) return resync("the path MTU changed");
  learn(p);
  if (!model_) return;
  queue_.push_back({p, true, fresh});
  post_ready();
  drain();
}

void GoldenRequester::on_response(const Pkt& p, std::optional<std::uint32_t> mtu) {
  if (stopped_ || !model_) return;
  queue_.push_back({p, false, false});
  if (mtu && !mtu_) {
    mtu_ = mtu;
    post_ready();  // messages waiting for the path MTU
  }
  drain();
}

void GoldenRequester::learn(const Pkt& p) {
  const std::int32_t d = pdiff(p.psn(), post_psn_);
  if (d < 0) return;  // its message is posted already
  if (static_cast<std::size_t>(d) >= kMaxSeen)
    return resync("a message the capture does not complete within 4,096 PSNs");
  while (seen_.size() <= static_cast<std::size_t>(d)) seen_.emplace_back();
  if (!seen_[static_cast<std::size_t>(d)]) seen_[static_cast<std::size_t>(d)] = p;
}

void GoldenRequester::post_ready() {
  while (model_ && !seen_.empty() && seen_.front()) {
    if (model_->mtu_guessed) {
      if (mtu_ && messages_posted_ == 0) {
        // The path MTU is known before the model was given anything: it starts again with it.
        const std::uint32_t at = model_->start_psn;
        model_.reset();
        start(at, mtu_);
        continue;
      }
      // Known now, after small messages went to the model at the guess: each took one packet,
      // as it would have at the path MTU (none was longer, below), so the model's QP takes the
      // path MTU in place and the replay goes on.
      if (mtu_ && longest_guessed_ <= *mtu_ && model_->learn_mtu(*mtu_)) continue;
      // The capture gets a while to show it (a multi-packet message, a READ's responses)
      // before small messages are posted at the guess: the model then starts with it.
      if (!mtu_ && messages_posted_ == 0 && queue_.size() < kMtuWait && !ending_) return;
    }
    const Pkt& first = *seen_.front();
    const wire::OpcodeInfo& fop = *first.op;
    if (!fop.starts_message())
      return resync(
          fmt::format("PSN {:#08x} should begin a message but carries {}", first.psn(), fop.name));
    // The message's packets: one for an ONLY, a READ request or an atomic; FIRST .. LAST else.
    std::size_t n = 1;
    std::uint64_t bytes = first.payload_len;
    if (!fop.ends_message()) {
      for (;; ++n) {
        if (n >= seen_.size() || !seen_[n]) return;  // not known yet
        const wire::OpcodeInfo& op = *seen_[n]->op;
        if (op.operation != fop.operation || op.starts_message())
          return resync(fmt::format("PSN {:#08x} carries {} inside a {} message", seen_[n]->psn(),
                                    op.name, fop.name));
        bytes += seen_[n]->payload_len;
        if (op.ends_message()) {
          ++n;
          break;
        }
      }
    }
    const wire::OpcodeInfo& lop = *seen_[n - 1]->op;
    const std::optional<tx::WrOpcode> code = wr_opcode(fop, lop);
    if (!code) return resync(fmt::format("{} is not replayed", fop.name));
    tx::SendWr wr;
    wr.wr_id = ++messages_;
    wr.opcode = *code;
    std::uint64_t length = bytes;
    if (fop.has(wire::Header::Reth)) {
      wr.remote_addr = first.reth.va;
      wr.rkey = first.reth.rkey;
      // A WRITE is as long as its RETH says (golden.request and seq.length judge the packets),
      // a FLUSH's range too (the model takes it from the gather list; no payload goes out).
      length = first.reth.dmalen;
    }
    if (fop.operation == Operation::ATOMIC_WRITE) length = 8;  // its payload (RETH: 8 too)
    if (fop.has(wire::Header::Feth)) {
      wr.flush_type = first.feth.placement;
      wr.flush_level = first.feth.selectivity;
    }
    if (fop.has(wire::Header::AtomicEth)) {
      wr.remote_addr = first.atomic.va;
      wr.rkey = first.atomic.rkey;
      const bool cas = *code == tx::WrOpcode::ATOMIC_CMP_AND_SWP;
      wr.swap = cas ? first.atomic.swap_add : 0;
      wr.compare_add = cas ? first.atomic.compare : first.atomic.swap_add;
      length = 8;
    }
    if (lop.has(wire::Header::Ieth)) wr.invalidate_rkey = seen_[n - 1]->ieth.rkey;
    if (seen_[n - 1]->bth.se) wr.send_flags |= tx::kSendSolicited;
    if (length > kMaxMessage) return resync("a message longer than 2^31 bytes");
    // The path MTU decides how many packets (and PSNs) a message takes: a guess will not do.
    const std::uint32_t least = fop.operation == Operation::READ_REQUEST ||
                                        fop.operation == Operation::SEND ||
                                        fop.operation == Operation::WRITE
                                    ? packets_for(length, 256)
                                    : 1;
    if (model_->mtu_guessed && least > 1) {
      // The path MTU decides its packets: wait for the capture to show it (bounded by the
      // queue), unless small messages went to the model at a guessed one already.
      if (!mtu_) return;
      return resync("a message of several packets after small ones, before the path MTU was known");
    }
    const std::uint32_t span = fop.operation == Operation::READ_REQUEST
                                   ? packets_for(length, model_->mtu)
                                   : static_cast<std::uint32_t>(n);
    // A WRITE whose RETH length is not what its packets carry (golden.request and seq.length
    // judge it): its work request would not give these packets, nor their PSNs.
    if (fop.operation == Operation::WRITE && packets_for(length, model_->mtu) != n)
      return resync(
          fmt::format("the WRITE at PSN {:#08x} carries {} packets for a RETH length "
                      "of {}",
                      first.psn(), n, length));
    if (length != 0) wr.sg_list.push_back({0, static_cast<std::uint32_t>(length), model_->lkey});
    if (model_->ad.post_send(model_->qpn, wr) != model::PostError::OK)
      return resync("the model refused the work request");
    ++messages_posted_;
    if (model_->mtu_guessed) longest_guessed_ = std::max(longest_guessed_, length);
    // Its PSNs: taken out of what waits (a READ's response PSNs were never requests).
    for (std::uint32_t i = 0; i < span && !seen_.empty(); ++i) seen_.pop_front();
    post_psn_ = padd(post_psn_, span);
  }
}

void GoldenRequester::drain() {
  while (model_ && !queue_.empty()) {
    if (queue_.size() > kMaxQueue)
      return resync("a message the capture does not complete within 4,096 frames");
    Event& e = queue_.front();
    // A request waits for its message's work request.
    if (e.request && pdiff(e.p.psn(), post_psn_) >= 0) return;
    const Event ev = std::move(e);
    queue_.pop_front();
    if (ev.request)
      request(ev.p, ev.fresh);
    else
      response(ev.p);
  }
  park_if_idle();
}

void GoldenRequester::response(const Pkt& p) {
  Model& m = *model_;
  if (pdiff(p.psn(), m.start_psn) < 0 || p.payload_len > kMaxFedPayload) return;
  wire::ParsedFrame f;
  f.bytes = wire::ByteSpan(kZeros.data(), p.payload_len);
  f.roce = true;
  f.has_bth = true;
  f.bth = p.bth;
  f.bth.dqpn = m.qpn.value();
  f.op = p.op;
  f.headers = p.op->headers;
  f.aeth = p.aeth;
  f.atomicacketh = p.atomic_ack;
  f.payload_off = 0;
  f.payload_len = p.payload_len;
  f.icrc_ok = f.icrc_checked = true;
  m.ad.deliver_response(m.qpn, f);
  m.drain_cq();
}

bool GoldenRequester::next_from_model(Sent& s) {
  Model& m = *model_;
  if (m.out.empty()) {
    m.credits = 1;
    m.ad.kick_requester(m.qpn);
    m.events.run_until(m.events.now());
    // After an RNR NAK the model sends nothing before the NAK's delay: its time runs to it.
    if (m.out.empty() && m.ctx().req.wait_for_rnr_timer &&
        m.ctx().req.rnr_deadline != qp::kNoDeadline)
      m.events.run_until(m.ctx().req.rnr_deadline);
    m.credits = 0;
    m.drain_cq();
  }
  if (m.out.empty()) return false;
  s = m.out.front();
  m.out.pop_front();
  return true;
}

void GoldenRequester::request(const Pkt& p, bool fresh) {
  Model& m = *model_;
  if (pdiff(p.psn(), m.start_psn) < 0) return;
  const Pkt::CopyKey key = p.copy_key();
  for (const Pkt::CopyKey& c : recent_)
    if (c == key) return;  // a copy
  // A packet the model sent earlier that the network held back (unless the model is about to
  // send that PSN again: a resend matches the model's resend).
  for (auto it = held_.begin(); it != held_.end() && p.psn() != m.cursor; ++it) {
    if (it->psn != p.psn()) continue;
    const Sent s = *it;
    held_.erase(it);
    return compare(p, fresh, s);
  }
  for (Sent& h : held_) ++h.age;
  while (!held_.empty() && (held_.front().age > kHeldAge || held_.size() > kMaxHeld)) {
    held_.pop_front();
    ++lost_;  // lost before the tap
  }
  // A PSN the responses the tap showed have acknowledged to the model: the device did not get
  // them (lost after the tap). The model does not go back; the resend is compared with what the
  // model sent at that PSN before.
  if (pdiff(p.psn(), m.ctx().req.comp_psn.value()) < 0) {
    ++unheard_;
    if (const Sent* s = m.sent_at(p.psn())) return compare(p, fresh, *s);
    return;
  }
  // The device went back where the model did not: the model's ACK timer fires now (timing is
  // free); with nothing outstanding it has nothing to go back to.
  if (pdiff(p.psn(), m.cursor) < 0 && !m.ctx().req.wait_for_rnr_timer) {
    const qp::TimeNs deadline = m.ctx().req.retransmit_deadline;
    if (deadline == qp::kNoDeadline) {
      if (!qp::state_rules(m.ctx().state()).sq_processes) return stop_in_error(p);
      return resync(
          fmt::format("PSN {:#08x} sent again while the model's ACK timer was off", p.psn()));
    }
    m.credits = 0;
    m.events.run_until(deadline);
    m.drain_cq();
    ++timeouts_;
  }
  for (std::size_t pulled = 0; pulled < kMaxPull; ++pulled) {
    Sent s;
    if (!next_from_model(s)) {
      if (!qp::state_rules(m.ctx().state()).sq_processes) return stop_in_error(p);
      return resync(
          fmt::format("the device sent PSN {:#08x} when the model had nothing to send", p.psn()));
    }
    const std::int32_t d = pdiff(s.psn, p.psn());
    if (d == 0) return compare(p, fresh, s);
    held_.push_back(s);
    if (d > 0)
      return resync(
          fmt::format("the device sent PSN {:#08x} where the model sends {:#08x}", p.psn(), s.psn));
  }
  resync(fmt::format("the model sent {} packets before PSN {:#08x}", kMaxPull, p.psn()));
}

void GoldenRequester::stop_in_error(const Pkt& p) {
  // A fatal NAK (or retries exhausted) put the model's QP in error: it sends nothing more.
  // err.after_fatal judges what the device sends, and whether it heard the NAK.
  stopped_ = true;
  stop_reason_ = fmt::format(
      "the model's requester is in error at frame {} (err.after_fatal judges what follows)",
      p.frame);
  model_.reset();
  queue_.clear();
  seen_.clear();
  held_.clear();
}

std::string GoldenRequester::describe(const Sent& s) const {
  const wire::OpcodeInfo& op = wire::opcode_info(s.opcode);
  std::string out = fmt::format("{} PSN {:#08x} with {} bytes", op.name, s.psn, s.payload);
  if (op.has(wire::Header::Reth))
    out +=
        fmt::format(", RETH va {:#x} rkey {:#x} length {}", s.reth.va, s.reth.rkey, s.reth.dmalen);
  if (op.has(wire::Header::AtomicEth))
    out += fmt::format(", AtomicETH va {:#x} rkey {:#x}", s.atomic.va, s.atomic.rkey);
  if (op.has(wire::Header::Ieth)) out += fmt::format(", IETH rkey {:#x}", s.ieth.rkey);
  if (op.has(wire::Header::Feth))
    out += fmt::format(", FETH placement {} selectivity {}", s.feth.placement, s.feth.selectivity);
  return out;
}

void GoldenRequester::compare(const Pkt& p, bool fresh, const Sent& s) {
  const Sent dev = Sent::of(p.bth, p.payload_len, p.reth, p.atomic, p.ieth, p.feth);
  const bool same = dev.same(s);
  ++compared_;
  if (!fresh) replay_->checked(conn_, RuleId::GoldenRequester);
  if (same) {
    ++agreed_;
    recent_.push_back(p.copy_key());
    if (recent_.size() > kRecentCopies) recent_.pop_front();
    return;
  }
  // A first transmission is golden.request's to judge (segmentation); the replay follows it.
  if (fresh) return resync(fmt::format("the first transmission of PSN {:#08x} differs", p.psn()));
  const Model& m = *model_;
  StateSnapshot st;
  st.next_psn = m.cursor;
  st.oldest_unacked = m.ctx().req.comp_psn.value();
  st.outstanding = m.ctx().req.outstanding_psns();
  st.expected = "the model's requester sends " + describe(s);
  replay_->violation(
      p, conn_,
      fmt::format("resent {}, but the model's requester sends {}", describe(dev), describe(s)),
      std::move(st), RuleId::GoldenRequester);
  resync("after a golden.requester violation");
}

void GoldenRequester::resync(std::string why) {
  ++resyncs_;
  last_resync_ = std::move(why);
  model_.reset();
  queue_.clear();
  seen_.clear();
  held_.clear();
  recent_.clear();
  want_start_.reset();
}

void GoldenRequester::park_if_idle() {
  // Past GoldenReplay::kModels streams, an idle model (everything it sent acknowledged, nothing
  // waiting) is dropped; the replay starts again at the next new message.
  if (!model_ || !replay_->crowded || !queue_.empty() || !seen_.empty() || !held_.empty()) return;
  if (model_->ctx().req.outstanding_psns() != 0) return;
  want_start_ = post_psn_;
  model_.reset();
  recent_.clear();
  // The empty queues' buffers too: a parked stream is most often one that has ended.
  queue_.shrink_to_fit();
  seen_.shrink_to_fit();
  held_.shrink_to_fit();
}

void GoldenRequester::finish() {
  // What waited for the path MTU is played without it: the capture will not show it now.
  ending_ = true;
  post_ready();
  drain();
  lost_ += held_.size();  // never shown by the end of the capture
  held_.clear();
  if (compared_ == 0 && resyncs_ == 0) return;
  std::string s = fmt::format(
      "golden requester replay: {} requests compared with the model's requester ({} messages "
      "posted), {} agreed",
      compared_, messages_, agreed_);
  if (lost_ != 0) s += fmt::format("; {} model packets taken as lost before the tap", lost_);
  if (timeouts_ != 0) s += fmt::format("; {} go-backs with no NAK (its timer fired)", timeouts_);
  if (unheard_ != 0)
    s += fmt::format("; {} resends of PSNs the tap's responses had acknowledged", unheard_);
  if (resyncs_ != 0)
    s += fmt::format("; {} resync{} (last: {})", resyncs_, resyncs_ == 1 ? "" : "s", last_resync_);
  if (stopped_) s += "; " + stop_reason_;
  replay_->note(conn_, first_frame_, std::move(s));
}

}  // namespace rocecert::check::detail
