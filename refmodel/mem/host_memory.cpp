// Sparse simulated host memory (host_memory.h).
#include "rocecert/mem/host_memory.h"

#include <algorithm>
#include <array>

namespace rocecert::mem {
namespace {

constexpr std::uint64_t kPage = HostMemory::kPageSize;

bool all_zero(const std::vector<std::uint8_t>& page) {
  return std::all_of(page.begin(), page.end(), [](std::uint8_t b) { return b == 0; });
}

// Calls f(page_number, offset_in_page, offset_in_range, chunk) for each page piece of
// [addr, addr + length). The caller has checked range_fits(addr, length), so addr + done never
// overflows.
template <typename F>
void for_each_piece(std::uint64_t addr, std::uint64_t length, F f) {
  std::uint64_t done = 0;
  while (done < length) {
    const std::uint64_t a = addr + done;
    const std::uint64_t in_page = a % kPage;
    const std::uint64_t chunk = std::min(kPage - in_page, length - done);
    f(a / kPage, static_cast<std::size_t>(in_page), static_cast<std::size_t>(done),
      static_cast<std::size_t>(chunk));
    done += chunk;
  }
}

}  // namespace

bool HostMemory::write(std::uint64_t addr, std::span<const std::uint8_t> data) {
  if (!range_fits(addr, data.size())) return false;
  if (discard_) return true;
  for_each_piece(addr, data.size(),
                 [&](std::uint64_t page, std::size_t in_page, std::size_t off, std::size_t n) {
                   Page& p = pages_[page];
                   if (p.empty()) p.resize(kPage, 0);
                   std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(off), n,
                               p.begin() + static_cast<std::ptrdiff_t>(in_page));
                 });
  return true;
}

bool HostMemory::read(std::uint64_t addr, std::span<std::uint8_t> out) const {
  if (!range_fits(addr, out.size())) return false;
  for_each_piece(addr, out.size(),
                 [&](std::uint64_t page, std::size_t in_page, std::size_t off, std::size_t n) {
                   auto dst = out.begin() + static_cast<std::ptrdiff_t>(off);
                   const auto it = pages_.find(page);
                   if (it == pages_.end()) {
                     std::fill_n(dst, n, std::uint8_t{0});
                   } else {
                     std::copy_n(it->second.begin() + static_cast<std::ptrdiff_t>(in_page), n, dst);
                   }
                 });
  return true;
}

bool HostMemory::fill(std::uint64_t addr, std::uint64_t length, std::uint8_t value) {
  if (!range_fits(addr, length)) return false;
  if (discard_) return true;
  for_each_piece(addr, length,
                 [&](std::uint64_t page, std::size_t in_page, std::size_t, std::size_t n) {
                   auto it = pages_.find(page);
                   if (it == pages_.end()) {
                     if (value == 0) return;  // already reads as zero; stay sparse
                     it = pages_.emplace(page, Page(kPage, 0)).first;
                   }
                   std::fill_n(it->second.begin() + static_cast<std::ptrdiff_t>(in_page), n, value);
                 });
  return true;
}

std::vector<std::uint8_t> HostMemory::read_bytes(std::uint64_t addr, std::size_t length) const {
  if (!range_fits(addr, length)) return {};
  std::vector<std::uint8_t> out(length);
  (void)read(addr, out);
  return out;
}

std::uint64_t HostMemory::load_u64(std::uint64_t addr) const {
  std::array<std::uint8_t, 8> b{};
  if (!read(addr, b)) return 0;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < b.size(); ++i) v |= std::uint64_t{b[i]} << (8 * i);  // LE
  return v;
}

void HostMemory::store_u64(std::uint64_t addr, std::uint64_t value) {
  std::array<std::uint8_t, 8> b{};
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
  (void)write(addr, b);
}

std::uint64_t HostMemory::compare_swap(std::uint64_t addr, std::uint64_t compare,
                                       std::uint64_t swap) {
  const std::uint64_t orig = load_u64(addr);
  if (orig == compare) store_u64(addr, swap);
  return orig;
}

std::uint64_t HostMemory::fetch_add(std::uint64_t addr, std::uint64_t add) {
  const std::uint64_t orig = load_u64(addr);
  store_u64(addr, orig + add);  // mod 2^64
  return orig;
}

bool operator==(const HostMemory& a, const HostMemory& b) {
  auto ia = a.pages_.begin();
  auto ib = b.pages_.begin();
  while (ia != a.pages_.end() || ib != b.pages_.end()) {
    if (ib == b.pages_.end() || (ia != a.pages_.end() && ia->first < ib->first)) {
      if (!all_zero(ia->second)) return false;
      ++ia;
    } else if (ia == a.pages_.end() || ib->first < ia->first) {
      if (!all_zero(ib->second)) return false;
      ++ib;
    } else {
      if (ia->second != ib->second) return false;
      ++ia;
      ++ib;
    }
  }
  return true;
}

}  // namespace rocecert::mem
