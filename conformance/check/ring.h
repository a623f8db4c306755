// A double-ended queue in one circular buffer: the checker's per-stream queues (PSN records,
// outstanding READs and atomics, the golden replays' queues).
//
// Why not std::deque: libstdc++'s deque allocates a map and a 512-byte block as soon as it is
// made, even empty, and keeps them; and it allocates and frees a block every few entries that
// pass through. A stream has a dozen such queues, most of them empty or holding a few entries:
// with thousands of connections in a capture that was about 7 KB a connection, a quarter of the
// checker's memory, all of it pages the kernel must zero on first touch; and on long
// connections the blocks' churn was a third of the checker's time (docs/bench.md, session 44). A
// Ring allocates nothing until its first push, and its buffer grows by half of itself (a power of
// two wasted a quarter on average: the PSN anchors of thousands of short connections).
//
// Unlike std::deque, a push may move every entry (the buffer grows), and so may trim(): hold an
// index, not a reference or an iterator, across them. A pop moves nothing but the entry popped.
// When the last entry is popped from a large buffer, the buffer is given back.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

namespace rocecert::check::detail {

template <class T>
class Ring {
  template <bool Const>
  class Iter {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<Const, const T&, T&>;
    using pointer = std::conditional_t<Const, const T*, T*>;
    using RingPtr = std::conditional_t<Const, const Ring*, Ring*>;

    Iter() = default;
    Iter(RingPtr r, std::size_t i) : r_(r), i_(i) {}
    // iterator → const_iterator
    template <bool C = Const, class = std::enable_if_t<C>>
    Iter(const Iter<false>& o) : r_(o.r_), i_(o.i_) {}

    reference operator*() const { return (*r_)[i_]; }
    pointer operator->() const { return &(*r_)[i_]; }
    reference operator[](difference_type n) const {
      return (*r_)[static_cast<std::size_t>(static_cast<difference_type>(i_) + n)];
    }
    Iter& operator++() { return ++i_, *this; }
    Iter operator++(int) { return Iter(r_, i_++); }
    Iter& operator--() { return --i_, *this; }
    Iter operator--(int) { return Iter(r_, i_--); }
    Iter& operator+=(difference_type n) {
      i_ = static_cast<std::size_t>(static_cast<difference_type>(i_) + n);
      return *this;
    }
    Iter& operator-=(difference_type n) { return *this += -n; }
    friend Iter operator+(Iter a, difference_type n) { return a += n; }
    friend Iter operator+(difference_type n, Iter a) { return a += n; }
    friend Iter operator-(Iter a, difference_type n) { return a -= n; }
    friend difference_type operator-(const Iter& a, const Iter& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const Iter& a, const Iter& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const Iter& a, const Iter& b) { return a.i_ <=> b.i_; }

   private:
    friend class Ring;
    friend class Iter<!Const>;
    RingPtr r_ = nullptr;
    std::size_t i_ = 0;
  };

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  Ring() noexcept = default;
  Ring(const Ring& o) {
    if (o.size_ == 0) return;
    reserve_exact(capacity_for(o.size_));
    for (const T& v : o) push_back(v);
  }
  Ring(Ring&& o) noexcept
      : buf_(std::exchange(o.buf_, nullptr)),
        cap_(std::exchange(o.cap_, 0)),
        head_(std::exchange(o.head_, 0)),
        size_(std::exchange(o.size_, 0)) {}
  Ring& operator=(const Ring& o) {
    if (this != &o) {
      Ring copy(o);
      swap(copy);
    }
    return *this;
  }
  Ring& operator=(Ring&& o) noexcept {
    if (this != &o) {
      release();
      buf_ = std::exchange(o.buf_, nullptr);
      cap_ = std::exchange(o.cap_, 0);
      head_ = std::exchange(o.head_, 0);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~Ring() { release(); }
  void swap(Ring& o) noexcept {
    std::swap(buf_, o.buf_);
    std::swap(cap_, o.cap_);
    std::swap(head_, o.head_);
    std::swap(size_, o.size_);
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return cap_; }

  T& operator[](std::size_t i) { return buf_[slot(i)]; }
  const T& operator[](std::size_t i) const { return buf_[slot(i)]; }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (size_ == cap_) grow();
    T* at = &buf_[slot(size_)];
    std::construct_at(at, std::forward<A>(a)...);
    ++size_;
    return *at;
  }
  template <class... A>
  T& emplace_front(A&&... a) {
    if (size_ == cap_) grow();
    const std::size_t h = head_ == 0 ? cap_ - 1 : head_ - 1;
    std::construct_at(&buf_[h], std::forward<A>(a)...);
    head_ = h;
    ++size_;
    return buf_[h];
  }
  void pop_front() {
    std::destroy_at(&front());
    head_ = head_ + 1 == cap_ ? 0 : head_ + 1;
    if (--size_ == 0) emptied();
  }
  void pop_back() {
    std::destroy_at(&back());
    if (--size_ == 0) emptied();
  }
  // Every entry dropped and the buffer given back.
  void clear() noexcept { release(); }

  // v before pos; the entries from pos on move one place back.
  iterator insert(const_iterator pos, T v) {
    const std::size_t i = pos.i_;
    emplace_back(std::move(v));
    for (std::size_t k = size_ - 1; k > i; --k) std::swap((*this)[k], (*this)[k - 1]);
    return {this, i};
  }
  // The entry at pos dropped; those after it move one place forward.
  iterator erase(const_iterator pos) {
    const std::size_t i = pos.i_;
    for (std::size_t k = i; k + 1 < size_; ++k) (*this)[k] = std::move((*this)[k + 1]);
    pop_back();
    return {this, i};
  }

  // The entries pred holds true for dropped, the others kept in order (std::erase_if).
  template <class Pred>
  std::size_t erase_if(Pred pred) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      if (pred(std::as_const((*this)[i]))) continue;
      if (kept != i) (*this)[kept] = std::move((*this)[i]);
      ++kept;
    }
    const std::size_t gone = size_ - kept;
    while (size_ > kept) pop_back();
    return gone;
  }

