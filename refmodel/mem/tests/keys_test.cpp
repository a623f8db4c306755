// Key layout (§7.1), access flag values (§7.2) and the documented key-byte generator.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/mem/keys.h"

using namespace rocecert::mem;

// ibv_access_flags values (libibverbs verbs.h), IBTA Vol. 1 §10.6; docs/spec-notes.md §7.2.
static_assert(to_u32(Access::LOCAL_WRITE) == 0x1);
static_assert(to_u32(Access::REMOTE_WRITE) == 0x2);
static_assert(to_u32(Access::REMOTE_READ) == 0x4);
static_assert(to_u32(Access::REMOTE_ATOMIC) == 0x8);
static_assert(to_u32(Access::MW_BIND) == 0x10);
static_assert(to_u32(Access::ZERO_BASED) == 0x20);
static_assert(to_u32(Access::ON_DEMAND) == 0x40);
static_assert(to_u32(Access::HUGETLB) == 0x80);
static_assert(to_u32(Access::FLUSH_GLOBAL) == 0x100);
static_assert(to_u32(Access::FLUSH_PERSISTENT) == 0x200);
static_assert(to_u32(Access::RELAXED_ORDERING) == 0x100000);
static_assert(kAccessOptionalMask == 0x3FF00000u);  // bits 20-29

TEST(Keys, IndexShiftedEightOrKeyByte) {
  const Key k = Key::make(0x012345, 0xAB);
  EXPECT_EQ(k.value(), 0x012345ABu);
  EXPECT_EQ(k.index(), 0x012345u);
  EXPECT_EQ(k.key_byte(), 0xAB);
  EXPECT_EQ(Key(0xFFFFFFFFu).index(), 0xFFFFFFu);
  EXPECT_EQ(Key{}.index(), 0u);  // key 0: index 0, never valid
}

TEST(Keys, IncRkeyKeepsIndexAndWrapsTheTag) {
  EXPECT_EQ(inc_rkey(Key(0x00040001u)).value(), 0x00040002u);
  EXPECT_EQ(inc_rkey(Key(0x000401FFu)).value(), 0x00040100u);  // tag wraps, index stays
  EXPECT_EQ(inc_rkey(Key(0xFFFFFFFFu)).value(), 0xFFFFFF00u);
}

TEST(Keys, AccessFlagOperators) {
  const Access a = Access::LOCAL_WRITE | Access::REMOTE_READ;
  EXPECT_TRUE(contains(a, Access::REMOTE_READ));
  EXPECT_TRUE(contains(a, Access::NONE));
  EXPECT_FALSE(contains(a, Access::REMOTE_READ | Access::REMOTE_WRITE));  // superset, not any
  EXPECT_EQ(to_string(a), "LOCAL_WRITE|REMOTE_READ");
  EXPECT_EQ(to_string(Access::NONE), "NONE");
  EXPECT_EQ(to_string(Access::RELAXED_ORDERING | access_from_u32(0x400)), "RELAXED_ORDERING|0x400");
}

TEST(KeyGenerator, IsSplitMix64) {
  // Reference outputs of splitmix64 for seed 0 (Vigna's splitmix64.c).
  KeyGenerator g(0);
  EXPECT_EQ(g.next_u64(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(g.next_u64(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(g.next_u64(), 0x06C45D188009454Full);
  KeyGenerator h(0);
  EXPECT_EQ(h.next_byte(), 0xE2);  // the top byte of each output
}

TEST(KeyGenerator, SameSeedSameBytesOtherSeedOtherBytes) {
  auto bytes = [](std::uint64_t seed) {
    KeyGenerator g(seed);
    std::vector<std::uint8_t> v;
    for (int i = 0; i < 64; ++i) v.push_back(g.next_byte());
    return v;
  };
  EXPECT_EQ(bytes(7), bytes(7));
  EXPECT_NE(bytes(7), bytes(8));
  // Not degenerate: 64 draws cover many distinct values.
  const auto v = bytes(7);
  EXPECT_GT(std::set<std::uint8_t>(v.begin(), v.end()).size(), 32u);
}

TEST(KeyGenerator, NeverRepeatsThePreviousByte) {
  KeyGenerator g(123);
  for (int round = 0; round < 4; ++round) {
    for (unsigned prev = 0; prev < 256; ++prev) {
      EXPECT_NE(g.next_byte_avoiding(static_cast<std::uint8_t>(prev)), prev);
    }
  }
}

TEST(Access, TheFlagListIsConsistent) {
  // Every row: one bit, its libibverbs name, distinct from every other row, and printed by
  // to_string() under its own name; the masks are the union of the rows either side of the
  // optional range.
  std::set<unsigned> bits;
  std::set<std::string_view> names;
  std::uint32_t defined = 0;
  for (const AccessFlagInfo& f : kAccessFlags) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_EQ(to_u32(f.flag), 1u << f.ibv_bit);
    EXPECT_EQ(f.ibv_name, "IBV_ACCESS_" + std::string(f.name));
    EXPECT_TRUE(bits.insert(f.ibv_bit).second);
    EXPECT_TRUE(names.insert(f.name).second);
    EXPECT_EQ(to_string(f.flag), f.name);
    if (f.ibv_bit < kAccessOptionalFirstBit) {
      defined |= to_u32(f.flag);
    } else {
      EXPECT_LE(f.ibv_bit, kAccessOptionalLastBit);
      EXPECT_NE(to_u32(f.flag) & kAccessOptionalMask, 0u);
    }
  }
  EXPECT_EQ(defined, kAccessDefinedMask);
  EXPECT_EQ(kAccessDefinedMask & kAccessOptionalMask, 0u);
  // IB_UVERBS_ACCESS_OPTIONAL_RANGE and the ten defined bits of ibv_access_flags.
  EXPECT_EQ(kAccessOptionalMask, 0x3FF00000u);
  EXPECT_EQ(kAccessDefinedMask, 0x3FFu);
  // Every flag at once prints every name, in list order.
  Access all = Access::NONE;
  std::string joined;
  for (const AccessFlagInfo& f : kAccessFlags) {
    all |= f.flag;
    if (!joined.empty()) joined += '|';
    joined += f.name;
  }
  EXPECT_EQ(to_string(all), joined);
}
