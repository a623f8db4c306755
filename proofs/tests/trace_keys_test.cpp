// z3.key's solver (proofs/trace_keys.cpp): which sets of answered accesses one key table
// explains, and the minimal cores it names when none does.
#include "rocecert/proofs/trace_keys.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../../tests/support/sanitized.h"

namespace rocecert::testing {
namespace {

using proofs::trace::AccessKind;
using proofs::trace::judge_keys;
using proofs::trace::KeyObservation;
using proofs::trace::KnownKey;
using proofs::trace::KnownQp;

KeyObservation obs(AccessKind k, bool granted, std::uint64_t va, std::uint32_t len,
                   std::uint32_t rkey = 0x100, std::uint32_t epoch = 0) {
  return {k, granted, rkey, epoch, va, len};
}
constexpr auto R = AccessKind::READ;
constexpr auto W = AccessKind::WRITE;
constexpr auto A = AccessKind::ATOMIC;
constexpr auto F = AccessKind::FLUSH;
KeyObservation flush(bool granted, std::uint64_t va, std::uint32_t len, std::uint8_t placement,
                     bool whole_region = false, std::uint32_t rkey = 0x100) {
  KeyObservation o = obs(F, granted, va, len, rkey);
  o.placement = placement;
  o.whole_region = whole_region;
  return o;
}

TEST(TraceKeys, GrantsAloneAreAlwaysExplained) {
  const std::vector<KeyObservation> o = {obs(W, true, 0, 64), obs(R, true, 1u << 20, 8),
                                         obs(A, true, ~0ull - 7, 8)};
  EXPECT_TRUE(judge_keys(o, {}, std::nullopt).consistent);
}

TEST(TraceKeys, RefusalsExplainedByARightOrTheRegion) {
  // READ refused inside a region written to: the region need not grant READ.
  EXPECT_TRUE(judge_keys(std::vector{obs(W, true, 0, 100), obs(R, false, 10, 10)}, {}, std::nullopt)
                  .consistent);
  // WRITE refused just past the last byte granted.
  EXPECT_TRUE(judge_keys(std::vector{obs(W, true, 0, 100), obs(W, false, 99, 2)}, {}, std::nullopt)
                  .consistent);
  // Another rkey, or the same rkey after an invalidation.
  EXPECT_TRUE(
      judge_keys(std::vector{obs(W, true, 0, 100), obs(W, false, 0, 100, 0x200)}, {}, std::nullopt)
          .consistent);
  EXPECT_TRUE(judge_keys(std::vector{obs(W, true, 0, 100), obs(W, false, 0, 100, 0x100, 1)}, {},
                         std::nullopt)
                  .consistent);
}

TEST(TraceKeys, RefusalInsideAGrantIsNamedWithIt) {
  const std::vector<KeyObservation> o = {obs(R, true, 0x2000, 8), obs(W, true, 0, 64),
                                         obs(W, false, 16, 16)};
  const auto j = judge_keys(o, {}, std::nullopt);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.observations, (std::vector<std::size_t>{1, 2}));
}

// One region per key: two grants side by side make one range; a refusal across their seam
// contradicts it, which no pair of the three does alone.
TEST(TraceKeys, RegionsAreContiguous) {
  const std::vector<KeyObservation> o = {obs(W, true, 0, 10), obs(W, true, 10, 10),
                                         obs(W, false, 5, 10)};
  const auto j = judge_keys(o, {}, std::nullopt);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.observations, (std::vector<std::size_t>{0, 1, 2}));
  // Rights and region are one MR's: READ granted low, WRITE granted high, READ refused between.
  const std::vector<KeyObservation> o2 = {obs(R, true, 0, 50), obs(W, true, 50, 50),
                                          obs(R, false, 40, 20)};
  EXPECT_EQ(judge_keys(o2, {}, std::nullopt).observations, (std::vector<std::size_t>{0, 1, 2}));
}

TEST(TraceKeys, TheEndOfTheAddressSpace) {
  const std::uint64_t top = ~0ull - 15;
  EXPECT_TRUE(judge_keys(std::vector{obs(W, true, top, 16), obs(W, false, 0, 16)}, {}, std::nullopt)
                  .consistent);
  EXPECT_FALSE(
      judge_keys(std::vector{obs(W, true, top - 16, 32), obs(W, false, top, 16)}, {}, std::nullopt)
          .consistent);
}

