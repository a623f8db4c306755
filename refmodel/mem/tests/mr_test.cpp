// PDs, MR registration rules (docs/spec-notes.md §7.2), keys (§7.1), re-registration,
// deregistration and fast registration with LOCAL_INV (§7.4).
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

#include "rocecert/mem/mem_table.h"

using namespace rocecert::mem;

namespace {

constexpr std::uint64_t kTop = ~std::uint64_t{0};

MrRegistration make_reg(Pd pd, Access access, std::uint64_t addr = 0x100000,
                        std::uint64_t length = 0x1000) {
  MrRegistration r;
  r.pd = pd;
  r.addr = addr;
  r.length = length;
  r.access = access;
  return r;
}

AccessRequest make_req(MemOp op, Key key, QpRef qp, std::uint64_t va, std::uint64_t len) {
  AccessRequest r;
  r.op = op;
  r.key = key;
  r.qp = qp;
  r.va = va;
  r.length = len;
  return r;
}

class MrTest : public ::testing::Test {
 protected:
  MrTest() : MrTest(MemConfig{}) {}
  explicit MrTest(const MemConfig& c) : table(c) {
    pd = table.alloc_pd().value;
    pd2 = table.alloc_pd().value;
    qp = QpRef{0x11, pd};
  }
  MemTable table;
  Pd pd;
  Pd pd2;
  QpRef qp;
};

}  // namespace

// --- protection domains ----------------------------------------------------------------------

TEST_F(MrTest, ProtectionDomains) {
  EXPECT_NE(pd.value, 0u);
  EXPECT_NE(pd, pd2);
  EXPECT_TRUE(table.has_pd(pd));
  EXPECT_EQ(table.reg_mr(make_reg(Pd{999}, Access::NONE)).error, MemErrc::INVALID_PD);
  const MrKeys k = table.reg_mr(make_reg(pd2, Access::NONE)).value;
  EXPECT_EQ(table.dealloc_pd(pd2), MemErrc::PD_IN_USE);
  EXPECT_EQ(table.dereg_mr(k.id), MemErrc::OK);
  EXPECT_EQ(table.dealloc_pd(pd2), MemErrc::OK);
  EXPECT_EQ(table.dealloc_pd(pd2), MemErrc::INVALID_PD);
  EXPECT_FALSE(table.has_pd(pd2));
  const Pd mw_pd = table.alloc_pd().value;
  const MwKeys mw = table.alloc_mw(mw_pd, MwType::TYPE_2).value;
  EXPECT_EQ(table.dealloc_pd(mw_pd), MemErrc::PD_IN_USE);
  EXPECT_EQ(table.dealloc_mw(mw.id), MemErrc::OK);
  EXPECT_EQ(table.dealloc_pd(mw_pd), MemErrc::OK);
}

// --- registration rules (§7.2) ---------------------------------------------------------------

TEST_F(MrTest, RemoteWriteOrAtomicRequiresLocalWrite) {
  EXPECT_EQ(table.reg_mr(make_reg(pd, Access::REMOTE_WRITE)).error,
            MemErrc::REMOTE_NEEDS_LOCAL_WRITE);
  EXPECT_EQ(table.reg_mr(make_reg(pd, Access::REMOTE_ATOMIC)).error,
            MemErrc::REMOTE_NEEDS_LOCAL_WRITE);
  EXPECT_EQ(table.reg_mr(make_reg(pd, Access::REMOTE_WRITE | Access::REMOTE_READ)).error,
            MemErrc::REMOTE_NEEDS_LOCAL_WRITE);
  EXPECT_EQ(errno_value(MemErrc::REMOTE_NEEDS_LOCAL_WRITE), 22);  // EINVAL
  EXPECT_TRUE(table.reg_mr(make_reg(pd, Access::REMOTE_READ)).ok());
  EXPECT_TRUE(table.reg_mr(make_reg(pd, Access::NONE)).ok());
  EXPECT_TRUE(table.reg_mr(make_reg(pd, Access::LOCAL_WRITE | Access::REMOTE_WRITE)).ok());
  EXPECT_TRUE(table.reg_mr(make_reg(pd, Access::LOCAL_WRITE | Access::REMOTE_ATOMIC)).ok());
  EXPECT_EQ(table.mr_count(), 4u);
}

