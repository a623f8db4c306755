// Where a vector's host addresses are on a real host. A vector places its MRs at addresses of
// its own choosing ("addr": "0x10000"), and two MRs may share bytes (a window over part of a
// region, two registrations of one buffer): the player keeps that sharing by giving each run of
// overlapping or touching ranges one buffer of the device, and maps every vector address inside
// it to the same offset there.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rocecert/verbs/verbs.h"

namespace rocecert::verbs {

class HostMemory {
 public:
  // A range the vector uses (an MR's addr and length); before allocate().
  void plan(std::uint64_t addr, std::uint64_t length);
  // One buffer per merged range, page-aligned memory with the range at its vector offset in the
  // page. False when the device has not that much memory; `failed`
  // then holds the range's start and length.
  bool allocate(Verbs& device, std::pair<std::uint64_t, std::uint64_t>& failed);
  // The host address of a vector address inside a planned range; nullopt outside them.
  std::optional<std::uint64_t> host(std::uint64_t vector_addr) const;

 private:
  struct Range {
    std::uint64_t start = 0;
    std::uint64_t end = 0;  // exclusive; saturates at 2^64 - 1
    std::uint64_t host = 0;
  };
  std::vector<Range> ranges_;  // sorted and merged by allocate()
};

}  // namespace rocecert::verbs
