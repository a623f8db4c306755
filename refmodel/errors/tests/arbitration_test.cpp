// Multi-QP arbitration and isolation: determinism (any permutation of the input gives the same
// output), the precedence order and its tie-breaks, round-robin fairness and its cursor, the
// isolation sets, and the worked examples of docs/error-arbitration.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "rocecert/errors/arbitration.h"

namespace rocecert::errors {
namespace {

using qp::QpState;
using qp::QpType;

constexpr ResourceRef kCqB{ResourceKind::CQ, 1};
constexpr std::uint32_t kA = 0, kB = 1;  // adapters of the multi_qp_errors capture
constexpr std::uint64_t kMs = 1'000'000;

ErrorEvent ev(std::uint64_t t, std::uint32_t adapter, std::uint32_t qpn, ErrorClass e,
              ResourceRef r = kCqB) {
  return ErrorEvent{t, QpKey{adapter, qpn}, e, r};
}

// A mixed batch: every tier, equal times, equal QPNs on two adapters, repeated QPs.
std::vector<ErrorEvent> mixed_batch() {
  return {
      ev(5, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION),
      ev(5, kB, 0x23, ErrorClass::RESP_RKEY_VIOLATION),
      ev(9, kB, 0x24, ErrorClass::CQ_OVERFLOW),
      ev(1, kA, 0x21, ErrorClass::REQ_LOCAL_PROTECTION, {ResourceKind::CQ, 7}),
      ev(5, kA, 0x22, ErrorClass::REQ_REMOTE_ACCESS, {ResourceKind::CQ, 7}),
      ev(3, kB, 0x21, ErrorClass::RESP_RNR),
      ev(3, kB, 0x21, ErrorClass::RESP_PSN_SEQUENCE),
      ev(7, kA, 0x23, ErrorClass::REQ_RETRY_EXCEEDED, {ResourceKind::CQ, 7}),
      ev(2, kB, 0x22, ErrorClass::QP_MODIFIED_TO_ERR),
      ev(5, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION, {ResourceKind::SRQ, 3}),
      ev(0, kB, 0x25, ErrorClass::WR_POSTED_IN_ERR),
      ev(5, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION),  // an exact duplicate
  };
}

std::vector<QpKey> qps_of(const std::vector<ErrorEvent>& order) {
  std::vector<QpKey> out;
  for (const ErrorEvent& e : order) out.push_back(e.qp);
  return out;
}

// ---- determinism ------------------------------------------------------------------------------

TEST(Arbitration, AnyPermutationGivesTheSameOrder) {
  const std::vector<ErrorEvent> base = mixed_batch();
  const RoundRobinCursor cursors[] = {{}, {QpKey{kB, 0x22}}, {QpKey{kB, 0xFFFFFF}}};
  for (ArbitrationPolicy policy : {ArbitrationPolicy::PRECEDENCE, ArbitrationPolicy::ROUND_ROBIN})
    for (const RoundRobinCursor& c : cursors) {
      const Arbitration want = arbitrate(base, policy, c);
      ASSERT_EQ(want.order.size(), base.size());
      std::mt19937 rng(12345);  // seeded: the test itself is deterministic
      std::vector<ErrorEvent> shuffled = base;
      for (int i = 0; i < 200; ++i) {
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        const Arbitration got = arbitrate(shuffled, policy, c);
        EXPECT_EQ(got.order, want.order);
        EXPECT_EQ(got.cursor, want.cursor);
      }
      std::reverse(shuffled.begin(), shuffled.end());
      EXPECT_EQ(arbitrate(shuffled, policy, c).order, want.order);
    }
}

TEST(Arbitration, EveryPermutationOfASmallBatch) {
  std::vector<ErrorEvent> small = {
      ev(4, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION), ev(4, kB, 0x23, ErrorClass::RESP_LENGTH),
      ev(4, kB, 0x21, ErrorClass::CQ_OVERFLOW),         ev(1, kB, 0x23, ErrorClass::RESP_RNR),
      ev(4, kA, 0x22, ErrorClass::REQ_REMOTE_ACCESS),   ev(4, kB, 0x22, ErrorClass::REQ_MW_BIND)};
  std::sort(small.begin(), small.end(), precedence_before);
  const Arbitration p0 = arbitrate(small, ArbitrationPolicy::PRECEDENCE);
  const Arbitration r0 = arbitrate(small, ArbitrationPolicy::ROUND_ROBIN);
  int n = 0;
  do {
    EXPECT_EQ(arbitrate(small, ArbitrationPolicy::PRECEDENCE).order, p0.order);
    EXPECT_EQ(arbitrate(small, ArbitrationPolicy::ROUND_ROBIN).order, r0.order);
    ++n;
  } while (std::next_permutation(small.begin(), small.end(), precedence_before));
  EXPECT_EQ(n, 720);
}

TEST(Arbitration, EmptyInput) {
  const RoundRobinCursor c{QpKey{kB, 0x22}};
  for (ArbitrationPolicy p : {ArbitrationPolicy::PRECEDENCE, ArbitrationPolicy::ROUND_ROBIN}) {
    const Arbitration a = arbitrate({}, p, c);
    EXPECT_TRUE(a.order.empty());
    EXPECT_EQ(a.cursor, c);
  }
}

// ---- precedence -------------------------------------------------------------------------------

TEST(Arbitration, TierComesFirst) {
  // Later and on higher QPNs, but of a higher tier: handled first.
  const std::vector<ErrorEvent> in = {
      ev(1, kB, 0x21, ErrorClass::RESP_PSN_SEQUENCE),     // BENIGN
      ev(2, kB, 0x22, ErrorClass::QP_MODIFIED_TO_ERR),    // FLUSH
      ev(3, kB, 0x23, ErrorClass::REQ_LOCAL_PROTECTION),  // LOCAL
      ev(4, kB, 0x24, ErrorClass::RESP_RKEY_VIOLATION),   // REMOTE
      ev(5, kB, 0x25, ErrorClass::REQ_RETRY_EXCEEDED),    // FATAL
      ev(6, kB, 0x26, ErrorClass::CQ_OVERFLOW),           // RESOURCE
  };
  const Arbitration a = arbitrate(in, ArbitrationPolicy::PRECEDENCE);
  ASSERT_EQ(a.order.size(), 6u);
  const ErrorClass want[] = {ErrorClass::CQ_OVERFLOW,         ErrorClass::REQ_RETRY_EXCEEDED,
                             ErrorClass::RESP_RKEY_VIOLATION, ErrorClass::REQ_LOCAL_PROTECTION,
                             ErrorClass::QP_MODIFIED_TO_ERR,  ErrorClass::RESP_PSN_SEQUENCE};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(a.order[i].error, want[i]) << i;
  for (std::size_t i = 1; i < a.order.size(); ++i)
    EXPECT_LT(tier_of(a.order[i - 1].error), tier_of(a.order[i].error));
}

TEST(Arbitration, TieBreaksTimeThenQpnThenAdapterThenClass) {
  const std::vector<ErrorEvent> in = {
      ev(7, kB, 0x21, ErrorClass::RESP_LENGTH),
      ev(5, kB, 0x23, ErrorClass::RESP_RKEY_VIOLATION),
      ev(5, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION),
      ev(5, kA, 0x22, ErrorClass::REQ_REMOTE_ACCESS),
      ev(5, kB, 0x22, ErrorClass::RESP_QP_ACCESS),
  };
  const Arbitration a = arbitrate(in, ArbitrationPolicy::PRECEDENCE);
  const std::vector<ErrorEvent> want = {
      ev(5, kA, 0x22, ErrorClass::REQ_REMOTE_ACCESS),  // t=5, QPN 0x22, adapter A
      ev(5, kB, 0x22, ErrorClass::RESP_QP_ACCESS),     // then adapter B, earlier check first
      ev(5, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION),
      ev(5, kB, 0x23, ErrorClass::RESP_RKEY_VIOLATION),  // then QPN 0x23
      ev(7, kB, 0x21, ErrorClass::RESP_LENGTH),          // the lowest QPN, but later
  };
  EXPECT_EQ(a.order, want);
  // Events equal but for the resource are still ordered, by the resource.
  const ErrorEvent x = ev(5, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION, {ResourceKind::CQ, 1});
  const ErrorEvent y = ev(5, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION, {ResourceKind::SRQ, 0});
  EXPECT_TRUE(precedence_before(x, y));
  EXPECT_FALSE(precedence_before(y, x));
  EXPECT_EQ(precedence_compare(x, x), std::strong_ordering::equal);
}

TEST(Arbitration, PrecedenceIsATotalOrder) {
  const std::vector<ErrorEvent> in = mixed_batch();
  for (const ErrorEvent& a : in)
    for (const ErrorEvent& b : in) {
      const auto ab = precedence_compare(a, b), ba = precedence_compare(b, a);
      EXPECT_EQ(ab == 0, a == b);
      EXPECT_EQ(ab<0, ba> 0);
    }
}

// ---- round robin ------------------------------------------------------------------------------

// No QP is served twice before every QP that still has events pending has been served once.
void expect_fair(const std::vector<ErrorEvent>& order) {
  std::map<QpKey, std::size_t> last_index;
  for (std::size_t i = 0; i < order.size(); ++i) last_index[order[i].qp] = i;
  std::map<QpKey, std::size_t> prev;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const QpKey q = order[i].qp;
    if (auto it = prev.find(q); it != prev.end()) {
      // Every other QP with an event after the previous service of q appears in between.
      for (const auto& [other, last] : last_index) {
        if (other == q || last <= it->second) continue;
        bool seen = false;
        for (std::size_t j = it->second + 1; j < i; ++j) seen = seen || order[j].qp == other;
        EXPECT_TRUE(seen) << "QP " << q.qpn << " served twice before QP " << other.qpn;
      }
    }
    prev[q] = i;
  }
}

TEST(Arbitration, RoundRobinServesOnePerQpInTurn) {
  std::vector<ErrorEvent> in;
  for (std::uint64_t t = 0; t < 5; ++t) in.push_back(ev(t, kB, 0x21, ErrorClass::RESP_RNR));
  in.push_back(ev(9, kB, 0x22, ErrorClass::RESP_LENGTH));
  for (std::uint64_t t = 0; t < 3; ++t) in.push_back(ev(t, kB, 0x24, ErrorClass::RESP_RNR));
  const Arbitration a = arbitrate(in, ArbitrationPolicy::ROUND_ROBIN);
  const std::vector<std::uint32_t> want = {0x21, 0x22, 0x24, 0x21, 0x24, 0x21, 0x24, 0x21, 0x21};
  std::vector<std::uint32_t> got;
  for (const ErrorEvent& e : a.order) got.push_back(e.qp.qpn);
  EXPECT_EQ(got, want);
  expect_fair(a.order);
  // Each QP's own events keep their precedence order (here: time).
  std::uint64_t last_t = 0;
  for (const ErrorEvent& e : a.order) {
    if (e.qp.qpn != 0x21) continue;
    EXPECT_GE(e.time_ns, last_t);
    last_t = e.time_ns;
  }
  EXPECT_EQ(a.cursor.last_served, (QpKey{kB, 0x21}));
  expect_fair(arbitrate(mixed_batch(), ArbitrationPolicy::ROUND_ROBIN).order);
}

TEST(Arbitration, DocExampleRoundRobinWithCursor) {
  // docs/error-arbitration.md, example 3.
  std::vector<ErrorEvent> in;
  for (std::uint64_t t = 0; t < 5; ++t) in.push_back(ev(t, kB, 0x21, ErrorClass::RESP_RNR));
  in.push_back(ev(9, kB, 0x22, ErrorClass::RESP_LENGTH));
  for (std::uint64_t t = 0; t < 3; ++t) in.push_back(ev(t, kB, 0x24, ErrorClass::RESP_RNR));
  const Arbitration a = arbitrate(in, ArbitrationPolicy::ROUND_ROBIN, {QpKey{kB, 0x22}});
  std::vector<std::uint32_t> got;
  for (const ErrorEvent& e : a.order) got.push_back(e.qp.qpn);
  EXPECT_EQ(got,
            (std::vector<std::uint32_t>{0x24, 0x21, 0x22, 0x24, 0x21, 0x24, 0x21, 0x21, 0x21}));
  EXPECT_EQ(a.cursor.last_served, (QpKey{kB, 0x21}));
  expect_fair(a.order);
  EXPECT_EQ(arbitrate(in, ArbitrationPolicy::PRECEDENCE).order.front().error,
            ErrorClass::RESP_LENGTH);
}

TEST(Arbitration, RoundRobinStartsAfterTheCursorAndWraps) {
  std::vector<ErrorEvent> in;
  for (std::uint32_t q = 0x21; q <= 0x24; ++q) in.push_back(ev(0, kB, q, ErrorClass::RESP_RNR));
  auto first = [&](RoundRobinCursor c) {
    return arbitrate(in, ArbitrationPolicy::ROUND_ROBIN, c).order.front().qp.qpn;
  };
  EXPECT_EQ(first({}), 0x21u);
  EXPECT_EQ(first({QpKey{kB, 0x22}}), 0x23u);
  EXPECT_EQ(first({QpKey{kB, 0x24}}), 0x21u);   // wraps
  EXPECT_EQ(first({QpKey{kB, 0x122}}), 0x21u);  // after every pending QP: wraps
  EXPECT_EQ(first({QpKey{kA, 0x30}}), 0x21u);   // adapter A sorts before adapter B
  const Arbitration a = arbitrate(in, ArbitrationPolicy::ROUND_ROBIN, {QpKey{kB, 0x22}});
  EXPECT_EQ(qps_of(a.order), (std::vector<QpKey>{{kB, 0x23}, {kB, 0x24}, {kB, 0x21}, {kB, 0x22}}));
  EXPECT_EQ(a.cursor.last_served, (QpKey{kB, 0x22}));
}

TEST(Arbitration, CursorCarriesFairnessAcrossCalls) {
  // One event per QP per instant, handled one at a time: with the cursor passed back, the
  // QP served first rotates; without it, QP 0x21 would always win.
  RoundRobinCursor c;
  std::vector<std::uint32_t> first_served;
  for (std::uint64_t t = 0; t < 6; ++t) {
    std::vector<ErrorEvent> in;
    for (std::uint32_t q = 0x21; q <= 0x23; ++q) in.push_back(ev(t, kB, q, ErrorClass::RESP_RNR));
    const Arbitration a = arbitrate(in, ArbitrationPolicy::ROUND_ROBIN, c);
    first_served.push_back(a.order.front().qp.qpn);
    // Serve only the first event this instant; the cursor records it.
    c.last_served = a.order.front().qp;
  }
  EXPECT_EQ(first_served, (std::vector<std::uint32_t>{0x21, 0x22, 0x23, 0x21, 0x22, 0x23}));
}

// ---- isolation --------------------------------------------------------------------------------

// Side B of the multi_qp_errors capture: four RC QPs, one CQ (1) for everything.
std::vector<QpAttachment> four_qps_one_cq(std::uint32_t adapter) {
  std::vector<QpAttachment> out;
  for (std::uint32_t q = 0x21; q <= 0x24; ++q)
    out.push_back(QpAttachment{QpKey{adapter, q}, QpType::RC, QpState::RTS, 1, 1, std::nullopt});
  return out;
}

TEST(Isolation, MultiQpErrorsCapture) {
  // Two bad-rkey WRITEs, QP2 and QP3, at the same instant; QP1/QP4 share the CQ.
  const std::vector<ErrorEvent> b_events = {
      ev(27 * kMs, kB, 0x23, ErrorClass::RESP_RKEY_VIOLATION),
      ev(27 * kMs, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION)};
  const Arbitration a = arbitrate(b_events, ArbitrationPolicy::PRECEDENCE);
  EXPECT_EQ(qps_of(a.order), (std::vector<QpKey>{{kB, 0x22}, {kB, 0x23}}));

  const Isolation iso = isolate(kCqB, four_qps_one_cq(kB), b_events);
  EXPECT_EQ(iso.touched, (std::vector<QpKey>{{kB, 0x21}, {kB, 0x22}, {kB, 0x23}, {kB, 0x24}}));
  ASSERT_EQ(iso.changed.size(), 2u);
  EXPECT_EQ(iso.changed[0],
            (QpFate{{kB, 0x22}, QpState::RTS, QpState::ERR, {ErrorClass::RESP_RKEY_VIOLATION}}));
  EXPECT_EQ(iso.changed[1],
            (QpFate{{kB, 0x23}, QpState::RTS, QpState::ERR, {ErrorClass::RESP_RKEY_VIOLATION}}));
  EXPECT_EQ(iso.untouched, (std::vector<QpKey>{{kB, 0x21}, {kB, 0x24}}));
  EXPECT_TRUE(iso.events.empty()) << "rxe raises no async event (capture)";

  // The IBA profile changes the same QPs and adds an access error on each.
  const Isolation iba = isolate(kCqB, four_qps_one_cq(kB), b_events, ErrorProfile::IBA);
  EXPECT_EQ(iba.untouched, iso.untouched);
  EXPECT_EQ(iba.events,
            (std::vector<RaisedEvent>{{AsyncEventType::QP_ACCESS_ERR, {kB, 0x22}, {}},
                                      {AsyncEventType::QP_ACCESS_ERR, {kB, 0x23}, {}}}));

  // Side A: the requesters receive the NAKs; the same isolation on A's CQ.
  const std::vector<ErrorEvent> a_events = {ev(27'630'000, kA, 0x22, ErrorClass::REQ_REMOTE_ACCESS),
                                            ev(27'725'000, kA, 0x23, ErrorClass::REQ_REMOTE_ACCESS),
                                            ev(30'398'000, kA, 0x22, ErrorClass::WR_POSTED_IN_ERR)};
  const Isolation side_a = isolate(kCqB, four_qps_one_cq(kA), a_events);
  ASSERT_EQ(side_a.changed.size(), 2u);
  EXPECT_EQ(side_a.changed[0].qp, (QpKey{kA, 0x22}));
  EXPECT_EQ(side_a.changed[1].qp, (QpKey{kA, 0x23}));
  EXPECT_EQ(side_a.untouched, (std::vector<QpKey>{{kA, 0x21}, {kA, 0x24}}));
}

TEST(Isolation, DocExampleOverflowAndRemoteError) {
  // docs/error-arbitration.md, example 2.
  const std::vector<QpAttachment> qps = {
      {QpKey{kB, 0x21}, QpType::RC, QpState::RTS, 2, 1, std::nullopt},
      {QpKey{kB, 0x22}, QpType::RC, QpState::RTS, 2, 1, std::nullopt}};
  const std::vector<ErrorEvent> in = {ev(2000, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION),
                                      ev(9000, kB, 0x21, ErrorClass::CQ_OVERFLOW)};
  const Arbitration a = arbitrate(in, ArbitrationPolicy::PRECEDENCE);
  EXPECT_EQ(a.order.front().error, ErrorClass::CQ_OVERFLOW);
  const Isolation rxe = isolate(kCqB, qps, in);
  ASSERT_EQ(rxe.changed.size(), 2u);
  EXPECT_TRUE(rxe.untouched.empty());
  EXPECT_EQ(rxe.events, (std::vector<RaisedEvent>{{AsyncEventType::CQ_ERR, {kB, 0x21}, kCqB}}));
  const Isolation iba = isolate(kCqB, qps, in, ErrorProfile::IBA);
  EXPECT_EQ(iba.events,
            (std::vector<RaisedEvent>{{AsyncEventType::CQ_ERR, {kB, 0x21}, kCqB},
                                      {AsyncEventType::QP_FATAL, {kB, 0x21}, {}},
                                      {AsyncEventType::QP_ACCESS_ERR, {kB, 0x22}, {}}}));
  // Without its own event, QP 0x22 is untouched.
  const Isolation alone = isolate(kCqB, qps, std::span(in).last(1));
  EXPECT_EQ(alone.untouched, (std::vector<QpKey>{{kB, 0x22}}));
}

TEST(Isolation, CqOverflowTakesOnlyThePostingQp) {
  // QP 0x21 receives into CQ 1, QP 0x22 sends into CQ 1 (receives into 2), QP 0x23 uses CQ 2.
  const std::vector<QpAttachment> qps = {
      {QpKey{kB, 0x21}, QpType::RC, QpState::RTS, 2, 1, std::nullopt},
      {QpKey{kB, 0x22}, QpType::UC, QpState::RTS, 1, 2, std::nullopt},
      {QpKey{kB, 0x23}, QpType::UD, QpState::RTS, 2, 2, std::nullopt}};
  const std::vector<ErrorEvent> overflow = {ev(3, kB, 0x21, ErrorClass::CQ_OVERFLOW)};
  const Isolation rxe = isolate(kCqB, qps, overflow);
  EXPECT_EQ(rxe.touched, (std::vector<QpKey>{{kB, 0x21}, {kB, 0x22}}));
  ASSERT_EQ(rxe.changed.size(), 1u);
  EXPECT_EQ(rxe.changed[0].qp, (QpKey{kB, 0x21}));
  EXPECT_EQ(rxe.changed[0].to, QpState::ERR);
  EXPECT_EQ(rxe.untouched, (std::vector<QpKey>{{kB, 0x22}}));
  EXPECT_EQ(rxe.events, (std::vector<RaisedEvent>{{AsyncEventType::CQ_ERR, {kB, 0x21}, kCqB}}));
  const Isolation iba = isolate(kCqB, qps, overflow, ErrorProfile::IBA);
  EXPECT_EQ(iba.untouched, rxe.untouched);
  EXPECT_EQ(iba.events, (std::vector<RaisedEvent>{{AsyncEventType::CQ_ERR, {kB, 0x21}, kCqB},
                                                  {AsyncEventType::QP_FATAL, {kB, 0x21}, {}}}));

  // A full send CQ: rxe keeps the QP in service and only raises CQ_ERR; IBA takes it to ERR.
  const std::vector<ErrorEvent> send_overflow = {ev(3, kB, 0x22, ErrorClass::CQ_OVERFLOW_SEND)};
  const Isolation rxe_send = isolate(kCqB, qps, send_overflow);
  EXPECT_TRUE(rxe_send.changed.empty());
  EXPECT_EQ(rxe_send.untouched, (std::vector<QpKey>{{kB, 0x21}, {kB, 0x22}}));
  EXPECT_EQ(rxe_send.events.size(), 1u);
  const Isolation iba_send = isolate(kCqB, qps, send_overflow, ErrorProfile::IBA);
  ASSERT_EQ(iba_send.changed.size(), 1u);
  EXPECT_EQ(iba_send.changed[0].qp, (QpKey{kB, 0x22}));
}

TEST(Isolation, EventsOfOtherResourcesAndOtherQpsAreIgnored) {
  const std::vector<ErrorEvent> in = {
      ev(1, kB, 0x22, ErrorClass::RESP_RKEY_VIOLATION, {ResourceKind::CQ, 9}),
      ev(1, kB, 0x99, ErrorClass::RESP_RKEY_VIOLATION)};
  const Isolation iso = isolate(kCqB, four_qps_one_cq(kB), in);
  EXPECT_TRUE(iso.changed.empty());
  EXPECT_EQ(iso.untouched.size(), 4u);
}

TEST(Isolation, LaterEventsOnAQpInErrAreSubsumed) {
  std::vector<QpAttachment> qps = four_qps_one_cq(kB);
  qps[3].state = QpState::ERR;  // QP 0x24 is already in ERR
  const std::vector<ErrorEvent> in = {
      ev(2, kB, 0x21, ErrorClass::RESP_RKEY_VIOLATION),
      ev(9, kB, 0x21, ErrorClass::CQ_OVERFLOW),  // later, but RESOURCE: handled first
      ev(2, kB, 0x24, ErrorClass::CQ_OVERFLOW)};
  const Isolation iso = isolate(kCqB, qps, in);
  ASSERT_EQ(iso.changed.size(), 1u);
  EXPECT_EQ(iso.changed[0].causes, (std::vector<ErrorClass>{ErrorClass::CQ_OVERFLOW}));
  EXPECT_EQ(iso.untouched, (std::vector<QpKey>{{kB, 0x22}, {kB, 0x23}, {kB, 0x24}}));
  EXPECT_EQ(iso.events, (std::vector<RaisedEvent>{{AsyncEventType::CQ_ERR, {kB, 0x21}, kCqB}}));
}

TEST(Isolation, BenignEventsChangeNothing) {
  // Several QPs find their shared SRQ empty at once: RNR NAKs, no state change.
  const ResourceRef srq{ResourceKind::SRQ, 3};
  std::vector<QpAttachment> qps = four_qps_one_cq(kB);
  for (QpAttachment& q : qps) q.srq = 3;
  std::vector<ErrorEvent> in;
  for (std::uint32_t q = 0x21; q <= 0x24; ++q)
    in.push_back(ev(1, kB, q, ErrorClass::RESP_RNR, srq));
  const Isolation iso = isolate(srq, qps, in);
  EXPECT_EQ(iso.touched.size(), 4u);
  EXPECT_TRUE(iso.changed.empty());
  EXPECT_EQ(iso.untouched.size(), 4u);
  EXPECT_TRUE(iso.events.empty());
}

TEST(Isolation, SrqQpEnteringErrRaisesLastWqeReachedUnderIba) {
  const ResourceRef srq{ResourceKind::SRQ, 3};
  std::vector<QpAttachment> qps = four_qps_one_cq(kB);
  qps[0].srq = 3;
  qps[1].srq = 3;
  const std::vector<ErrorEvent> in = {ev(1, kB, 0x22, ErrorClass::RESP_MALFORMED_RECV_WQE, srq)};
  const Isolation iba = isolate(srq, qps, in, ErrorProfile::IBA);
  EXPECT_EQ(iba.touched, (std::vector<QpKey>{{kB, 0x21}, {kB, 0x22}}));
  ASSERT_EQ(iba.changed.size(), 1u);
  EXPECT_EQ(iba.changed[0].qp, (QpKey{kB, 0x22}));
  EXPECT_EQ(iba.untouched, (std::vector<QpKey>{{kB, 0x21}}));
  EXPECT_EQ(iba.events,
            (std::vector<RaisedEvent>{{AsyncEventType::QP_FATAL, {kB, 0x22}, {}},
                                      {AsyncEventType::QP_LAST_WQE_REACHED, {kB, 0x22}, {}}}));
  EXPECT_TRUE(isolate(srq, qps, in).events.empty());  // rxe: none
}

TEST(Isolation, UnreliableQpGoesToSqeThenErrUnderIba) {
  const std::vector<QpAttachment> qps = {
      {QpKey{kB, 0x30}, QpType::UD, QpState::RTS, 1, 1, std::nullopt}};
  const std::vector<ErrorEvent> local = {ev(1, kB, 0x30, ErrorClass::REQ_LOCAL_PROTECTION)};
  const Isolation sqe = isolate(kCqB, qps, local, ErrorProfile::IBA);
  ASSERT_EQ(sqe.changed.size(), 1u);
  EXPECT_EQ(sqe.changed[0].to, QpState::SQE);
  EXPECT_EQ(isolate(kCqB, qps, local).changed.at(0).to, QpState::ERR);  // rxe: no SQE
  std::vector<ErrorEvent> both = local;
  both.push_back(ev(1, kB, 0x30, ErrorClass::CQ_OVERFLOW));
  const Isolation err = isolate(kCqB, qps, both, ErrorProfile::IBA);
  ASSERT_EQ(err.changed.size(), 1u);
  EXPECT_EQ(err.changed[0].to, QpState::ERR);
}

TEST(Isolation, LocalStateChangeUsesTheDetectingSide) {
  EXPECT_EQ(local_state_change(ErrorClass::RESP_INVALIDATE_FAILED, QpType::RC), StateChange::ERR);
  EXPECT_EQ(local_state_change(ErrorClass::REQ_REMOTE_ACCESS, QpType::RC), StateChange::ERR);
  EXPECT_EQ(local_state_change(ErrorClass::RESP_RNR, QpType::RC), StateChange::NONE);
  EXPECT_EQ(local_state_change(ErrorClass::PKT_ICRC_ERROR, QpType::UD), StateChange::NONE);
  EXPECT_EQ(local_state_change(ErrorClass::REQ_RETRY_EXCEEDED, QpType::UD), StateChange::NONE);
  EXPECT_EQ(local_state_change(ErrorClass::QP_MODIFIED_TO_ERR, QpType::UD), StateChange::ERR);
}

}  // namespace
}  // namespace rocecert::errors
