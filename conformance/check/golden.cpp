// The golden replay of an RC request stream against the model's responder (golden.h).
#include "golden.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>

#include "golden_model.h"
#include "rocecert/check/setup.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::check::detail {

namespace {

using wire::AethKind;
using wire::NakCode;
using wire::Operation;
using wire::Position;

// Payload bytes fed to the model: their values are never compared (golden.h), only their count.
constexpr std::size_t kMaxFedPayload = 16384;
const std::array<std::uint8_t, kMaxFedPayload> kZeros{};

constexpr std::size_t kMaxPending = 4096;  // requests waiting for a response before being fed
constexpr std::size_t kMaxLog = 4096;      // requests kept to feed again (the MTU became known)
constexpr std::size_t kRecentLog = 256;    // requests kept once the MTU is known
constexpr std::size_t kMaxAnswers = 4096;  // PSNs whose answers are remembered
constexpr std::size_t kMaxGaps = 16;       // gaps the tap showed, not yet settled by an answer

// A receive buffer as large as any message (IBA Vol. 1 §9.4: a message is at most 2^31 bytes).
constexpr std::uint32_t kRecvBytes = 0x8000'0000u;

bool keyed(const wire::OpcodeInfo& op) {
  return op.has(wire::Header::Reth) || op.has(wire::Header::AtomicEth);
}

std::string syndrome_name(std::uint8_t syndrome) {
  switch (wire::aeth_kind(syndrome)) {
    case AethKind::ACK:
      return "ACK";
    case AethKind::RNR_NAK:
      return fmt::format("RNR NAK (timer {})", wire::aeth_value(syndrome));
    case AethKind::NAK:
      if (const auto c = wire::nak_code(syndrome)) return fmt::format("NAK {}", wire::nak_name(*c));
      return fmt::format("NAK code {}", wire::aeth_value(syndrome));
    case AethKind::RESERVED:
      break;
  }
  return fmt::format("reserved syndrome {:#04x}", syndrome);
}

}  // namespace

// The model adapter that plays the device's responder, and what it answered, per PSN.
struct GoldenResponder::Model final : trace::Observer, ReplayModel {
  // Everything the model answered at one PSN (a duplicate may be answered again, differently:
  // a duplicate SEND/WRITE is re-ACKed at ePSN - 1, which may be a READ's or an atomic's PSN).
  struct Answer {
    bool fed = false;             // a request with this PSN was fed
    std::uint8_t req_opcode = 0;  // the latest one fed
    std::uint8_t count = 0;       // answers sent (saturating)
    bool ack = false;             // a plain ACK
    std::uint32_t ack_msn = 0;    // of the first plain ACK
    std::uint8_t resp = 0;        // READ response or atomic ACK opcode, 0: none
    std::uint32_t resp_len = 0;
    bool resp_aeth = false;
    std::uint32_t resp_msn = 0;  // of the first such response
    std::uint8_t nak = 0;        // syndrome of the latest NAK / RNR NAK, 0: none
    std::uint32_t nak_msn = 0;
    bool device_answered = false;  // the device's answer here agreed with the model
    bool answered() const { return count != 0; }
  };

  std::uint32_t recv_lkey = 0;
  // A READ longer than the smallest MTU was fed while the MTU was a guess: how many responses
  // it takes, and so every PSN after it, depends on the MTU the capture has not shown yet.
  bool mtu_sensitive = false;
  std::optional<std::uint32_t> msn_offset;  // device MSN - model MSN (mod 2^24)
  bool setup_governs = false;               // keys judged from --setup
  std::uint32_t any_rkey = 0;               // without setup: the MR that grants everything
  std::vector<std::pair<std::uint32_t, std::uint32_t>> keys;  // setup: device rkey → model rkey
  std::uint32_t base = 0;
  std::deque<Answer> answers;

  static model::AdapterConfig config(const Options& o) {
    model::AdapterConfig c = base_config("golden", o);
    // One ACK per executed packet: the device may coalesce them, and every PSN then has the
    // model's MSN at hand (AckCoalescing in refmodel/include/rocecert/model/adapter.h).
    c.profile.ack.mode = model::AckCoalescing::Mode::EVERY_PACKET;
    return c;
  }
  explicit Model(const Options& o) : ReplayModel(config(o), *this) {}

