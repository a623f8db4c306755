// Memory bounds (IBA Vol. 1 §10.6; C10-75 for windows: an access [va, va + length) must lie inside
// the region or window; docs/spec-notes.md §7.3-7.4): mem::range_fits and mem::range_within
// against the specification's formulas in exact arithmetic, for every 64-bit start, length, base
// and region length.
//
// How: the two functions are transcribed once, over an arithmetic of unsigned w-bit words. Read
// as bit-vectors, the transcription is what KEY_CHECK builds on and what the tests hold to the
// compiled functions. Read as integers in [0, 2^w) with + and - modulo 2^w, the solver proves it
// equal to the specification in linear integer arithmetic, in milliseconds. Two facts join the
// readings: each bit-vector operation the transcription uses is its integer operation, proved on
// words one bit wider, where every value involved is held exactly. Bit-blasting the whole claim
// at 64 bits took the solver 35-250 s, depending on how the formula was phrased.
#include <fmt/format.h>

#include "internal.h"
#include "rocecert/mem/range.h"

namespace rocecert::proofs::detail {
namespace {

// Unsigned w-bit words as bit-vectors: what the model computes.
struct Words {
  z3::context& c;
  unsigned w;
  z3::expr zero() const { return c.bv_val(0, w); }
  z3::expr one() const { return c.bv_val(1, w); }
  z3::expr all() const { return ~zero(); }
  static z3::expr add(const z3::expr& a, const z3::expr& b) { return a + b; }
  static z3::expr sub(const z3::expr& a, const z3::expr& b) { return a - b; }
  static z3::expr le(const z3::expr& a, const z3::expr& b) { return z3::ule(a, b); }
};

// The same words as integers in [0, m), m = 2^w, with + and - modulo m.
struct Integers {
  z3::context& c;
  z3::expr m;
  z3::expr zero() const { return c.int_val(0); }
  z3::expr one() const { return c.int_val(1); }
  z3::expr all() const { return m - 1; }
  z3::expr add(const z3::expr& a, const z3::expr& b) const {
    return z3::ite(a + b >= m, a + b - m, a + b);
  }
  z3::expr sub(const z3::expr& a, const z3::expr& b) const {
    return z3::ite(a >= b, a - b, a - b + m);
  }
  static z3::expr le(const z3::expr& a, const z3::expr& b) { return a <= b; }
};

// mem::range_fits: length == 0 || length - 1 <= ~0 - start.
template <class Arith>
z3::expr fits_in(const Arith& a, const z3::expr& start, const z3::expr& length) {
  return length == a.zero() || a.le(a.sub(length, a.one()), a.sub(a.all(), start));
}

// mem::range_within. BROKEN: the wrapping end compare.
template <class Arith>
z3::expr within_in(const Arith& a, const z3::expr& s, const z3::expr& l, const z3::expr& b,
                   const z3::expr& bl, Variant v) {
  if (v == Variant::BROKEN) return a.le(b, s) && a.le(a.add(s, l), a.add(b, bl));
  return fits_in(a, s, l) && fits_in(a, b, bl) && a.le(b, s) && a.le(l, bl) &&
         a.le(a.sub(s, b), a.sub(bl, l));
}

// The integer image of w-bit words, on words of w + 1 bits: zero-extended operands are below
// 2^w, so every intermediate below stays in [0, 2^(w+1)) and the (w+1)-bit operations are exact.
z3::expr ops_are_integer_ops(z3::context& c, unsigned w) {
  const z3::expr x = c.bv_const("x", w), y = c.bv_const("y", w);
  const auto wide = [](const z3::expr& e) { return z3::zext(e, 1); };
  const z3::expr m = z3::shl(c.bv_val(1, w + 1), c.bv_val(w, w + 1));  // 2^w
  const z3::expr sum = wide(x) + wide(y);
  return wide(x + y) == z3::ite(z3::uge(sum, m), sum - m, sum) &&
         wide(x - y) ==
             z3::ite(z3::uge(wide(x), wide(y)), wide(x) - wide(y), wide(x) + m - wide(y)) &&
         z3::ule(x, y) == z3::ule(wide(x), wide(y)) && wide(~c.bv_val(0, w)) == m - 1;
}

}  // namespace

z3::expr range_within(z3::context& c, const z3::expr& start, const z3::expr& length,
                      const z3::expr& base, const z3::expr& base_length, Variant v) {
  return within_in(Words{c, start.get_sort().bv_size()}, start, length, base, base_length, v);
}

z3::expr range_fits(z3::context& c, const z3::expr& start, const z3::expr& length) {
  return fits_in(Words{c, start.get_sort().bv_size()}, start, length);
}

bool eval_range_within(std::uint64_t start, std::uint64_t length, std::uint64_t base,
                       std::uint64_t base_length) {
  z3::context& c = scratch();
  return range_within(c, c.bv_val(start, 64), c.bv_val(length, 64), c.bv_val(base, 64),
                      c.bv_val(base_length, 64), Variant::MODEL)
      .simplify()
      .is_true();
}

// The specification's formulas on bit-vectors one bit wider than the words, where sums of two
// words and 2^w are exact: what KEY_CHECK and MW_BINDING use in place of the transcription.
z3::expr spec_within(z3::context& c, const z3::expr& s, const z3::expr& l, const z3::expr& b,
                     const z3::expr& bl) {
  const unsigned w = s.get_sort().bv_size();
  const auto wide = [](const z3::expr& x) { return z3::zext(x, 1); };
  const z3::expr limit = z3::shl(c.bv_val(1, w + 1), c.bv_val(w, w + 1));  // 2^w
  return z3::ule(wide(b), wide(s)) && z3::ule(wide(s) + wide(l), wide(b) + wide(bl)) &&
         z3::ule(wide(b) + wide(bl), limit);
}

z3::expr spec_fits(z3::context& c, const z3::expr& s, const z3::expr& l) {
  const unsigned w = s.get_sort().bv_size();
  const auto wide = [](const z3::expr& x) { return z3::zext(x, 1); };
  return z3::ule(wide(s) + wide(l), z3::shl(c.bv_val(1, w + 1), c.bv_val(w, w + 1)));
}

// The specification in integers: base <= start and start + length <= base + base_length <= 2^64
// (2^w for w-bit words); a zero-length access at the region's end is inside (rxe
// mr_check_range). And range_fits: start + length <= 2^64.
Outcome prove_range_within(Variant v, const Options& options) {
  z3::context c;
  const unsigned w = options.quick ? 16 : 64;
  const Outcome ops = settle(c, ops_are_integer_ops(c, w), [&](const z3::model& m) {
    return fmt::format("a {}-bit operation on x={} y={} is not its integer operation", w,
                       hex_of(m, c.bv_const("x", w)), hex_of(m, c.bv_const("y", w)));
  });
  if (!ops.proved) return ops;

  const Integers a{c, c.int_val(fmt::format("{}", std::uint64_t{1} << (w - 1)).c_str()) * 2};
  const z3::expr s = c.int_const("va"), l = c.int_const("length"), b = c.int_const("base"),
                 bl = c.int_const("region_length");
  const auto word = [&](const z3::expr& x) { return x >= 0 && x < a.m; };
  const z3::expr model = within_in(a, s, l, b, bl, v), fits = fits_in(a, s, l);
  const z3::expr spec = b <= s && s + l <= b + bl && b + bl <= a.m;
  const z3::expr spec_fit = s + l <= a.m;
  const auto holds = [](const z3::model& m, const z3::expr& e) {
    return m.eval(e, true).is_true();
  };
  return settle(
      c, z3::implies(word(s) && word(l) && word(b) && word(bl), model == spec && fits == spec_fit),
      [&](const z3::model& m) {
        return fmt::format(
            "va={} length={} base={} region_length={}: the model says {} ({}), the "
            "specification {} ({})",
            hex_of(m, s), hex_of(m, l), hex_of(m, b), hex_of(m, bl),
            holds(m, model) ? "inside" : "outside", holds(m, fits) ? "fits" : "wraps",
            holds(m, spec) ? "inside" : "outside", holds(m, spec_fit) ? "fits" : "wraps");
      });
}

}  // namespace rocecert::proofs::detail