TEST_F(MrTest, OptionalAccessBitsNeverFailARegistration) {
  for (unsigned bit = 20; bit <= 29; ++bit) {
    const Access a = Access::REMOTE_READ | access_from_u32(1u << bit);
    const auto r = table.reg_mr(make_reg(pd, a));
    ASSERT_TRUE(r.ok()) << "bit " << bit;
    EXPECT_TRUE(table.check(make_req(MemOp::REMOTE_READ, r.value.rkey, qp, 0x100000, 8)).ok());
  }
  // They do not excuse the LOCAL_WRITE rule.
  EXPECT_EQ(table.reg_mr(make_reg(pd, Access::REMOTE_WRITE | Access::RELAXED_ORDERING)).error,
            MemErrc::REMOTE_NEEDS_LOCAL_WRITE);
}

TEST_F(MrTest, UndefinedAccessBitsFail) {
  for (unsigned bit : {10u, 15u, 19u, 30u, 31u}) {
    EXPECT_EQ(table.reg_mr(make_reg(pd, access_from_u32(1u << bit))).error,
              MemErrc::INVALID_ACCESS_FLAGS)
        << "bit " << bit;
  }
  // The defined non-remote bits are accepted.
  EXPECT_TRUE(table
                  .reg_mr(make_reg(pd, Access::MW_BIND | Access::ON_DEMAND | Access::HUGETLB |
                                           Access::FLUSH_GLOBAL | Access::FLUSH_PERSISTENT))
                  .ok());
}

TEST_F(MrTest, RangesMustNotWrap) {
  EXPECT_EQ(table.reg_mr(make_reg(pd, Access::NONE, kTop - 0xFF, 0x101)).error,
            MemErrc::RANGE_WRAPS);
  EXPECT_TRUE(table.reg_mr(make_reg(pd, Access::NONE, kTop - 0xFF, 0x100)).ok());
  MrRegistration r = make_reg(pd, Access::NONE);
  r.iova = kTop - 0xF;  // iova + length wraps
  EXPECT_EQ(table.reg_mr(r).error, MemErrc::RANGE_WRAPS);
}

TEST_F(MrTest, IovaOfRegMrIovaAndZeroBased) {
  // ibv_reg_mr: the iova is the address.
  const MrKeys plain = table.reg_mr(make_reg(pd, Access::REMOTE_READ, 0x100000)).value;
  EXPECT_EQ(table.find_mr(plain.id)->iova, 0x100000u);
  // ibv_reg_mr_iova: a byte at iova x lives at addr + (x - hca_va).
  MrRegistration r = make_reg(pd, Access::REMOTE_READ, 0x200000, 0x1000);
  r.iova = 0xABCD'0000'0000ull;
  const MrKeys k = table.reg_mr(r).value;
  const AccessResult a =
      table.check(make_req(MemOp::REMOTE_READ, k.rkey, qp, 0xABCD'0000'0010ull, 8));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.host_addr, 0x200010u);
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, k.rkey, qp, 0x200010, 8)).outcome,
            AccessOutcome::OUT_OF_BOUNDS);
  // ZERO_BASED: VAs are offsets from the MR start.
  const MrKeys z =
      table.reg_mr(make_reg(pd, Access::REMOTE_READ | Access::ZERO_BASED, 0x300000)).value;
  EXPECT_EQ(table.find_mr(z.id)->iova, 0u);
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, z.rkey, qp, 0x20, 8)).host_addr, 0x300020u);
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, z.rkey, qp, 0x300020, 8)).outcome,
            AccessOutcome::OUT_OF_BOUNDS);
  // hca_va = 0 is equivalent to ZERO_BASED.
  MrRegistration zero = make_reg(pd, Access::REMOTE_READ, 0x400000);
  zero.iova = 0;
  const MrKeys z2 = table.reg_mr(zero).value;
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, z2.rkey, qp, 0x20, 8)).host_addr, 0x400020u);
}

