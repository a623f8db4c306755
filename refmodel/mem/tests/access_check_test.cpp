// The pure access check, from IBTA Vol. 1 §10.6; docs/spec-notes.md §7.3-7.6, §8.4, §11.15 and
// C9-88. Entries are built by hand: the check takes the resolved MR/MW and the request and does no
// lookup.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "rocecert/mem/access_check.h"
#include "rocecert/mem/mem_table.h"

using namespace rocecert::mem;

namespace {

constexpr std::uint64_t kTop = ~std::uint64_t{0};
constexpr Access kAllRights = Access::LOCAL_WRITE | Access::REMOTE_WRITE | Access::REMOTE_READ |
                              Access::REMOTE_ATOMIC | Access::FLUSH_GLOBAL |
                              Access::FLUSH_PERSISTENT | Access::MW_BIND;

class PureCheck : public ::testing::Test {
 protected:
  PureCheck() {
    mr.id = MrId{5};
    mr.pd = Pd{1};
    mr.kind = MrKind::USER;
    mr.state = MrState::VALID;
    mr.lkey = Key::make(5, 0x3C);
    mr.rkey = mr.lkey;
    mr.access = kAllRights;
    mr.host_addr = 0x10000;
    mr.iova = 0x7000'0000;
    mr.length = 0x1000;
    mr.max_length = mr.length;
  }
  AccessRequest req(MemOp op, std::uint64_t va, std::uint64_t len) const {
    AccessRequest r;
    r.op = op;
    r.key = mr.lkey;
    r.qp = qp;
    r.va = va;
    r.length = len;
    if (op == MemOp::FLUSH) r.flush_placement = kFlushGlobal;
    return r;
  }
  AccessOutcome on_mr(const AccessRequest& r) const {
    return check_access({&mr, nullptr}, r).outcome;
  }

  MemoryRegion mr;
  QpRef qp{0x11, Pd{1}};
};

}  // namespace

TEST_F(PureCheck, AllowedAccessGivesTheHostAddress) {
  const AccessResult r =
      check_access({&mr, nullptr}, req(MemOp::REMOTE_READ, mr.iova + 0x10, 0x20));
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.zero_length_exempt);
  EXPECT_EQ(r.host_addr, 0x10010u);
  EXPECT_EQ(r.mr, MrId{5});
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_WRITE, mr.iova, mr.length)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::LOCAL_WRITE, mr.iova, mr.length)), AccessOutcome::OK);
}

TEST_F(PureCheck, NoObjectIsAnInvalidKeyIndex) {
  EXPECT_EQ(check_access({}, req(MemOp::REMOTE_READ, mr.iova, 8)).outcome,
            AccessOutcome::INVALID_KEY_INDEX);
  EXPECT_EQ(check_access({}, req(MemOp::LOCAL_READ, mr.iova, 8)).outcome,
            AccessOutcome::INVALID_KEY_INDEX);
}

TEST_F(PureCheck, KeyMustMatchInAll32Bits) {
  AccessRequest r = req(MemOp::REMOTE_READ, mr.iova, 8);
  r.key = Key::make(5, 0x3D);  // wrong key byte
  EXPECT_EQ(on_mr(r), AccessOutcome::KEY_MISMATCH);
  r.key = Key::make(6, 0x3C);  // right byte, other index
  EXPECT_EQ(on_mr(r), AccessOutcome::KEY_MISMATCH);
  r.op = MemOp::LOCAL_READ;
  r.key = Key::make(5, 0x3B);
  EXPECT_EQ(on_mr(r), AccessOutcome::KEY_MISMATCH);
}

TEST_F(PureCheck, RemoteChecksUseTheRkeyLocalChecksTheLkey) {
  mr.rkey = Key{0};  // older rxe: no rkey without remote rights
  mr.access = Access::LOCAL_WRITE;
  EXPECT_EQ(on_mr(req(MemOp::LOCAL_WRITE, mr.iova, 8)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova, 8)), AccessOutcome::KEY_MISMATCH);
}

TEST_F(PureCheck, ProtectionDomainMustMatch) {
  AccessRequest r = req(MemOp::REMOTE_WRITE, mr.iova, 8);
  r.qp.pd = Pd{2};
  EXPECT_EQ(on_mr(r), AccessOutcome::PD_MISMATCH);
  r.op = MemOp::LOCAL_READ;
  EXPECT_EQ(on_mr(r), AccessOutcome::PD_MISMATCH);
}

