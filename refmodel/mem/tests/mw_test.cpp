// Memory windows, IBTA Vol. 1 §10.6, o10-37.2.x; docs/spec-notes.md §7.4: allocation, type-1 bind
// (ibv_bind_mw), type-2 bind (BIND_MW WR) with each precondition (C10-72..75, o10-36.2.2,
// o10-37.2.30, o10-37.2.40), invalidation (o10-37.2.26), the MR bind count, deallocation.
#include <gtest/gtest.h>

#include "rocecert/mem/mem_table.h"

using namespace rocecert::mem;

namespace {

constexpr Access kMrRights = Access::LOCAL_WRITE | Access::REMOTE_READ | Access::REMOTE_WRITE |
                             Access::REMOTE_ATOMIC | Access::MW_BIND;
constexpr std::uint64_t kBase = 0x100000;
constexpr std::uint64_t kLen = 0x10000;

class MwTest : public ::testing::Test {
 protected:
  MwTest() {
    pd = table.alloc_pd().value;
    pd2 = table.alloc_pd().value;
    qp = QpRef{0x11, pd};
    qp_b = QpRef{0x12, pd};
    qp_other_pd = QpRef{0x13, pd2};
    mr = reg(kMrRights);
  }
  MrKeys reg(Access access, Pd on = Pd{}, std::uint64_t addr = kBase) {
    MrRegistration r;
    r.pd = on.value == 0 ? pd : on;
    r.addr = addr;
    r.length = kLen;
    r.access = access;
    const auto res = table.reg_mr(r);
    EXPECT_TRUE(res.ok());
    return res.value;
  }
  // A type-2 BIND_MW WR over [addr, addr + len) of `on`.
  BindMwWr wr(const MwKeys& w, const MrKeys& on, std::uint64_t addr, std::uint64_t len,
              Access access, std::uint8_t tag = 0x5A) const {
    BindMwWr b;
    b.mw_rkey = table.find_mw(w.id)->rkey;
    b.new_rkey = Key::make(0xABCDE, tag);  // only the low byte counts
    b.mr_lkey = on.lkey;
    b.addr = addr;
    b.length = len;
    b.access = access;
    return b;
  }
  AccessOutcome access(MemOp op, Key key, QpRef from, std::uint64_t va, std::uint64_t len) const {
    AccessRequest r;
    r.op = op;
    r.key = key;
    r.qp = from;
    r.va = va;
    r.length = len;
    return table.check(r).outcome;
  }
  std::uint32_t bind_count(const MrKeys& k) const { return table.find_mr(k.id)->bound_mws; }

  MemTable table;
  Pd pd, pd2;
  QpRef qp, qp_b, qp_other_pd;
  MrKeys mr;
};

}  // namespace

// --- type 1 ----------------------------------------------------------------------------------

TEST_F(MwTest, TypeOneIsValidAtAllocationButUnboundUntilBound) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_1).value;
  const MemoryWindow& mw = *table.find_mw(w.id);
  EXPECT_EQ(mw.state, MwState::VALID);
  EXPECT_EQ(mw.type, MwType::TYPE_1);
  EXPECT_EQ(mw.length, 0u);
  EXPECT_EQ(access(MemOp::REMOTE_READ, w.rkey, qp, kBase, 8), AccessOutcome::INVALID_STATE);
}

