#include "rocecert/proofs/proofs.h"

#include <fmt/format.h>

#include <chrono>
#include <unordered_set>
#include <vector>

#include "internal.h"

namespace rocecert::proofs {

namespace {

struct Entry {
  Proof proof;
  Outcome (*run)(Variant, const Options&);
};

const Entry kProofs[] = {
    {{"PSN.SERIAL_ORDER",
      "psn_diff(a, b) orders 24-bit PSNs as the specification does: a is after b exactly when "
      "a - b mod 2^24 lies in [1, 2^23), equal only when a = b, before otherwise; the result is "
      "in [-2^23, 2^23) and is a - b mod 2^24",
      "IBA Vol. 1 §9.7.5.1 (PSN space, wrap); docs/spec-notes.md §3.1",
      "the half-window boundary one further (2^23 + 1)"},
     detail::prove_psn_serial_order},
    {{"PSN.RESPONDER_REGIONS",
      "relative to the expected PSN e, the responder's duplicate region is e - 2^23 .. e - 1, its "
      "ahead (sequence error) region e + 1 .. e + 2^23 - 1, and with e itself they partition "
      "the PSN space",
      "IBA Vol. 1 §9.7.5.1.1-2, C9-105; docs/spec-notes.md §3.3",
      "the half-window boundary one further (2^23 + 1)"},
     detail::prove_psn_responder_regions},
    {{"MEM.RANGE_WITHIN",
      "range_within(va, length, base, region_length) holds exactly when base <= va and "
      "va + length <= base + region_length <= 2^64, computed without wrap, a zero-length "
      "access at the end included",
      "IBA Vol. 1 §10.6, C10-75; docs/spec-notes.md §7.3-7.4",
      "the naive end compare va + length <= base + region_length on 64 bits"},
     detail::prove_range_within},
    {{"MEM.KEY_CHECK",
      "check_access allows an access exactly when the specification does: a zero-length RDMA "
      "READ/WRITE or SGE is exempt; otherwise the key names a valid MR (lkey for local, rkey "
      "for remote access) or, for remote access only, a valid bound window over a valid MR, of "
      "the QP's PD (a type-2 window: of the QP itself), granting every right the operation "
      "needs, with [va, va + length) inside the window and the MR in exact arithmetic, and an "
      "atomic target 8-byte aligned on the wire and in host memory",
      "IBA Vol. 1 §10.6.3, §10.6.7, C9-88, C10-72; docs/spec-notes.md §7.3-7.6, §8.4",
      "ATOMIC_WRITE needs no right (REMOTE_WRITE dropped)"},
     detail::prove_key_check},
    {{"MEM.MW_BINDING",
      "a window check_bind accepts over an MR lies in the MR's PD, over an MR granting MW_BIND, "
      "and LOCAL_WRITE when the window grants remote write or atomic access; a VA-based window "
      "lies inside the MR, so every range inside the window is inside the MR",
      "IBA Vol. 1 §10.6.7, C10-72..75; docs/spec-notes.md §7.4",
      "the C10-75 range check dropped for VA-based windows"},
     detail::prove_mw_binding},
    {{"QP.REACHABLE",
      "for RC, UC and UD, modify_qp reaches every state from RESET but SQE (entered only on a "
      "send queue error), and reaches ERR from every state",
      "IBA Vol. 1 §10.3.1, Figure 124, Table 91; docs/spec-notes.md §6.2",
      "the RC cell INIT -> RTR refused"},
     detail::prove_transitions_reachable},
    {{"QP.ERR_EXITS",
      "only RESET (and ERR itself) follows ERR, and every state but RESET can be moved to ERR",
      "IBA Vol. 1 §10.3.1; docs/spec-notes.md §6.2, §11.13", "the UC cell ERR -> RTS allowed"},
     detail::prove_err_exits},
    {{"QP.ATTRS_DISJOINT",
      "in every valid transition the required and optional attribute sets are disjoint and "
      "neither contains STATE",
      "IBA Vol. 1 Table 91; docs/spec-notes.md §6.2",
      "SQ_PSN made optional in RC RTR -> RTS, where it is required"},
     detail::prove_attrs_disjoint},
    {{"ARB.TOTAL_ORDER",
      "the PRECEDENCE key of error arbitration (tier, time, QPN, adapter, class, resource) is a "
      "strict total order over error events: irreflexive, transitive, and any two events that "
      "differ in a field are ordered; so the order simultaneous errors are handled in does not "
      "depend on the order they were collected in",
      "docs/error-arbitration.md (IBA Vol. 1 §10.10, §11.6 leave the order to the CI)",
      "the resource left out of the key"},
     detail::prove_arbitration_order},
    {{"ARB.ISOLATION",
      "for any number of QPs sharing a resource and any sequence of error events, isolate() "
      "leaves each QP in the state its own events alone give, in any order: RESET and ERR stay; "
      "otherwise ERR if one of its events takes it to ERR; otherwise SQE if it was in RTS or SQD "
      "and one of its events is a send-queue error; otherwise unchanged. A QP's fate never "
      "depends on another QP's events (proved by induction over the events)",
      "docs/error-arbitration.md; IBA Vol. 1 §10.3.1, §10.10; docs/spec-notes.md §6.2, §6.5, "
      "§6.6; captures multi_qp_errors, cq_overflow",
      "a RESOURCE-tier error that takes its QP to ERR takes every QP attached to the resource"},
     detail::prove_isolation},
    {{"ARB.ROUND_ROBIN",
      "under the ROUND_ROBIN policy every error event is handled exactly once, each QP's events "
      "in PRECEDENCE order, and no QP is starved: between two turns of a QP every other QP with "
      "an event pending gets its turn (every input of 1 to 5 events, any owners, any cursor)",
      "docs/error-arbitration.md (IBA Vol. 1 §10.10, §11.6 leave the order to the CI)",
      "the cursor ignored: the lowest QP key is always served first"},
     detail::prove_round_robin},
    {{"ERR.TABLE",
      "every error class has, per QP type and profile, one NAK (a defined code), one requester "
      "outcome, one receive status and one state change per side with its flush (ERR: both "
      "queues, SQE: the send queue); an error completion changes the QP's state; retries end in "
      "a FATAL error completion; a NAK's requester outcome is the one the requester's class for "
      "that syndrome gives, and every syndrome meets the requester reaction the specification "
      "names (0x61-0x64: the four remote error statuses; RNR and 0x60: retried, then "
      "RNR_RETRY_EXC_ERR and RETRY_EXC_ERR; reserved: an error completion)",
      "IBA Vol. 1 §9.7.5.2, §10.3.1, §10.7; docs/spec-notes.md §4.1, §4.3, §6.5, §6.6",
      "two RC cells of the RXE profile swap their requester status (REQ_REMOTE_ACCESS, "
      "REQ_REMOTE_OPERATIONAL)"},
     detail::prove_errors_table},
};

}  // namespace

std::span<const Proof> catalog() {
  static const std::vector<Proof> list = [] {
    std::vector<Proof> out;
    for (const Entry& e : kProofs) out.push_back(e.proof);
    return out;
  }();
  return list;
}

const Proof* find(std::string_view id) {
  for (const Proof& p : catalog())
    if (p.id == id) return &p;
  return nullptr;
}

Outcome prove(const Proof& p, Variant v, const Options& options) {
  for (const Entry& e : kProofs) {
    if (e.proof.id != p.id) continue;
    const auto start = std::chrono::steady_clock::now();
    Outcome o = e.run(v, options);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    o.proof = &p;
    return o;
  }
  return Outcome{&p, false, "no such proof", {}, 0};
}

namespace detail {

namespace {
// True when every term of e is a Boolean or a bit-vector (a DAG walk: shared terms are visited
// once); quantified or lambda terms count as not.
bool pure_bit_vector(const z3::expr& e) {
  std::vector<Z3_ast> todo{e};
  std::unordered_set<Z3_ast> seen;
  while (!todo.empty()) {
    const z3::expr x(e.ctx(), todo.back());
    todo.pop_back();
    if (!seen.insert(x).second) continue;
    if (!x.is_app() || !(x.is_bool() || x.is_bv())) return false;
    for (unsigned i = 0; i < x.num_args(); ++i) todo.push_back(x.arg(i));
  }
  return true;
}
}  // namespace

std::optional<z3::model> refute(z3::context& c, const z3::expr& claim) {
  // Quantifier-free bit-vector claims go to the qfbv tactic, the fastest on them; the others
  // (MEM.RANGE_WITHIN's integer core, ARB.ISOLATION's arrays) to the default solver.
  z3::solver s = pure_bit_vector(claim) ? z3::tactic(c, "qfbv").mk_solver() : z3::solver(c);
  s.add(!claim);
  if (s.check() == z3::unsat) return std::nullopt;
  return s.get_model();
}

Outcome settle(z3::context& c, const z3::expr& claim,
               const std::function<std::string(const z3::model&)>& describe) {
  Outcome o;
  if (const auto m = refute(c, claim)) {
    o.counterexample = describe(*m);
  } else {
    o.proved = true;
  }
  return o;
}

z3::context& scratch() {
  thread_local z3::context c;
  return c;
}

std::string hex_of(const z3::model& m, const z3::expr& e) {
  return fmt::format("{:#x}", m.eval(e, true).get_numeral_uint64());
}

}  // namespace detail
}  // namespace rocecert::proofs