TEST_F(PureCheck, RegionMustBeValid) {
  mr.state = MrState::FREE;  // fast-reg MR after LOCAL_INV, or never registered
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova, 8)), AccessOutcome::INVALID_STATE);
  EXPECT_EQ(on_mr(req(MemOp::LOCAL_READ, mr.iova, 8)), AccessOutcome::INVALID_STATE);
}

TEST_F(PureCheck, EachOperationNeedsItsRight) {
  struct Case {
    MemOp op;
    std::uint8_t placement;
    Access missing;
  };
  const Case cases[] = {
      {MemOp::REMOTE_READ, 0, Access::REMOTE_READ},
      {MemOp::REMOTE_WRITE, 0, Access::REMOTE_WRITE},
      {MemOp::REMOTE_ATOMIC, 0, Access::REMOTE_ATOMIC},
      {MemOp::ATOMIC_WRITE, 0, Access::REMOTE_WRITE},
      {MemOp::FLUSH, kFlushGlobal, Access::FLUSH_GLOBAL},
      {MemOp::FLUSH, kFlushPersistent, Access::FLUSH_PERSISTENT},
      {MemOp::FLUSH, kFlushGlobal | kFlushPersistent, Access::FLUSH_GLOBAL},
      {MemOp::FLUSH, kFlushGlobal | kFlushPersistent, Access::FLUSH_PERSISTENT},
      {MemOp::LOCAL_WRITE, 0, Access::LOCAL_WRITE},
  };
  for (const Case& c : cases) {
    AccessRequest r = req(c.op, mr.iova, 8);
    r.flush_placement = c.placement;
    mr.access = kAllRights;
    EXPECT_EQ(on_mr(r), AccessOutcome::OK) << to_string(c.op);
    mr.access = access_from_u32(to_u32(kAllRights) & ~to_u32(c.missing));
    EXPECT_EQ(on_mr(r), AccessOutcome::ACCESS_DENIED)
        << to_string(c.op) << " without " << to_string(c.missing);
  }
  // Local read needs no right at all (§7.2 "local read is always allowed").
  mr.access = Access::NONE;
  EXPECT_EQ(on_mr(req(MemOp::LOCAL_READ, mr.iova, 8)), AccessOutcome::OK);
}

TEST_F(PureCheck, RequiredAccessTable) {
  EXPECT_EQ(required_access(MemOp::LOCAL_READ), Access::NONE);
  EXPECT_EQ(required_access(MemOp::LOCAL_WRITE), Access::LOCAL_WRITE);
  EXPECT_EQ(required_access(MemOp::REMOTE_READ), Access::REMOTE_READ);
  EXPECT_EQ(required_access(MemOp::REMOTE_WRITE), Access::REMOTE_WRITE);
  EXPECT_EQ(required_access(MemOp::ATOMIC_WRITE), Access::REMOTE_WRITE);
  EXPECT_EQ(required_access(MemOp::REMOTE_ATOMIC), Access::REMOTE_ATOMIC);
  EXPECT_EQ(required_access(MemOp::FLUSH, kFlushGlobal | kFlushPersistent),
            Access::FLUSH_GLOBAL | Access::FLUSH_PERSISTENT);
}

TEST_F(PureCheck, OneByteOutOfBoundsAtEachEnd) {
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova, mr.length)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova - 1, 1)), AccessOutcome::OUT_OF_BOUNDS);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova - 1, 2)), AccessOutcome::OUT_OF_BOUNDS);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova + mr.length - 1, 1)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova + mr.length - 1, 2)),
            AccessOutcome::OUT_OF_BOUNDS);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova + mr.length, 1)), AccessOutcome::OUT_OF_BOUNDS);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_WRITE, mr.iova, mr.length + 1)), AccessOutcome::OUT_OF_BOUNDS);
  EXPECT_EQ(on_mr(req(MemOp::LOCAL_WRITE, mr.iova + mr.length, 1)), AccessOutcome::OUT_OF_BOUNDS);
}

