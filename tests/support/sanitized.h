// Test support: the size of a drawn or long test, full in the release suite and smaller under
// ASan/UBSan.
//
// `make test` runs every test twice, optimised (GCC, release) and under ASan/UBSan (clang, -O1).
// Under the sanitizers every allocation goes through ASan's allocator, and Z3 allocates and
// touches fresh memory at every solver call: the tests that draw hundreds of traces for the
// solver took 25 times as long there as in the release suite (docs/bench.md, "make test
// itself"). The release suite keeps their full size, which is what their statements are about;
// the sanitized suite runs enough of each to reach every path the draw reaches, with memory and
// UB checked.
//
// Header-only; included by relative path from the test directories that have no include path
// to tests/support.
#pragma once

namespace rocecert::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// `full` in the release suite, `sanitized` under ASan/UBSan.
template <typename T>
constexpr T full_or_sanitized(T full, T sanitized) {
  return kSanitized ? sanitized : full;
}

}  // namespace rocecert::testing