  // The model's answers are read from what it would send (FrameEvent::spec): never encoded, nor
  // decoded again (the model has no link).
  bool needs_frame_bytes() const override { return false; }
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX || e.spec == nullptr) return;
    const wire::FrameSpec& f = *e.spec;
    const wire::OpcodeInfo& op = wire::opcode_info(f.bth.opcode);
    // A header the opcode does not carry is not on the wire: read as a decoder would, zero.
    const wire::Aeth aeth = op.has(wire::Header::Aeth) ? f.aeth : wire::Aeth{};
    Answer* a = slot(f.bth.psn);
    if (a == nullptr) return;
    if (a->count != 0xFF) ++a->count;
    if (op.operation == Operation::ACK) {
      if (wire::aeth_kind(aeth.syndrome) != AethKind::ACK) {
        a->nak = aeth.syndrome;
        a->nak_msn = aeth.msn;
      } else if (!a->ack) {
        a->ack = true;
        a->ack_msn = aeth.msn;
      }
      return;
    }
    if (a->resp == 0) {
      a->resp_aeth = op.has(wire::Header::Aeth);
      a->resp_msn = aeth.msn;
    }
    a->resp = f.bth.opcode;
    a->resp_len = static_cast<std::uint32_t>(f.payload.size());
  }

  // The record of `psn`, created when it is within reach.
  Answer* slot(std::uint32_t psn) {
    if (answers.empty()) base = psn;
    std::int32_t d = pdiff(psn, base);
    if (d < 0) {
      if (static_cast<std::size_t>(-d) + answers.size() > kMaxAnswers) return nullptr;
      answers.insert(answers.begin(), static_cast<std::size_t>(-d), Answer{});
      base = psn;
      return &answers.front();
    }
    // Bounded: the window slides to end at `psn`, the oldest PSNs going first (a response that
    // old is no longer judged); only a PSN a whole window ahead of everything remembered starts
    // it again. (Starting again as soon as the window was full forgot the requests still
    // waiting for their responses, on every connection past 4,096 PSNs.)
    const std::size_t need = static_cast<std::size_t>(d) + 1;
    if (need > kMaxAnswers) {
      const std::size_t drop = need - kMaxAnswers;
      if (drop >= answers.size()) {
        answers.clear();
        base = psn;
        d = 0;
      } else {
        answers.erase(answers.begin(), answers.begin() + static_cast<std::ptrdiff_t>(drop));
        base = padd(base, static_cast<std::int64_t>(drop));
        d -= static_cast<std::int32_t>(drop);
      }
    }
    while (static_cast<std::size_t>(d) >= answers.size()) answers.emplace_back();
    return &answers[static_cast<std::size_t>(d)];
  }
  Answer* find(std::uint32_t psn) {
    const std::int32_t d = pdiff(psn, base);
    if (d < 0 || static_cast<std::size_t>(d) >= answers.size()) return nullptr;
    return &answers[static_cast<std::size_t>(d)];
  }

  // What the model answered at `psn`, for a report.
  std::string describe(std::uint32_t psn, const Answer* a) const {
    auto dev = [&](std::uint32_t v) { return msn_offset ? padd(v, *msn_offset) : v; };
    if (a == nullptr || (!a->fed && !a->answered()))
      return fmt::format("the model was given no request with PSN {:#08x}", psn);
    if (!a->answered()) return fmt::format("the model sends nothing for PSN {:#08x}", psn);
    std::string s = fmt::format("the model answers PSN {:#08x} with", psn);
    const char* sep = " ";
    if (a->resp != 0) {
      s += fmt::format("{}{} ({} bytes", sep, wire::opcode_info(a->resp).name, a->resp_len);
      if (a->resp_aeth) s += fmt::format(", MSN {:#08x}", dev(a->resp_msn));
      s += ")";
      sep = " and ";
    }
    if (a->ack) {
      s += fmt::format("{}ACK (MSN {:#08x})", sep, dev(a->ack_msn));
      sep = " and ";
    }
    if (a->nak != 0)
      s += fmt::format("{}{} (MSN {:#08x})", sep, syndrome_name(a->nak), dev(a->nak_msn));
    return s;
  }

  std::uint32_t epsn() const { return ctx().resp.epsn.value(); }
  std::uint32_t msn() const { return ctx().resp.msn.value(); }
  bool in_error() const { return !qp::state_rules(ctx().state()).rq_processes; }

  std::uint32_t model_rkey(std::uint32_t device_rkey) const {
    if (!setup_governs) return any_rkey;
    for (const auto& [d, m] : keys)
      if (d == device_rkey) return m;
    return 0;  // index 0 is never allocated (mem::MemConfig): an invalid key
  }

  void feed(const Pkt& p) {
    if (p.payload_len > kMaxFedPayload) return;  // no RoCE frame carries that much
    const wire::OpcodeInfo* op = p.op;
    // SEND with invalidate: without the device's key table the invalidation cannot be
    // replayed; the SEND itself is (key.static follows the invalidations).
    if (op->flags & wire::kInv)
      op = &wire::opcode_info(wire::to_u8(op->position == Position::LAST
                                              ? wire::Opcode::RC_SEND_LAST
                                              : wire::Opcode::RC_SEND_ONLY));
    wire::ParsedFrame f;
    f.bytes = wire::ByteSpan(kZeros.data(), p.payload_len);
    f.roce = true;
    f.has_bth = true;
    f.bth = p.bth;
    f.bth.opcode = op->value;
    f.bth.dqpn = qpn.value();
    f.op = op;
    f.headers = op->headers;
    f.reth = p.reth;
    f.reth.rkey = model_rkey(p.reth.rkey);
    f.atomiceth = p.atomic;
    f.atomiceth.rkey = model_rkey(p.atomic.rkey);
    f.feth = p.feth;
    f.payload_off = 0;
    f.payload_len = p.payload_len;
    f.icrc_ok = f.icrc_checked = true;
    const bool consumes = op->takes_recv_wqe();
    if (consumes) {
      model::RecvWr r;
      r.sg_list.push_back({0, kRecvBytes, recv_lkey});
      ad.post_recv(qpn, r);  // QUEUE_FULL when one is waiting already: fine
    }
    if (mtu_guessed && op->operation == Operation::READ_REQUEST && p.reth.dmalen > 256)
      mtu_sensitive = true;
    if (Answer* a = slot(p.psn())) {
      a->fed = true;
      a->req_opcode = p.bth.opcode;
    }
    ad.deliver_request(qpn, f);
    if (consumes)  // only receives complete on the model's CQ
      while (!ad.poll_cq(cq, 64).empty()) {
      }
  }
};