TEST_F(MwTest, TypeOneBindUsesIncRkeyAndCountsTheBinding) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_1).value;
  const auto r =
      table.bind_mw_type1(qp, w.id, MwBindInfo{mr.id, kBase + 0x100, 0x100, Access::REMOTE_READ});
  ASSERT_TRUE(r.ok()) << to_string(r.error);
  EXPECT_EQ(r.value, inc_rkey(w.rkey));  // ibv_inc_rkey of the previous rkey
  EXPECT_EQ(bind_count(mr), 1u);
  // Any QP of the PD may use a type-1 window.
  EXPECT_EQ(access(MemOp::REMOTE_READ, r.value, qp, kBase + 0x100, 0x100), AccessOutcome::OK);
  EXPECT_EQ(access(MemOp::REMOTE_READ, r.value, qp_b, kBase + 0x100, 8), AccessOutcome::OK);
  EXPECT_EQ(access(MemOp::REMOTE_READ, w.rkey, qp, kBase + 0x100, 8), AccessOutcome::KEY_MISMATCH);
  // Window bounds, tighter than the MR.
  EXPECT_EQ(access(MemOp::REMOTE_READ, r.value, qp, kBase, 8), AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(access(MemOp::REMOTE_READ, r.value, qp, kBase + 0x1FF, 2),
            AccessOutcome::OUT_OF_MW_BOUNDS);
  // Window rights, narrower than the MR.
  EXPECT_EQ(access(MemOp::REMOTE_WRITE, r.value, qp, kBase + 0x100, 8),
            AccessOutcome::ACCESS_DENIED);

  // Rebinding moves the window and changes the key again; the count stays 1.
  const auto r2 =
      table.bind_mw_type1(qp, w.id, MwBindInfo{mr.id, kBase + 0x800, 0x10, Access::REMOTE_WRITE});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2.value, inc_rkey(r.value));
  EXPECT_EQ(bind_count(mr), 1u);
  EXPECT_EQ(access(MemOp::REMOTE_READ, r.value, qp, kBase + 0x100, 8), AccessOutcome::KEY_MISMATCH);
  EXPECT_EQ(access(MemOp::REMOTE_WRITE, r2.value, qp, kBase + 0x800, 0x10), AccessOutcome::OK);

  // Rebinding to another MR moves the count.
  const MrKeys other = reg(kMrRights, pd, 0x900000);
  const auto r3 =
      table.bind_mw_type1(qp, w.id, MwBindInfo{other.id, 0x900000, 0x10, Access::REMOTE_READ});
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(bind_count(mr), 0u);
  EXPECT_EQ(bind_count(other), 1u);
}

TEST_F(MwTest, TypeOneUnbindIsABindWithLengthZero) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_1).value;
  const Key k =
      table.bind_mw_type1(qp, w.id, MwBindInfo{mr.id, kBase, 0x100, Access::REMOTE_READ}).value;
  const auto u = table.bind_mw_type1(qp, w.id, MwBindInfo{});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(bind_count(mr), 0u);
  EXPECT_EQ(table.find_mw(w.id)->state, MwState::VALID);
  EXPECT_EQ(access(MemOp::REMOTE_READ, u.value, qp, kBase, 8), AccessOutcome::INVALID_STATE);
  EXPECT_EQ(access(MemOp::REMOTE_READ, k, qp, kBase, 8), AccessOutcome::KEY_MISMATCH);
  EXPECT_EQ(table.dereg_mr(mr.id), MemErrc::OK);
}