  // A buffer four times larger than the entries need is cut down (to twice what they need):
  // for owners to call where no reference into the ring is held, so that a queue that was long
  // once does not keep that memory.
  void trim() {
    if (cap_ >= kTrimFrom && size_ * 4 <= cap_) reserve_exact(capacity_for(size_ * 2));
  }
  // The buffer no larger than the entries need.
  void shrink_to_fit() {
    if (size_ == 0)
      release();
    else if (capacity_for(size_) < cap_)
      reserve_exact(capacity_for(size_));
  }

 private:
  static constexpr std::size_t kFirst = 4;      // entries of a first buffer
  static constexpr std::size_t kTrimFrom = 64;  // trim() leaves smaller buffers as they are
  static std::size_t capacity_for(std::size_t n) { return std::max(n, kFirst); }

  // Where entry i is: head_ and i are both below cap_.
  std::size_t slot(std::size_t i) const {
    const std::size_t k = head_ + i;
    return k >= cap_ ? k - cap_ : k;
  }
  void grow() { reserve_exact(cap_ == 0 ? kFirst : cap_ + cap_ / 2); }
  // A new buffer of cap entries (at least size_), the entries moved to its start: the two
  // contiguous runs of the old buffer one after the other (entry by entry, each slot() was a
  // compare: a tenth of fuzz_check's time, where coverage instrumentation traces every one).
  void reserve_exact(std::size_t cap) {
    std::allocator<T> a;
    T* nb = a.allocate(cap);
    const std::size_t first = std::min(size_, cap_ - head_);  // cap_ - head_: 0 when no buffer
    const auto move_run = [](T* from, std::size_t n, T* to) {
      if constexpr (std::is_trivially_copyable_v<T>) {
        if (n != 0) std::memcpy(static_cast<void*>(to), from, n * sizeof(T));
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          std::construct_at(&to[i], std::move(from[i]));
          std::destroy_at(&from[i]);
        }
      }
    };
    if (size_ != 0) {
      move_run(buf_ + head_, first, nb);
      move_run(buf_, size_ - first, nb + first);
    }
    if (buf_ != nullptr) a.deallocate(buf_, cap_);
    buf_ = nb;
    cap_ = cap;
    head_ = 0;
  }
  void emptied() {
    head_ = 0;
    if (cap_ >= kTrimFrom) release();
  }
  void release() noexcept {
    if constexpr (!std::is_trivially_destructible_v<T>)
      for (std::size_t i = 0; i < size_; ++i) std::destroy_at(&(*this)[i]);
    if (buf_ != nullptr) std::allocator<T>().deallocate(buf_, cap_);
    buf_ = nullptr;
    cap_ = head_ = size_ = 0;
  }

  T* buf_ = nullptr;
  std::size_t cap_ = 0, head_ = 0, size_ = 0;
};

}  // namespace rocecert::check::detail