GoldenResponder::GoldenResponder(GoldenReplay& replay, ConnIndex conn, const IpAddr& responder,
                                 std::uint32_t responder_qpn, const Setup* setup)
    : replay_(&replay),
      conn_(conn),
      responder_(responder),
      responder_qpn_(responder_qpn),
      setup_(setup) {}

GoldenResponder::~GoldenResponder() {
  set_model(nullptr);
}

void GoldenResponder::set_model(std::unique_ptr<Model> m) {
  model_ = std::move(m);
  // Without a model the log has no use (every use of it feeds the model; start() begins a new
  // one), and kept it would be most of a parked stream's memory: up to 256 requests of 192
  // bytes, held to the capture's end for thousands of parked streams.
  if (!model_) {
    log_.clear();
    log_.shrink_to_fit();
    log_full_ = false;
  }
}

void GoldenResponder::park_if_idle(const Pkt& p) {
  if (!model_ || !pending_.empty() || !replay_->crowded) return;
  const Model& m = *model_;
  // Idle: the device answered the last PSN fed, no message is half done, the MSN is known.
  if (padd(p.psn(), 1) != m.epsn() || m.ctx().resp.opcode != qp::kNoOpcode || !m.msn_offset) return;
  want_start_ = m.epsn();
  want_msn_offset_ = padd(m.msn(), *m.msn_offset);
  set_model(nullptr);
  pending_.shrink_to_fit();  // empty: a parked stream is most often one that has ended
}

void GoldenResponder::on_request(const Pkt& p, bool fresh) {
  if (stopped_) return;
  if (!first_frame_) first_frame_ = p.frame;
  // A request more than one PSN past the one before it (new or resent): the tap shows a gap.
  if (previous_) {
    const std::int64_t d = pdiff(p.psn(), *previous_);
    if (d > 1 && d < (1 << 22)) {
      if (gaps_.size() == kMaxGaps) gaps_.erase(gaps_.begin());
      gaps_.push_back(p.psn());
    }
  }
  previous_ = p.psn();
  pending_.push_back({p, fresh});
  // No response for a long while (one direction only): the model runs ahead on its own.
  if (pending_.size() > kMaxPending) feed_pending(std::nullopt);
}