TEST_F(PureCheck, RangeWrappingPastTwoToTheSixtyFourIsNeverInside) {
  // A naive va + len would wrap back to mr.iova + 1 and look "inside".
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_WRITE, mr.iova + 2, kTop)), AccessOutcome::LENGTH_OVERFLOW);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, kTop - 0xF, 0x20)), AccessOutcome::LENGTH_OVERFLOW);
  // An MR at the very top of the iova space: a range ending exactly at 2^64 is fine.
  mr.iova = kTop - 0xFFF;  // [2^64 - 0x1000, 2^64)
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, kTop - 7, 8)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_ATOMIC, kTop - 7, 8)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, kTop - 7, 9)), AccessOutcome::LENGTH_OVERFLOW);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, kTop, 1)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, kTop, 2)), AccessOutcome::LENGTH_OVERFLOW);
}

TEST_F(PureCheck, ZeroLengthReadAndWriteSkipKeyAndBounds) {
  // C9-88: no rkey, VA or bounds check for a zero-length READ/WRITE; §7.3: zero-length SGE.
  for (MemOp op :
       {MemOp::REMOTE_READ, MemOp::REMOTE_WRITE, MemOp::LOCAL_READ, MemOp::LOCAL_WRITE}) {
    EXPECT_TRUE(is_zero_length_exempt(op, 0));
    EXPECT_FALSE(is_zero_length_exempt(op, 1));
    AccessRequest r = req(op, kTop, 0);
    r.key = Key{0};
    r.qp.pd = Pd{9};
    const AccessResult res = check_access({}, r);
    EXPECT_TRUE(res.ok()) << to_string(op);
    EXPECT_TRUE(res.zero_length_exempt);
    mr.state = MrState::FREE;
    EXPECT_TRUE(check_access({&mr, nullptr}, r).zero_length_exempt);
    mr.state = MrState::VALID;
  }
  // Atomics, ATOMIC_WRITE and FLUSH are never exempt.
  for (MemOp op : {MemOp::REMOTE_ATOMIC, MemOp::ATOMIC_WRITE, MemOp::FLUSH}) {
    EXPECT_FALSE(is_zero_length_exempt(op, 0));
    EXPECT_EQ(check_access({}, req(op, mr.iova, 0)).outcome, AccessOutcome::INVALID_KEY_INDEX);
  }
  // A zero-length FLUSH is checked: inside at the MR end, outside one past it.
  EXPECT_EQ(on_mr(req(MemOp::FLUSH, mr.iova + mr.length, 0)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::FLUSH, mr.iova + mr.length + 1, 0)), AccessOutcome::OUT_OF_BOUNDS);
}

TEST_F(PureCheck, AtomicTargetsMustBeEightByteAligned) {
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_ATOMIC, mr.iova + 8, 8)), AccessOutcome::OK);
  for (std::uint64_t off = 1; off < 8; ++off) {
    EXPECT_EQ(on_mr(req(MemOp::REMOTE_ATOMIC, mr.iova + 8 + off, 8)),
              AccessOutcome::UNALIGNED_ATOMIC);
    EXPECT_EQ(on_mr(req(MemOp::ATOMIC_WRITE, mr.iova + 8 + off, 8)),
              AccessOutcome::UNALIGNED_ATOMIC);
  }
  // Reads and writes have no alignment rule.
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova + 3, 8)), AccessOutcome::OK);
  // The last aligned 8 bytes are inside; bounds are checked before alignment (§4.4: CHK_RKEY
  // precedes EXECUTE), so a misaligned target that also leaves the MR is out of bounds.
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_ATOMIC, mr.iova + mr.length - 8, 8)), AccessOutcome::OK);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_ATOMIC, mr.iova + mr.length - 4, 8)),
            AccessOutcome::OUT_OF_BOUNDS);
  // And rights before both.
  mr.access = Access::LOCAL_WRITE | Access::REMOTE_READ;
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_ATOMIC, mr.iova + 4, 8)), AccessOutcome::ACCESS_DENIED);
}

TEST_F(PureCheck, AtomicOnAMisalignedHostMappingIsUnaligned) {
  // ibv_reg_mr_iova with an iova and a host address that differ modulo 8: the wire VA is
  // aligned but the 64-bit operand in host memory is not (rxe checks the mapped address).
  mr.host_addr = 0x10004;
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_ATOMIC, mr.iova + 8, 8)), AccessOutcome::UNALIGNED_ATOMIC);
  EXPECT_EQ(on_mr(req(MemOp::REMOTE_READ, mr.iova + 8, 8)), AccessOutcome::OK);
}

