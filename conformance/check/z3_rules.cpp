// The z3.* rules of a request stream: invariants the Z3 solver checks over the whole connection
// at its end (docs/proofs.md "Trace invariants"). z3.key: one memory-key table explains every
// access the responder answered (proofs/include/rocecert/proofs/trace_keys.h).
#include <fmt/format.h>

#include <algorithm>

#include "stream.h"

namespace rocecert::check::detail {

namespace {

// Distinct accesses kept per connection; beyond it the rest is not judged (a note says so).
constexpr std::size_t kMaxKeyAnswers = 4096;

}  // namespace

// Zero-length accesses are not key-checked (IBA Vol. 1 chapter 9; key.zero_length judges
// them); an access whose key the DUT's log changed at an unknown time is not judged either.
void Stream::record_key_answer(const Pkt& p, const PendingAccess& a, bool granted) {
  if (!j_->options().z3 || a.len == 0 || a.epoch == KeyEpochs::kUnjudged) return;
  const proofs::trace::AccessKind kind = a.kind == Access::Read ? proofs::trace::AccessKind::READ
                                         : a.kind == Access::Write
                                             ? proofs::trace::AccessKind::WRITE
                                             : proofs::trace::AccessKind::ATOMIC;
  if (key_answers_.size() >= kMaxKeyAnswers) {  // memory stays bounded on any capture
    ++key_answers_dropped_;
    return;
  }
  if (!key_answer_seen_
           .emplace(static_cast<std::uint8_t>(kind), granted, a.rkey, a.epoch, a.va, a.len)
           .second)
    return;
  key_answers_.push_back(
      {{kind, granted, a.rkey, a.epoch, a.va, a.len}, a.frame, p.frame, p.bth.dqpn, p.bth.psn});
}

void Stream::judge_keys_z3() {
  if (key_answers_.empty()) return;
  // The setup's table, when it describes this responder QP (as key.setup reads it).
  std::vector<proofs::trace::KnownKey> known;
  std::optional<proofs::trace::KnownQp> known_qp;
  const Setup* s = j_->options().setup.get();
  const SetupQp* q = s != nullptr && s->keys_known ? s->qp(responder_.b, responder_qpn_) : nullptr;
  if (q != nullptr) {
    known_qp = proofs::trace::KnownQp{q->name, q->remote_read, q->remote_write, q->remote_atomic};
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
  // Without a setup, a stream where no rkey (in one epoch) was both granted and refused is always
  // explained: the keys only refused are unusable by the QP, the others grant everything over
  // the whole address space, and the QP allows every kind. The solver is asked only when
  // something can contradict.
  if (!known_qp) {
    std::set<std::pair<std::uint32_t, std::uint32_t>> granted, refused;
    for (const KeyAnswer& k : key_answers_)
      (k.obs.granted ? granted : refused).emplace(k.obs.rkey, k.obs.epoch);
    if (std::none_of(refused.begin(), refused.end(),
                     [&](const auto& key) { return granted.count(key) > 0; }))
      return;
  }

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
                         "the connection (time limit or failure)",
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
                                                                                   : "atomic";
    facts += fmt::format("{}{} of frame {} with rkey {:#x} on [{:#x}, +{}) {} at frame {}",
                         facts.empty() ? "" : "; ", what, k.request_frame, k.obs.rkey, k.obs.va,
                         k.obs.length, k.obs.granted ? "granted" : "refused", k.response_frame);
  }
  std::string setup;
  for (const std::string& n : verdict.setup) setup += (setup.empty() ? "" : ", ") + n;
  Pkt at;
  if (last != nullptr) {
    at.frame = last->response_frame;
    at.bth.dqpn = last->dqpn;
    at.bth.psn = last->psn;
  }
  j_->violation(RuleId::Z3Key, verdict.setup.empty() ? "no_table" : "against_setup", at, conn_,
                fmt::format("no memory-key table explains these together: {}{}", facts,
                            setup.empty() ? "" : fmt::format(" (with the setup's {})", setup)));
}

}  // namespace rocecert::check::detail