void GoldenResponder::start(std::uint32_t epsn, std::optional<std::uint32_t> mtu) {
  auto m = std::make_unique<Model>(replay_->options());
  model::Adapter& ad = m->ad;
  // Without a setup every right is granted, FLUSH's placement types too (IBA 1.5; the model
  // refuses a FLUSH a QP or MR is not registered for: responder.cpp, qp_access_ok).
  const mem::Access everything = mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE |
                                 mem::Access::REMOTE_READ | mem::Access::REMOTE_ATOMIC |
                                 mem::Access::FLUSH_GLOBAL | mem::Access::FLUSH_PERSISTENT;
  std::uint32_t qp_access = mem::to_u32(everything);
  std::vector<std::pair<std::uint32_t, mem::Pd>> pds;  // setup PD index → model PD
  auto pd_of = [&](std::uint32_t index) {
    for (const auto& [i, pd] : pds)
      if (i == index) return pd;
    const mem::Pd pd = ad.alloc_pd().value;
    pds.emplace_back(index, pd);
    return pd;
  };
  const SetupQp* sq = setup_ != nullptr ? setup_->qp(responder_.b, responder_qpn_) : nullptr;
  const bool governs = sq != nullptr && setup_->keys_known && !setup_->has_windows(responder_.b);
  // The QP's PD: the setup's, or one of its own (kNoSetupPd) for an MR that grants everything.
  constexpr std::uint32_t kNoSetupPd = 0xFFFF'FFFFu;
  const mem::Pd qp_pd = pd_of(governs ? sq->pd : kNoSetupPd);
  if (governs) {
    // The device's MR table and QP access flags, from --setup (key.setup judges the same).
    m->setup_governs = true;
    qp_access = mem::to_u32(mem::Access::LOCAL_WRITE);
    if (sq->remote_read) qp_access |= mem::to_u32(mem::Access::REMOTE_READ);
    if (sq->remote_write) qp_access |= mem::to_u32(mem::Access::REMOTE_WRITE);
    if (sq->remote_atomic) qp_access |= mem::to_u32(mem::Access::REMOTE_ATOMIC);
    if (sq->flush_global) qp_access |= mem::to_u32(mem::Access::FLUSH_GLOBAL);
    if (sq->flush_persistent) qp_access |= mem::to_u32(mem::Access::FLUSH_PERSISTENT);
    for (const SetupMr& mr : setup_->mrs) {
      if (mr.host != responder_.b) continue;
      mem::Access a = mem::Access::LOCAL_WRITE;
      if (mr.remote_read) a = a | mem::Access::REMOTE_READ;
      if (mr.remote_write) a = a | mem::Access::REMOTE_WRITE;
      if (mr.remote_atomic) a = a | mem::Access::REMOTE_ATOMIC;
      if (mr.flush_global) a = a | mem::Access::FLUSH_GLOBAL;
      if (mr.flush_persistent) a = a | mem::Access::FLUSH_PERSISTENT;
      const auto r = ad.reg_mr({pd_of(mr.pd), mr.iova, mr.length, a, mr.iova});
      if (r.ok()) m->keys.emplace_back(mr.rkey, r.value.rkey.value());
    }
  } else {
    const auto r = ad.reg_mr({qp_pd, 0, ~std::uint64_t{0}, everything, std::nullopt});
    m->any_rkey = r.value.rkey.value();
  }
  const auto recv = ad.reg_mr({qp_pd, 0, kRecvBytes, mem::Access::LOCAL_WRITE, std::nullopt});
  m->recv_lkey = recv.value.lkey.value();
  model::BringUp b;
  b.rq_psn = epsn;
  b.access = qp_access;
  // The device's responder resources are not on the wire: a duplicate READ the model no longer
  // holds is not judged (on_response). A device may hold more than it was given (rxe rounds up
  // to a power of two), so only a setup's none is taken: then every READ and atomic is refused
  // (IBA Vol. 1 §9.7.5.1.4 / docs/spec-notes.md §4.4, no responder resources).
  b.max_dest_rd_atomic = sq != nullptr && sq->max_dest_rd_atomic == 0 ? 0 : 16;
  if (!m->open_rc(qp_pd, {1, 16, 1, 1, 0}, mtu, b)) {
    stop("the model could not set up its responder QP");
    return;
  }
  m->start_psn = epsn;
  set_model(std::move(m));
  log_.clear();
  log_full_ = false;
}