TEST_F(MwTest, TypeOneBindPreconditions) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_1).value;
  auto bind = [&](MwBindInfo info, QpRef from) {
    return table.bind_mw_type1(from, w.id, info).error;
  };
  // o10-36.2.2: no zero-based type-1 window.
  EXPECT_EQ(bind({mr.id, 0, 0x10, Access::REMOTE_READ | Access::ZERO_BASED}, qp),
            MemErrc::MW_ZERO_BASED_TYPE1);
  // An address or length needs an MR.
  EXPECT_EQ(bind({MrId{}, kBase, 0x10, Access::REMOTE_READ}, qp), MemErrc::BIND_ADDR_WITHOUT_MR);
  // §7.5: MR and MW in one PD; the QP in that PD too.
  const MrKeys foreign = reg(kMrRights, pd2, 0x900000);
  EXPECT_EQ(bind({foreign.id, 0x900000, 0x10, Access::REMOTE_READ}, qp), MemErrc::MR_PD_MISMATCH);
  EXPECT_EQ(errno_value(MemErrc::MR_PD_MISMATCH), 1);  // EPERM, as the rxe provider
  EXPECT_EQ(bind({mr.id, kBase, 0x10, Access::REMOTE_READ}, qp_other_pd), MemErrc::QP_PD_MISMATCH);
  // C10-73: the MR must allow binding.
  const MrKeys no_bind = reg(Access::LOCAL_WRITE | Access::REMOTE_READ, pd, 0x300000);
  EXPECT_EQ(bind({no_bind.id, 0x300000, 0x10, Access::REMOTE_READ}, qp), MemErrc::MR_LACKS_MW_BIND);
  // C10-74: a writable or atomic window needs LOCAL_WRITE on the MR.
  const MrKeys read_only = reg(Access::REMOTE_READ | Access::MW_BIND, pd, 0x400000);
  EXPECT_EQ(bind({read_only.id, 0x400000, 0x10, Access::REMOTE_WRITE}, qp),
            MemErrc::MR_LACKS_LOCAL_WRITE);
  EXPECT_EQ(bind({read_only.id, 0x400000, 0x10, Access::REMOTE_ATOMIC}, qp),
            MemErrc::MR_LACKS_LOCAL_WRITE);
  // C10-75: the window lies inside the MR.
  EXPECT_EQ(bind({mr.id, kBase - 1, 0x10, Access::REMOTE_READ}, qp), MemErrc::MW_OUTSIDE_MR);
  EXPECT_EQ(bind({mr.id, kBase + kLen - 0xF, 0x10, Access::REMOTE_READ}, qp),
            MemErrc::MW_OUTSIDE_MR);
  EXPECT_EQ(bind({mr.id, kBase, kLen + 1, Access::REMOTE_READ}, qp), MemErrc::MW_OUTSIDE_MR);
  // Not to a zero-based MR (rxe).
  const MrKeys zb = reg(kMrRights | Access::ZERO_BASED, pd, 0x500000);
  EXPECT_EQ(bind({zb.id, 0, 0x10, Access::REMOTE_READ}, qp), MemErrc::MR_ZERO_BASED);
  // Rights that mean nothing for a window.
  EXPECT_EQ(bind({mr.id, kBase, 0x10, Access::REMOTE_READ | Access::MW_BIND}, qp),
            MemErrc::MW_ACCESS_UNSUPPORTED);
  // Unknown MR.
  EXPECT_EQ(bind({MrId{0x3000}, kBase, 0x10, Access::REMOTE_READ}, qp), MemErrc::INVALID_MR);
  // None of these changed the window: the next good bind gives inc_rkey of the original.
  EXPECT_EQ(bind_count(mr), 0u);
  EXPECT_EQ(read_only.id.index != 0, true);
  const auto ok =
      table.bind_mw_type1(qp, w.id, MwBindInfo{read_only.id, 0x400000, 0x10, Access::REMOTE_READ});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value, inc_rkey(w.rkey));
  // The whole MR is a valid window (the last byte included).
  EXPECT_TRUE(
      table.bind_mw_type1(qp, w.id, MwBindInfo{mr.id, kBase, kLen, Access::REMOTE_READ}).ok());
}

TEST_F(MwTest, IbvBindMwIsForTypeOneOnly) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  EXPECT_EQ(
      table.bind_mw_type1(qp, w.id, MwBindInfo{mr.id, kBase, 0x10, Access::REMOTE_READ}).error,
      MemErrc::MW_WRONG_TYPE);
  EXPECT_EQ(table.bind_mw_type1(qp, MwId{0x50000}, MwBindInfo{}).error, MemErrc::INVALID_MW);
}

TEST_F(MwTest, TypeOneIsNotInvalidatedByLocalInvOrSendWithInv) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_1).value;
  const Key k =
      table.bind_mw_type1(qp, w.id, MwBindInfo{mr.id, kBase, 0x100, Access::REMOTE_READ}).value;
  EXPECT_EQ(table.invalidate(qp, k), MemErrc::MW_TYPE1_NOT_INVALIDATABLE);  // o10-37.2.26
  EXPECT_EQ(access(MemOp::REMOTE_READ, k, qp, kBase, 8), AccessOutcome::OK);
  EXPECT_EQ(bind_count(mr), 1u);
}

TEST_F(MwTest, DeallocatingABoundWindowReleasesTheRegion) {
  const MwKeys w1 = table.alloc_mw(pd, MwType::TYPE_1).value;
  const MwKeys w2 = table.alloc_mw(pd, MwType::TYPE_2).value;
  const Key k1 =
      table.bind_mw_type1(qp, w1.id, MwBindInfo{mr.id, kBase, 0x100, Access::REMOTE_READ}).value;
  ASSERT_TRUE(table.bind_mw(qp, wr(w2, mr, kBase, 0x100, Access::REMOTE_READ)).ok());
  EXPECT_EQ(bind_count(mr), 2u);
  EXPECT_EQ(table.dealloc_mw(w1.id), MemErrc::OK);
  EXPECT_EQ(bind_count(mr), 1u);
  EXPECT_EQ(access(MemOp::REMOTE_READ, k1, qp, kBase, 8), AccessOutcome::INVALID_KEY_INDEX);
  EXPECT_EQ(table.dereg_mr(mr.id), MemErrc::MR_HAS_BOUND_MWS);
  EXPECT_EQ(table.dealloc_mw(w2.id), MemErrc::OK);
  EXPECT_EQ(table.dealloc_mw(w2.id), MemErrc::INVALID_MW);
  EXPECT_EQ(table.dereg_mr(mr.id), MemErrc::OK);
}

