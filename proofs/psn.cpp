// PSN arithmetic (IBA Vol. 1 §9.7.5.1, "the PSN space"; docs/spec-notes.md §3.1): the serial
// order of 24-bit PSNs and the responder's three regions, proved for every pair of PSNs.
#include <fmt/format.h>

#include "internal.h"
#include "rocecert/qp/ids.h"

namespace rocecert::proofs::detail {

namespace {
constexpr std::uint32_t kSpace = qp::Psn::kMask + 1;  // 2^24
constexpr std::uint32_t kHalf = qp::Psn::kHalf;       // 2^23
}  // namespace

z3::expr psn_diff(z3::context& c, const z3::expr& a, const z3::expr& b, Variant v) {
  const z3::expr d = (a - b) & c.bv_val(qp::Psn::kMask, 32);
  const std::uint32_t half = v == Variant::BROKEN ? kHalf + 1 : kHalf;
  return z3::ite(z3::uge(d, c.bv_val(half, 32)), d - c.bv_val(kSpace, 32), d);
}

std::int32_t eval_psn_diff(std::uint32_t a, std::uint32_t b) {
  z3::context& c = scratch();
  const z3::expr r = psn_diff(c, c.bv_val(a, 32), c.bv_val(b, 32), Variant::MODEL).simplify();
  return static_cast<std::int32_t>(r.get_numeral_uint());
}

// The serial order as the specification phrases it, on native 24-bit arithmetic (an
// independent formulation: no masks, no sign tricks): b is before a when a - b mod 2^24 lies in
// [1, 2^23), a is before b when it lies in [2^23, 2^24) (the boundary 2^23 read as "before", as
// rxe's psn_compare does; IBA leaves that one distance unordered), equal at 0.
Outcome prove_psn_serial_order(Variant v, const Options& /*options*/) {
  z3::context c;
  const z3::expr a = c.bv_const("a", 32), b = c.bv_const("b", 32);
  const z3::expr in_space = z3::ult(a, c.bv_val(kSpace, 32)) && z3::ult(b, c.bv_val(kSpace, 32));
  const z3::expr d24 = a.extract(23, 0) - b.extract(23, 0);  // mod 2^24 by construction
  const z3::expr diff = psn_diff(c, a, b, v);
  const z3::expr after = z3::uge(d24, c.bv_val(1, 24)) && z3::ult(d24, c.bv_val(kHalf, 24));
  const z3::expr claim =
      z3::implies(in_space, (diff > 0) == after && (diff == 0) == (a == b) &&
                                (diff < 0) == (!after && a != b) &&
                                diff >= c.bv_val(-static_cast<std::int64_t>(kHalf), 32) &&
                                diff <= c.bv_val(kHalf - 1, 32) &&
                                // the distance itself, mod 2^24: a - b = diff (mod 2^24)
                                diff.extract(23, 0) == d24);
  return settle(c, claim, [&](const z3::model& m) {
    return fmt::format("a={} b={}: psn_diff(a, b) = {}", hex_of(m, a), hex_of(m, b),
                       static_cast<std::int32_t>(m.eval(diff, true).get_numeral_uint()));
  });
}

// The responder's regions relative to its expected PSN e (IBA Vol. 1 §9.7.5.1.1-2, C9-105;
// docs/spec-notes.md §3.3): p = e is the next request; the 2^23 PSNs before e (e - 2^23 ... e - 1)
// are duplicates, re-answered and never executed again; the 2^23 - 1 after it (e + 1 ...
// e + 2^23 - 1) are ahead of it, a PSN sequence error (RC) or a skipped message (UC). The model's
// responder classifies by the sign of psn_diff(p, e): proved to be exactly those regions, which
// partition the PSN space.
Outcome prove_psn_responder_regions(Variant v, const Options& /*options*/) {
  z3::context c;
  const z3::expr p = c.bv_const("p", 32), e = c.bv_const("e", 32);
  const z3::expr in_space = z3::ult(p, c.bv_val(kSpace, 32)) && z3::ult(e, c.bv_val(kSpace, 32));
  const z3::expr diff = psn_diff(c, p, e, v);
  const z3::expr back = e.extract(23, 0) - p.extract(23, 0);   // how far p is behind e
  const z3::expr ahead = p.extract(23, 0) - e.extract(23, 0);  // how far p is ahead of e
  const z3::expr is_duplicate =
      z3::uge(back, c.bv_val(1, 24)) && z3::ule(back, c.bv_val(kHalf, 24));
  const z3::expr is_ahead = z3::uge(ahead, c.bv_val(1, 24)) && z3::ult(ahead, c.bv_val(kHalf, 24));
  const z3::expr is_next = p == e;
  const z3::expr claim = z3::implies(
      in_space, (diff < 0) == is_duplicate && (diff > 0) == is_ahead && (diff == 0) == is_next &&
                    // a partition: exactly one region
                    (is_duplicate || is_ahead || is_next) && !(is_duplicate && is_ahead) &&
                    !(is_duplicate && is_next) && !(is_ahead && is_next));
  return settle(c, claim, [&](const z3::model& m) {
    return fmt::format("p={} e={}: psn_diff(p, e) = {}", hex_of(m, p), hex_of(m, e),
                       static_cast<std::int32_t>(m.eval(diff, true).get_numeral_uint()));
  });
}

}  // namespace rocecert::proofs::detail
