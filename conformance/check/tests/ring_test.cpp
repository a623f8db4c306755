// Ring (ring.h), the checker's per-stream queue: the same contents as std::deque under every
// operation the checker uses, and the memory it promises (nothing until the first push, a
// buffer given back when a large one empties, trim()).
#include "ring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace rocecert::check::detail {
namespace {

// An entry that owns memory, so that ASan sees a moved-from or destroyed entry used again.
struct Entry {
  std::unique_ptr<std::string> s;
  explicit Entry(int v = 0) : s(std::make_unique<std::string>(std::to_string(v))) {}
  Entry(const Entry& o) : s(std::make_unique<std::string>(*o.s)) {}
  Entry(Entry&&) = default;
  Entry& operator=(const Entry& o) {
    s = std::make_unique<std::string>(*o.s);
    return *this;
  }
  Entry& operator=(Entry&&) = default;
  bool operator==(const Entry& o) const { return *s == *o.s; }
};

// A trivially copyable entry: the ring moves its runs with memcpy (reserve_exact).
struct Plain {
  int v = 0;
  std::uint64_t pad = 0;
  explicit Plain(int x = 0) : v(x), pad(static_cast<std::uint64_t>(x) * 3) {}
  bool operator==(const Plain&) const = default;
};
static_assert(std::is_trivially_copyable_v<Plain>);

int last_digit(const Entry& e) {
  return e.s->back() - '0';
}
int last_digit(const Plain& p) {
  return p.v % 10;
}

template <class A, class B>
void expect_same(const A& ring, const B& deque) {
  ASSERT_EQ(ring.size(), deque.size());
  ASSERT_EQ(ring.empty(), deque.empty());
  EXPECT_TRUE(std::equal(ring.begin(), ring.end(), deque.begin(), deque.end()));
  EXPECT_TRUE(std::equal(ring.rbegin(), ring.rend(), deque.rbegin(), deque.rend()));
  for (std::size_t i = 0; i < deque.size(); ++i) ASSERT_EQ(ring[i], deque[i]);
  if (!deque.empty()) {
    EXPECT_EQ(ring.front(), deque.front());
    EXPECT_EQ(ring.back(), deque.back());
  }
}

TEST(Ring, NothingAllocatedUntilTheFirstPush) {
  Ring<Entry> r;
  EXPECT_EQ(r.capacity(), 0u);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.begin(), r.end());
  const Ring<Entry> copy(r);
  EXPECT_EQ(copy.capacity(), 0u);
  r.emplace_back(1);
  EXPECT_EQ(r.capacity(), 4u);
}

template <class E>
void random_operations() {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    Ring<E> r;
    std::deque<E> d;
    for (int step = 0; step < 3000; ++step) {
      const int v = static_cast<int>(rng() % 100000);
      // Phases that grow the queue and phases that drain it, so buffers fill, wrap and empty.
      const bool growing = (step / 300) % 2 == 0;
      switch (rng() % 10) {
        case 0:
        case 1:
        case 2:
          if (growing || rng() % 3 == 0) {
            r.push_back(E(v));
            d.push_back(E(v));
          }
          break;
        case 3:
          if (growing) {
            r.emplace_front(v);
            d.emplace_front(v);
          }
          break;
        case 4:
        case 5:
        case 6:
          if (!d.empty()) {
            r.pop_front();
            d.pop_front();
          }
          break;
        case 7:
          if (!d.empty()) {
            r.pop_back();
            d.pop_back();
          }
          break;
        case 8: {
          const std::size_t at = d.empty() ? 0 : rng() % (d.size() + 1);
          auto ri = r.insert(r.begin() + static_cast<std::ptrdiff_t>(at), E(v));
          auto di = d.insert(d.begin() + static_cast<std::ptrdiff_t>(at), E(v));
          EXPECT_EQ(ri - r.begin(), di - d.begin());
          if (!d.empty() && rng() % 2 == 0) {
            const std::size_t gone = rng() % d.size();
            ri = r.erase(r.begin() + static_cast<std::ptrdiff_t>(gone));
            di = d.erase(d.begin() + static_cast<std::ptrdiff_t>(gone));
            EXPECT_EQ(ri - r.begin(), di - d.begin());
          }
          break;
        }
        default:
          if (rng() % 50 == 0) {
            r.clear();
            d.clear();
          } else if (rng() % 10 == 0) {
            auto odd = [&](const E& e) { return last_digit(e) == v % 10; };
            EXPECT_EQ(r.erase_if(odd), std::erase_if(d, odd));
          } else if (rng() % 20 == 0) {
            r.shrink_to_fit();
          } else if (rng() % 20 == 0) {
            Ring<E> copy(r);
            r = std::move(copy);
          }
      }
      expect_same(r, d);
      // After a trim the buffer follows what it holds: below 64 entries, or at most eight
      // times the entries.
      r.trim();
      ASSERT_TRUE(r.capacity() < 64 || r.size() * 8 >= r.capacity()) << "seed " << seed;
    }
  }
}

TEST(Ring, DoesWhatADequeDoesUnderRandomOperations) {
  random_operations<Entry>();
  random_operations<Plain>();
}

TEST(Ring, ALargeBufferIsGivenBackWhenItEmpties) {
  Ring<int> r;
  for (int i = 0; i < 1000; ++i) r.push_back(i);
  EXPECT_GE(r.capacity(), 1000u);
  EXPECT_LE(r.capacity(), 1500u);  // grown by halves
  const std::size_t cap = r.capacity();
  for (int i = 0; i < 999; ++i) r.pop_front();
  EXPECT_EQ(r.front(), 999);
  EXPECT_EQ(r.capacity(), cap);  // a pop moves nothing: references to the rest stay good
  r.pop_front();
  EXPECT_EQ(r.capacity(), 0u);
  // A small one is kept: a queue that holds a few entries at a time does not allocate again.
  for (int round = 0; round < 3; ++round) {
    r.push_back(round);
    r.pop_front();
    EXPECT_EQ(r.capacity(), 4u);
  }
}

TEST(Ring, TrimCutsABufferFourTimesTooLarge) {
  Ring<int> r;
  for (int i = 0; i < 512; ++i) r.push_back(i);
  for (int i = 0; i < 500; ++i) r.pop_front();
  r.trim();
  EXPECT_EQ(r.capacity(), 24u);
  EXPECT_EQ(r.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(r[static_cast<std::size_t>(i)], 500 + i);
  r.trim();  // below 64 entries: left as it is
  EXPECT_EQ(r.capacity(), 24u);
}

TEST(Ring, IteratorsWorkWithTheStandardAlgorithms) {
  Ring<int> r;
  for (int i = 0; i < 20; ++i) r.push_back(2 * i);
  r.pop_front();  // wrapped storage from here on
  r.emplace_front(-2);
  const auto it = std::lower_bound(r.begin(), r.end(), 11);
  EXPECT_EQ(*it, 12);
  EXPECT_EQ(it - r.begin(), 6);
  const auto found = std::find_if(r.rbegin(), r.rend(), [](int v) { return v < 5; });
  EXPECT_EQ(*found, 4);
  const std::vector<int> copy(r.begin(), r.end());
  EXPECT_EQ(copy.size(), r.size());
  Ring<int>::const_iterator c = r.begin();
  EXPECT_EQ(c, r.cbegin());
  EXPECT_EQ(c[3], 6);
}

}  // namespace
}  // namespace rocecert::check::detail
