// The z3.* rules of a request stream: invariants the Z3 solver checks over the whole connection
// at its end (docs/proofs.md "Trace invariants"). z3.key: one memory-key table explains every
// access the responder answered (proofs/include/rocecert/proofs/trace_keys.h). z3.psn: one
// history of the responder's expected PSN explains every response and new request
// (proofs/include/rocecert/proofs/trace_psn.h; the observations come from epsn.cpp).
#include <fmt/format.h>

#include <algorithm>

#include "stream.h"

namespace rocecert::check::detail {

namespace {

// Distinct accesses kept per connection; beyond it the rest is not judged (a note says so).
constexpr std::size_t kMaxKeyAnswers = 4096;

}  // namespace

// Zero-length READs and WRITEs are not key-checked (IBA Vol. 1 C9-88; key.zero_length judges
// them), a zero-length FLUSH is; an access whose key the DUT's log changed at an unknown time is
// not judged either.
void Stream::record_key_answer(const Pkt& p, const PendingAccess& a, bool granted) {
  if (!j_->options().z3 || !a.key_checked() || a.epoch == KeyEpochs::kUnjudged) return;
  const proofs::trace::AccessKind kind =
      a.kind == Access::Read    ? proofs::trace::AccessKind::READ
      : a.kind == Access::Write ? proofs::trace::AccessKind::WRITE
      : a.kind == Access::Flush ? proofs::trace::AccessKind::FLUSH
                                : proofs::trace::AccessKind::ATOMIC;
  if (key_answers_.size() >= kMaxKeyAnswers) {  // memory stays bounded on any capture
    ++key_answers_dropped_;
    return;
  }
  const proofs::trace::KeyObservation obs{kind, granted, a.rkey,      a.epoch,
                                          a.va, a.len,   a.placement, a.whole_region};
  if (!key_answer_seen_.insert(obs).second) return;
  key_answers_.push_back({obs, a.frame, p.frame, p.bth.dqpn, p.bth.psn});
}

std::size_t Stream::KeyAnswerHash::operator()(const proofs::trace::KeyObservation& o) const {
  // Mixes the fields (splitmix64's finaliser): rkeys and addresses differ in few bits.
  std::uint64_t h = (std::uint64_t{o.rkey} << 32 | o.epoch) ^ (o.va * 0x9E3779B97F4A7C15ULL) ^
                    (std::uint64_t{o.length} << 8 | static_cast<std::uint64_t>(o.kind) << 1 |
                     static_cast<std::uint64_t>(o.granted) | std::uint64_t{o.placement} << 3 |
                     std::uint64_t{o.whole_region} << 7);
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<std::size_t>(h ^ (h >> 31));
}

bool Stream::KeyAnswerEq::operator()(const proofs::trace::KeyObservation& a,
                                     const proofs::trace::KeyObservation& b) const {
  return a.kind == b.kind && a.granted == b.granted && a.rkey == b.rkey && a.epoch == b.epoch &&
         a.va == b.va && a.length == b.length && a.placement == b.placement &&
         a.whole_region == b.whole_region;
}

void Stream::judge_keys_z3() {
  if (key_answers_.empty()) return;
  // The setup's table, when it describes this responder QP (as key.setup reads it).
  std::vector<proofs::trace::KnownKey> known;
  std::optional<proofs::trace::KnownQp> known_qp;
  const Setup* s = j_->options().setup.get();
  const SetupQp* q = s != nullptr && s->keys_known ? s->qp(responder_.b, responder_qpn_) : nullptr;
  if (q != nullptr) {
    known_qp = proofs::trace::KnownQp{q->name,          q->remote_read,  q->remote_write,
                                      q->remote_atomic, q->flush_global, q->flush_persistent};
    std::set<std::uint32_t> rkeys;
    for (const KeyAnswer& k : key_answers_)
      if (k.obs.epoch == 0) rkeys.insert(k.obs.rkey);
    for (const std::uint32_t rkey : rkeys) {
      const SetupMr* m = s->mr(responder_.b, rkey);
      if (m == nullptr && s->has_windows(responder_.b)) continue;  // perhaps a memory window
      proofs::trace::KnownKey k;
      k.rkey = rkey;
      if (m != nullptr) {
        k.exists = true;
        k.name = fmt::format("{} {} [{:#x}, +{})", m->window ? "window" : "MR", m->name, m->iova,
                             m->length);
        k.usable = m->pd == q->pd && (!m->bound_qp || *m->bound_qp == q->name);
        k.base = m->iova;
        k.length = m->length;
        k.read = m->remote_read;
        k.write = m->remote_write;
        k.atomic = m->remote_atomic;
        k.flush_global = m->flush_global;
        k.flush_persistent = m->flush_persistent;
      }
      known.push_back(std::move(k));
    }
  }
  j_->checked(RuleId::Z3Key, conn_, key_answers_.size());
  if (key_answers_dropped_ > 0)
    j_->note(NoteKind::Assumption, conn_, 0,
             fmt::format("z3.key judged the first {} distinct accesses of the connection; {} "
                         "later ones were not judged",
                         key_answers_.size(), key_answers_dropped_));
  // A table that explains every answer is looked for directly before the solver is asked
  // (proofs::trace::judge_keys, KeyMethod::DIRECT_FIRST): without a setup, a stream where no rkey
  // (in one epoch) was both granted and refused never reaches Z3.
  std::vector<proofs::trace::KeyObservation> obs;
  obs.reserve(key_answers_.size());
  for (const KeyAnswer& k : key_answers_) obs.push_back(k.obs);
  proofs::trace::KeyJudgement verdict;
  try {
    verdict = proofs::trace::judge_keys(obs, known, known_qp);
  } catch (const std::exception&) {  // the solver's own failure (z3::exception): no verdict
    verdict.decided = false;
  }
  if (!verdict.decided) {
    j_->note(NoteKind::Assumption, conn_, 0,
             fmt::format("z3.key not decided: the solver gave no answer on the {} accesses of "
                         "the connection (resource limit or failure)",
                         key_answers_.size()));
    return;
  }
  if (verdict.consistent) return;

  std::string facts;
  const KeyAnswer* last = nullptr;
  for (const std::size_t i : verdict.observations) {
    const KeyAnswer& k = key_answers_.at(i);
    if (last == nullptr || k.response_frame > last->response_frame) last = &k;
    const std::string_view what = k.obs.kind == proofs::trace::AccessKind::READ    ? "RDMA READ"
                                  : k.obs.kind == proofs::trace::AccessKind::WRITE ? "RDMA WRITE"
                                  : k.obs.kind == proofs::trace::AccessKind::FLUSH ? "FLUSH"
                                                                                   : "atomic";
    facts += fmt::format("{}{} of frame {} with rkey {:#x} on [{:#x}, +{}) {} at frame {}",
                         facts.empty() ? "" : "; ", what, k.request_frame, k.obs.rkey, k.obs.va,
                         k.obs.length, k.obs.granted ? "granted" : "refused", k.response_frame);
  }
  std::string setup;
  bool window = false;  // a memory window of the setup among them: its own cause
  for (const std::string& n : verdict.setup) {
    setup += (setup.empty() ? "" : ", ") + n;
    window = window || n.rfind("window ", 0) == 0;
  }
  Pkt at;
  if (last != nullptr) {
    at.frame = last->response_frame;
    at.bth.dqpn = last->dqpn;
    at.bth.psn = last->psn;
  }
  j_->violation(RuleId::Z3Key,
                verdict.setup.empty() ? "no_table"
                : window              ? "against_setup_window"
                                      : "against_setup",
                at, conn_,
                fmt::format("no memory-key table explains these together: {}{}", facts,
                            setup.empty() ? "" : fmt::format(" (with the setup's {})", setup)));
}

void Stream::judge_psn_z3(bool last) {
  if (!j_->options().z3) return;
  if (psn_facts_.empty()) {
    // No NAK carrying an ePSN, no request out of its window: the ePSN that is always the
    // highest bound so far is a history that explains every response, no solver needed.
    if (last && psn_batches_ == 0 && epsn_floor_) j_->checked(RuleId::Z3Psn, conn_, responses_);
    return;
  }
  ++psn_batches_;
  j_->checked(RuleId::Z3Psn, conn_, psn_frames_.size());
  // The capture errors the budget still allows, counting again those ack.epsn set aside: the
  // solver looks for the fewest frames to set aside over the whole batch.
  const std::uint32_t most = j_->options().profile.max_capture_errors;
  const std::uint32_t others = budget_->used - std::min(budget_->used, epsn_explained_);
  const std::uint32_t allowed = most - std::min(most, others);
  proofs::trace::PsnJudgement verdict;
  try {
    verdict = proofs::trace::judge_psn(psn_facts_, allowed);
  } catch (const std::exception&) {  // the solver's own failure (z3::exception): no verdict
    verdict.decided = false;
  }
  if (!verdict.decided) {
    j_->note(NoteKind::Assumption, conn_, 0,
             fmt::format("z3.psn not decided: the solver gave no answer on {} facts of the "
                         "connection (resource limit or failure)",
                         psn_facts_.size()));
  } else if (verdict.consistent && !verdict.set_aside.empty()) {
    std::string frames;
    for (const std::size_t g : verdict.set_aside)
      frames += fmt::format("{}{}", frames.empty() ? "" : ", ", psn_frames_.at(g).frame);
    j_->note(NoteKind::Assumption, conn_, 0,
             fmt::format("z3.psn: one expected-PSN history explains the connection with frame{} "
                         "{} set aside as capture errors",
                         verdict.set_aside.size() == 1 ? "" : "s", frames));
  } else if (!verdict.consistent) {
    std::string facts;
    const PsnFrame* at = nullptr;
    for (const std::size_t g : verdict.groups) {
      const PsnFrame& f = psn_frames_.at(g);
      if (at == nullptr || f.frame > at->frame) at = &f;
      std::string one;
      switch (f.what) {
        case PsnWhat::NAK_PSN:
        case PsnWhat::RNR:
          one = fmt::format(
              "{} at frame {} carrying expected PSN {:#08x}, set off no earlier "
              "than the request of frame {}",
              psn_what_name(f.what), f.frame, f.psn, f.trigger);
          break;
        case PsnWhat::REQUEST:
          one = fmt::format(
              "new request PSN {:#08x} at frame {} ({} PSNs outstanding at "
              "least, fewer than 2^23 allowed)",
              f.psn, f.frame, f.value + 1 - f.acked);
          break;
        case PsnWhat::ACK:
        case PsnWhat::READ_RESPONSE:
        case PsnWhat::ATOMIC_ACK:
        case PsnWhat::NAK:
          one = fmt::format("{} of PSN {:#08x} at frame {}", psn_what_name(f.what), f.psn, f.frame);
          break;
      }
      facts += (facts.empty() ? "" : "; ") + one;
    }
    Pkt p;
    if (at != nullptr) {
      p.frame = at->frame;
      p.bth.dqpn = at->dqpn;
      p.bth.psn = at->psn;
    }
    j_->violation(RuleId::Z3Psn, "no_history", p, conn_,
                  fmt::format("no history of the responder's expected PSN (only moving forward) "
                              "explains these together: {}",
                              facts));
  }
  psn_facts_.clear();
  psn_frames_.clear();
  psn_group_of_.clear();
}

}  // namespace rocecert::check::detail