TEST(TraceKeys, TheSetupIsTheTable) {
  const KnownKey mr{0x100, "mr0", true, true, 0x1000, 0x100, false, true, false};
  // Inside and with the right: granted is right, refused is not.
  EXPECT_TRUE(judge_keys(std::vector{obs(W, true, 0x1000, 0x100)}, std::vector{mr}, std::nullopt)
                  .consistent);
  const KnownQp any{"qp0", true, true, true};
  // Refused: only the QP's flags could explain it, and the setup says they allow it.
  EXPECT_TRUE(judge_keys(std::vector{obs(W, false, 0x1080, 0x10)}, std::vector{mr}, std::nullopt)
                  .consistent);
  auto j = judge_keys(std::vector{obs(W, false, 0x1080, 0x10)}, std::vector{mr}, any);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.observations, (std::vector<std::size_t>{0}));
  EXPECT_EQ(j.setup, (std::vector<std::string>{"mr0", "the access flags of QP qp0"}));
  // Past the end, or a READ: refused is right, granted is not.
  EXPECT_FALSE(judge_keys(std::vector{obs(W, true, 0x10F8, 0x10)}, std::vector{mr}, std::nullopt)
                   .consistent);
  EXPECT_FALSE(
      judge_keys(std::vector{obs(R, true, 0x1000, 8)}, std::vector{mr}, std::nullopt).consistent);
  // An rkey the setup does not have, and a QP without remote write.
  const KnownKey none{0x300, "", false};
  EXPECT_FALSE(judge_keys(std::vector{obs(W, true, 0, 8, 0x300)}, std::vector{none}, std::nullopt)
                   .consistent);
  j = judge_keys(std::vector{obs(W, true, 0x1000, 8)}, std::vector{mr},
                 KnownQp{"qp1", true, false, true});
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.setup, (std::vector<std::string>{"the access flags of QP qp1"}));
  // The setup says nothing of later epochs.
  EXPECT_TRUE(judge_keys(std::vector{obs(W, true, 0, 8, 0x100, 1)}, std::vector{mr}, std::nullopt)
                  .consistent);
}

// FLUSH (IBA 1.5; docs/spec-notes.md §8.4): a right per placement asked, a whole-region FLUSH
// not bounded, a zero-length one checked like any other.
TEST(TraceKeys, FlushNeedsTheRightOfItsPlacement) {
  // Granted with global visibility, refused with persistence inside the same range: a table
  // whose key lacks the persistence right explains it.
  EXPECT_TRUE(
      judge_keys(std::vector{flush(true, 0, 64, 1), flush(false, 0, 64, 2)}, {}, std::nullopt)
          .consistent);
  // The same placement granted then refused inside the range granted: no table.
  auto j = judge_keys(std::vector{flush(true, 0, 64, 1), flush(false, 8, 8, 1)}, {}, std::nullopt);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.observations, (std::vector<std::size_t>{0, 1}));
  // A zero-length FLUSH inside a range granted, refused: no table either.
  EXPECT_FALSE(
      judge_keys(std::vector{flush(true, 0, 64, 1), flush(false, 16, 0, 1)}, {}, std::nullopt)
          .consistent);
  // Refused outside the range granted: the region explains it...
  EXPECT_TRUE(
      judge_keys(std::vector{flush(true, 0, 64, 1), flush(false, 100, 8, 1)}, {}, std::nullopt)
          .consistent);
  // ...but not when it flushes the whole region, whose range is not checked.
  EXPECT_FALSE(judge_keys(std::vector{flush(true, 0, 64, 1), flush(false, 100, 8, 1, true)}, {},
                          std::nullopt)
                   .consistent);
  // A whole-region grant says nothing of the region's bounds.
  EXPECT_TRUE(
      judge_keys(std::vector{flush(true, 0, 0, 1, true), flush(false, 100, 8, 1)}, {}, std::nullopt)
          .consistent);
}