TEST_F(PureCheck, FlushOfTheWholeRegionSkipsTheRange) {
  AccessRequest r = req(MemOp::FLUSH, 0, kTop);
  r.flush_whole_region = true;
  const AccessResult res = check_access({&mr, nullptr}, r);
  EXPECT_TRUE(res.ok());
  EXPECT_EQ(res.host_addr, mr.host_addr);
  r.flush_whole_region = false;
  EXPECT_NE(on_mr(r), AccessOutcome::OK);
}

TEST_F(PureCheck, CheckOrderKeyThenPdThenStateThenRightsThenBounds) {
  AccessRequest r = req(MemOp::REMOTE_ATOMIC, mr.iova - 3, 8);  // out of bounds, unaligned
  r.key = Key::make(5, 0);
  r.qp.pd = Pd{2};
  mr.state = MrState::FREE;
  mr.access = Access::NONE;
  EXPECT_EQ(on_mr(r), AccessOutcome::KEY_MISMATCH);
  r.key = mr.rkey;
  EXPECT_EQ(on_mr(r), AccessOutcome::PD_MISMATCH);
  r.qp.pd = mr.pd;
  EXPECT_EQ(on_mr(r), AccessOutcome::INVALID_STATE);
  mr.state = MrState::VALID;
  EXPECT_EQ(on_mr(r), AccessOutcome::ACCESS_DENIED);
  mr.access = kAllRights;
  EXPECT_EQ(on_mr(r), AccessOutcome::OUT_OF_BOUNDS);
  r.va = mr.iova + 3;
  EXPECT_EQ(on_mr(r), AccessOutcome::UNALIGNED_ATOMIC);
}

// ---------------------------------------------------------------------------------------------
// Memory windows

namespace {

class PureWindowCheck : public PureCheck {
 protected:
  PureWindowCheck() {
    mw.id = MwId{0x40001};
    mw.pd = Pd{1};
    mw.type = MwType::TYPE_2;
    mw.state = MwState::VALID;
    mw.rkey = Key::make(0x40001, 0x77);
    mw.access = Access::REMOTE_READ | Access::REMOTE_WRITE;
    mw.addr = mr.iova + 0x100;
    mw.length = 0x100;
    mw.mr = mr.id;
    mw.qpn = qp.qpn;
  }
  AccessRequest wreq(MemOp op, std::uint64_t va, std::uint64_t len) const {
    AccessRequest r = req(op, va, len);
    r.key = mw.rkey;
    return r;
  }
  AccessOutcome on_mw(const AccessRequest& r) const { return check_access({&mr, &mw}, r).outcome; }
  MemoryWindow mw;
};

}  // namespace

TEST_F(PureWindowCheck, AllowedInsideTheWindow) {
  const AccessResult r = check_access({&mr, &mw}, wreq(MemOp::REMOTE_WRITE, mw.addr + 0x10, 0x20));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.host_addr, mr.host_addr + 0x110);
  EXPECT_EQ(r.mr, mr.id);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr, mw.length)), AccessOutcome::OK);
}

TEST_F(PureWindowCheck, WindowBoundsAreTighterThanTheRegion) {
  // Inside the MR, outside the window (§11.15: rxe checks only the MR; the spec wants both).
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mr.iova, 8)), AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr - 1, 1)), AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr - 1, 2)), AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr + mw.length - 1, 1)), AccessOutcome::OK);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr + mw.length - 1, 2)),
            AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_WRITE, mw.addr + 1, kTop)), AccessOutcome::LENGTH_OVERFLOW);
}

TEST_F(PureWindowCheck, RegionBoundsStillApplyUnderTheWindow) {
  mw.addr = mr.iova + mr.length - 0x80;  // a window reaching past its MR (inconsistent entry)
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr, 0x80)), AccessOutcome::OK);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr + 0x80, 8)), AccessOutcome::OUT_OF_BOUNDS);
}

