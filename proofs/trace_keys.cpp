// z3.key: one memory-key table for every access a responder answered on a connection
// (proofs/include/rocecert/proofs/trace_keys.h). Each observation and each setup entry is
// asserted under an assumption literal of its own, so that an unsatisfiable check yields the
// observations that clash; the core is then minimised by deletion.
#include "rocecert/proofs/trace_keys.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <map>

#include <utility>

namespace rocecert::proofs::trace {
namespace {

// Addresses in 65 bits: va + length and 2^64 are exact.
constexpr unsigned kWide = 65;

struct Region {
  z3::expr usable, read, write, atomic, lo, hi;
};

}  // namespace

KeyJudgement judge_keys(std::span<const KeyObservation> observations,
                        std::span<const KnownKey> known_keys, const std::optional<KnownQp>& qp) {
  z3::context c;
  z3::solver s(c);
  const z3::expr top = z3::shl(c.bv_val(1, kWide), c.bv_val(64, kWide));  // 2^64
  const auto wide = [&](std::uint64_t v) { return c.bv_val(v, kWide); };
  // The QP's access flags, per kind.
  const z3::expr qp_read = c.bool_const("qp.read"), qp_write = c.bool_const("qp.write"),
                 qp_atomic = c.bool_const("qp.atomic");

  std::map<std::pair<std::uint32_t, std::uint32_t>, Region> regions;  // (rkey, epoch)
  const auto region = [&](std::uint32_t rkey, std::uint32_t epoch) -> const Region& {
    auto it = regions.find({rkey, epoch});
    if (it != regions.end()) return it->second;
    const std::string n = fmt::format("{:#x}.{}", rkey, epoch);
    Region r{c.bool_const((n + ".usable").c_str()),  c.bool_const((n + ".read").c_str()),
             c.bool_const((n + ".write").c_str()),   c.bool_const((n + ".atomic").c_str()),
             c.bv_const((n + ".lo").c_str(), kWide), c.bv_const((n + ".hi").c_str(), kWide)};
    s.add(z3::ule(r.lo, r.hi) && z3::ule(r.hi, top));  // a region inside the 64-bit space
    return regions.emplace(std::pair{rkey, epoch}, r).first->second;
  };

  std::vector<z3::expr> literals;
  std::vector<std::pair<bool, std::size_t>> what;  // (an observation?, its index or setup index)
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const KeyObservation& o = observations[i];
    const Region& r = region(o.rkey, o.epoch);
    const z3::expr right = o.kind == AccessKind::READ    ? r.read && qp_read
                           : o.kind == AccessKind::WRITE ? r.write && qp_write
                                                         : r.atomic && qp_atomic;
    const z3::expr allowed = r.usable && right && z3::ule(r.lo, wide(o.va)) &&
                             z3::ule(wide(o.va) + wide(o.length), r.hi);
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
    s.add(z3::implies(lit, qp_read == c.bool_val(qp->read) && qp_write == c.bool_val(qp->write) &&
                               qp_atomic == c.bool_val(qp->atomic)));
    literals.push_back(lit);
    what.emplace_back(false, setup_names.size());
    setup_names.push_back(fmt::format("the access flags of QP {}", qp->name));
  }

  KeyJudgement out;
  z3::expr_vector all(c);
  for (const z3::expr& l : literals) all.push_back(l);
  if (s.check(all) != z3::unsat) return out;
  out.consistent = false;

  // The core, minimised by deletion: drop each literal the rest stays unsatisfiable without.
  const z3::expr_vector core = s.unsat_core();
  std::vector<z3::expr> kept;
  for (unsigned i = 0; i < core.size(); ++i) kept.push_back(core[static_cast<int>(i)]);
  for (std::size_t i = 0; i < kept.size();) {
    z3::expr_vector rest(c);
    for (std::size_t j = 0; j < kept.size(); ++j)
      if (j != i) rest.push_back(kept[j]);
    if (s.check(rest) == z3::unsat)
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
    else
      ++i;
  }
  for (const z3::expr& l : kept)
    for (std::size_t i = 0; i < literals.size(); ++i)
      if (z3::eq(l, literals[i])) {
        if (what[i].first)
          out.observations.push_back(what[i].second);
        else
          out.setup.push_back(setup_names[what[i].second]);
      }
  std::sort(out.observations.begin(), out.observations.end());
  return out;
}

}  // namespace rocecert::proofs::trace