void GoldenResponder::feed_pending(std::optional<std::uint32_t> mtu) {
  while (!pending_.empty()) {
    const Pending e = std::move(pending_.front());
    pending_.pop_front();
    const Pkt& p = e.p;
    if (!model_) {
      // (Re)start on a message's first packet: at the PSN the device named when it did, else
      // on a new PSN (a resend or a duplicate finds the device in a state the wire did not show).
      if (!p.op->starts_message()) continue;
      const bool named = want_start_ && p.psn() == *want_start_;
      if (!named && (!e.fresh || (want_start_ && pdiff(p.psn(), *want_start_) < 0))) continue;
      start(p.psn(), mtu);
      if (!model_) return;
      model_->msn_offset = named ? want_msn_offset_ : std::nullopt;
      want_start_.reset();
    }
    if (pdiff(p.psn(), model_->start_psn) < 0) continue;  // before the replay's start
    if (p.op->operation == Operation::READ_REQUEST) {
      // A READ answered by more packets than the replay remembers answers (a hostile capture
      // can ask for 2^31 bytes at MTU 256: 8 M packets to build) is not replayed; the model
      // starts again after it. At a guessed MTU, the smallest one counts.
      const std::uint64_t mtu_min = model_->mtu_guessed ? 256 : model_->mtu;
      const std::uint64_t packets = (std::uint64_t{p.reth.dmalen} + mtu_min - 1) / mtu_min;
      if (packets > kMaxAnswers) {
        resync(std::nullopt, std::nullopt,
               fmt::format("a READ of {} bytes (up to {} responses) is beyond the replay's "
                           "window of {} answers",
                           p.reth.dmalen, packets, kMaxAnswers));
        continue;
      }
    }
    // A key the --events log changed before this access (deregistered, bound again,
    // invalidated): the setup no longer says what it grants, and the model's table would answer
    // for the old key (docs/check.md, "--setup"). key.setup leaves such accesses unjudged; the
    // replay leaves the exchange.
    if (model_->setup_governs && p.key_epoch != 0 && keyed(*p.op)) {
      stop(
          fmt::format("the --events log changed rkey {:#x} before frame {}: the setup no longer "
                      "describes it",
                      p.has(wire::Header::Reth) ? p.reth.rkey : p.atomic.rkey, p.frame));
      return;
    }
    remember(p);
    model_->feed(p);
  }
}

void GoldenResponder::refeed_with_mtu(std::uint32_t mtu) {
  // The path MTU became known after the model guessed another: the same requests again, with it.
  std::vector<Pkt> log(log_.begin(), log_.end());
  log_.clear();
  const std::optional<std::uint32_t> offset = model_->msn_offset;
  start(model_->start_psn, mtu);
  if (!model_) return;
  model_->msn_offset = offset;
  for (const Pkt& p : log) {
    remember(p);
    model_->feed(p);
  }
}

void GoldenResponder::remember(const Pkt& p) {
  // While the MTU is a guess every request since the start may have to be fed again; after, only
  // the recent ones a PSN sequence NAK can send the model back to.
  const std::size_t limit = model_->mtu_guessed ? kMaxLog : kRecentLog;
  if (log_.size() >= limit) {
    if (model_->mtu_guessed) log_full_ = true;
    log_.pop_front();
  }
  log_.push_back(p);
}

void GoldenResponder::resync(std::optional<std::uint32_t> at_psn,
                             std::optional<std::uint32_t> msn_offset, std::string_view why) {
  ++resyncs_;
  last_resync_ = std::string(why);
  set_model(nullptr);
  want_start_ = at_psn;
  want_msn_offset_ = msn_offset;
  // sync_disturbances_ stays: what disturbed the stream since the last agreement may still
  // stand between the device and the restarted model, until they agree again.
}

