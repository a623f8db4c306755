// z3.key: one memory-key table for every access a responder answered on a connection
// (proofs/include/rocecert/proofs/trace_keys.h). Each observation and each setup entry is
// asserted under an assumption literal of its own, so that an unsatisfiable check yields the
// observations that clash; the core is then minimised by deletion.
#include "rocecert/proofs/trace_keys.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <map>
#include <set>

#include <utility>

#include "trace_context.h"

namespace rocecert::proofs::trace {
namespace {

struct Region {
  z3::expr usable, read, write, atomic, lo, hi;
  z3::expr flush1, flush2, flush3;  // the FLUSH right per placement asked (flush_right)
  const z3::expr& flush(unsigned placement) const {
    return placement == 1 ? flush1 : placement == 2 ? flush2 : flush3;
  }
};

KeyJudgement judge_keys_on(z3::solver& s, std::span<const KeyObservation> observations,
                           std::span<const KnownKey> known_keys, const std::optional<KnownQp>& qp) {
  z3::context& c = s.ctx();
  const detail::Scope scope(s);
  // Addresses as integers (linear arithmetic: much faster here than 65-bit vectors).
  const z3::expr top = c.int_val("18446744073709551616");  // 2^64
  const auto wide = [&](std::uint64_t v) { return c.int_val(v); };
  // The QP's access flags, per kind.
  const z3::expr qp_read = c.bool_const("qp.read"), qp_write = c.bool_const("qp.write"),
                 qp_atomic = c.bool_const("qp.atomic");
  const z3::expr qp_flush[] = {c.bool_val(true), c.bool_const("qp.flush1"),
                               c.bool_const("qp.flush2"), c.bool_const("qp.flush3")};

  std::map<std::pair<std::uint32_t, std::uint32_t>, Region> regions;  // (rkey, epoch)
  const auto region = [&](std::uint32_t rkey, std::uint32_t epoch) -> const Region& {
    auto it = regions.find({rkey, epoch});
    if (it != regions.end()) return it->second;
    const std::string n = fmt::format("r{}", regions.size());
    Region r{c.bool_const((n + ".usable").c_str()), c.bool_const((n + ".read").c_str()),
             c.bool_const((n + ".write").c_str()),  c.bool_const((n + ".atomic").c_str()),
             c.int_const((n + ".lo").c_str()),      c.int_const((n + ".hi").c_str()),
             c.bool_const((n + ".flush1").c_str()), c.bool_const((n + ".flush2").c_str()),
             c.bool_const((n + ".flush3").c_str())};
    s.add(0 <= r.lo && r.lo <= r.hi && r.hi <= top);  // a region inside the 64-bit space
    return regions.emplace(std::pair{rkey, epoch}, r).first->second;
  };

  std::vector<z3::expr> literals;
  std::vector<std::pair<bool, std::size_t>> what;  // (an observation?, its index or setup index)
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const KeyObservation& o = observations[i];
    const Region& r = region(o.rkey, o.epoch);
    const unsigned fr = flush_right(o);
    const z3::expr right = o.kind == AccessKind::READ    ? r.read && qp_read
                           : o.kind == AccessKind::WRITE ? r.write && qp_write
                           : o.kind == AccessKind::FLUSH
                               ? (fr == 0 ? c.bool_val(true) : r.flush(fr) && qp_flush[fr])
                               : r.atomic && qp_atomic;
    const z3::expr inside = o.kind == AccessKind::FLUSH && o.whole_region
                                ? c.bool_val(true)
                                : r.lo <= wide(o.va) && wide(o.va) + wide(o.length) <= r.hi;
    const z3::expr allowed = r.usable && right && inside;
    const z3::expr lit = c.bool_const(fmt::format("obs{}", i).c_str());
    s.add(z3::implies(lit, o.granted ? allowed : !allowed));
    literals.push_back(lit);
    what.emplace_back(true, i);
  }
  std::vector<std::string> setup_names;
  for (const KnownKey& k : known_keys) {
    if (regions.find({k.rkey, 0}) == regions.end()) continue;  // no access names it
    const Region& r = region(k.rkey, 0);
    const z3::expr says =
        k.exists ? r.usable == c.bool_val(k.usable) && r.read == c.bool_val(k.read) &&
                       r.write == c.bool_val(k.write) && r.atomic == c.bool_val(k.atomic) &&
                       r.flush1 == c.bool_val(k.flush_global) &&
                       r.flush2 == c.bool_val(k.flush_persistent) &&
                       r.flush3 == c.bool_val(k.flush_global && k.flush_persistent) &&
                       r.lo == wide(k.base) && r.hi == wide(k.base) + wide(k.length)
                 : !r.usable;
    const z3::expr lit = c.bool_const(fmt::format("setup{}", setup_names.size()).c_str());
    s.add(z3::implies(lit, says));
    literals.push_back(lit);
    what.emplace_back(false, setup_names.size());
    setup_names.push_back(k.exists ? k.name : fmt::format("no MR of rkey {:#x}", k.rkey));
  }
  if (qp) {
    const z3::expr lit = c.bool_const("setup.qp");
    s.add(
        z3::implies(lit, qp_read == c.bool_val(qp->read) && qp_write == c.bool_val(qp->write) &&
                             qp_atomic == c.bool_val(qp->atomic) &&
                             qp_flush[1] == c.bool_val(qp->flush_global) &&
                             qp_flush[2] == c.bool_val(qp->flush_persistent) &&
                             qp_flush[3] == c.bool_val(qp->flush_global && qp->flush_persistent)));
    literals.push_back(lit);
    what.emplace_back(false, setup_names.size());
    setup_names.push_back(fmt::format("the access flags of QP {}", qp->name));
  }