// --- keys (§7.1) -----------------------------------------------------------------------------

TEST_F(MrTest, KeyLayoutAndIndexRanges) {
  const MrKeys k = table.reg_mr(make_reg(pd, Access::REMOTE_READ)).value;
  EXPECT_EQ(k.lkey.index(), 1u);  // rxe MR indices start at 1; index 0 is never valid
  EXPECT_EQ(k.lkey, k.rkey);      // newer rxe: lkey == rkey
  EXPECT_EQ(k.id.index, k.lkey.index());
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  EXPECT_EQ(w.rkey.index(), 0x40001u);  // rxe MW indices 0x40001..0x60000
  EXPECT_EQ(table.key_space(k.lkey), KeySpace::MR);
  EXPECT_EQ(table.key_space(w.rkey), KeySpace::MW);
}

TEST(MrKeys, ConfigurableIndexRangesAndExhaustion) {
  MemConfig c;
  c.mr_index_first = 0x10;
  c.mr_index_last = 0x11;
  c.mw_index_first = 0x20;
  c.mw_index_last = 0x20;
  MemTable t(c);
  const Pd pd = t.alloc_pd().value;
  EXPECT_EQ(t.reg_mr(make_reg(pd, Access::NONE)).value.lkey.index(), 0x10u);
  EXPECT_EQ(t.reg_mr(make_reg(pd, Access::NONE)).value.lkey.index(), 0x11u);
  EXPECT_EQ(t.reg_mr(make_reg(pd, Access::NONE)).error, MemErrc::INDEX_EXHAUSTED);
  EXPECT_EQ(errno_value(MemErrc::INDEX_EXHAUSTED), 12);  // ENOMEM
  EXPECT_EQ(t.alloc_mw(pd, MwType::TYPE_1).value.rkey.index(), 0x20u);
  EXPECT_EQ(t.alloc_mw(pd, MwType::TYPE_1).error, MemErrc::INDEX_EXHAUSTED);
  EXPECT_EQ(t.key_space(Key::make(0x12, 0)), KeySpace::NONE);
}

TEST(MrKeys, InvalidConfigurationsAreRejected) {
  MemConfig overlap;
  overlap.mw_index_first = 0x40000;  // overlaps the MR range
  EXPECT_FALSE(is_valid(overlap));
  EXPECT_THROW(MemTable{overlap}, std::invalid_argument);
  MemConfig zero;
  zero.mr_index_first = 0;  // index 0 is never valid
  EXPECT_FALSE(is_valid(zero));
  MemConfig wide;
  wide.mw_index_last = 0x1000000;  // beyond 24 bits
  EXPECT_FALSE(is_valid(wide));
  EXPECT_TRUE(is_valid(MemConfig{}));
}

TEST(MrKeys, KeyBytesAreDeterministicForASeed) {
  auto keys_for = [](std::uint64_t seed) {
    MemConfig c;
    c.seed = seed;
    MemTable t(c);
    const Pd pd = t.alloc_pd().value;
    std::vector<std::uint32_t> v;
    for (int i = 0; i < 16; ++i)
      v.push_back(t.reg_mr(make_reg(pd, Access::NONE)).value.lkey.value());
    for (int i = 0; i < 4; ++i) v.push_back(t.alloc_mw(pd, MwType::TYPE_2).value.rkey.value());
    return v;
  };
  EXPECT_EQ(keys_for(42), keys_for(42));
  EXPECT_NE(keys_for(42), keys_for(43));
}

