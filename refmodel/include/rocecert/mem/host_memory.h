// Simulated host memory of one adapter's host: a sparse, 64-bit byte-addressed space.
//
// Pages of kPageSize bytes are allocated on first write and kept in an ordered map, so the
// contents and their iteration order depend only on the writes made (determinism). Bytes never
// written read as zero. A range [addr, addr + len) is usable when it does not run past 2^64
// (the last byte may be 0xFFFF'FFFF'FFFF'FFFF); a range that would wrap is refused whole and
// nothing is read or written.
//
// 64-bit loads and stores (the operands of CMP_SWAP / FETCH_ADD / ATOMIC_WRITE, docs/spec-notes.md
// §8.1) use little-endian byte order: "memory holds the operand in host order; the wire carries
// big-endian" (§8.1), and the model's host is a little-endian machine (x86-64, AArch64 as run
// by every rxe/mlx5 host in our captures). The byte order is fixed here, not taken from the
// build machine, so vectors are identical everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "rocecert/mem/range.h"

namespace rocecert::mem {

class HostMemory {
 public:
  static constexpr std::uint64_t kPageSize = 4096;

  // Copy bytes in or out. Return false (and touch nothing) when the range wraps past 2^64.
  bool write(std::uint64_t addr, std::span<const std::uint8_t> data);
  bool read(std::uint64_t addr, std::span<std::uint8_t> out) const;
  bool fill(std::uint64_t addr, std::uint64_t length, std::uint8_t value);
  // Convenience for tests and observers; an empty vector when the range wraps.
  std::vector<std::uint8_t> read_bytes(std::uint64_t addr, std::size_t length) const;

  // 64-bit little-endian access (see the header comment). The 8 bytes need not be aligned
  // (alignment is an access-check matter, §7.6); addr must satisfy range_fits(addr, 8), else
  // load returns 0 and store does nothing.
  std::uint64_t load_u64(std::uint64_t addr) const;
  void store_u64(std::uint64_t addr, std::uint64_t value);
  // §8.1: return the original value; the update is a single step of the model.
  std::uint64_t compare_swap(std::uint64_t addr, std::uint64_t compare, std::uint64_t swap);
  std::uint64_t fetch_add(std::uint64_t addr, std::uint64_t add);

  std::size_t page_count() const { return pages_.size(); }
  void clear() { pages_.clear(); }
  // Discard mode: writes (and atomic updates) are checked for range and dropped, every byte reads
  // as zero. For a harness that never looks at memory contents (`rocecert check`'s golden
  // replay), so that the data a capture moves costs neither memory nor time.
  void set_discard(bool discard) {
    discard_ = discard;
    if (discard) pages_.clear();
  }

  // Equal contents: an absent page equals a page of zeros.
  friend bool operator==(const HostMemory& a, const HostMemory& b);

 private:
  using Page = std::vector<std::uint8_t>;  // kPageSize bytes
  std::map<std::uint64_t, Page> pages_;    // key: page number (addr / kPageSize)
  bool discard_ = false;
};

}  // namespace rocecert::mem