bool GoldenResponder::restart_from_log(std::uint32_t epsn, std::uint32_t device_msn,
                                       std::string_view why) {
  // The device expected `epsn` when it NAKed; what it received after that NAK was sent is
  // already in the log (a response reaches the tap later than the requests that follow it).
  // The latest copy of `epsn` in the log is where the device's view and the log meet again:
  // the model starts there, with the device's MSN, and takes the log's requests from it on.
  // Had the device not received that copy either, it gets the next resend, which the model
  // takes as a duplicate: both then stand at the same MSN.
  std::size_t i = log_.size();
  while (i > 0 && !(log_[i - 1].psn() == epsn && log_[i - 1].op->starts_message())) --i;
  if (i == 0) return false;
  // Unless the log shows the NAK's cause: the device expected `epsn` once it had taken PSN
  // epsn - 1, and NAKed the first request ahead of it that came next; it took the first copy of
  // `epsn` after that one. A later copy is then a duplicate to it, and what came between (the
  // link reordered the requests) was executed: starting at the latest copy would lose it.
  std::size_t before = i - 1;
  while (before > 0 && log_[before - 1].psn() != padd(epsn, -1)) --before;
  if (before > 0) {
    std::size_t ahead = before;
    while (ahead < i - 1 &&
           !(pdiff(log_[ahead].psn(), epsn) > 0 && pdiff(log_[ahead].psn(), epsn) < (1 << 22)))
      ++ahead;
    if (ahead < i - 1) {
      std::size_t first = ahead + 1;
      while (!(log_[first].psn() == epsn && log_[first].op->starts_message())) ++first;
      i = first + 1;
    }
  }
  ++resyncs_;
  last_resync_ = std::string(why);
  std::vector<Pkt> tail(log_.begin() + static_cast<std::ptrdiff_t>(i - 1), log_.end());
  log_.clear();
  const std::optional<std::uint32_t> mtu =
      model_->mtu_guessed ? std::nullopt : std::optional(model_->mtu);
  start(epsn, mtu);
  if (!model_) return true;
  model_->msn_offset = device_msn;
  for (const Pkt& q : tail) {
    log_.push_back(q);
    model_->feed(q);
  }
  return true;
}

void GoldenResponder::stop(std::string why) {
  stopped_ = true;
  stop_reason_ = std::move(why);
  set_model(nullptr);
  pending_.clear();
}

void GoldenResponder::agree(std::uint64_t disturbances, std::uint32_t psn) {
  ++agreed_;
  std::erase_if(gaps_, [&](std::uint32_t g) { return pdiff(psn, g) >= 0; });
  free_resync_ = false;
  sync_disturbances_ = disturbances;
}

void GoldenResponder::mismatch(const Pkt& p, std::uint64_t disturbances, std::string message,
                               std::string expected, bool content) {
  // A request that came more than one PSN past the one before it, at or before this answer's
  // PSN, and no agreement since at its PSN or later: the device may have received the requests in
  // another order than the tap shows (a link after the tap reordered them), which only its answers
  // tell. An agreement on an earlier PSN does not settle it.
  const bool gap_before = std::any_of(gaps_.begin(), gaps_.end(),
                                      [&](std::uint32_t g) { return pdiff(g, p.psn()) <= 0; });
  if (!content && (free_resync_ || opening_ || gap_before || disturbances != sync_disturbances_)) {
    free_resync_ = false;
    // The model may not know what the device saw (a capture that starts mid-connection, a
    // loss or a duplicate since the last agreement): start again from the next message.
    resync(std::nullopt, std::nullopt, message);
    return;
  }
  StateSnapshot st;
  if (model_) {
    st.expected_psn = model_->epsn();
    st.msn = model_->msn_offset ? padd(model_->msn(), *model_->msn_offset) : model_->msn();
  }
  st.expected = std::move(expected);
  replay_->violation(p, conn_, std::move(message), std::move(st));
  resync(std::nullopt, std::nullopt, "after a golden.response violation");
}

bool GoldenResponder::msn_ok(const Pkt& p, std::uint32_t lo, bool exact) {
  Model& m = *model_;
  if (!m.msn_offset) {
    // Learnt from an answer the model gave once: the device's MSN there is the model's.
    if (exact) m.msn_offset = padd(p.aeth.msn, -static_cast<std::int64_t>(lo));
    return true;
  }
  const std::uint32_t dev = padd(p.aeth.msn, -static_cast<std::int64_t>(*m.msn_offset));
  return pdiff(dev, lo) >= 0 && pdiff(m.msn(), dev) >= 0;
}