TEST(MrKeys, AReusedIndexNeverGetsItsPreviousKeyByte) {
  MemConfig c;
  c.mr_index_last = 1;  // a single MR index: every registration reuses it
  MemTable t(c);
  const Pd pd = t.alloc_pd().value;
  const QpRef qp{1, pd};
  Key previous = t.reg_mr(make_reg(pd, Access::REMOTE_READ)).value.rkey;
  for (int i = 0; i < 300; ++i) {
    ASSERT_EQ(t.dereg_mr(MrId{1}), MemErrc::OK);
    const Key k = t.reg_mr(make_reg(pd, Access::REMOTE_READ)).value.rkey;
    ASSERT_EQ(k.index(), 1u);
    ASSERT_NE(k.key_byte(), previous.key_byte());
    // The stale key of the previous registration no longer works.
    ASSERT_EQ(t.check(make_req(MemOp::REMOTE_READ, previous, qp, 0x100000, 8)).outcome,
              AccessOutcome::KEY_MISMATCH);
    previous = k;
  }
}

TEST_F(MrTest, FreedIndicesAreNotReusedAtOnce) {
  // Cyclic allocation as rxe's xa_alloc_cyclic.
  const MrKeys a = table.reg_mr(make_reg(pd, Access::NONE)).value;
  const MrKeys b = table.reg_mr(make_reg(pd, Access::NONE)).value;
  ASSERT_EQ(table.dereg_mr(a.id), MemErrc::OK);
  const MrKeys c = table.reg_mr(make_reg(pd, Access::NONE)).value;
  EXPECT_EQ(b.id.index, a.id.index + 1);
  EXPECT_EQ(c.id.index, b.id.index + 1);
}

TEST(MrKeys, RkeyZeroWithoutRemoteRightsProfile) {
  MemConfig c;
  c.rkey_zero_without_remote = true;  // older rxe
  MemTable t(c);
  const Pd pd = t.alloc_pd().value;
  const MrKeys local = t.reg_mr(make_reg(pd, Access::LOCAL_WRITE)).value;
  EXPECT_EQ(local.rkey, Key{0});
  EXPECT_NE(local.lkey, Key{0});
  const MrKeys remote = t.reg_mr(make_reg(pd, Access::REMOTE_READ)).value;
  EXPECT_EQ(remote.rkey, remote.lkey);
  const QpRef qp{1, pd};
  EXPECT_EQ(t.check(make_req(MemOp::REMOTE_READ, local.lkey, qp, 0x100000, 8)).outcome,
            AccessOutcome::KEY_MISMATCH);
  EXPECT_TRUE(t.check(make_req(MemOp::LOCAL_WRITE, local.lkey, qp, 0x100000, 8)).ok());
}

// --- re-registration and deregistration ------------------------------------------------------

TEST_F(MrTest, ReregChangingAccessGivesNewKeys) {
  const MrKeys k = table.reg_mr(make_reg(pd, Access::REMOTE_READ)).value;
  MrRereg rr;
  rr.flags = kReregChangeAccess;
  rr.access = Access::LOCAL_WRITE | Access::REMOTE_WRITE;
  const auto r = table.rereg_mr(k.id, rr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value.id, k.id);
  EXPECT_EQ(r.value.lkey.index(), k.lkey.index());
  EXPECT_NE(r.value.lkey.key_byte(), k.lkey.key_byte());
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_WRITE, k.rkey, qp, 0x100000, 8)).outcome,
            AccessOutcome::KEY_MISMATCH);
  EXPECT_TRUE(table.check(make_req(MemOp::REMOTE_WRITE, r.value.rkey, qp, 0x100000, 8)).ok());
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, r.value.rkey, qp, 0x100000, 8)).outcome,
            AccessOutcome::ACCESS_DENIED);
}

TEST_F(MrTest, ReregChangingPdAndTranslation) {
  const MrKeys k = table.reg_mr(make_reg(pd, Access::REMOTE_READ)).value;
  MrRereg rr;
  rr.flags = kReregChangePd | kReregChangeTranslation;
  rr.pd = pd2;
  rr.addr = 0x900000;
  rr.length = 0x2000;
  const MrKeys n = table.rereg_mr(k.id, rr).value;
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, n.rkey, qp, 0x900000, 8)).outcome,
            AccessOutcome::PD_MISMATCH);
  const QpRef qp2{0x22, pd2};
  EXPECT_TRUE(table.check(make_req(MemOp::REMOTE_READ, n.rkey, qp2, 0x901FF8, 8)).ok());
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, n.rkey, qp2, 0x100000, 8)).outcome,
            AccessOutcome::OUT_OF_BOUNDS);
  EXPECT_EQ(table.find_mr(k.id)->iova, 0x900000u);
}

