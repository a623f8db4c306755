// GoldenReplay (golden.h): what the replays of a capture, or of its shards, found, handed to the
// Judge at the end in the order a single thread finds it.
#include <algorithm>

#include "golden.h"

namespace rocecert::check::detail {

void GoldenReplay::checked(ConnIndex c, RuleId rule) {
  std::vector<std::uint64_t>& v = rule == RuleId::GoldenRequester ? checked_req_ : checked_;
  if (v.size() <= c) v.resize(std::size_t{c} + 1);
  ++v[c];
}

void GoldenReplay::violation(const Pkt& p, ConnIndex c, std::string message, StateSnapshot state,
                             RuleId rule) {
  findings_.push_back({dispatch_, findings_.size(), true, rule, c, p, p.frame, std::move(message),
                       std::move(state)});
}

void GoldenReplay::note(ConnIndex c, std::uint64_t frame, std::string message) {
  findings_.push_back({dispatch_,
                       findings_.size(),
                       false,
                       RuleId::GoldenResponse,
                       c,
                       Pkt{},
                       frame,
                       std::move(message),
                       {}});
}

void GoldenReplay::settle(Judge& j, const std::vector<GoldenReplay*>& replays) {
  struct Ref {
    std::uint64_t dispatch, rank;
    Finding* f;
  };
  std::vector<Ref> order;
  for (GoldenReplay* r : replays) {
    for (std::size_t c = 0; c < r->checked_.size(); ++c)
      if (r->checked_[c] != 0)
        j.checked(RuleId::GoldenResponse, static_cast<ConnIndex>(c), r->checked_[c]);
    for (std::size_t c = 0; c < r->checked_req_.size(); ++c)
      if (r->checked_req_[c] != 0)
        j.checked(RuleId::GoldenRequester, static_cast<ConnIndex>(c), r->checked_req_[c]);
    r->checked_.clear();
    r->checked_req_.clear();
    for (Finding& f : r->findings_) order.push_back({f.dispatch, f.rank, &f});
  }
  // One dispatch runs on one shard: (dispatch, rank) is the single-thread order.
  std::sort(order.begin(), order.end(), [](const Ref& a, const Ref& b) {
    return a.dispatch != b.dispatch ? a.dispatch < b.dispatch : a.rank < b.rank;
  });
  for (const Ref& o : order) {
    Finding& f = *o.f;
    if (f.violation)
      j.violation(f.rule, "differs", f.p, f.conn, std::move(f.message), std::move(f.state));
    else
      j.note(NoteKind::Replay, f.conn, f.frame, std::move(f.message));
  }
  for (GoldenReplay* r : replays) r->findings_.clear();
}

}  // namespace rocecert::check::detail
