// Multi-QP error arbitration (docs/error-arbitration.md: nothing in the IBTA orders simultaneous
// errors of different QPs, IBA Vol. 1 §10.10 and §11.6 describe each alone; the model fixes one):
// the PRECEDENCE key errors::precedence_compare() is a strict total order over error events.
// Sorting by a strict total order has one result, so the order the model handles simultaneous
// errors in cannot depend on the order they were collected in.
#include <fmt/format.h>

#include "internal.h"
#include "rocecert/errors/arbitration.h"
#include "rocecert/errors/error_table.h"

namespace rocecert::proofs::detail {

namespace {

// An error event as bit-vectors: the fields precedence_compare() reads.
struct Event {
  z3::expr cls, time, qpn, adapter, kind, id;
};

Event event(z3::context& c, const std::string& n) {
  return {c.bv_const((n + ".class").c_str(), 8),    c.bv_const((n + ".time").c_str(), 64),
          c.bv_const((n + ".qpn").c_str(), 32),     c.bv_const((n + ".adapter").c_str(), 32),
          c.bv_const((n + ".resource").c_str(), 8), c.bv_const((n + ".id").c_str(), 32)};
}

// Lexicographic "less" over (key_i), each compared unsigned, as precedence_compare() does.
z3::expr lex_less(const std::vector<std::pair<z3::expr, z3::expr>>& keys) {
  z3::expr r = keys.back().first.ctx().bool_val(false);
  for (auto it = keys.rbegin(); it != keys.rend(); ++it)
    r = z3::ult(it->first, it->second) || (it->first == it->second && r);
  return r;
}

}  // namespace

z3::expr error_tier(z3::context& c, const z3::expr& cls) {
  z3::expr t = c.bv_val(0, 8);
  for (std::size_t i = 0; i < errors::kErrorClassCount; ++i)
    t = z3::ite(
        cls == c.bv_val(static_cast<unsigned>(i), 8),
        c.bv_val(static_cast<unsigned>(errors::tier_of(static_cast<errors::ErrorClass>(i))), 8), t);
  return t;
}

// The transcription of precedence_compare(a, b) < 0: tier, time, QPN, adapter, class, resource
// (kind, then id). BROKEN: the resource left out of the key.
z3::expr precedence_less(z3::context& c, const Event& a, const Event& b, Variant v) {
  std::vector<std::pair<z3::expr, z3::expr>> keys = {{error_tier(c, a.cls), error_tier(c, b.cls)},
                                                     {a.time, b.time},
                                                     {a.qpn, b.qpn},
                                                     {a.adapter, b.adapter},
                                                     {a.cls, b.cls}};
  if (v == Variant::MODEL) {
    keys.emplace_back(a.kind, b.kind);
    keys.emplace_back(a.id, b.id);
  }
  return lex_less(keys);
}

int eval_precedence(const errors::ErrorEvent& a, const errors::ErrorEvent& b) {
  z3::context& c = scratch();
  const auto lit = [&](const errors::ErrorEvent& e) {
    return Event{c.bv_val(static_cast<unsigned>(e.error), 8),
                 c.bv_val(static_cast<std::uint64_t>(e.time_ns), 64),
                 c.bv_val(e.qp.qpn, 32),
                 c.bv_val(e.qp.adapter, 32),
                 c.bv_val(static_cast<unsigned>(e.resource.kind), 8),
                 c.bv_val(e.resource.id, 32)};
  };
  const Event x = lit(a), y = lit(b);
  if (precedence_less(c, x, y, Variant::MODEL).simplify().is_true()) return -1;
  if (precedence_less(c, y, x, Variant::MODEL).simplify().is_true()) return 1;
  return 0;
}

// A strict total order: irreflexive, transitive, and any two different events are ordered
// (two events are "the same" only when every field is).
Outcome prove_arbitration_order(Variant v, const Options& /*options*/) {
  z3::context c;
  const Event a = event(c, "a"), b = event(c, "b"), d = event(c, "c");
  const auto valid = [&](const Event& e) {
    return z3::ult(e.cls, c.bv_val(static_cast<unsigned>(errors::kErrorClassCount), 8)) &&
           z3::ule(e.kind, c.bv_val(static_cast<unsigned>(errors::ResourceKind::SRQ), 8));
  };
  const auto same = [](const Event& x, const Event& y) {
    return x.cls == y.cls && x.time == y.time && x.qpn == y.qpn && x.adapter == y.adapter &&
           x.kind == y.kind && x.id == y.id;
  };
  const auto lt = [&](const Event& x, const Event& y) { return precedence_less(c, x, y, v); };
  const z3::expr claim = z3::implies(valid(a) && valid(b) && valid(d),
                                     !lt(a, a) && z3::implies(lt(a, b) && lt(b, d), lt(a, d)) &&
                                         z3::implies(!same(a, b), lt(a, b) || lt(b, a)));
  return settle(c, claim, [&](const z3::model& m) {
    const auto show = [&](const Event& e) {
      return fmt::format(
          "{{{} t={} qpn={} adapter={} resource={}:{}}}",
          errors::to_string(
              static_cast<errors::ErrorClass>(m.eval(e.cls, true).get_numeral_uint())),
          m.eval(e.time, true).get_numeral_uint64(), hex_of(m, e.qpn),
          m.eval(e.adapter, true).get_numeral_uint(), m.eval(e.kind, true).get_numeral_uint(),
          m.eval(e.id, true).get_numeral_uint());
    };
    return fmt::format("a={} b={} c={}: a<b {}, b<a {}", show(a), show(b), show(d),
                       m.eval(lt(a, b), true).is_true(), m.eval(lt(b, a), true).is_true());
  });
}

}  // namespace rocecert::proofs::detail