TEST_F(MrTest, ReregFailuresLeaveTheRegionUntouched) {
  const MrKeys k = table.reg_mr(make_reg(pd, Access::REMOTE_READ)).value;
  const MemoryRegion before = *table.find_mr(k.id);
  MrRereg rr;
  rr.flags = 0;
  EXPECT_EQ(table.rereg_mr(k.id, rr).error, MemErrc::INVALID_REREG_FLAGS);
  rr.flags = 8;
  EXPECT_EQ(table.rereg_mr(k.id, rr).error, MemErrc::INVALID_REREG_FLAGS);
  rr.flags = kReregChangeAccess;
  rr.access = Access::REMOTE_ATOMIC;  // without LOCAL_WRITE
  EXPECT_EQ(table.rereg_mr(k.id, rr).error, MemErrc::REMOTE_NEEDS_LOCAL_WRITE);
  rr.flags = kReregChangePd;
  rr.pd = Pd{999};
  EXPECT_EQ(table.rereg_mr(k.id, rr).error, MemErrc::INVALID_PD);
  rr.flags = kReregChangeTranslation;
  rr.addr = kTop;
  rr.length = 2;
  EXPECT_EQ(table.rereg_mr(k.id, rr).error, MemErrc::RANGE_WRAPS);
  EXPECT_EQ(table.rereg_mr(MrId{0x3000}, rr).error, MemErrc::INVALID_MR);
  const MemoryRegion& after = *table.find_mr(k.id);
  EXPECT_EQ(after.lkey, before.lkey);
  EXPECT_EQ(after.pd, before.pd);
  EXPECT_EQ(after.access, before.access);
  EXPECT_EQ(after.length, before.length);
  EXPECT_TRUE(table.check(make_req(MemOp::REMOTE_READ, k.rkey, qp, 0x100000, 8)).ok());
}

TEST_F(MrTest, ReregAndDeregFailWhileWindowsAreBound) {
  const MrKeys k = table.reg_mr(make_reg(pd, Access::LOCAL_WRITE | Access::MW_BIND)).value;
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_1).value;
  ASSERT_TRUE(
      table.bind_mw_type1(qp, w.id, MwBindInfo{k.id, 0x100000, 0x10, Access::REMOTE_READ}).ok());
  EXPECT_EQ(table.find_mr(k.id)->bound_mws, 1u);
  EXPECT_EQ(table.dereg_mr(k.id), MemErrc::MR_HAS_BOUND_MWS);
  MrRereg rr;
  rr.flags = kReregChangeAccess;
  rr.access = Access::LOCAL_WRITE;
  EXPECT_EQ(table.rereg_mr(k.id, rr).error, MemErrc::MR_HAS_BOUND_MWS);
  // Unbinding (type 1: bind with length 0) releases the MR.
  ASSERT_TRUE(table.bind_mw_type1(qp, w.id, MwBindInfo{}).ok());
  EXPECT_EQ(table.find_mr(k.id)->bound_mws, 0u);
  EXPECT_EQ(table.dereg_mr(k.id), MemErrc::OK);
  EXPECT_EQ(table.dereg_mr(k.id), MemErrc::INVALID_MR);
}

// --- fast registration (§7.4) ----------------------------------------------------------------

namespace {

RegMrWr reg_wr(MrKeys k, std::uint8_t byte, Access access, std::uint64_t len = 0x1000) {
  RegMrWr wr;
  wr.mr = k.id;
  wr.key = Key::make(k.id.index, byte);
  wr.access = access;
  wr.iova = 0x5000'0000;
  wr.host_addr = 0x800000;
  wr.length = len;
  return wr;
}

}  // namespace