// --- type 2 ----------------------------------------------------------------------------------

TEST_F(MwTest, TypeTwoIsFreeAtAllocation) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  EXPECT_EQ(table.find_mw(w.id)->state, MwState::FREE);
  EXPECT_EQ(access(MemOp::REMOTE_READ, w.rkey, qp, kBase, 8), AccessOutcome::INVALID_STATE);
}

TEST_F(MwTest, TypeTwoBindTakesTheWrKeyByteAndTheQp) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  const auto r = table.bind_mw(qp, wr(w, mr, kBase + 0x40, 0x40, Access::REMOTE_WRITE, 0x5A));
  ASSERT_TRUE(r.ok()) << to_string(r.error);
  EXPECT_EQ(r.value, Key::make(w.id.index, 0x5A));  // MW index << 8 | the WR rkey's low byte
  EXPECT_EQ(table.find_mw(w.id)->state, MwState::VALID);
  EXPECT_EQ(table.find_mw(w.id)->qpn, qp.qpn);
  EXPECT_EQ(bind_count(mr), 1u);
  EXPECT_EQ(access(MemOp::REMOTE_WRITE, r.value, qp, kBase + 0x40, 0x40), AccessOutcome::OK);
  // Only the binding QP may use it, even in the same PD.
  EXPECT_EQ(access(MemOp::REMOTE_WRITE, r.value, qp_b, kBase + 0x40, 8),
            AccessOutcome::MW_QP_MISMATCH);
  // Window bounds tighter than the MR (§11.15).
  EXPECT_EQ(access(MemOp::REMOTE_WRITE, r.value, qp, kBase + 0x3F, 2),
            AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(access(MemOp::REMOTE_WRITE, r.value, qp, kBase + 0x7F, 2),
            AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(access(MemOp::REMOTE_WRITE, r.value, qp, kBase + 0x7F, 1), AccessOutcome::OK);
}

TEST_F(MwTest, TypeTwoMustBeFree) {  // o10-37.2.30
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  const Key k = table.bind_mw(qp, wr(w, mr, kBase, 0x40, Access::REMOTE_READ)).value;
  const auto again = table.bind_mw(qp, wr(w, mr, kBase, 0x80, Access::REMOTE_READ, 0x77));
  EXPECT_EQ(again.error, MemErrc::MW_NOT_FREE);
  EXPECT_EQ(table.find_mw(w.id)->rkey, k);
  EXPECT_EQ(bind_count(mr), 1u);
}

TEST_F(MwTest, TypeTwoQpMustShareTheWindowsPd) {  // C10-72
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  EXPECT_EQ(table.bind_mw(qp_other_pd, wr(w, mr, kBase, 0x40, Access::REMOTE_READ)).error,
            MemErrc::QP_PD_MISMATCH);
  EXPECT_EQ(table.find_mw(w.id)->state, MwState::FREE);
}

TEST_F(MwTest, TypeTwoNeedsAnMrAndALength) {  // o10-37.2.40
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  EXPECT_EQ(table.bind_mw(qp, wr(w, mr, kBase, 0, Access::REMOTE_READ)).error,
            MemErrc::MW_ZERO_LENGTH);
  BindMwWr no_mr = wr(w, mr, 0, 0, Access::REMOTE_READ);
  no_mr.mr_lkey = Key{0};
  EXPECT_EQ(table.bind_mw(qp, no_mr).error, MemErrc::MW_ZERO_LENGTH);
}

TEST_F(MwTest, TypeTwoCommonBindChecks) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  // C10-73
  const MrKeys no_bind = reg(Access::LOCAL_WRITE | Access::REMOTE_READ, pd, 0x300000);
  EXPECT_EQ(table.bind_mw(qp, wr(w, no_bind, 0x300000, 0x10, Access::REMOTE_READ)).error,
            MemErrc::MR_LACKS_MW_BIND);
  // C10-74
  const MrKeys read_only = reg(Access::REMOTE_READ | Access::MW_BIND, pd, 0x400000);
  EXPECT_EQ(table.bind_mw(qp, wr(w, read_only, 0x400000, 0x10, Access::REMOTE_WRITE)).error,
            MemErrc::MR_LACKS_LOCAL_WRITE);
  EXPECT_EQ(table.bind_mw(qp, wr(w, read_only, 0x400000, 0x10, Access::REMOTE_ATOMIC)).error,
            MemErrc::MR_LACKS_LOCAL_WRITE);
  // C10-75, VA-based
  EXPECT_EQ(table.bind_mw(qp, wr(w, mr, kBase - 1, 0x10, Access::REMOTE_READ)).error,
            MemErrc::MW_OUTSIDE_MR);
  EXPECT_EQ(table.bind_mw(qp, wr(w, mr, kBase + kLen - 0xF, 0x10, Access::REMOTE_READ)).error,
            MemErrc::MW_OUTSIDE_MR);
  EXPECT_EQ(table.bind_mw(qp, wr(w, mr, ~std::uint64_t{0} - 4, 0x10, Access::REMOTE_READ)).error,
            MemErrc::MW_OUTSIDE_MR);
  // C10-75, zero-based: length <= MR length
  EXPECT_EQ(
      table.bind_mw(qp, wr(w, mr, kBase, kLen + 1, Access::REMOTE_READ | Access::ZERO_BASED)).error,
      MemErrc::MW_OUTSIDE_MR);
  // §7.5: the MR in the window's PD
  const MrKeys foreign = reg(kMrRights, pd2, 0x900000);
  EXPECT_EQ(table.bind_mw(qp, wr(w, foreign, 0x900000, 0x10, Access::REMOTE_READ)).error,
            MemErrc::MR_PD_MISMATCH);
  // The MR must be VALID: a FREE fast-register MR cannot carry a window.
  const MrKeys fast = table.alloc_fast_reg_mr(pd, 0x1000).value;
  EXPECT_EQ(table.bind_mw(qp, wr(w, fast, 0, 0x10, Access::REMOTE_READ)).error,
            MemErrc::MR_NOT_VALID);
  EXPECT_EQ(table.find_mw(w.id)->state, MwState::FREE);
  EXPECT_EQ(table.find_mw(w.id)->rkey, w.rkey);
}

