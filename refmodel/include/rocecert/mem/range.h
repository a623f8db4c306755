// Overflow-safe arithmetic on 64-bit address ranges [start, start + length).
//
// Every bounds rule of IBTA Vol. 1 §10.6; docs/spec-notes.md §7.3-7.4 is phrased on half-open
// ranges whose end may be exactly 2^64 (the last byte 0xFFFF'FFFF'FFFF'FFFF). No helper ever
// computes start + length, so no range "wraps into" another: a range that would run past 2^64 fits
// nowhere.
#pragma once

#include <cstdint>

namespace rocecert::mem {

// True when [start, start + length) does not run past 2^64. A zero-length range always fits.
constexpr bool range_fits(std::uint64_t start, std::uint64_t length) {
  return length == 0 || length - 1 <= ~std::uint64_t{0} - start;
}

// True when [start, start + length) lies inside [base, base + base_length). Both ranges must
// fit (range_fits); a zero-length range at base + base_length is inside (rxe mr_check_range).
constexpr bool range_within(std::uint64_t start, std::uint64_t length, std::uint64_t base,
                            std::uint64_t base_length) {
  return range_fits(start, length) && range_fits(base, base_length) && start >= base &&
         length <= base_length && start - base <= base_length - length;
}

}  // namespace rocecert::mem
