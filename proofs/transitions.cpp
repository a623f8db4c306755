// The QP state machine (IBA Vol. 1 §10.3.1, Figure 124 and Table 91 "QP state transition
// properties"; docs/spec-notes.md §6.2), proved over the very table modify_qp consults:
// qp::transition_entries(), read cell by cell into the solver.
#include <fmt/format.h>

#include <vector>

#include "internal.h"
#include "rocecert/qp/transitions.h"

namespace rocecert::proofs::detail {

namespace {

using qp::QpState;
using qp::QpType;
using Entries = std::array<qp::TransitionEntry, qp::kTransitionEntryCount>;

// The table, or its broken variant: `broken` edits one cell.
Entries table(Variant v, void (*broken)(Entries&)) {
  Entries t = qp::transition_entries();
  if (v == Variant::BROKEN) broken(t);
  return t;
}
qp::TransitionEntry& cell(Entries& t, QpType type, QpState from, QpState to) {
  return t[(qp::qp_type_index(type) * qp::kQpStateCount + qp::qp_state_index(from)) *
               qp::kQpStateCount +
           qp::qp_state_index(to)];  // transition_entries() is in (type, from, to) order
}

std::string state_name(unsigned index) {
  return std::string(qp::to_string(qp::kAllQpStates.at(index)));
}

// One modify_qp step of a QP of `type`: y is x (nothing done) or a valid cell's target.
z3::expr step(z3::context& c, const Entries& t, QpType type, const z3::expr& x, const z3::expr& y) {
  z3::expr r = x == y;
  for (const qp::TransitionEntry& e : t)
    if (e.type == type && e.rule.valid)
      r = r || (x == c.bv_val(static_cast<unsigned>(qp::qp_state_index(e.from)), 3) &&
                y == c.bv_val(static_cast<unsigned>(qp::qp_state_index(e.to)), 3));
  return r;
}

// A path of modify_qp calls from `from` to `to` (at most 6 steps: 7 states), or none.
std::optional<std::string> path(const Entries& t, QpType type, QpState from, QpState to) {
  z3::context c;
  std::vector<z3::expr> x;
  for (unsigned i = 0; i <= qp::kQpStateCount - 1; ++i)
    x.push_back(c.bv_const(fmt::format("x{}", i).c_str(), 3));
  z3::solver s(c);
  s.add(x.front() == c.bv_val(static_cast<unsigned>(qp::qp_state_index(from)), 3));
  s.add(x.back() == c.bv_val(static_cast<unsigned>(qp::qp_state_index(to)), 3));
  for (std::size_t i = 0; i + 1 < x.size(); ++i) s.add(step(c, t, type, x[i], x[i + 1]));
  if (s.check() != z3::sat) return std::nullopt;
  const z3::model m = s.get_model();
  std::string out;
  unsigned last = 99;
  for (const z3::expr& xi : x) {
    const unsigned v = m.eval(xi, true).get_numeral_uint();
    if (v == last) continue;
    out += (out.empty() ? "" : "->") + state_name(v);
    last = v;
  }
  return out;
}

}  // namespace

// Every state a QP can be put in by modify_qp is reachable from RESET, and SQE is not: a QP
// enters SQE only through a send-queue error (IBA Vol. 1 §10.3.1: the CI moves a UC or UD QP
// there on a send queue error), which the table has no cell for. ERR is reachable from every state.
Outcome prove_transitions_reachable(Variant v, const Options& /*options*/) {
  const Entries t = table(
      v, [](Entries& e) { cell(e, QpType::RC, QpState::INIT, QpState::RTR).rule.valid = false; });
  Outcome o;
  std::string evidence;
  for (const QpType type : qp::kAllQpTypes) {
    for (const QpState s : qp::kAllQpStates) {
      const auto p = path(t, type, QpState::RESET, s);
      if (s == QpState::SQE) {
        if (p) {
          o.counterexample = fmt::format("{}: modify_qp reaches SQE: {}", qp::to_string(type), *p);
          return o;
        }
        continue;
      }
      if (!p) {
        o.counterexample = fmt::format("{}: no sequence of modify_qp from RESET reaches {}",
                                       qp::to_string(type), qp::to_string(s));
        return o;
      }
      if (s == QpState::SQD) evidence += fmt::format("{}: {}; ", qp::to_string(type), *p);
    }
    for (const QpState s : qp::kAllQpStates) {
      if (path(t, type, s, QpState::ERR)) continue;
      o.counterexample = fmt::format("{}: no sequence of modify_qp from {} reaches ERR",
                                     qp::to_string(type), qp::to_string(s));
      return o;
    }
  }
  o.proved = true;
  o.evidence = evidence.substr(0, evidence.size() - 2);
  return o;
}

// Only RESET leaves ERR (IBA Vol. 1 §10.3.1: "the only transition out of the Error state is to
// Reset"), and every state but RESET can be sent to ERR directly (modify_qp to ERR is allowed
// from any state; RESET -> ERR only under the profile of older kernels, docs/spec-notes.md
// §11.13).
Outcome prove_err_exits(Variant v, const Options& /*options*/) {
  const Entries t = table(
      v, [](Entries& e) { cell(e, QpType::UC, QpState::ERR, QpState::RTS).rule.valid = true; });
  z3::context c;
  const z3::expr to = c.bv_const("to", 3);
  const z3::expr ty = c.bv_const("type", 2);
  z3::expr leaves_err = c.bool_val(false);
  for (const qp::TransitionEntry& e : t)
    if (e.rule.valid && e.from == QpState::ERR)
      leaves_err =
          leaves_err || (ty == c.bv_val(static_cast<unsigned>(qp::qp_type_index(e.type)), 2) &&
                         to == c.bv_val(static_cast<unsigned>(qp::qp_state_index(e.to)), 3));
  const unsigned reset = static_cast<unsigned>(qp::qp_state_index(QpState::RESET));
  const unsigned err = static_cast<unsigned>(qp::qp_state_index(QpState::ERR));
  const z3::expr claim =
      z3::implies(leaves_err, to == c.bv_val(reset, 3) || to == c.bv_val(err, 3));
  Outcome o;
  if (const auto m = refute(c, claim)) {
    o.counterexample =
        fmt::format("{}: ERR -> {} is a valid cell",
                    qp::to_string(qp::kAllQpTypes.at(m->eval(ty, true).get_numeral_uint())),
                    state_name(m->eval(to, true).get_numeral_uint()));
    return o;
  }
  for (const QpType type : qp::kAllQpTypes)
    for (const QpState s : qp::kAllQpStates) {
      if (s == QpState::RESET) continue;
      for (const qp::TransitionEntry& e : t)
        if (e.type == type && e.from == s && e.to == QpState::ERR && !e.rule.valid) {
          o.counterexample =
              fmt::format("{}: {} -> ERR is refused", qp::to_string(type), qp::to_string(s));
          return o;
        }
    }
  o.proved = true;
  return o;
}

// In every valid cell the required and the optional attributes are disjoint, and neither holds
// STATE, which names the transition itself (IBA Vol. 1 Table 91; docs/spec-notes.md §6.2).
Outcome prove_attrs_disjoint(Variant v, const Options& /*options*/) {
  const Entries t = table(v, [](Entries& e) {
    qp::TransitionEntry& x = cell(e, QpType::RC, QpState::RTR, QpState::RTS);
    x.rule.optional |= qp::AttrBit::SQ_PSN;  // also required there
  });
  z3::context c;
  const z3::expr i = c.bv_const("cell", 8);
  z3::expr req = c.bv_val(0, 32), opt = c.bv_val(0, 32), valid = c.bool_val(false);
  for (std::size_t k = 0; k < t.size(); ++k) {
    const z3::expr here = i == c.bv_val(static_cast<unsigned>(k), 8);
    req = z3::ite(here, c.bv_val(t[k].rule.required.raw(), 32), req);
    opt = z3::ite(here, c.bv_val(t[k].rule.optional.raw(), 32), opt);
    valid = z3::ite(here, c.bool_val(t[k].rule.valid), valid);
  }
  const z3::expr state = c.bv_val(static_cast<std::uint32_t>(qp::AttrBit::STATE), 32);
  const z3::expr claim = z3::implies(valid, (req & opt) == 0 && ((req | opt) & state) == 0);
  return settle(c, claim, [&](const z3::model& m) {
    const qp::TransitionEntry& e = t.at(m.eval(i, true).get_numeral_uint());
    return fmt::format("{} {} -> {}: required {:#x}, optional {:#x}", qp::to_string(e.type),
                       qp::to_string(e.from), qp::to_string(e.to), e.rule.required.raw(),
                       e.rule.optional.raw());
  });
}

}  // namespace rocecert::proofs::detail