TEST_F(MwTest, BindWrNamesTheWindowAndTheRegionByTheirCurrentKeys) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  BindMwWr b = wr(w, mr, kBase, 0x10, Access::REMOTE_READ);
  b.mw_rkey = inc_rkey(w.rkey);
  EXPECT_EQ(table.bind_mw(qp, b).error, MemErrc::MW_KEY_MISMATCH);
  b.mw_rkey = Key::make(0x5FFFF, 1);
  EXPECT_EQ(table.bind_mw(qp, b).error, MemErrc::INVALID_MW_KEY);
  b.mw_rkey = mr.lkey;  // an MR key is no window
  EXPECT_EQ(table.bind_mw(qp, b).error, MemErrc::INVALID_MW_KEY);
  b.mw_rkey = w.rkey;
  b.mr_lkey = inc_rkey(mr.lkey);
  EXPECT_EQ(table.bind_mw(qp, b).error, MemErrc::MR_KEY_MISMATCH);
  b.mr_lkey = Key::make(0x3000, mr.lkey.key_byte());
  EXPECT_EQ(table.bind_mw(qp, b).error, MemErrc::INVALID_MR_KEY);
  b.mr_lkey = w.rkey;  // a window key is no MR
  EXPECT_EQ(table.bind_mw(qp, b).error, MemErrc::INVALID_MR_KEY);
  b.mr_lkey = mr.lkey;
  EXPECT_TRUE(table.bind_mw(qp, b).ok());
}

