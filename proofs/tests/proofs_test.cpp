// The proofs hold on the model, each broken variant is refuted with a counterexample, and the
// transcriptions the function proofs reason about agree with the compiled functions.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "../../tests/support/sanitized.h"
#include "internal.h"
#include "rocecert/errors/arbitration.h"
#include "rocecert/mem/access_check.h"
#include "rocecert/mem/mem_table.h"
#include "rocecert/mem/range.h"
#include "rocecert/proofs/proofs.h"
#include "rocecert/qp/ids.h"

namespace rocecert::testing {
namespace {

using proofs::Variant;

// The bounds proof runs on 16-bit words here (options.quick, the same transcription); the full
// 64-bit run is `rocecert prove` (apps/rocecert/tests).
const proofs::Options kQuick{true};

TEST(Proofs, EveryProofHoldsOnTheModel) {
  ASSERT_GE(proofs::catalog().size(), 9u);
  for (const proofs::Proof& p : proofs::catalog()) {
    const proofs::Outcome o = proofs::prove(p, Variant::MODEL, kQuick);
    EXPECT_TRUE(o.proved) << p.id << ": " << o.counterexample;
    EXPECT_TRUE(o.counterexample.empty()) << p.id;
  }
}

// A proof that cannot fail proves nothing: each broken variant must be refuted, with values.
TEST(Proofs, EveryBrokenVariantIsRefutedWithACounterexample) {
  for (const proofs::Proof& p : proofs::catalog()) {
    const proofs::Outcome o = proofs::prove(p, Variant::BROKEN, kQuick);
    EXPECT_FALSE(o.proved) << p.id << " proved its broken variant: " << p.broken;
    EXPECT_FALSE(o.counterexample.empty()) << p.id;
  }
  // The counterexamples are the ones the breakages make.
  EXPECT_NE(proofs::prove(*proofs::find("PSN.SERIAL_ORDER"), Variant::BROKEN)
                .counterexample.find("psn_diff(a, b) = 8388608"),
            std::string::npos);
  EXPECT_EQ(proofs::prove(*proofs::find("QP.REACHABLE"), Variant::BROKEN).counterexample,
            "RC: no sequence of modify_qp from RESET reaches RTR");
  EXPECT_EQ(proofs::prove(*proofs::find("QP.ERR_EXITS"), Variant::BROKEN).counterexample,
            "UC: ERR -> RTS is a valid cell");
  EXPECT_NE(proofs::prove(*proofs::find("QP.ATTRS_DISJOINT"), Variant::BROKEN)
                .counterexample.find("RC RTR -> RTS"),
            std::string::npos);
  EXPECT_NE(proofs::prove(*proofs::find("MEM.RANGE_WITHIN"), Variant::BROKEN, kQuick)
                .counterexample.find("the model says "),
            std::string::npos);
}

// The key check's counterexample is an ATOMIC_WRITE the model allows without REMOTE_WRITE.
TEST(Proofs, KeyCheckCounterexampleIsAnAtomicWriteWithoutTheRight) {
  const proofs::Outcome o = proofs::prove(*proofs::find("MEM.KEY_CHECK"), Variant::BROKEN);
  EXPECT_EQ(o.counterexample.rfind("ATOMIC_WRITE ", 0), 0u) << o.counterexample;
  EXPECT_NE(o.counterexample.find("the model says OK, the specification refused"),
            std::string::npos)
      << o.counterexample;
}

// Broken isolation: another QP's RESOURCE-tier error moves a QP its own events leave alone.
TEST(Proofs, IsolationCounterexampleIsAnotherQpsResourceError) {
  const proofs::Outcome o = proofs::prove(*proofs::find("ARB.ISOLATION"), Variant::BROKEN);
  EXPECT_EQ(o.counterexample.rfind("an event CQ_OVERFLOW", 0), 0u) << o.counterexample;
  EXPECT_NE(o.counterexample.find(" to ERR, where its own events give "), std::string::npos)
      << o.counterexample;
}

// Broken round robin: the cursor ignored, a QP waits while another is served twice.
TEST(Proofs, RoundRobinCounterexampleStarvesAQp) {
  const proofs::Outcome o = proofs::prove(*proofs::find("ARB.ROUND_ROBIN"), Variant::BROKEN);
  EXPECT_EQ(o.counterexample.rfind("a QP starved: events ", 0), 0u) << o.counterexample;
}

TEST(Proofs, ArbitrationCounterexampleDiffersOnlyInTheResource) {
  const proofs::Outcome o = proofs::prove(*proofs::find("ARB.TOTAL_ORDER"), Variant::BROKEN);
  EXPECT_NE(o.counterexample.find("a<b false, b<a false"), std::string::npos) << o.counterexample;
}

// ERR.TABLE names the property and the cell each single-cell breakage of the table violates.
TEST(Proofs, ErrorTableBreakagesNameTheirCell) {
  using errors::ErrorClass;
  using errors::StateChange;
  struct Breakage {
    const char* expect;  // in the counterexample
    void (*edit)(proofs::detail::ErrorTable&);
  };
  const auto at = [](proofs::detail::ErrorTable& t, ErrorClass e, std::size_t type,
                     bool rxe) -> errors::Outcome& {
    errors::ProfileOutcomes& po = t[static_cast<std::size_t>(e)].by_type.at(type);
    return rxe ? po.rxe : po.iba;
  };
  static decltype(at) cell = at;
  const std::vector<Breakage> breakages = {
      {"one NAK: a NAK response carries a defined NAK code (0x60-0x64), no other response does: "
       "RESP_RKEY_VIOLATION on RC (IBA)",
       [](auto& t) { cell(t, ErrorClass::RESP_RKEY_VIOLATION, 0, false).nak_code = 0x65; }},
      {"an error completion changes the QP's state (RC: to ERR); an errored receive WQE takes "
       "the responder to ERR: REQ_LOCAL_PROTECTION on RC (RXE)",
       [](auto& t) {
         errors::Outcome& o = cell(t, ErrorClass::REQ_LOCAL_PROTECTION, 0, true);
         o.requester_state = StateChange::NONE;
         o.requester_flush = errors::Flush::NONE;
       }},
      {"one state change per side, with its flush: ERR flushes both queues, SQE the send queue "
       "(UC and UD, IBA profile only: RC and rxe have no SQE); the responder never enters SQE: "
       "REQ_MW_BIND on UC (IBA)",
       [](auto& t) {
         cell(t, ErrorClass::REQ_MW_BIND, 1, false).requester_flush = errors::Flush::ALL;
       }},
      {"retries end in an error: only RC retries, and the class reached when they run out "
       "completes the WQE in error, moves the QP to ERR and is FATAL: PKT_ICRC_ERROR on RC (RXE)",
       [](auto& t) {
         cell(t, ErrorClass::PKT_ICRC_ERROR, 0, true).when_retries_exhausted =
             ErrorClass::RESP_PSN_SEQUENCE;
       }},
      {"the requester's reaction to syndrome 0x64 (IBA): class REQ_REMOTE_INVALID_RD_REQUEST, "
       "requester COMPLETES status REM_OP_ERR",
       [](auto& t) {
         cell(t, ErrorClass::REQ_REMOTE_INVALID_RD_REQUEST, 0, false).requester_status =
             cq::WcStatus::REM_OP_ERR;
       }},
      {"rxe raises no QP asynchronous event, only CQ_ERR: RESP_RKEY_VIOLATION on RC (RXE)",
       [](auto& t) {
         cell(t, ErrorClass::RESP_RKEY_VIOLATION, 0, true).events[0] =
             errors::AsyncEventType::QP_ACCESS_ERR;
       }},
      {"UC and UD send no acknowledgement and never retry: RESP_RNR on UD (IBA)",
       [](auto& t) { cell(t, ErrorClass::RESP_RNR, 2, false).response = errors::Response::ACK; }},
  };
  for (const Breakage& b : breakages) {
    proofs::detail::ErrorTable t = errors::kErrorTable;
    b.edit(t);
    const proofs::Outcome o = proofs::detail::prove_errors_table_of(t);
    EXPECT_FALSE(o.proved) << b.expect;
    EXPECT_EQ(o.counterexample.rfind(b.expect, 0), 0u) << o.counterexample;
  }
}

TEST(Proofs, IdsAreUniqueAndFound) {
  std::set<std::string_view> ids;
  for (const proofs::Proof& p : proofs::catalog()) {
    EXPECT_TRUE(ids.insert(p.id).second) << p.id;
    EXPECT_EQ(proofs::find(p.id), &p);
    EXPECT_FALSE(p.statement.empty() || p.reference.empty() || p.broken.empty()) << p.id;
  }
  EXPECT_EQ(proofs::find("NO.SUCH"), nullptr);
}

// The transcription of qp::psn_diff is the function: on the edges of the window and the space,
// and on random pairs.
TEST(ProofTranscriptions, PsnDiffAgreesWithTheModel) {
  const std::uint32_t edges[] = {0,        1,        2,        0x7FFFFE, 0x7FFFFF,
                                 0x800000, 0x800001, 0xFFFFFE, 0xFFFFFF};
  for (const std::uint32_t a : edges)
    for (const std::uint32_t b : edges)
      EXPECT_EQ(proofs::detail::eval_psn_diff(a, b), qp::psn_diff(qp::Psn(a), qp::Psn(b)))
          << a << " " << b;
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    const std::uint32_t a = rng() & 0xFFFFFF, b = rng() & 0xFFFFFF;
    EXPECT_EQ(proofs::detail::eval_psn_diff(a, b), qp::psn_diff(qp::Psn(a), qp::Psn(b)))
        << a << " " << b;
  }
}

// The transcription of mem::range_within is the function.
TEST(ProofTranscriptions, RangeWithinAgreesWithTheModel) {
  const std::uint64_t edges[] = {
      0, 1, 7, 8, 0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, ~0ull - 1, ~0ull};
  for (const std::uint64_t s : edges)
    for (const std::uint64_t l : edges)
      for (const std::uint64_t b : edges)
        for (const std::uint64_t bl : edges)
          EXPECT_EQ(proofs::detail::eval_range_within(s, l, b, bl), mem::range_within(s, l, b, bl))
              << s << " " << l << " " << b << " " << bl;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t b = rng(), bl = rng() >> (rng() % 64), s = b + (rng() % 4096) - 2048,
                        l = rng() % 8192;
    EXPECT_EQ(proofs::detail::eval_range_within(s, l, b, bl), mem::range_within(s, l, b, bl));
  }
}