TEST_F(PureWindowCheck, ZeroBasedWindowTakesOffsets) {
  mw.access = Access::REMOTE_READ | Access::ZERO_BASED;
  mw.addr = mr.iova + 0x200;
  mw.length = 0x80;
  const AccessResult r = check_access({&mr, &mw}, wreq(MemOp::REMOTE_READ, 0x10, 0x70));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.host_addr, mr.host_addr + 0x210);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, 0x7F, 2)), AccessOutcome::OUT_OF_MW_BOUNDS);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr, 8)), AccessOutcome::OUT_OF_MW_BOUNDS);
}

TEST_F(PureWindowCheck, TypeTwoWindowIsUsableOnlyFromItsQp) {
  AccessRequest r = wreq(MemOp::REMOTE_READ, mw.addr, 8);
  r.qp.qpn = 0x12;  // same PD, other QP
  EXPECT_EQ(on_mw(r), AccessOutcome::MW_QP_MISMATCH);
  mw.type = MwType::TYPE_1;  // a type-1 window is not tied to a QP
  mw.qpn = 0;
  EXPECT_EQ(on_mw(r), AccessOutcome::OK);
}

TEST_F(PureWindowCheck, WindowRightsCountNotTheRegionRights) {
  // The MR grants everything; the window only READ and WRITE.
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_ATOMIC, mw.addr, 8)), AccessOutcome::ACCESS_DENIED);
  AccessRequest f = wreq(MemOp::FLUSH, mw.addr, 8);
  EXPECT_EQ(on_mw(f), AccessOutcome::ACCESS_DENIED);
  mw.access = Access::REMOTE_ATOMIC;
  mr.access = Access::LOCAL_WRITE | Access::MW_BIND;  // no remote rights on the MR itself
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_ATOMIC, mw.addr, 8)), AccessOutcome::OK);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_ATOMIC, mw.addr + 4, 8)), AccessOutcome::UNALIGNED_ATOMIC);
  EXPECT_EQ(on_mw(wreq(MemOp::REMOTE_READ, mw.addr, 8)), AccessOutcome::ACCESS_DENIED);
}

TEST_F(PureWindowCheck, KeyPdAndState) {
  AccessRequest r = wreq(MemOp::REMOTE_READ, mw.addr, 8);
  r.key = inc_rkey(mw.rkey);
  EXPECT_EQ(on_mw(r), AccessOutcome::KEY_MISMATCH);
  r.key = mw.rkey;
  r.qp.pd = Pd{2};
  EXPECT_EQ(on_mw(r), AccessOutcome::PD_MISMATCH);
  r.qp.pd = Pd{1};
  mw.state = MwState::FREE;  // type 2 after LOCAL_INV / SEND_WITH_INV
  EXPECT_EQ(on_mw(r), AccessOutcome::INVALID_STATE);
  mw.state = MwState::VALID;
  mw.type = MwType::TYPE_1;
  mw.length = 0;  // a type-1 window bound with length 0 is invalidated
  EXPECT_EQ(on_mw(r), AccessOutcome::INVALID_STATE);
}

TEST_F(PureWindowCheck, AnLkeyNeverNamesAWindow) {
  AccessRequest r = wreq(MemOp::LOCAL_READ, mw.addr, 8);
  EXPECT_EQ(on_mw(r), AccessOutcome::INVALID_KEY_INDEX);
}

TEST(AccessOutcomeNames, EveryOutcomeHasADistinctName) {
  std::set<std::string> names;
  const AccessOutcome all[] = {AccessOutcome::OK,
                               AccessOutcome::INVALID_KEY_INDEX,
                               AccessOutcome::KEY_MISMATCH,
                               AccessOutcome::PD_MISMATCH,
                               AccessOutcome::INVALID_STATE,
                               AccessOutcome::MW_QP_MISMATCH,
                               AccessOutcome::ACCESS_DENIED,
                               AccessOutcome::LENGTH_OVERFLOW,
                               AccessOutcome::OUT_OF_MW_BOUNDS,
                               AccessOutcome::OUT_OF_BOUNDS,
                               AccessOutcome::UNALIGNED_ATOMIC};
  for (AccessOutcome o : all) {
    names.insert(std::string(to_string(o)));
    EXPECT_FALSE(describe(o).empty());
  }
  EXPECT_EQ(names.size(), std::size(all));
  EXPECT_EQ(to_string(AccessOutcome::OUT_OF_BOUNDS), "OUT_OF_BOUNDS");
}