TEST(TraceKeys, FlushAgainstTheSetup) {
  KnownKey mr{0x100, "MR m", true, true, 0, 4096};
  mr.flush_global = true;
  KnownQp qp{"q", true, true, true, true, true};
  // The MR grants global visibility only: persistence refused is right, granted is not.
  EXPECT_TRUE(judge_keys(std::vector{flush(false, 0, 8, 2)}, std::vector{mr}, qp).consistent);
  EXPECT_FALSE(judge_keys(std::vector{flush(true, 0, 8, 2)}, std::vector{mr}, qp).consistent);
  // Both asked of an MR holding one of the two rights: refused is right, granted is not (rxe_mr.c
  // lookup_mr wants every right asked).
  EXPECT_TRUE(judge_keys(std::vector{flush(false, 0, 8, 3)}, std::vector{mr}, qp).consistent);
  EXPECT_FALSE(judge_keys(std::vector{flush(true, 0, 8, 3)}, std::vector{mr}, qp).consistent);
  // A QP needs both rights for a FLUSH asking both (rxe_resp.c check_qp_attr_access).
  mr.flush_persistent = true;
  qp.flush_persistent = false;
  const auto j = judge_keys(std::vector{flush(true, 0, 8, 3)}, std::vector{mr}, qp);
  EXPECT_FALSE(j.consistent);
  EXPECT_EQ(j.setup, (std::vector<std::string>{"the access flags of QP q"}));
}

TEST(TraceKeys, TheDirectCheckAgreesWithTheSolverOnDrawnTraces) {
  // Accesses drawn over two rkeys, two epochs and a few addresses near each other (and near the
  // end of the address space), with and without setup entries and QP flags, so that about half
  // the traces contradict themselves. The direct check must say what the solver alone says.
  std::mt19937 rng(20261204);
  const auto draw = [&](unsigned n) { return static_cast<std::uint32_t>(rng() % n); };
  const AccessKind kinds[] = {R, W, A, F};
  // 250 traces; 80 under ASan/UBSan (tests/support/sanitized.h).
  const int rounds = full_or_sanitized(250, 80);
  int consistent = 0, not_consistent = 0;
  for (int round = 0; round < rounds; ++round) {
    std::vector<KeyObservation> o;
    const unsigned n = 1 + draw(6);
    for (unsigned k = 0; k < n; ++k) {
      const std::uint64_t va = draw(4) == 0 ? ~0ull - draw(16) : draw(48);
      o.push_back(obs(kinds[draw(4)], draw(3) != 0, va, draw(8) == 0 ? 0 : 1 + draw(24),
                      0x100 + draw(2), draw(4) == 0));
      if (o.back().kind == F) {
        o.back().placement = static_cast<std::uint8_t>(draw(4));
        o.back().whole_region = draw(3) == 0;
      } else if (o.back().length == 0) {
        o.back().length = 1;  // zero-length READs and WRITEs are not given
      }
    }
    std::vector<KnownKey> known;
    if (draw(2) == 0) {
      KnownKey k;
      k.rkey = 0x100;
      k.name = "MR m";
      k.exists = draw(4) != 0;
      k.usable = draw(4) != 0;
      k.base = draw(4) == 0 ? ~0ull - draw(16) : draw(24);
      k.length = draw(40);
      k.read = draw(2) != 0;
      k.write = draw(2) != 0;
      k.atomic = draw(2) != 0;
      k.flush_global = draw(2) != 0;
      k.flush_persistent = draw(2) != 0;
      known.push_back(k);
    }
    std::optional<KnownQp> qp;
    if (draw(3) == 0)
      qp = KnownQp{"q", draw(4) != 0, draw(4) != 0, draw(4) != 0, draw(4) != 0, draw(4) != 0};
    const bool direct = proofs::trace::least_table_explains(o, known, qp);
    const auto solver = judge_keys(o, known, qp, proofs::trace::KeyMethod::SOLVER_ONLY);
    ASSERT_TRUE(solver.decided);
    ASSERT_EQ(direct, solver.consistent) << "round " << round;
    const auto first = judge_keys(o, known, qp);
    EXPECT_EQ(first.consistent, solver.consistent);
    EXPECT_EQ(first.observations, solver.observations);
    EXPECT_EQ(first.setup, solver.setup);
    (direct ? consistent : not_consistent)++;
  }
  EXPECT_GT(consistent, rounds * 6 / 25);
  EXPECT_GT(not_consistent, rounds * 6 / 25);
}

}  // namespace
}  // namespace rocecert::testing
