// The ROUND_ROBIN arbitration policy (errors::arbitrate(), refmodel/errors/arbitration.cpp;
// docs/error-arbitration.md): among QPs with pending error events, one event per QP in turn, QPs
// in key order starting after the QP served last, each QP's own events in PRECEDENCE order.
//
// The loop is unrolled over every input of up to kEvents events (any owners, any cursor): the
// events arrive sorted by PRECEDENCE (arbitrate() sorts first; ARB.TOTAL_ORDER makes that sort
// unique, so the input order cannot matter). Proved: every event is handled exactly once, each
// QP's events in PRECEDENCE order, and no QP is starved: between two turns of a QP, every other
// QP with an event pending gets its turn.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "internal.h"

namespace rocecert::proofs::detail {
namespace {

constexpr unsigned kEvents = 5;
// round_robin() reads QP keys only through their order and equality, so keys of 3 bits give
// every order of the up to 6 keys of a case (5 owners and the cursor): 8-bit keys would prove
// nothing more and slow the solver.
constexpr unsigned kKeyBits = 3;

}  // namespace

RoundRobinRun round_robin_run(z3::context& c, const std::vector<z3::expr>& owner,
                              const z3::expr& has_last, const z3::expr& last, Variant v) {
  const std::size_t n = owner.size();
  RoundRobinRun run;
  std::vector<z3::expr> served(n, c.bool_val(false));
  z3::expr cursor_set = has_last, cursor = last;
  for (std::size_t step = 0; step < n; ++step) {
    // The head of each QP's queue: its first unserved event (events are in PRECEDENCE order).
    std::vector<z3::expr> head;
    for (std::size_t i = 0; i < n; ++i) {
      z3::expr h = !served[i];
      for (std::size_t j = 0; j < i; ++j) h = h && !(owner[j] == owner[i] && !served[j]);
      head.push_back(h);
    }
    // The QP strictly after the cursor in key order, wrapping around: the smallest distance
    // owner - cursor - 1 (mod 2^8); without a cursor, the smallest key. BROKEN: the cursor is
    // never used, so the lowest key is always served first.
    const auto distance = [&](const z3::expr& key) {
      if (v == Variant::BROKEN) return key;
      return z3::ite(cursor_set, key - cursor - c.bv_val(1, key.get_sort().bv_size()), key);
    };
    z3::expr chosen = c.bv_val(static_cast<unsigned>(n), 8), found = c.bool_val(false);
    z3::expr best = c.bv_val(0, last.get_sort().bv_size());
    for (std::size_t i = 0; i < n; ++i) {
      const z3::expr better = head[i] && (!found || z3::ult(distance(owner[i]), best));
      chosen = z3::ite(better, c.bv_val(static_cast<unsigned>(i), 8), chosen);
      best = z3::ite(better, distance(owner[i]), best);
      found = found || head[i];
    }
    run.chosen.push_back(chosen);
    for (std::size_t i = 0; i < n; ++i)
      served[i] = served[i] || chosen == c.bv_val(static_cast<unsigned>(i), 8);
    // The owner of the chosen event becomes the cursor.
    z3::expr chosen_owner = owner[0];
    for (std::size_t i = 1; i < n; ++i)
      chosen_owner =
          z3::ite(chosen == c.bv_val(static_cast<unsigned>(i), 8), owner[i], chosen_owner);
    cursor_set = cursor_set || found;
    cursor = z3::ite(found, chosen_owner, cursor);
    run.owner_at.push_back(chosen_owner);
  }
  return run;
}

std::vector<errors::ErrorEvent> eval_round_robin(std::span<const errors::ErrorEvent> events,
                                                 errors::RoundRobinCursor cursor) {
  z3::context& c = scratch();
  std::vector<errors::ErrorEvent> sorted(events.begin(), events.end());
  std::sort(sorted.begin(), sorted.end(), errors::precedence_before);  // ARB.TOTAL_ORDER
  // QP keys as 8-bit ranks, in key order.
  std::map<errors::QpKey, unsigned> rank;
  for (const errors::ErrorEvent& e : sorted) rank[e.qp] = 0;
  if (cursor.last_served) rank[*cursor.last_served] = 0;
  unsigned r = 0;
  for (auto& [key, value] : rank) value = r++;
  std::vector<z3::expr> owner;
  for (const errors::ErrorEvent& e : sorted) owner.push_back(c.bv_val(rank.at(e.qp), 8));
  const RoundRobinRun run = round_robin_run(
      c, owner, c.bool_val(cursor.last_served.has_value()),
      c.bv_val(cursor.last_served ? rank.at(*cursor.last_served) : 0u, 8), Variant::MODEL);
  std::vector<errors::ErrorEvent> out;
  for (const z3::expr& k : run.chosen) out.push_back(sorted.at(k.simplify().get_numeral_uint()));
  return out;
}

namespace {

// The three properties for inputs of exactly n events.
Outcome prove_round_robin_of(unsigned n, Variant v) {
  z3::context c;
  std::vector<z3::expr> owner;
  for (unsigned i = 0; i < n; ++i)
    owner.push_back(c.bv_const(fmt::format("qp{}", i).c_str(), kKeyBits));
  const z3::expr has_last = c.bool_const("has_last"), last = c.bv_const("last", kKeyBits);
  const RoundRobinRun run = round_robin_run(c, owner, has_last, last, v);
  const auto at = [&](unsigned step, unsigned event) {
    return run.chosen[step] == c.bv_val(event, 8);
  };
  // Every event exactly once.
  z3::expr once = c.bool_val(true);
  for (unsigned i = 0; i < n; ++i) {
    z3::expr count = c.bv_val(0, 8);
    for (unsigned s = 0; s < n; ++s)
      count = count + z3::ite(at(s, i), c.bv_val(1, 8), c.bv_val(0, 8));
    once = once && count == c.bv_val(1, 8);
  }
  // Each QP's events in PRECEDENCE order (the order they arrive in).
  z3::expr in_order = c.bool_val(true);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = i + 1; j < n; ++j)
      for (unsigned s = 0; s < n; ++s)
        for (unsigned t = s + 1; t < n; ++t)
          in_order = in_order && z3::implies(owner[i] == owner[j], !(at(s, j) && at(t, i)));
  // No starvation: if steps s < t serve the same QP and no step between does, every event of
  // another QP still pending after step s has its QP served at some step between. One claim per
  // pair of steps: as one conjunction the solver takes 2-3 times longer.
  std::vector<z3::expr> fair;
  for (unsigned s = 0; s < n; ++s)
    for (unsigned t = s + 1; t < n; ++t) {
      z3::expr pair_fair = c.bool_val(true);
      z3::expr consecutive = run.owner_at[s] == run.owner_at[t];
      for (unsigned u = s + 1; u < t; ++u)
        consecutive = consecutive && run.owner_at[u] != run.owner_at[s];
      for (unsigned j = 0; j < n; ++j) {
        z3::expr pending = owner[j] != run.owner_at[s];
        for (unsigned u = 0; u <= s; ++u) pending = pending && !at(u, j);
        z3::expr turn = c.bool_val(false);
        for (unsigned u = s + 1; u < t; ++u) turn = turn || run.owner_at[u] == owner[j];
        pair_fair = pair_fair && z3::implies(consecutive && pending, turn);
      }
      fair.push_back(pair_fair);
    }
  const auto describe = [&](const z3::model& m) {
    const auto u = [&](const z3::expr& x) { return m.eval(x, true).get_numeral_uint(); };
    std::string owners, order;
    for (unsigned i = 0; i < n; ++i)
      owners += fmt::format("{}e{}:QP{}", i ? " " : "", i, u(owner[i]));
    for (unsigned s = 0; s < n; ++s) order += fmt::format("{}e{}", s ? "," : "", u(run.chosen[s]));
    const std::string cursor =
        m.eval(has_last, true).is_true() ? fmt::format("QP{}", u(last)) : std::string("none");
    return fmt::format("events {} (PRECEDENCE order), last served {}: handled {}", owners, cursor,
                       order);
  };
  std::vector<std::pair<const char*, z3::expr>> claims = {
      {"an event not handled exactly once", once},
      {"a QP's events out of PRECEDENCE order", in_order}};
  for (const z3::expr& f : fair) claims.emplace_back("a QP starved", f);
  for (const auto& [name, claim] : claims) {
    Outcome o = settle(c, claim, describe);
    if (!o.proved) {
      o.counterexample = fmt::format("{}: {}", name, o.counterexample);
      return o;
    }
  }
  Outcome ok;
  ok.proved = true;
  return ok;
}

}  // namespace

Outcome prove_round_robin(Variant v, const Options& /*options*/) {
  for (unsigned n = 1; n <= kEvents; ++n) {
    Outcome o = prove_round_robin_of(n, v);
    if (!o.proved) return o;
  }
  Outcome ok;
  ok.proved = true;
  ok.evidence = fmt::format("every input of 1 to {} events, any owners, any cursor", kEvents);
  return ok;
}

}  // namespace rocecert::proofs::detail
