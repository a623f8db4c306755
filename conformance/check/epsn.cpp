// The responder's expected PSN (ePSN) as the trace shows it: rule ack.epsn, and the facts z3.psn
// hands to the solver (z3_rules.cpp, proofs/include/rocecert/proofs/trace_psn.h).
//
// Every response bounds the ePSN the responder had when it sent it, before the tap showed it:
// an ACK, READ response or atomic acknowledge of PSN p shows p received (ePSN > p); a NAK of PSN
// p shows ePSN >= p. A NAK PSN sequence error carries the ePSN itself, and an RNR NAK the PSN of
// the request it did not execute, which is the ePSN (IBA Vol. 1 §9.7.5.1; docs/spec-notes.md
// §3.3, §4.6). A new request of PSN p shows the requester had PSN p + 2 - 2^23 or later
// acknowledged (fewer than 2^23 outstanding, docs/spec-notes.md §3.2), which the responder's
// ePSN was then past.
//
// The ePSN only moves forward. A NAK carrying ePSN v was sent after a request reached the
// responder that can have set it off: one of PSN after v (a sequence error) or of PSN v (RNR).
// The first such request the tap showed is the earliest it can have been; whatever the tap
// showed before that request left the responder before the NAK, however the network reorders.
// So a NAK is held against the highest bound shown before that request, and only that: a NAK
// the network delays past later ACKs is not a responder going back, one whose ePSN is below
// what came before its trigger is (a PSN kept across a reconnect, a NAK built from a stale
// counter, a duplicate that reset the ePSN).
#include <fmt/format.h>

#include <algorithm>

#include "stream.h"

