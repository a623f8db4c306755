// Simulated host memory: sparse pages, zero fill, page crossings, the top of the 64-bit space,
// little-endian 64-bit operands (docs/spec-notes.md §8.1), atomics.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "rocecert/mem/host_memory.h"

using namespace rocecert::mem;
using Bytes = std::vector<std::uint8_t>;

namespace {
constexpr std::uint64_t kTop = ~std::uint64_t{0};  // 2^64 - 1
constexpr std::uint64_t kPage = HostMemory::kPageSize;

Bytes pattern(std::size_t n, std::uint8_t start = 1) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(start + i);
  return b;
}
}  // namespace

TEST(HostMemory, UnwrittenBytesReadAsZeroWithoutAllocating) {
  HostMemory m;
  EXPECT_EQ(m.read_bytes(0, 16), Bytes(16, 0));
  EXPECT_EQ(m.read_bytes(0x1234'5678'9ABC'DEF0ull, 3 * kPage), Bytes(3 * kPage, 0));
  EXPECT_EQ(m.read_bytes(kTop - 7, 8), Bytes(8, 0));
  EXPECT_EQ(m.load_u64(0x4000), 0u);
  EXPECT_EQ(m.page_count(), 0u);
}

TEST(HostMemory, WriteThenReadBack) {
  HostMemory m;
  const Bytes data = pattern(100);
  EXPECT_TRUE(m.write(0x2010, data));
  EXPECT_EQ(m.read_bytes(0x2010, 100), data);
  EXPECT_EQ(m.page_count(), 1u);
  // Neighbours stay zero.
  EXPECT_EQ(m.read_bytes(0x200F, 1), Bytes{0});
  EXPECT_EQ(m.read_bytes(0x2010 + 100, 1), Bytes{0});
}

TEST(HostMemory, WriteCrossingOnePageBoundary) {
  HostMemory m;
  const Bytes data = pattern(10);
  EXPECT_TRUE(m.write(kPage - 3, data));
  EXPECT_EQ(m.page_count(), 2u);
  EXPECT_EQ(m.read_bytes(kPage - 3, 10), data);
  EXPECT_EQ(m.read_bytes(kPage - 3, 3), (Bytes{1, 2, 3}));
  EXPECT_EQ(m.read_bytes(kPage, 7), (Bytes{4, 5, 6, 7, 8, 9, 10}));
}

TEST(HostMemory, WriteSpanningSeveralPagesAndReadOverUnwrittenPages) {
  HostMemory m;
  const Bytes data = pattern(3 * kPage + 5, 7);
  EXPECT_TRUE(m.write(5 * kPage + 100, data));
  EXPECT_EQ(m.page_count(), 4u);
  EXPECT_EQ(m.read_bytes(5 * kPage + 100, data.size()), data);
  // A read that starts in an unwritten page and ends in a written one.
  Bytes expect(200, 0);
  for (std::size_t i = 100; i < 200; ++i) expect[i] = data[i - 100];
  EXPECT_EQ(m.read_bytes(5 * kPage, 200), expect);
}

TEST(HostMemory, TopOfTheAddressSpace) {
  HostMemory m;
  // The last 8 bytes: the range ends exactly at 2^64, which is not a wrap.
  EXPECT_TRUE(m.write(kTop - 7, pattern(8)));
  EXPECT_EQ(m.read_bytes(kTop - 7, 8), pattern(8));
  EXPECT_TRUE(m.write(kTop, Bytes{0xEE}));
  EXPECT_EQ(m.read_bytes(kTop, 1), Bytes{0xEE});
  // One byte further wraps: refused whole, nothing written, nothing at address 0.
  const std::size_t pages = m.page_count();
  EXPECT_FALSE(m.write(kTop - 3, pattern(8, 0x40)));
  EXPECT_EQ(m.page_count(), pages);
  EXPECT_EQ(m.read_bytes(kTop - 3, 4), (Bytes{5, 6, 7, 0xEE}));
  EXPECT_EQ(m.read_bytes(0, 4), Bytes(4, 0));
  Bytes out(2);
  EXPECT_FALSE(m.read(kTop, out));
  EXPECT_TRUE(m.read_bytes(kTop, 2).empty());
  EXPECT_FALSE(m.fill(kTop - 1, 3, 0xAA));
  // Zero-length ranges fit anywhere.
  EXPECT_TRUE(m.write(kTop, Bytes{}));
  EXPECT_TRUE(m.read(kTop, std::span<std::uint8_t>{}));
}

TEST(HostMemory, SixtyFourBitOperandsAreLittleEndian) {
  HostMemory m;
  m.store_u64(0x100, 0x0102030405060708ull);
  EXPECT_EQ(m.read_bytes(0x100, 8), (Bytes{8, 7, 6, 5, 4, 3, 2, 1}));
  EXPECT_TRUE(m.write(0x200, Bytes{0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01}));
  EXPECT_EQ(m.load_u64(0x200), 0x0123456789ABCDEFull);
  // Across a page boundary, and at the very top.
  m.store_u64(kPage - 4, 0xA1A2A3A4B1B2B3B4ull);
  EXPECT_EQ(m.load_u64(kPage - 4), 0xA1A2A3A4B1B2B3B4ull);
  EXPECT_EQ(m.read_bytes(kPage, 4), (Bytes{0xA4, 0xA3, 0xA2, 0xA1}));
  m.store_u64(kTop - 7, 42);
  EXPECT_EQ(m.load_u64(kTop - 7), 42u);
  // An operand that would wrap is neither stored nor loaded.
  m.store_u64(kTop - 3, ~std::uint64_t{0});
  EXPECT_EQ(m.read_bytes(0, 4), Bytes(4, 0));
  EXPECT_EQ(m.load_u64(kTop - 3), 0u);
}

TEST(HostMemory, CompareSwapAndFetchAdd) {
  HostMemory m;
  m.store_u64(0x1000, 5);
  EXPECT_EQ(m.compare_swap(0x1000, 4, 99), 5u);  // no match: unchanged
  EXPECT_EQ(m.load_u64(0x1000), 5u);
  EXPECT_EQ(m.compare_swap(0x1000, 5, 99), 5u);  // match: swapped
  EXPECT_EQ(m.load_u64(0x1000), 99u);
  EXPECT_EQ(m.fetch_add(0x1000, 1), 99u);
  EXPECT_EQ(m.load_u64(0x1000), 100u);
  m.store_u64(0x2000, ~std::uint64_t{0});
  EXPECT_EQ(m.fetch_add(0x2000, 2), ~std::uint64_t{0});
  EXPECT_EQ(m.load_u64(0x2000), 1u);      // mod 2^64
  EXPECT_EQ(m.fetch_add(0x3000, 7), 0u);  // unwritten operand is zero
  EXPECT_EQ(m.load_u64(0x3000), 7u);
}

TEST(HostMemory, FillZeroStaysSparseAndEqualityIgnoresZeroPages) {
  HostMemory a;
  EXPECT_TRUE(a.fill(0x10000, 5 * kPage, 0));
  EXPECT_EQ(a.page_count(), 0u);
  EXPECT_TRUE(a.fill(kPage - 1, 2, 0xAB));
  EXPECT_EQ(a.read_bytes(kPage - 2, 4), (Bytes{0, 0xAB, 0xAB, 0}));

  HostMemory b;
  EXPECT_TRUE(b.write(kPage - 1, Bytes{0xAB, 0xAB}));
  EXPECT_TRUE(b.write(0x900000, Bytes(64, 0)));  // an allocated page of zeros
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(b.write(0x900010, Bytes{1}));
  EXPECT_FALSE(a == b);
  HostMemory empty;
  EXPECT_FALSE(empty == b);
  b.clear();
  EXPECT_TRUE(empty == b);
}

TEST(HostMemory, DeterministicForTheSameWrites) {
  auto run = [] {
    HostMemory m;
    for (std::uint64_t i = 0; i < 50; ++i) {
      m.store_u64(i * 0x1'0000'0000ull + i * 8, i * 0x9E3779B97F4A7C15ull);
    }
    return m;
  };
  const HostMemory a = run();
  const HostMemory b = run();
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.page_count(), b.page_count());
}