// The transcription of errors::precedence_compare is the function: random events over few values
// of each field, so that ties down to the last key are common.
TEST(ProofTranscriptions, PrecedenceAgreesWithTheModel) {
  std::mt19937 rng(5);
  const auto pick = [&] {
    errors::ErrorEvent e;
    e.error = static_cast<errors::ErrorClass>(rng() % errors::kErrorClassCount);
    e.time_ns = rng() % 3;
    e.qp = {static_cast<std::uint32_t>(rng() % 2), 0x11 + static_cast<std::uint32_t>(rng() % 2)};
    e.resource = {static_cast<errors::ResourceKind>(rng() % 3),
                  static_cast<std::uint32_t>(rng() % 2)};
    return e;
  };
  for (int i = 0; i < 100; ++i) {
    const errors::ErrorEvent a = pick(), b = i % 5 == 0 ? a : pick();
    const auto c = errors::precedence_compare(a, b);
    const int want = c < 0 ? -1 : c > 0 ? 1 : 0;
    EXPECT_EQ(proofs::detail::eval_precedence(a, b), want) << i;
  }
}

// The transcription of errors::isolate's loop is the function: random QPs on a CQ (some not
// attached, some sharing the CQ as send or receive CQ, any type and state), random events of
// any class (some on another resource, some on an unknown QP), both profiles.
TEST(ProofTranscriptions, IsolationAgreesWithTheModel) {
  std::mt19937 gen(13);
  const auto rng = [&] { return static_cast<unsigned>(gen()); };
  // 400 cases; 100 under ASan/UBSan (tests/support/sanitized.h).
  const int cases = full_or_sanitized(400, 100);
  int changed = 0;
  for (int i = 0; i < cases; ++i) {
    const errors::ResourceRef cq{errors::ResourceKind::CQ, 1};
    std::vector<errors::QpAttachment> qps;
    const unsigned n = 1 + rng() % 4;
    for (unsigned q = 0; q < n; ++q) {
      errors::QpAttachment a;
      a.qp = {static_cast<std::uint32_t>(q % 2), 0x11 + q};
      a.type = qp::kAllQpTypes[rng() % qp::kQpTypeCount];
      a.state = qp::kAllQpStates[rng() % qp::kQpStateCount];
      a.send_cq = rng() % 3;
      a.recv_cq = rng() % 3;
      if (rng() % 3 == 0) a.srq = 1;
      qps.push_back(a);
    }
    std::vector<errors::ErrorEvent> events;
    const unsigned m = rng() % 6;
    for (unsigned k = 0; k < m; ++k) {
      errors::ErrorEvent e;
      const unsigned q = rng() % (n + 1);  // n: a QP not in the list
      e.qp = q < n ? qps[q].qp : errors::QpKey{9, 0x99};
      e.error = static_cast<errors::ErrorClass>(rng() % errors::kErrorClassCount);
      e.time_ns = rng() % 3;
      e.resource = rng() % 5 == 0 ? errors::ResourceRef{errors::ResourceKind::SRQ, 1} : cq;
      events.push_back(e);
    }
    const errors::ErrorProfile profile =
        rng() % 2 ? errors::ErrorProfile::IBA : errors::ErrorProfile::RXE;
    const errors::Isolation want = errors::isolate(cq, qps, events, profile);
    const auto got = proofs::detail::eval_isolation(cq, qps, events, profile);
    for (const errors::QpAttachment& a : qps) {
      qp::QpState expect = a.state;
      for (const errors::QpFate& f : want.changed)
        if (f.qp == a.qp) expect = f.to;
      EXPECT_EQ(got.at(a.qp), expect) << "case " << i << " QP " << a.qp.qpn;
      changed += expect != a.state;
    }
  }
  EXPECT_GT(changed, cases / 8);  // the cases exercise state changes (69 of 400 with this seed)
}

