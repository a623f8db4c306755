#include "host_memory.h"

#include <algorithm>

namespace rocecert::verbs {

namespace {
constexpr std::uint64_t kPage = 4096;
}  // namespace

void HostMemory::plan(std::uint64_t addr, std::uint64_t length) {
  // A zero-length region still names its address; a range past 2^64 stops there.
  const std::uint64_t len = std::max<std::uint64_t>(length, 1);
  const std::uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
  ranges_.push_back({addr, end, 0});
}

bool HostMemory::allocate(Verbs& device, std::pair<std::uint64_t, std::uint64_t>& failed) {
  std::sort(ranges_.begin(), ranges_.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  std::vector<Range> merged;
  for (const Range& r : ranges_) {
    if (!merged.empty() && r.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, r.end);
    } else {
      merged.push_back(r);
    }
  }
  ranges_ = std::move(merged);
  for (Range& r : ranges_) {
    // The range starts at the same offset in its page as in the vector, so every address keeps
    // its alignment (a vector about a misaligned atomic stays misaligned, an aligned one aligned).
    const std::uint64_t in_page = r.start & (kPage - 1);
    const std::uint64_t base = device.alloc_memory(in_page + (r.end - r.start));
    if (base == 0) {
      failed = {r.start, r.end - r.start};
      return false;
    }
    r.host = base + in_page;
  }
  return true;
}

std::optional<std::uint64_t> HostMemory::host(std::uint64_t vector_addr) const {
  for (const Range& r : ranges_)
    if (vector_addr >= r.start && vector_addr < r.end) return r.host + (vector_addr - r.start);
  return std::nullopt;
}

}  // namespace rocecert::verbs