TEST_F(MrTest, FastRegMrLifeCycle) {
  const MrKeys k = table.alloc_fast_reg_mr(pd, 0x4000).value;
  EXPECT_EQ(table.find_mr(k.id)->state, MrState::FREE);
  EXPECT_EQ(table.find_mr(k.id)->kind, MrKind::FAST_REG);
  EXPECT_EQ(table.check(make_req(MemOp::LOCAL_READ, k.lkey, qp, 0, 1)).outcome,
            AccessOutcome::INVALID_STATE);

  const Key key1 = inc_rkey(k.lkey);  // the user picks a fresh tag with ibv_inc_rkey
  ASSERT_EQ(table.reg_mr_wr(qp, reg_wr(k, key1.key_byte(), Access::REMOTE_READ)), MemErrc::OK);
  EXPECT_EQ(table.find_mr(k.id)->state, MrState::VALID);
  const AccessResult ok = table.check(make_req(MemOp::REMOTE_READ, key1, qp, 0x5000'0008, 8));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.host_addr, 0x800008u);
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, k.lkey, qp, 0x5000'0008, 8)).outcome,
            AccessOutcome::KEY_MISMATCH);

  // REG_MR again while VALID: the MR must be FREE.
  EXPECT_EQ(table.reg_mr_wr(qp, reg_wr(k, 0x01, Access::REMOTE_READ)), MemErrc::MR_NOT_FREE);
  // LOCAL_INV: back to FREE, the key is dead.
  EXPECT_EQ(table.invalidate(qp, key1), MemErrc::OK);
  EXPECT_EQ(table.find_mr(k.id)->state, MrState::FREE);
  EXPECT_EQ(table.check(make_req(MemOp::REMOTE_READ, key1, qp, 0x5000'0008, 8)).outcome,
            AccessOutcome::INVALID_STATE);
  // And it can be fast-registered again with another tag.
  const Key key2 = inc_rkey(key1);
  EXPECT_EQ(table.reg_mr_wr(qp, reg_wr(k, key2.key_byte(), Access::LOCAL_WRITE)), MemErrc::OK);
  EXPECT_TRUE(table.check(make_req(MemOp::LOCAL_WRITE, key2, qp, 0x5000'0000, 0x1000)).ok());
}

TEST_F(MrTest, RegMrPreconditions) {
  const MrKeys k = table.alloc_fast_reg_mr(pd, 0x1000).value;
  // QP.PD must equal MR.PD.
  EXPECT_EQ(table.reg_mr_wr(QpRef{0x22, pd2}, reg_wr(k, 7, Access::NONE)), MemErrc::QP_PD_MISMATCH);
  // Only the key byte may change.
  RegMrWr moved = reg_wr(k, 7, Access::NONE);
  moved.key = Key::make(k.id.index + 1, 7);
  EXPECT_EQ(table.reg_mr_wr(qp, moved), MemErrc::KEY_INDEX_CHANGED);
  // The registration access rules hold.
  EXPECT_EQ(table.reg_mr_wr(qp, reg_wr(k, 7, Access::REMOTE_WRITE)),
            MemErrc::REMOTE_NEEDS_LOCAL_WRITE);
  // The capacity fixed at allocation.
  EXPECT_EQ(table.reg_mr_wr(qp, reg_wr(k, 7, Access::NONE, 0x1001)), MemErrc::LENGTH_EXCEEDS_MAX);
  // A user MR is not fast-registered.
  const MrKeys user = table.reg_mr(make_reg(pd, Access::NONE)).value;
  EXPECT_EQ(table.reg_mr_wr(qp, reg_wr(user, 7, Access::NONE)), MemErrc::MR_NOT_FAST_REG);
  EXPECT_EQ(table.reg_mr_wr(qp, reg_wr(MrKeys{MrId{0x3000}, {}, {}}, 7, Access::NONE)),
            MemErrc::INVALID_MR);
  // None of the failures changed the MR.
  EXPECT_EQ(table.find_mr(k.id)->state, MrState::FREE);
  EXPECT_EQ(table.find_mr(k.id)->lkey, k.lkey);
}

TEST_F(MrTest, LocalInvalidatePreconditionsForRegions) {
  const MrKeys k = table.alloc_fast_reg_mr(pd, 0x1000).value;
  ASSERT_EQ(table.reg_mr_wr(qp, reg_wr(k, 0x42, Access::LOCAL_WRITE | Access::MW_BIND)),
            MemErrc::OK);
  const Key key = Key::make(k.id.index, 0x42);
  EXPECT_EQ(table.invalidate(qp, Key::make(k.id.index, 0x43)), MemErrc::MR_KEY_MISMATCH);
  EXPECT_EQ(table.invalidate(qp, Key::make(0x3000, 0x42)), MemErrc::INVALID_MR_KEY);
  EXPECT_EQ(table.invalidate(qp, Key{0}), MemErrc::INVALID_KEY);
  EXPECT_EQ(table.invalidate(qp, Key::make(0x70000, 1)), MemErrc::INVALID_KEY);
  // Not while a window is bound to it.
  const MwKeys w = table.alloc_mw(pd, MwType::TYPE_2).value;
  BindMwWr b;
  b.mw_rkey = w.rkey;
  b.new_rkey = inc_rkey(w.rkey);
  b.mr_lkey = key;
  b.addr = 0x5000'0000;
  b.length = 0x10;
  b.access = Access::REMOTE_READ;
  const Key mw_key = table.bind_mw(qp, b).value;
  EXPECT_EQ(table.invalidate(qp, key), MemErrc::MR_HAS_BOUND_MWS);
  EXPECT_EQ(table.invalidate(qp, mw_key), MemErrc::OK);
  EXPECT_EQ(table.invalidate(qp, key), MemErrc::OK);
  // Only fast-register MRs are invalidated.
  const MrKeys user = table.reg_mr(make_reg(pd, Access::REMOTE_READ)).value;
  EXPECT_EQ(table.invalidate(qp, user.rkey), MemErrc::MR_NOT_FAST_REG);
  EXPECT_TRUE(table.check(make_req(MemOp::REMOTE_READ, user.rkey, qp, 0x100000, 8)).ok());
}

TEST(MrInvalidate, WithoutRemoteRightsTheLkeyIsTheKeyToInvalidate) {
  MemConfig c;
  c.rkey_zero_without_remote = true;
  MemTable t(c);
  const Pd pd = t.alloc_pd().value;
  const QpRef qp{1, pd};
  const MrKeys k = t.alloc_fast_reg_mr(pd, 0x1000).value;
  RegMrWr wr = reg_wr(k, 0x10, Access::LOCAL_WRITE);
  ASSERT_EQ(t.reg_mr_wr(qp, wr), MemErrc::OK);
  EXPECT_EQ(t.find_mr(k.id)->rkey, Key{0});
  EXPECT_EQ(t.invalidate(qp, wr.key), MemErrc::OK);
}

TEST(MrInvalidate, PdCheckIsAProfileOption) {
  MemConfig c;
  c.invalidate_checks_pd = true;
  MemTable t(c);
  const Pd pd = t.alloc_pd().value;
  const Pd other = t.alloc_pd().value;
  const MrKeys k = t.alloc_fast_reg_mr(pd, 0x1000).value;
  RegMrWr wr = reg_wr(k, 0x10, Access::REMOTE_READ);
  ASSERT_EQ(t.reg_mr_wr(QpRef{1, pd}, wr), MemErrc::OK);
  EXPECT_EQ(t.invalidate(QpRef{2, other}, wr.key), MemErrc::QP_PD_MISMATCH);
  EXPECT_EQ(t.invalidate(QpRef{1, pd}, wr.key), MemErrc::OK);
}

TEST(MemErrcNames, EveryErrorHasANameAndAText) {
  for (unsigned i = 0; i <= static_cast<unsigned>(MemErrc::MW_NOT_BOUND); ++i) {
    const auto e = static_cast<MemErrc>(i);
    EXPECT_NE(to_string(e), "?");
    EXPECT_FALSE(describe(e).empty());
    EXPECT_EQ(errno_value(e) == 0, e == MemErrc::OK);
  }
}