// The unrolled ROUND_ROBIN loop is errors::arbitrate(ROUND_ROBIN): random events of a few QPs
// (QPNs repeating across adapters), with and without a cursor, the cursor's QP among the
// events' QPs or not.
TEST(ProofTranscriptions, RoundRobinAgreesWithTheModel) {
  std::mt19937 gen(17);
  const auto rng = [&] { return static_cast<unsigned>(gen()); };
  for (int i = 0; i < 300; ++i) {
    std::vector<errors::ErrorEvent> events;
    const unsigned m = 1 + rng() % 7;
    for (unsigned k = 0; k < m; ++k) {
      errors::ErrorEvent e;
      e.qp = {rng() % 2, 0x11 + rng() % 3};
      e.error = static_cast<errors::ErrorClass>(rng() % errors::kErrorClassCount);
      e.time_ns = rng() % 3;
      events.push_back(e);
    }
    errors::RoundRobinCursor cursor;
    if (rng() % 3 != 0) cursor.last_served = errors::QpKey{rng() % 2, 0x10 + rng() % 5};
    const errors::Arbitration want =
        errors::arbitrate(events, errors::ArbitrationPolicy::ROUND_ROBIN, cursor);
    EXPECT_EQ(proofs::detail::eval_round_robin(events, cursor), want.order) << "case " << i;
  }
}