TEST_F(MwTest, ZeroBasedTypeTwoWindow) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  const Key k =
      table.bind_mw(qp, wr(w, mr, kBase + 0x1000, 0x100, Access::REMOTE_READ | Access::ZERO_BASED))
          .value;
  AccessRequest r;
  r.op = MemOp::REMOTE_READ;
  r.key = k;
  r.qp = qp;
  r.va = 0x10;
  r.length = 0xF0;
  const AccessResult a = table.check(r);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.host_addr, kBase + 0x1010);
  EXPECT_EQ(access(MemOp::REMOTE_READ, k, qp, 0xF8, 9), AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(access(MemOp::REMOTE_READ, k, qp, kBase + 0x1000, 8), AccessOutcome::OUT_OF_MW_BOUNDS);
}

TEST_F(MwTest, TypeTwoInvalidationFreesTheWindowAndTheRegion) {
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  const Key k = table.bind_mw(qp, wr(w, mr, kBase, 0x40, Access::REMOTE_READ, 0x10)).value;
  EXPECT_EQ(table.invalidate(qp, inc_rkey(k)), MemErrc::MW_KEY_MISMATCH);
  EXPECT_EQ(table.invalidate(qp, Key::make(0x5FFFF, 0x10)), MemErrc::INVALID_MW_KEY);
  EXPECT_EQ(table.dereg_mr(mr.id), MemErrc::MR_HAS_BOUND_MWS);

  EXPECT_EQ(table.invalidate(qp, k), MemErrc::OK);  // LOCAL_INV or SEND_WITH_INV's IETH
  EXPECT_EQ(table.find_mw(w.id)->state, MwState::FREE);
  EXPECT_EQ(bind_count(mr), 0u);
  EXPECT_EQ(access(MemOp::REMOTE_READ, k, qp, kBase, 8), AccessOutcome::INVALID_STATE);
  // Only a bound window can be invalidated.
  EXPECT_EQ(table.invalidate(qp, k), MemErrc::MW_NOT_BOUND);
  // FREE again, so it can be rebound (from another QP now) with a fresh tag.
  const auto again = table.bind_mw(qp_b, wr(w, mr, kBase, 0x40, Access::REMOTE_READ, 0x11));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value, Key::make(w.id.index, 0x11));
  EXPECT_EQ(access(MemOp::REMOTE_READ, again.value, qp_b, kBase, 8), AccessOutcome::OK);
  EXPECT_EQ(access(MemOp::REMOTE_READ, again.value, qp, kBase, 8), AccessOutcome::MW_QP_MISMATCH);
  EXPECT_EQ(table.invalidate(qp_b, again.value), MemErrc::OK);
  EXPECT_EQ(table.dereg_mr(mr.id), MemErrc::OK);
}

TEST_F(MwTest, BindCountFollowsEveryWindow) {
  const MwKeys a = table.alloc_mw(pd, MwType::TYPE_2).value;
  const MwKeys b = table.alloc_mw(pd, MwType::TYPE_2).value;
  const Key ka = table.bind_mw(qp, wr(a, mr, kBase, 0x10, Access::REMOTE_READ)).value;
  const Key kb = table.bind_mw(qp, wr(b, mr, kBase + 0x10, 0x10, Access::REMOTE_READ)).value;
  EXPECT_EQ(bind_count(mr), 2u);
  EXPECT_EQ(table.invalidate(qp, ka), MemErrc::OK);
  EXPECT_EQ(bind_count(mr), 1u);
  EXPECT_EQ(table.dereg_mr(mr.id), MemErrc::MR_HAS_BOUND_MWS);
  EXPECT_EQ(table.invalidate(qp, kb), MemErrc::OK);
  EXPECT_EQ(table.dereg_mr(mr.id), MemErrc::OK);
}

TEST_F(MwTest, KeyBytesOfWindowsAreFreshAcrossReallocation) {
  MemConfig c;
  c.mw_index_first = 0x40001;
  c.mw_index_last = 0x40001;  // one MW index, reused by every allocation
  MemTable t(c);
  const Pd p = t.alloc_pd().value;
  Key previous = t.alloc_mw(p, MwType::TYPE_2).value.rkey;
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(t.dealloc_mw(MwId{0x40001}), MemErrc::OK);
    const Key k = t.alloc_mw(p, MwType::TYPE_2).value.rkey;
    ASSERT_NE(k.key_byte(), previous.key_byte());
    previous = k;
  }
}
