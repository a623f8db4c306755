// read.rd_atomic_limit: a requester may have at most max_rd_atomic RDMA READ, atomic and
// ATOMIC WRITE requests outstanding (IBA Vol. 1 §11.2.4.2, the QP's initiator depth;
// docs/spec-notes.md §3.2: rxe takes a credit per such WQE and gives it back when the WQE
// completes; it does not count FLUSH, and rounds max_rd_atomic up to a power of two).
//
// The tap sees a request's last response before the requester can use it, and the requester's
// next request after it has, so the count the tap sees when a new such request goes out is never
// below the requester's own, except where the tap missed a response. That is why a count at the
// limit is not a violation at once: each request counted must still prove it was outstanding at
// the requester, by its own last response appearing after the new request. A request ended by a
// later response instead, its own never seen, may have completed unseen (a capture error, from
// the connection's budget); one still open when the capture ends decides nothing.
#include <fmt/format.h>

#include "rocecert/qp/attr.h"
#include "stream.h"

namespace rocecert::check::detail {

using wire::Operation;
using wire::Position;

void Stream::track_rd_atomic(const Pkt& p) {
  if (j_->options().setup == nullptr || transport_ != wire::Transport::RC) return;
  const SetupQp* q = requester_setup();
  if (q != nullptr && q->max_rd_atomic && !fatal_) {
    j_->checked(RuleId::ReadRdAtomicLimit, conn_);
    const auto count = static_cast<std::uint32_t>(rd_atomic_.size());
    if (count >= *q->max_rd_atomic && rd_checks_.size() < 64) {
      RdAtomicCheck c;
      c.p = p;
      c.limit = *q->max_rd_atomic;
      c.count = count;
      c.first_id = rd_atomic_.empty() ? rd_next_id_ : rd_atomic_.front().id;
      c.state = state(
          fmt::format("at most {} READ/atomic requests outstanding (max_rd_atomic)", c.limit));
      c.opening = !pinned_;
      if (count == 0)
        decide_rd_atomic(c);  // max_rd_atomic 0: no READ or atomic may go out at all
      else
        rd_checks_.push_back(std::move(c));
    }
  }
  rd_atomic_.push_back(
      {p.psn(), p.reth.dmalen, p.op->operation == Operation::READ_REQUEST, rd_next_id_++});
  if (rd_atomic_.size() > 1024) {  // far beyond any initiator depth: stop following the oldest
    const std::uint64_t id = rd_atomic_.front().id;
    for (RdAtomicCheck& c : rd_checks_)
      if (id - c.first_id < c.count) ++c.forgotten;
    rd_atomic_.pop_front();
  }
}

void Stream::close_rd_atomic(const Pkt& p) {
  const Operation kind = p.op->operation;
  const wire::AethKind aeth =
      p.has(wire::Header::Aeth) ? wire::aeth_kind(p.aeth.syndrome) : wire::AethKind::ACK;
  // A NAK that asks for a resend (PSN sequence error, RNR) at or before a request's PSNs leaves
  // it outstanding; a fatal NAK ends the request it names (in error).
  const bool resend_nak = aeth == wire::AethKind::RNR_NAK ||
                          (aeth == wire::AethKind::NAK &&
                           wire::aeth_value(p.aeth.syndrome) ==
                               static_cast<std::uint8_t>(wire::NakCode::PSN_SEQUENCE_ERROR));
  while (!rd_atomic_.empty()) {
    const RdAtomic& o = rd_atomic_.front();
    if (pdiff(p.psn(), o.first) < 0) return;  // answers something older
    // The request's last PSN: a READ takes one per path MTU of its length.
    std::optional<std::uint32_t> last;
    if (!o.read || o.len <= 256)
      last = o.first;
    else if (mtu_)
      last = padd(o.first, npkts(o.len) - 1);
    bool own = false;
    if (last) {
      const std::int32_t d = pdiff(p.psn(), *last);
      if (d < 0) return;  // a response inside a READ's PSNs
      if (d == 0) {
        if (resend_nak) return;
        own = true;
      }
    } else {
      // A READ whose length in PSNs is not known yet: its LAST or ONLY response ends it, any
      // other kind of response lies beyond it.
      if (kind == Operation::READ_RESPONSE) {
        if (p.op->position != Position::LAST && p.op->position != Position::ONLY) return;
        own = true;
      } else if (resend_nak) {
        return;
      }
    }
    const std::uint64_t id = o.id;
    rd_atomic_.pop_front();
    for (RdAtomicCheck& c : rd_checks_)
      if (id - c.first_id < c.count) ++(own ? c.confirmed : c.missed);
  }
  std::erase_if(rd_checks_, [&](const RdAtomicCheck& c) {
    if (c.confirmed + c.missed + c.forgotten < c.count) return false;
    // One opened in the opening (stream.h) waits for it to end: in a capture that shows the
    // connection's start it is decided; otherwise the requests it counted may be copies or
    // resends of some answered before the capture, and it is left undecided (a gap note).
    if (c.opening && !pinned_) return false;
    decide_rd_atomic(c);
    return true;
  });
}

void Stream::decide_rd_atomic(const RdAtomicCheck& c) {
  const std::string_view what = c.p.op->name;
  if (c.opening && !from_start_) {
    j_->note(NoteKind::Gap, conn_, c.p.frame,
             fmt::format("read.rd_atomic_limit not decided for {} at PSN {:#08x}: {} READ/atomic "
                         "requests were outstanding as the tap saw it (max_rd_atomic {}), but it "
                         "was sent in the capture's opening, where they may be copies or resends "
                         "of requests answered before the capture",
                         what, c.p.psn(), c.count, c.limit));
    return;
  }
  if (c.confirmed >= c.limit) {
    // rxe rounds max_rd_atomic up to a power of two (docs/spec-notes.md §11.14).
    const bool rounded = c.confirmed < qp::round_up_pow2(c.limit);
    j_->violation(
        RuleId::ReadRdAtomicLimit, rounded ? "power_of_two" : "exceeded", c.p, conn_,
        fmt::format("{} at PSN {:#08x} sent while {} READ/atomic requests were outstanding "
                    "(answered only after it), with max_rd_atomic {}",
                    what, c.p.psn(), c.confirmed, c.limit),
        c.state);
    return;
  }
  // Requests counted that must have completed unseen for the request to be within the limit.
  const std::uint32_t unseen = c.count - c.limit + 1;
  if (c.missed >= unseen) {
    const std::string why = fmt::format(
        "{} at PSN {:#08x} went out with {} READ/atomic requests outstanding as the tap saw it "
        "(max_rd_atomic {}): the tap missed the last response of {} of them",
        what, c.p.psn(), c.count, c.limit, unseen);
    if (!j_->explain(conn_, *budget_, unseen, c.p, why))
      j_->violation(RuleId::ReadRdAtomicLimit, "exceeded", c.p, conn_,
                    why + ", more capture errors than the budget allows", c.state);
    return;
  }
  j_->note(NoteKind::Gap, conn_, c.p.frame,
           fmt::format("read.rd_atomic_limit not decided for {} at PSN {:#08x}: {} READ/atomic "
                       "requests were outstanding as the tap saw it (max_rd_atomic {}), and the "
                       "capture ends before it shows whether {} of them had completed",
                       what, c.p.psn(), c.count, c.limit, unseen - c.missed));
}

}  // namespace rocecert::check::detail