// Values drawn from small pools, so that keys, PDs and QPs match as often as they differ, and
// addresses from the edges of the 64-bit space as often as from the middle.
class AccessPools {
 public:
  explicit AccessPools(unsigned seed) : rng_(seed) {}
  std::uint32_t small() { return static_cast<std::uint32_t>(rng_() % 3); }
  bool coin() { return rng_() % 2 == 0; }
  mem::Key key() {
    return mem::Key::make(static_cast<std::uint32_t>(1 + rng_() % 2),
                          rng_() % 2 == 0 ? 0x11 : 0x22);
  }
  mem::Access access() {
    std::uint32_t bits = 0;
    for (const mem::AccessFlagInfo& f : mem::kAccessFlags)
      if (rng_() % 3 != 0) bits |= static_cast<std::uint32_t>(f.flag);
    return static_cast<mem::Access>(bits);
  }
  std::uint64_t word() {
    static constexpr std::uint64_t kEdges[] = {
        0,         1,         7,    8, 0x1000, 0x7FFFFFFFFFFFFFF8ull, 0x8000000000000000ull,
        ~0ull - 7, ~0ull - 1, ~0ull};
    switch (rng_() % 4) {
      case 0:
        return kEdges[rng_() % std::size(kEdges)];
      case 1:
        return rng_() % 0x3000;
      case 2:
        return ~0ull - rng_() % 0x3000;
      default:
        return rng_();
    }
  }