void GoldenResponder::on_response(const Pkt& p, std::optional<std::uint32_t> mtu,
                                  std::uint64_t disturbances, bool opening) {
  if (stopped_) return;
  opening_ = opening;
  if (model_ && model_->mtu_guessed && mtu && *mtu != model_->mtu) {
    if (log_full_)
      resync(std::nullopt, std::nullopt, "the path MTU became known late");
    else
      refeed_with_mtu(*mtu);
  }
  feed_pending(mtu);
  if (!model_ || pdiff(p.psn(), model_->start_psn) < 0) return;
  Model& m = *model_;
  if (m.mtu_guessed && m.mtu_sensitive) {
    ++unjudged_mtu_;  // fed again once the MTU is known (refeed_with_mtu)
    return;
  }
  Model::Answer* a = m.find(p.psn());
  const wire::OpcodeInfo& op = *p.op;
  replay_->checked(conn_);
  ++compared_;
  // What the model answered, for a report: formatted only when one is written.
  auto model_says = [&] { return m.describe(p.psn(), a); };
  const bool executed = pdiff(p.psn(), m.epsn()) < 0;
  const wire::OpcodeInfo* req =
      a != nullptr && a->fed ? &wire::opcode_info(a->req_opcode) : nullptr;
  if (a == nullptr || !a->fed) {
    // No request with this PSN reached the model since it (re)started: the stream's rules judge
    // a PSN never sent (ack.psn_sent); here it is a request the restart skipped.
    if (a == nullptr || !a->answered()) {
      if (free_resync_ || opening_ || disturbances != sync_disturbances_ || resyncs_ != 0) {
        free_resync_ = false;
        return resync(std::nullopt, std::nullopt, "a response to a request the replay skipped");
      }
    }
  }
  auto agreed = [&] {
    a->device_answered = true;
    agree(disturbances, p.psn());
    park_if_idle(p);
  };
  // The model refused this very request for what it holds (opcode sequence, length, QP access,
  // key and bounds under --setup): no state the wire hid changes that decision.
  const bool model_refused = a != nullptr && a->fed && a->nak != 0 &&
                             wire::aeth_kind(a->nak) == AethKind::NAK &&
                             wire::nak_code(a->nak) != NakCode::PSN_SEQUENCE_ERROR;

  if (op.operation == Operation::READ_RESPONSE || op.operation == Operation::ATOMIC_ACK) {
    if (a == nullptr || a->resp == 0 || wire::opcode_info(a->resp).operation != op.operation) {
      // A READ asked again after the model dropped its old resource: the device keeps more
      // responder resources than the model was told (not on the wire).
      if (a != nullptr && a->fed && a->resp == 0 && req != nullptr &&
          req->operation == Operation::READ_REQUEST)
        return;
      return mismatch(p, disturbances,
                      fmt::format("{} for PSN {:#08x}, but {}", op.name, p.psn(), model_says()),
                      model_says(), model_refused);
    }
    const wire::OpcodeInfo& mo = wire::opcode_info(a->resp);
    // A READ resumed mid-way may restart with FIRST or go on with MIDDLE (read.opcode judges
    // which); whether the packet ends the READ and its length are fixed.
    if (mo.ends_message() != op.ends_message() || a->resp_len != p.payload_len)
      return mismatch(p, disturbances,
                      fmt::format("{} with {} bytes for PSN {:#08x}, but {}", op.name,
                                  p.payload_len, p.psn(), model_says()),
                      model_says());
    if (op.has(wire::Header::Aeth) && a->resp_aeth && !msn_ok(p, a->resp_msn, a->count == 1))
      return mismatch(p, disturbances,
                      fmt::format("{} for PSN {:#08x} carries MSN {:#08x}, but {}", op.name,
                                  p.psn(), p.aeth.msn, model_says()),
                      model_says());
    return agreed();
  }

  // ACK / NAK / RNR NAK.
  const std::uint8_t syn = p.aeth.syndrome;
  switch (wire::aeth_kind(syn)) {
    case AethKind::ACK: {
      // An ACK may carry any PSN the responder executed: it acknowledges everything up to it
      // (coalescing, IBA Vol. 1 §9.7.5.1.1), and a duplicate SEND/WRITE is re-ACKed at ePSN - 1
      // (rxe), which may be a READ's or an atomic's PSN. Its MSN is what is fixed.
      const bool ok = a != nullptr && executed;
      if (!ok)
        return mismatch(p, disturbances,
                        fmt::format("ACK for PSN {:#08x}, but {}", p.psn(), model_says()),
                        model_says(), model_refused);
      const bool has_lo = a->ack || (a->resp != 0 && a->resp_aeth);
      if (has_lo && !msn_ok(p, a->ack ? a->ack_msn : a->resp_msn, a->count == 1))
        return mismatch(p, disturbances,
                        fmt::format("ACK for PSN {:#08x} carries MSN {:#08x}, but {}", p.psn(),
                                    p.aeth.msn, model_says()),
                        model_says());
      return agreed();
    }
    case AethKind::RNR_NAK:
      // The device's receive queue was empty (not on the wire): the model, which always has a
      // WQE, executed the request; both start again from it when it is retried.
      if (req != nullptr && req->takes_recv_wqe() && executed) {
        agree(disturbances, p.psn());
        return resync(p.psn(), p.aeth.msn, "RNR NAK");
      }
      return mismatch(
          p, disturbances,
          fmt::format("{} for PSN {:#08x}, but {}", syndrome_name(syn), p.psn(), model_says()),
          model_says());
    case AethKind::RESERVED:
      return;  // ack.syndrome reports it
    case AethKind::NAK:
      break;
  }
  const std::optional<NakCode> code = wire::nak_code(syn);
  if (a != nullptr && a->nak == syn) {
    agreed();
    if (code != NakCode::PSN_SEQUENCE_ERROR)
      stop(fmt::format("the responder sent {} at frame {} and left the exchange",
                       syndrome_name(syn), p.frame));
    return;
  }
  if (code == NakCode::PSN_SEQUENCE_ERROR) {
    if (pdiff(p.psn(), m.epsn()) <= 0) {
      // The model got the request at this PSN; the device did not: lost after the tap.
      const std::string why =
          fmt::format("PSN {:#08x} lost after the tap (NAK at frame {})", p.psn(), p.frame);
      if (!restart_from_log(p.psn(), p.aeth.msn, why)) resync(p.psn(), p.aeth.msn, why);
      return;
    }
    return mismatch(p, disturbances,
                    fmt::format("NAK PSN sequence error expecting PSN {:#08x}, but the model "
                                "expects {:#08x}",
                                p.psn(), m.epsn()),
                    fmt::format("the model expects PSN {:#08x}", m.epsn()));
  }
  // What the wire cannot show, taken from the device (golden.h).
  std::string taken;
  if (req != nullptr && code == NakCode::INVALID_REQUEST && req->operation == Operation::SEND)
    taken = "the receive WQE was too small (the receive queue is not on the wire)";
  else if (req != nullptr && keyed(*req) && !m.setup_governs &&
           (code == NakCode::REMOTE_ACCESS_ERROR || code == NakCode::INVALID_REQUEST))
    taken = "without --setup the device's MR table and QP access flags decide";
  else if (code == NakCode::REMOTE_OPERATIONAL_ERROR)
    taken = "a failure inside the responder (not on the wire)";
  if (!taken.empty() && (executed || (a != nullptr && a->fed))) {
    agree(disturbances, p.psn());
    stop(fmt::format("the responder sent {} at frame {} ({}) and left the exchange",
                     syndrome_name(syn), p.frame, taken));
    return;
  }
  // A refusal where the model executed the same request, or another refusal than the model's.
  const bool content = a != nullptr && a->fed && (executed || model_refused);
  mismatch(p, disturbances,
           fmt::format("{} for PSN {:#08x}, but {}", syndrome_name(syn), p.psn(), model_says()),
           model_says(), content);
}

void GoldenResponder::finish() {
  if (compared_ == 0 && unjudged_mtu_ == 0) return;
  std::string s =
      fmt::format("golden replay: {} responses compared with the model's responder, {} agreed",
                  compared_, agreed_);
  if (resyncs_ != 0)
    s += fmt::format("; {} resync{} (last: {})", resyncs_, resyncs_ == 1 ? "" : "s", last_resync_);
  if (unjudged_mtu_ != 0)
    s += fmt::format("; {} not compared while the path MTU was unknown after a long READ",
                     unjudged_mtu_);
  if (stopped_) s += "; " + stop_reason_;
  replay_->note(conn_, first_frame_, std::move(s));
}

}  // namespace rocecert::check::detail