namespace rocecert::check::detail {

namespace {

using proofs::trace::kPsnWindow;
using proofs::trace::PsnFact;

// New requests remembered as NAK triggers; a NAK whose trigger is older is not judged. Those
// more than kAnchorsBehindAcked PSNs behind the oldest unacknowledged request go too, so that a
// long connection holds what its window needs, not 65,536 anchors (6 MB) whatever it does: a
// NAK naming a PSN that far behind what was acknowledged is left to the other ePSN rules.
constexpr std::size_t kMaxPsnAnchors = 65536;
constexpr std::int64_t kAnchorsBehindAcked = 4096;
// Facts handed to the solver per batch: a longer connection is judged batch by batch (each
// NAK's facts carry the bound it is held against, so no batch needs another).
constexpr std::size_t kMaxPsnFacts = 4096;

}  // namespace

void Stream::record_epsn_response(const Pkt& p) {
  if (!axis_set_) return;
  const std::int64_t u = unwrap(p.psn());
  PsnFactRec f;
  f.obs = {PsnFact::AT_LEAST, u + 1, 0, p.frame, 0};
  f.dqpn = p.bth.dqpn;
  f.psn = p.psn();
  bool exact = false;
  const wire::Operation op = p.op->operation;
  if (op == wire::Operation::READ_RESPONSE) {
    f.what = PsnWhat::READ_RESPONSE;
  } else if (op == wire::Operation::ATOMIC_ACK) {
    f.what = PsnWhat::ATOMIC_ACK;
  } else if (op == wire::Operation::ACK) {
    switch (wire::aeth_kind(p.aeth.syndrome)) {
      case wire::AethKind::ACK:
        f.what = PsnWhat::ACK;
        break;
      case wire::AethKind::RNR_NAK:
        f.what = PsnWhat::RNR;
        f.obs.psn = u;
        exact = true;
        break;
      case wire::AethKind::NAK:
        f.obs.psn = u;
        exact = wire::nak_code(p.aeth.syndrome) == wire::NakCode::PSN_SEQUENCE_ERROR;
        f.what = exact ? PsnWhat::NAK_PSN : PsnWhat::NAK;
        break;
      case wire::AethKind::RESERVED:
        return;  // ack.syndrome reported it
    }
  } else {
    return;
  }
  if (exact) {
    // The first request the tap showed that can have set the NAK off: PSN after v (sequence
    // error) or PSN v (RNR).
    const std::int64_t v = u;
    const std::int64_t from = f.what == PsnWhat::RNR ? v : v + 1;
    const auto trigger =
        std::lower_bound(psn_anchors_.begin(), psn_anchors_.end(), from,
                         [](const PsnAnchor& a, std::int64_t x) { return a.u < x; });
    // Not seen (the tap missed it), or perhaps forgotten: nothing to hold the NAK against.
    const bool known =
        trigger != psn_anchors_.end() && !(trigger == psn_anchors_.begin() && psn_anchors_dropped_);
    if (known) {
      j_->checked(RuleId::AckEpsn, conn_);
      bool set_aside = false;
      if (trigger->floor && trigger->floor->bound() > v) {
        const PsnFactRec& floor = *trigger->floor;
        const std::string what = f.what == PsnWhat::RNR ? "RNR NAK" : "NAK PSN sequence error";
        const std::string shown =
            floor.what == PsnWhat::REQUEST
                ? fmt::format(
                      "the requester sending PSN {:#08x} at frame {} (fewer than 2^23 "
                      "PSNs outstanding) shows acknowledged",
                      floor.psn, floor.obs.at)
                : fmt::format("the {} of PSN {:#08x} at frame {} shows received",
                              psn_what_name(floor.what), floor.psn, floor.obs.at);
        const std::int64_t back = floor.bound() - v;
        set_aside = j_->explain(conn_, *budget_, 1, p,
                                fmt::format("{} for PSN {:#08x}, {} PSNs behind what {}: a copy "
                                            "or a frame displaced by the tap",
                                            what, p.psn(), back, shown));
        if (set_aside) {
          ++epsn_explained_;
        } else {
          j_->violation(
              RuleId::AckEpsn, "moved_back", p, conn_,
              fmt::format("{} carries PSN {:#08x} as the responder's expected PSN, {} PSNs "
                          "behind what {}, before the request that set it off (frame {}): the "
                          "expected PSN only moves forward",
                          what, p.psn(), back, shown, trigger->frame),
              state(fmt::format("an expected PSN of at least {:#08x}", padd(p.psn(), back))));
        }
      }
      if (j_->options().z3) {
        // The NAK's facts: ePSN <= v from its trigger on, >= v when the tap showed it; and the
        // bound it is held against.
        PsnFrame nak{p.frame, p.bth.dqpn, p.psn(), f.what, v, 0, trigger->frame};
        psn_frames_.push_back(nak);
        const std::size_t g = psn_frames_.size() - 1;
        psn_facts_.push_back({PsnFact::AT_MOST, v, 0, trigger->frame, g});
        psn_facts_.push_back({PsnFact::AT_LEAST, v, 0, p.frame, g});
        if (trigger->floor) psn_group(*trigger->floor);
      }
      if (set_aside) return;  // the bound stays where it was
    }
  }
  if (!epsn_floor_ || f.bound() > epsn_floor_->bound()) epsn_floor_ = f;
  if (psn_facts_.size() >= kMaxPsnFacts) judge_psn_z3(false);
}

void Stream::record_epsn_request(const Pkt& p, std::optional<std::uint32_t> beyond_from) {
  // axis_at_ is this request's place (new_packet); una_ is never past next_. A request beyond
  // the window (`beyond_from`: the oldest unacknowledged PSN before a jump restarted the
  // window) counts what was outstanding before the jump.
  PsnFactRec f;
  const std::int64_t outstanding = static_cast<std::int64_t>(
      (beyond_from ? p.psn() + 1 - *beyond_from : next_ - una_) & 0xFFFFFFu);
  f.obs = {PsnFact::REQUEST, axis_at_, axis_at_ + 1 - outstanding, p.frame, 0};
  f.dqpn = p.bth.dqpn;
  f.psn = p.psn();
  f.what = PsnWhat::REQUEST;
  if (!epsn_floor_ || f.bound() > epsn_floor_->bound()) epsn_floor_ = f;
  if (!psn_anchors_.empty() && psn_anchors_.back().u >= axis_at_) {
    // Not beyond the last one (the window restarted after a jump): the order is lost.
    psn_anchors_.clear();
    psn_anchors_dropped_ = true;
  }
  psn_anchors_.push_back({axis_at_, p.frame, epsn_floor_});
  if (psn_anchors_.size() > kMaxPsnAnchors) {
    psn_anchors_.pop_front();
    psn_anchors_dropped_ = true;
  }
  while (psn_anchors_.front().u < f.obs.acked - kAnchorsBehindAcked) {
    psn_anchors_.pop_front();
    psn_anchors_dropped_ = true;
  }
  // Out of its window (psn.window): a fact of its own for the solver.
  if (j_->options().z3 && f.obs.psn + 1 - f.obs.acked >= kPsnWindow) {
    psn_group(f);
    if (psn_facts_.size() >= kMaxPsnFacts) judge_psn_z3(false);
  }
}

// The facts of a frame's bound, in a group of their own (once per frame and batch).
std::size_t Stream::psn_group(const PsnFactRec& f) {
  const auto [it, added] = psn_group_of_.emplace(f.obs.at, psn_frames_.size());
  if (!added) return it->second;
  psn_frames_.push_back({f.obs.at, f.dqpn, f.psn, f.what, f.obs.psn, f.obs.acked, 0});
  const std::size_t g = it->second;
  proofs::trace::PsnObservation o = f.obs;
  o.group = g;
  psn_facts_.push_back(o);
  return g;
}

std::string_view Stream::psn_what_name(PsnWhat w) {
  switch (w) {
    case PsnWhat::ACK:
      return "ACK";
    case PsnWhat::READ_RESPONSE:
      return "RDMA READ response";
    case PsnWhat::ATOMIC_ACK:
      return "ATOMIC ACKNOWLEDGE";
    case PsnWhat::NAK_PSN:
      return "NAK PSN sequence error";
    case PsnWhat::RNR:
      return "RNR NAK";
    case PsnWhat::NAK:
      return "NAK";
    case PsnWhat::REQUEST:
      return "request";
  }
  return "";
}

}  // namespace rocecert::check::detail