 private:
  std::mt19937_64 rng_;
};

// The transcription of mem::check_access is the function, outcome for outcome: every op, keys,
// PDs, states, rights, MR and window layouts, 64-bit edges.
TEST(ProofTranscriptions, CheckAccessAgreesWithTheModel) {
  AccessPools pick(13);
  for (int i = 0; i < 3000; ++i) {
    mem::MemoryRegion mr;
    mr.pd = mem::Pd{pick.small()};
    mr.state = pick.coin() || pick.coin() ? mem::MrState::VALID : mem::MrState::FREE;
    mr.lkey = pick.key();
    mr.rkey = pick.coin() ? mr.lkey : pick.key();
    mr.access = pick.access();
    mr.iova = pick.word();
    mr.length = pick.word();
    mr.host_addr = pick.word();
    mem::MemoryWindow mw;
    mw.pd = mem::Pd{pick.small()};
    mw.type = pick.coin() ? mem::MwType::TYPE_1 : mem::MwType::TYPE_2;
    mw.state = pick.coin() || pick.coin() ? mem::MwState::VALID : mem::MwState::FREE;
    mw.rkey = pick.key();
    mw.access = pick.access();
    // Windows inside the MR half of the time, anywhere otherwise.
    mw.addr = pick.coin() ? mr.iova + pick.word() % 0x100 : pick.word();
    mw.length = pick.coin() ? pick.word() % 0x200 : pick.word();
    mw.qpn = pick.small();
    mem::AccessRequest r;
    r.op = static_cast<mem::MemOp>(i % 7);
    r.key = pick.key();
    r.qp = mem::QpRef{pick.small(), mem::Pd{pick.small()}};
    r.va = pick.coin() ? mr.iova + pick.word() % 0x100
                       : (pick.coin() ? mw.addr + pick.word() % 0x100 : pick.word());
    r.length = pick.coin() ? pick.word() % 0x40 : pick.word();
    r.flush_placement = static_cast<std::uint8_t>(pick.small());
    r.flush_whole_region = pick.coin();
    const int layout = i % 4;  // MR key, MW key with its MR, MW key without, no object
    const mem::AccessTarget t{layout == 0 || layout == 1 ? &mr : nullptr,
                              layout == 1 || layout == 2 ? &mw : nullptr};
    const mem::AccessOutcome want = mem::check_access(t, r).outcome;
    EXPECT_EQ(proofs::detail::eval_check_access(t, r), want)
        << i << ": " << mem::to_string(r.op) << " va=" << r.va << " length=" << r.length
        << " model " << mem::to_string(want);
  }
}

// The transcription of mem::check_bind accepts exactly what the function accepts.
TEST(ProofTranscriptions, CheckBindAgreesWithTheModel) {
  AccessPools pick(17);
  for (int i = 0; i < 3000; ++i) {
    mem::MemoryRegion mr;
    mr.pd = mem::Pd{pick.small()};
    mr.state = pick.coin() || pick.coin() ? mem::MrState::VALID : mem::MrState::FREE;
    mr.access = pick.access();
    mr.iova = pick.word();
    mr.length = pick.word();
    mem::MemoryWindow mw;
    mw.pd = mem::Pd{pick.small()};
    mw.type = pick.coin() ? mem::MwType::TYPE_1 : mem::MwType::TYPE_2;
    mw.state = pick.coin() ? mem::MwState::VALID : mem::MwState::FREE;
    mem::BindMwWr wr;
    wr.addr = pick.coin() ? mr.iova + pick.word() % 0x100 : pick.word();
    wr.length = pick.coin() ? pick.word() % 0x200 : pick.word();
    wr.access = pick.access();
    const mem::QpRef qp{pick.small(), mem::Pd{pick.small()}};
    const mem::MemoryRegion* target = i % 5 == 0 ? nullptr : &mr;
    const bool want = mem::check_bind(qp, mw, target, wr) == mem::MemErrc::OK;
    EXPECT_EQ(proofs::detail::eval_bind_accepted(qp, mw, target, wr), want)
        << i << ": addr=" << wr.addr << " length=" << wr.length
        << " model: " << mem::to_string(mem::check_bind(qp, mw, target, wr));
  }
}

}  // namespace
}  // namespace rocecert::testing
