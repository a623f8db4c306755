// Memory bounds (IBA Vol. 1 §10.6; C10-75 for windows: an access [va, va + length) must lie inside
// the region or window; docs/spec-notes.md §7.3-7.4): mem::range_within against the specification's
// formula in unbounded arithmetic, for every 64-bit start, length, base and region length.
#include <fmt/format.h>

#include "internal.h"
#include "rocecert/mem/range.h"

namespace rocecert::proofs::detail {

z3::expr range_within(z3::context& c, const z3::expr& start, const z3::expr& length,
                      const z3::expr& base, const z3::expr& base_length, Variant v) {
  const unsigned w = start.get_sort().bv_size();
  const z3::expr zero = c.bv_val(0, w), one = c.bv_val(1, w), all = ~zero;
  // range_fits(s, l): l == 0 || l - 1 <= ~0 - s
  const auto fits = [&](const z3::expr& s, const z3::expr& l) {
    return l == zero || z3::ule(l - one, all - s);
  };
  if (v == Variant::BROKEN)  // the wrapping end compare
    return z3::uge(start, base) && z3::ule(start + length, base + base_length);
  return fits(start, length) && fits(base, base_length) && z3::uge(start, base) &&
         z3::ule(length, base_length) && z3::ule(start - base, base_length - length);
}

bool eval_range_within(std::uint64_t start, std::uint64_t length, std::uint64_t base,
                       std::uint64_t base_length) {
  z3::context c;
  return range_within(c, c.bv_val(start, 64), c.bv_val(length, 64), c.bv_val(base, 64),
                      c.bv_val(base_length, 64), Variant::MODEL)
      .simplify()
      .is_true();
}

// The specification's formula one bit wider than the words (no wrap possible): base <= start and
// start + length <= base + base_length <= 2^64 (2^w for w-bit words). A zero-length access at the
// region's end is inside (rxe mr_check_range).
Outcome prove_range_within(Variant v, const Options& options) {
  z3::context c;
  const unsigned w = options.quick ? 16 : 64;
  // Short names on purpose: the solver's search order depends on them (Z3 4.8.12: ~35 s with
  // these, ~60 s with "va", "length", ...); counterexamples are printed with the long names.
  const z3::expr s = c.bv_const("s", w), l = c.bv_const("l", w), b = c.bv_const("b", w),
                 bl = c.bv_const("bl", w);
  // One bit more than the words: sums of two words, and 2^w, are exact.
  const auto wide = [](const z3::expr& x) { return z3::zext(x, 1); };
  const z3::expr limit = z3::shl(c.bv_val(1, w + 1), c.bv_val(w, w + 1));  // 2^w
  const z3::expr spec = z3::ule(wide(b), wide(s)) &&
                        z3::ule(wide(s) + wide(l), wide(b) + wide(bl)) &&
                        z3::ule(wide(b) + wide(bl), limit);
  const z3::expr claim = range_within(c, s, l, b, bl, v) == spec;
  return settle(c, claim, [&](const z3::model& m) {
    return fmt::format(
        "va={} length={} base={} region_length={}: the model says {}, the specification {}",
        hex_of(m, s), hex_of(m, l), hex_of(m, b), hex_of(m, bl),
        m.eval(range_within(c, s, l, b, bl, v), true).is_true() ? "inside" : "outside",
        m.eval(spec, true).is_true() ? "inside" : "outside");
  });
}

}  // namespace rocecert::proofs::detail