  KeyJudgement out;
  z3::expr_vector all(c);
  for (const z3::expr& l : literals) all.push_back(l);
  const z3::check_result r = s.check(all);
  if (r == z3::sat) return out;
  if (r == z3::unknown) {
    out.decided = false;
    return out;
  }
  out.consistent = false;

  const std::vector<z3::expr> kept = detail::minimal_core(s, kMaxMinimisationSteps);
  // In input order: the accesses, then the setup's entries.
  for (std::size_t i = 0; i < literals.size(); ++i) {
    if (std::none_of(kept.begin(), kept.end(),
                     [&](const z3::expr& l) { return z3::eq(l, literals[i]); }))
      continue;
    if (what[i].first)
      out.observations.push_back(what[i].second);
    else
      out.setup.push_back(setup_names[what[i].second]);
  }
  return out;
}

}  // namespace

bool least_table_explains(std::span<const KeyObservation> observations,
                          std::span<const KnownKey> known_keys, const std::optional<KnownQp>& qp) {
  __extension__ typedef unsigned __int128 Wide;  // va + length can pass 2^64
  constexpr Wide kTop = Wide{1} << 64;
  // The rights of a key or of the QP: read, write, atomic, and FLUSH per placement asked
  // (flush[0], a FLUSH asking no placement, needs nothing).
  struct Rights {
    bool read = false, write = false, atomic = false;
    bool flush[4] = {true, false, false, false};
    bool& of(const KeyObservation& o) {
      return o.kind == AccessKind::READ    ? read
             : o.kind == AccessKind::WRITE ? write
             : o.kind == AccessKind::FLUSH ? flush[flush_right(o)]
                                           : atomic;
    }
  };
  struct Table {
    bool usable = false;
    Rights rights;
    bool ranged = false;  // a region: [lo, hi); none holds no ranged access
    Wide lo = 0, hi = 0;
  };
  const auto ranged = [](const KeyObservation& o) {
    return !(o.kind == AccessKind::FLUSH && o.whole_region);
  };
  // The QP's flags: the setup's, else the kinds granted anywhere.
  Rights flags;
  if (qp) {
    flags.read = qp->read;
    flags.write = qp->write;
    flags.atomic = qp->atomic;
    flags.flush[1] = qp->flush_global;
    flags.flush[2] = qp->flush_persistent;
    flags.flush[3] = qp->flush_global && qp->flush_persistent;
  } else {
    for (const KeyObservation& o : observations)
      if (o.granted) flags.of(o) = true;
  }
  // Each (rkey, epoch): the setup's entry (epoch 0), else the least the grants need.
  std::map<std::pair<std::uint32_t, std::uint32_t>, Table> tables;
  for (const KeyObservation& o : observations) {
    if (!o.granted) continue;
    Table& t = tables[{o.rkey, o.epoch}];
    t.usable = true;
    t.rights.of(o) = true;
    if (!ranged(o)) continue;
    const Wide end = Wide{o.va} + o.length;
    if (end > kTop) return false;  // no region inside the 64-bit space holds it
    t.lo = t.ranged ? std::min<Wide>(t.lo, o.va) : o.va;
    t.hi = t.ranged ? std::max(t.hi, end) : end;
    t.ranged = true;
  }
  std::set<std::uint32_t> entries;
  for (const KnownKey& k : known_keys) {
    // Two entries of one rkey: the solver weighs them against each other.
    if (!entries.insert(k.rkey).second) return false;
    // An entry no access names says nothing here (the solver leaves it out too).
    if (std::none_of(observations.begin(), observations.end(),
                     [&](const KeyObservation& o) { return o.rkey == k.rkey && o.epoch == 0; }))
      continue;
    Table t;
    if (k.exists) {
      if (Wide{k.base} + k.length > kTop) return false;  // the setup's region cannot be
      t.usable = k.usable;
      t.rights.read = k.read;
      t.rights.write = k.write;
      t.rights.atomic = k.atomic;
      t.rights.flush[1] = k.flush_global;
      t.rights.flush[2] = k.flush_persistent;
      t.rights.flush[3] = k.flush_global && k.flush_persistent;
      t.ranged = true;
      t.lo = k.base;
      t.hi = Wide{k.base} + k.length;
    }
    tables[{k.rkey, 0}] = t;
  }
  for (const KeyObservation& o : observations) {
    const auto it = tables.find({o.rkey, o.epoch});
    Table t = it == tables.end() ? Table{} : it->second;
    const bool inside = !ranged(o) || (t.ranged && t.lo <= o.va && Wide{o.va} + o.length <= t.hi);
    const bool allowed = t.usable && t.rights.of(o) && flags.of(o) && inside;
    if (allowed != o.granted) return false;
  }
  return true;
}

KeyJudgement judge_keys(std::span<const KeyObservation> observations,
                        std::span<const KnownKey> known_keys, const std::optional<KnownQp>& qp,
                        KeyMethod method) {
  // A table that explains everything is the solver's answer too: consistent, nothing named.
  if (method == KeyMethod::DIRECT_FIRST && least_table_explains(observations, known_keys, qp))
    return {};
  KeyJudgement out = judge_keys_on(detail::lia_solver(), observations, known_keys, qp);
  if (!out.decided || out.consistent) return out;
  // The clash names facts: made again where no earlier decision bears on the core (FreshSolver).
  detail::FreshSolver fresh;
  return judge_keys_on(fresh.solver, observations, known_keys, qp);
}

}  // namespace rocecert::proofs::trace