// ---------------------------------------------------------------------------------------------
// The table-level wrapper: key resolution by index range, then the pure check.

namespace {

class TableCheck : public ::testing::Test {
 protected:
  TableCheck() {
    pd = table.alloc_pd().value;
    qp = QpRef{0x11, pd};
    MrRegistration reg;
    reg.pd = pd;
    reg.addr = 0x100000;
    reg.length = 0x10000;
    reg.access = kAllRights;
    keys = table.reg_mr(reg).value;
  }
  AccessRequest req(MemOp op, Key key, std::uint64_t va, std::uint64_t len) const {
    AccessRequest r;
    r.op = op;
    r.key = key;
    r.qp = qp;
    r.va = va;
    r.length = len;
    return r;
  }
  MemTable table;
  Pd pd;
  QpRef qp;
  MrKeys keys;
};

}  // namespace

TEST_F(TableCheck, ResolvesMrKeysForLocalAndRemoteUse) {
  EXPECT_TRUE(table.check(req(MemOp::LOCAL_WRITE, keys.lkey, 0x100000, 16)).ok());
  const AccessResult r = table.check(req(MemOp::REMOTE_WRITE, keys.rkey, 0x100010, 16));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.host_addr, 0x100010u);
}

TEST_F(TableCheck, KeysNamingNoObject) {
  for (std::uint32_t index : {0u, 2u, 0x40000u, 0x40001u, 0x60000u, 0x60001u, 0xFFFFFFu}) {
    EXPECT_EQ(
        table.check(req(MemOp::REMOTE_READ, Key::make(index, keys.rkey.key_byte()), 0x100000, 8))
            .outcome,
        AccessOutcome::INVALID_KEY_INDEX)
        << index;
  }
  EXPECT_EQ(table.key_space(Key::make(0x40000, 0)), KeySpace::MR);
  EXPECT_EQ(table.key_space(Key::make(0x40001, 0)), KeySpace::MW);
  EXPECT_EQ(table.key_space(Key::make(0x60001, 0)), KeySpace::NONE);
  EXPECT_EQ(table.key_space(Key{0}), KeySpace::NONE);
}

TEST_F(TableCheck, ZeroLengthReadWithRkeyZeroIsExempt) {
  // rxe sends rkey 0 for a zero-length op (§7.1); C9-88 says nothing is checked.
  const AccessResult r = table.check(req(MemOp::REMOTE_READ, Key{0}, 0, 0));
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.zero_length_exempt);
  EXPECT_EQ(table.check(req(MemOp::REMOTE_READ, Key{0}, 0, 1)).outcome,
            AccessOutcome::INVALID_KEY_INDEX);
  EXPECT_EQ(table.check(req(MemOp::REMOTE_ATOMIC, Key{0}, 0, 0)).outcome,
            AccessOutcome::INVALID_KEY_INDEX);
}

TEST_F(TableCheck, MemoryWindowKeyIsNoLkey) {
  const MwKeys mw = table.alloc_mw(pd, MwType::TYPE_1).value;
  MwBindInfo bind{keys.id, 0x100000, 0x100, Access::REMOTE_READ};
  const Key rkey = table.bind_mw_type1(qp, mw.id, bind).value;
  EXPECT_TRUE(table.check(req(MemOp::REMOTE_READ, rkey, 0x100000, 8)).ok());
  EXPECT_EQ(table.check(req(MemOp::LOCAL_READ, rkey, 0x100000, 8)).outcome,
            AccessOutcome::INVALID_KEY_INDEX);
  // And an MR key checked remotely goes to the MR, not a window.
  EXPECT_TRUE(table.check(req(MemOp::REMOTE_READ, keys.rkey, 0x100000, 0x10000)).ok());
}

TEST_F(TableCheck, DeregisteredKeyNoLongerResolves) {
  EXPECT_EQ(table.dereg_mr(keys.id), MemErrc::OK);
  EXPECT_EQ(table.check(req(MemOp::REMOTE_READ, keys.rkey, 0x100000, 8)).outcome,
            AccessOutcome::INVALID_KEY_INDEX);
  EXPECT_EQ(table.check(req(MemOp::LOCAL_READ, keys.lkey, 0x100000, 8)).outcome,
            AccessOutcome::INVALID_KEY_INDEX);
}
