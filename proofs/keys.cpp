// Key enforcement (IBA Vol. 1 §10.6.3 and §10.6.7; docs/spec-notes.md §7.3-7.6): mem::check_access,
// the one function every lkey and rkey check of the model goes through, against the
// specification's formula, for every key, PD, state, right, address and length; and the memory
// window binding rules (C10-72..75) of MemTable::check_bind, which make the model's check of the MR
// beneath a bound window redundant.
#include <fmt/format.h>

#include "internal.h"
#include "rocecert/mem/access_check.h"

namespace rocecert::proofs::detail {

namespace {

using mem::Access;
using mem::AccessOutcome;
using mem::MemOp;

unsigned bit(Access a) {
  return static_cast<unsigned>(a);
}
unsigned code(MemOp op) {
  return static_cast<unsigned>(op);
}
unsigned code(AccessOutcome o) {
  return static_cast<unsigned>(o);
}

}  // namespace

AccessVars access_vars(z3::context& c, const std::string& p) {
  const auto bv = [&](const char* n, unsigned w) { return c.bv_const((p + n).c_str(), w); };
  const auto b = [&](const char* n) { return c.bool_const((p + n).c_str()); };
  return AccessVars{
      .op = bv("op", 8),
      .key = bv("key", 32),
      .pd = bv("pd", 32),
      .qpn = bv("qpn", 32),
      .va = bv("va", 64),
      .length = bv("len", 64),
      .placement = bv("fp", 8),
      .whole = b("whole"),
      .has_mr = b("has_mr"),
      .mr_lkey = bv("mr.lkey", 32),
      .mr_rkey = bv("mr.rkey", 32),
      .mr_pd = bv("mr.pd", 32),
      .mr_valid = b("mr.valid"),
      .mr_access = bv("mr.acc", 32),
      .mr_iova = bv("mr.iova", 64),
      .mr_length = bv("mr.len", 64),
      .mr_host = bv("mr.host", 64),
      .has_mw = b("has_mw"),
      .mw_rkey = bv("mw.rkey", 32),
      .mw_pd = bv("mw.pd", 32),
      .mw_valid = b("mw.valid"),
      .mw_type2 = b("mw.type2"),
      .mw_qpn = bv("mw.qpn", 32),
      .mw_access = bv("mw.acc", 32),
      .mw_addr = bv("mw.addr", 64),
      .mw_length = bv("mw.len", 64),
  };
}

// mem::check_access, check by check in its order, as the outcome's number. BROKEN: ATOMIC_WRITE
// needs no right (the REMOTE_WRITE bit dropped from required_access).
z3::expr check_access(z3::context& c, const AccessVars& x, Variant v, Ranges ranges) {
  const auto within = [&](const z3::expr& s, const z3::expr& l, const z3::expr& b,
                          const z3::expr& bl) {
    return ranges == Ranges::BY_LEMMA ? spec_within(c, s, l, b, bl)
                                      : range_within(c, s, l, b, bl, Variant::MODEL);
  };
  const auto is = [&](MemOp op) { return x.op == c.bv_val(code(op), 8); };
  const auto flag = [&](Access a) { return c.bv_val(bit(a), 32); };
  const auto has = [&](const z3::expr& set, const z3::expr& need) { return (set & need) == need; };
  const auto outcome = [&](AccessOutcome o) { return c.bv_val(code(o), 8); };
  const z3::expr zero64 = c.bv_val(0, 64);

  const z3::expr local = is(MemOp::LOCAL_READ) || is(MemOp::LOCAL_WRITE);
  const z3::expr exempt =
      x.length == zero64 && (local || is(MemOp::REMOTE_READ) || is(MemOp::REMOTE_WRITE));
  // required_access()
  const z3::expr no_right = c.bv_val(0, 32);
  const z3::expr flush_rights = z3::ite((x.placement & c.bv_val(mem::kFlushGlobal, 8)) != 0,
                                        flag(Access::FLUSH_GLOBAL), no_right) |
                                z3::ite((x.placement & c.bv_val(mem::kFlushPersistent, 8)) != 0,
                                        flag(Access::FLUSH_PERSISTENT), no_right);
  const z3::expr atomic_write_right = v == Variant::BROKEN ? no_right : flag(Access::REMOTE_WRITE);
  const z3::expr required = z3::ite(
      is(MemOp::LOCAL_WRITE), flag(Access::LOCAL_WRITE),
      z3::ite(is(MemOp::REMOTE_READ), flag(Access::REMOTE_READ),
              z3::ite(is(MemOp::REMOTE_WRITE), flag(Access::REMOTE_WRITE),
                      z3::ite(is(MemOp::ATOMIC_WRITE), atomic_write_right,
                              z3::ite(is(MemOp::REMOTE_ATOMIC), flag(Access::REMOTE_ATOMIC),
                                      z3::ite(is(MemOp::FLUSH), flush_rights, no_right))))));
  const z3::expr check_range = !(is(MemOp::FLUSH) && x.whole);
  const z3::expr fits =
      ranges == Ranges::BY_LEMMA ? spec_fits(c, x.va, x.length) : range_fits(c, x.va, x.length);
  const z3::expr zero_based = has(x.mw_access, flag(Access::ZERO_BASED));
  const z3::expr all = ~zero64;

  // The checks in order: the first failing one gives the outcome (the list is folded from the
  // end). mr_va is the iova inside the MR: va, or mw.addr + va for a zero-based window.
  const z3::expr mr_va = z3::ite(x.has_mw && check_range && zero_based, x.mw_addr + x.va, x.va);
  std::vector<std::pair<z3::expr, AccessOutcome>> checks;
  const auto fail_if = [&](const z3::expr& cond, AccessOutcome o) { checks.emplace_back(cond, o); };
  // An MW key.
  const z3::expr mw = x.has_mw;
  fail_if(mw && local, AccessOutcome::INVALID_KEY_INDEX);
  fail_if(mw && x.mw_rkey != x.key, AccessOutcome::KEY_MISMATCH);
  fail_if(mw && x.mw_pd != x.pd, AccessOutcome::PD_MISMATCH);
  fail_if(mw && (!x.mw_valid || x.mw_length == zero64 || !x.has_mr), AccessOutcome::INVALID_STATE);
  fail_if(mw && x.mw_type2 && x.mw_qpn != x.qpn, AccessOutcome::MW_QP_MISMATCH);
  fail_if(mw && !has(x.mw_access, required), AccessOutcome::ACCESS_DENIED);
  fail_if(mw && check_range && !fits, AccessOutcome::LENGTH_OVERFLOW);
  fail_if(mw && check_range && zero_based && !within(x.va, x.length, zero64, x.mw_length),
          AccessOutcome::OUT_OF_MW_BOUNDS);
  fail_if(mw && check_range && zero_based && z3::ugt(x.va, all - x.mw_addr),
          AccessOutcome::OUT_OF_BOUNDS);
  fail_if(mw && check_range && !zero_based && !within(x.va, x.length, x.mw_addr, x.mw_length),
          AccessOutcome::OUT_OF_MW_BOUNDS);
  fail_if(mw && !x.mr_valid, AccessOutcome::INVALID_STATE);
  // An MR key.
  const z3::expr mr = !x.has_mw && x.has_mr;
  fail_if(mr && x.key != z3::ite(local, x.mr_lkey, x.mr_rkey), AccessOutcome::KEY_MISMATCH);
  fail_if(mr && x.mr_pd != x.pd, AccessOutcome::PD_MISMATCH);
  fail_if(mr && !x.mr_valid, AccessOutcome::INVALID_STATE);
  fail_if(mr && !has(x.mr_access, required), AccessOutcome::ACCESS_DENIED);
  fail_if(mr && check_range && !fits, AccessOutcome::LENGTH_OVERFLOW);
  // No object.
  fail_if(!x.has_mw && !x.has_mr, AccessOutcome::INVALID_KEY_INDEX);
  // The MR's bounds, then alignment of the VA and of the host address.
  fail_if(check_range && !within(mr_va, x.length, x.mr_iova, x.mr_length),
          AccessOutcome::OUT_OF_BOUNDS);
  const z3::expr host = z3::ite(check_range, x.mr_host + (mr_va - x.mr_iova), x.mr_host);
  const z3::expr needs_alignment = is(MemOp::REMOTE_ATOMIC) || is(MemOp::ATOMIC_WRITE);
  fail_if(needs_alignment && (x.va.extract(2, 0) != 0 || host.extract(2, 0) != 0),
          AccessOutcome::UNALIGNED_ATOMIC);

  z3::expr r = outcome(AccessOutcome::OK);
  for (auto it = checks.rbegin(); it != checks.rend(); ++it)
    r = z3::ite(it->first, outcome(it->second), r);
  return z3::ite(exempt, outcome(AccessOutcome::OK), r);
}

namespace {

// The specification's formula: when is an access allowed. Written from the clauses, not from the
// function: exact arithmetic (no 64-bit wrap), the rights of §10.6.3.x read bit by bit.
z3::expr allowed_by_spec(z3::context& c, const AccessVars& x) {
  const auto is = [&](MemOp op) { return x.op == c.bv_val(code(op), 8); };
  const auto right = [&](const z3::expr& set, Access a) {
    return (set & c.bv_val(bit(a), 32)) != 0;
  };
  const z3::expr zero64 = c.bv_val(0, 64);
  // C9-88: a zero-length RDMA READ or WRITE needs no valid rkey or address; a zero-length SGE is
  // not looked up (§7.3).
  const z3::expr exempt = x.length == zero64 && (is(MemOp::LOCAL_READ) || is(MemOp::LOCAL_WRITE) ||
                                                 is(MemOp::REMOTE_READ) || is(MemOp::REMOTE_WRITE));
  const z3::expr local = is(MemOp::LOCAL_READ) || is(MemOp::LOCAL_WRITE);
  // §10.6.3.1-3: local read always; local write, remote read/write/atomic each its right;
  // ATOMIC_WRITE needs remote write and FLUSH the right of each placement type (IBA 1.5 §9.4.x,
  // docs/spec-notes.md §8.4).
  const auto rights = [&](const z3::expr& set) {
    const z3::expr global = (x.placement & c.bv_val(mem::kFlushGlobal, 8)) != 0;
    const z3::expr persistent = (x.placement & c.bv_val(mem::kFlushPersistent, 8)) != 0;
    return z3::implies(is(MemOp::LOCAL_WRITE), right(set, Access::LOCAL_WRITE)) &&
           z3::implies(is(MemOp::REMOTE_READ), right(set, Access::REMOTE_READ)) &&
           z3::implies(is(MemOp::REMOTE_WRITE) || is(MemOp::ATOMIC_WRITE),
                       right(set, Access::REMOTE_WRITE)) &&
           z3::implies(is(MemOp::REMOTE_ATOMIC), right(set, Access::REMOTE_ATOMIC)) &&
           z3::implies(is(MemOp::FLUSH) && global, right(set, Access::FLUSH_GLOBAL)) &&
           z3::implies(is(MemOp::FLUSH) && persistent, right(set, Access::FLUSH_PERSISTENT));
  };
  const z3::expr ranged = !(is(MemOp::FLUSH) && x.whole);  // FLUSH of the whole MR: no range
  // §10.6.7.2 (C10-75 for windows): a zero-based window's VA is an offset from its start, which
  // lies at MR address mw.addr; the address it maps to must be one (below 2^64: a zero-length
  // access just past the last byte of an MR that ends at 2^64 has no address, and rxe, which
  // adds the offset in 64 bits, refuses it too).
  const z3::expr zero_based = right(x.mw_access, Access::ZERO_BASED);
  const z3::expr translated = x.mw_addr + x.va;
  const z3::expr translatable = z3::ult(z3::zext(x.mw_addr, 1) + z3::zext(x.va, 1),
                                        z3::shl(c.bv_val(1, 65), c.bv_val(64, 65)));
  // §10.6.3.6 (atomics), IBA 1.5 (ATOMIC_WRITE): 8-byte aligned, both the VA on the wire and the
  // host address it maps to (rxe checks the latter).
  const z3::expr aligned_access = [&] {
    const z3::expr va_low = x.va.extract(2, 0);
    const z3::expr mr_va_low =
        z3::ite(zero_based && x.has_mw, (x.mw_addr + x.va).extract(2, 0), x.va.extract(2, 0));
    // The host address of the first byte, modulo 8: host + (mr_va - iova), on the low bits.
    const z3::expr host_low =
        z3::ite(ranged, x.mr_host.extract(2, 0) + mr_va_low - x.mr_iova.extract(2, 0),
                x.mr_host.extract(2, 0));
    return z3::implies(is(MemOp::REMOTE_ATOMIC) || is(MemOp::ATOMIC_WRITE),
                       va_low == 0 && host_low == 0);
  }();
  // §10.6.3.2 (the MR named by the key): the key, the PD (§10.2.3), a valid MR, the rights, the
  // range inside it.
  const z3::expr by_mr =
      !x.has_mw && x.has_mr && x.key == z3::ite(local, x.mr_lkey, x.mr_rkey) && x.mr_pd == x.pd &&
      x.mr_valid && rights(x.mr_access) &&
      z3::implies(ranged, spec_within(c, x.va, x.length, x.mr_iova, x.mr_length));
  // §10.6.7 (a window named by an rkey): remote access only, the key, the PD, a valid bound
  // window (length 0 unbinds a type-1 window) over a valid MR, a type-2 window only from its
  // QP (C10-72), the window's rights, the range inside the window, and inside the MR beneath.
  const z3::expr window_inside =
      z3::ite(zero_based,
              spec_within(c, x.va, x.length, zero64, x.mw_length) && translatable &&
                  spec_within(c, translated, x.length, x.mr_iova, x.mr_length),
              spec_within(c, x.va, x.length, x.mw_addr, x.mw_length) &&
                  spec_within(c, x.va, x.length, x.mr_iova, x.mr_length));
  const z3::expr by_mw = x.has_mw && !local && x.key == x.mw_rkey && x.mw_pd == x.pd &&
                         x.mw_valid && x.mw_length != zero64 && x.has_mr && x.mr_valid &&
                         z3::implies(x.mw_type2, x.mw_qpn == x.qpn) && rights(x.mw_access) &&
                         z3::implies(ranged, window_inside);
  return exempt || ((by_mr || by_mw) && aligned_access);
}

}  // namespace

Outcome prove_key_check(Variant v, const Options& options) {
  z3::context c;
  const AccessVars x = access_vars(c, "");
  const z3::expr ok =
      check_access(c, x, v, Ranges::BY_LEMMA) == c.bv_val(code(AccessOutcome::OK), 8);
  const z3::expr valid_op = z3::ule(x.op, c.bv_val(code(MemOp::FLUSH), 8));
  z3::expr claim = z3::implies(valid_op, ok == allowed_by_spec(c, x));
  (void)options;
  return settle(c, claim, [&](const z3::model& m) {
    const auto b = [&](const z3::expr& e) { return m.eval(e, true).is_true(); };
    std::string target;
    if (b(x.has_mw))
      target =
          fmt::format(" mw{{rkey={} pd={} {} type{} qpn={} access={} addr={} len={}}}",
                      hex_of(m, x.mw_rkey), hex_of(m, x.mw_pd), b(x.mw_valid) ? "VALID" : "FREE",
                      b(x.mw_type2) ? 2 : 1, hex_of(m, x.mw_qpn), hex_of(m, x.mw_access),
                      hex_of(m, x.mw_addr), hex_of(m, x.mw_length));
    if (b(x.has_mr))
      target += fmt::format(" mr{{lkey={} rkey={} pd={} {} access={} iova={} len={} host={}}}",
                            hex_of(m, x.mr_lkey), hex_of(m, x.mr_rkey), hex_of(m, x.mr_pd),
                            b(x.mr_valid) ? "VALID" : "FREE", hex_of(m, x.mr_access),
                            hex_of(m, x.mr_iova), hex_of(m, x.mr_length), hex_of(m, x.mr_host));
    if (target.empty()) target = " no MR or MW";
    return fmt::format(
        "{} key={} pd={} qpn={} va={} length={} placement={} whole={} on{}: the model says {}, "
        "the specification {}",
        mem::to_string(static_cast<MemOp>(m.eval(x.op, true).get_numeral_uint())), hex_of(m, x.key),
        hex_of(m, x.pd), hex_of(m, x.qpn), hex_of(m, x.va), hex_of(m, x.length),
        hex_of(m, x.placement), b(x.whole), target,
        mem::to_string(static_cast<AccessOutcome>(
            m.eval(check_access(c, x, v, Ranges::TRANSCRIBED), true).get_numeral_uint())),
        b(allowed_by_spec(c, x)) ? "allowed" : "refused");
  });
}

}  // namespace rocecert::proofs::detail

namespace rocecert::proofs::detail {

BindVars bind_vars(z3::context& c, const std::string& p) {
  const auto bv = [&](const char* n, unsigned w) { return c.bv_const((p + n).c_str(), w); };
  const auto b = [&](const char* n) { return c.bool_const((p + n).c_str()); };
  return BindVars{
      .qp_pd = bv("qp.pd", 32),
      .mw_type2 = b("mw.type2"),
      .mw_valid = b("mw.valid"),
      .mw_pd = bv("mw.pd", 32),
      .has_mr = b("has_mr"),
      .mr_pd = bv("mr.pd", 32),
      .mr_valid = b("mr.valid"),
      .mr_access = bv("mr.acc", 32),
      .mr_iova = bv("mr.iova", 64),
      .mr_length = bv("mr.len", 64),
      .addr = bv("wr.addr", 64),
      .length = bv("wr.len", 64),
      .access = bv("wr.acc", 32),
  };
}

// mem::check_bind == OK. BROKEN: C10-75 dropped for VA-based windows (any range is bound).
z3::expr bind_accepted(z3::context& c, const BindVars& x, Variant v, Ranges ranges) {
  const auto has = [&](const z3::expr& set, Access a) {
    return (set & c.bv_val(bit(a), 32)) == c.bv_val(bit(a), 32);
  };
  const z3::expr zero64 = c.bv_val(0, 64);
  const z3::expr zero_based = has(x.access, Access::ZERO_BASED);
  const z3::expr remote_write_or_atomic =
      (x.access & c.bv_val(bit(Access::REMOTE_WRITE) | bit(Access::REMOTE_ATOMIC), 32)) != 0;
  const z3::expr window_in_mr =
      v == Variant::BROKEN ? c.bool_val(true)
      : ranges == Ranges::BY_LEMMA
          ? spec_within(c, x.addr, x.length, x.mr_iova, x.mr_length)
          : range_within(c, x.addr, x.length, x.mr_iova, x.mr_length, Variant::MODEL);
  const z3::expr mr_checks =
      x.mr_pd == x.mw_pd && x.mr_valid && !has(x.mr_access, Access::ZERO_BASED) &&
      has(x.mr_access, Access::MW_BIND) &&
      z3::implies(remote_write_or_atomic, has(x.mr_access, Access::LOCAL_WRITE)) &&
      z3::ite(zero_based, z3::ule(x.length, x.mr_length), window_in_mr);
  // A type-1 window must be VALID (allocated) and not zero-based; a type-2 one FREE (o10-37.2.30).
  return z3::ite(x.mw_type2, !x.mw_valid, x.mw_valid && !zero_based) && x.qp_pd == x.mw_pd &&
         !(x.mw_type2 && (!x.has_mr || x.length == zero64)) && z3::implies(x.has_mr, mr_checks);
}

// What a bind guarantees every later access through the window: the window's MR is in the
// window's PD (so in the PD of every QP check_access lets through), grants MW_BIND, grants
// LOCAL_WRITE when the window grants remote write or atomic access (C10-74), and — for a
// VA-based window — every range inside the window is inside the MR (C10-75), in 64-bit
// arithmetic with its wrap. A zero-based window is bound by its length alone (rxe
// rxe_check_bind_mw), so check_access also checks each access against the MR beneath.
Outcome prove_mw_binding(Variant v, const Options& /*options*/) {
  z3::context c;
  const BindVars x = bind_vars(c, "");
  const z3::expr va = c.bv_const("va", 64), len = c.bv_const("len", 64);
  const auto has = [&](const z3::expr& set, Access a) { return (set & c.bv_val(bit(a), 32)) != 0; };
  const z3::expr bound = bind_accepted(c, x, v, Ranges::BY_LEMMA) && x.has_mr;
  const z3::expr va_based = !has(x.access, Access::ZERO_BASED);
  // What check_access's range_within calls decide, by MEM.RANGE_WITHIN.
  const z3::expr in_window = spec_within(c, va, len, x.addr, x.length);
  const z3::expr in_mr = spec_within(c, va, len, x.mr_iova, x.mr_length);
  const z3::expr claim = z3::implies(
      bound,
      x.mr_pd == x.mw_pd && x.mr_valid && has(x.mr_access, Access::MW_BIND) &&
          z3::implies(has(x.access, Access::REMOTE_WRITE) || has(x.access, Access::REMOTE_ATOMIC),
                      has(x.mr_access, Access::LOCAL_WRITE)) &&
          z3::implies(va_based && in_window, in_mr));
  return settle(c, claim, [&](const z3::model& m) {
    return fmt::format(
        "window addr={} length={} access={} bound over mr{{iova={} length={} access={}}}: the "
        "access va={} length={} is inside the window and {} the MR",
        hex_of(m, x.addr), hex_of(m, x.length), hex_of(m, x.access), hex_of(m, x.mr_iova),
        hex_of(m, x.mr_length), hex_of(m, x.mr_access), hex_of(m, va), hex_of(m, len),
        m.eval(in_mr, true).is_true() ? "inside" : "outside");
  });
}

}  // namespace rocecert::proofs::detail

namespace rocecert::proofs::detail {

mem::AccessOutcome eval_check_access(const mem::AccessTarget& t, const mem::AccessRequest& r) {
  z3::context& c = scratch();
  const mem::MemoryRegion mr = t.mr != nullptr ? *t.mr : mem::MemoryRegion{};
  const mem::MemoryWindow mw = t.mw != nullptr ? *t.mw : mem::MemoryWindow{};
  const auto u32 = [&](std::uint32_t n) { return c.bv_val(n, 32); };
  const auto u64 = [&](std::uint64_t n) { return c.bv_val(n, 64); };
  const AccessVars x{
      .op = c.bv_val(code(r.op), 8),
      .key = u32(r.key.value()),
      .pd = u32(r.qp.pd.value),
      .qpn = u32(r.qp.qpn),
      .va = u64(r.va),
      .length = u64(r.length),
      .placement = c.bv_val(r.flush_placement, 8),
      .whole = c.bool_val(r.flush_whole_region),
      .has_mr = c.bool_val(t.mr != nullptr),
      .mr_lkey = u32(mr.lkey.value()),
      .mr_rkey = u32(mr.rkey.value()),
      .mr_pd = u32(mr.pd.value),
      .mr_valid = c.bool_val(mr.state == mem::MrState::VALID),
      .mr_access = u32(bit(mr.access)),
      .mr_iova = u64(mr.iova),
      .mr_length = u64(mr.length),
      .mr_host = u64(mr.host_addr),
      .has_mw = c.bool_val(t.mw != nullptr),
      .mw_rkey = u32(mw.rkey.value()),
      .mw_pd = u32(mw.pd.value),
      .mw_valid = c.bool_val(mw.state == mem::MwState::VALID),
      .mw_type2 = c.bool_val(mw.type == mem::MwType::TYPE_2),
      .mw_qpn = u32(mw.qpn),
      .mw_access = u32(bit(mw.access)),
      .mw_addr = u64(mw.addr),
      .mw_length = u64(mw.length),
  };
  return static_cast<AccessOutcome>(
      check_access(c, x, Variant::MODEL, Ranges::TRANSCRIBED).simplify().get_numeral_uint());
}

bool eval_bind_accepted(const mem::QpRef& qp, const mem::MemoryWindow& mw,
                        const mem::MemoryRegion* mr, const mem::BindMwWr& wr) {
  z3::context& c = scratch();
  const mem::MemoryRegion r = mr != nullptr ? *mr : mem::MemoryRegion{};
  const BindVars x{
      .qp_pd = c.bv_val(qp.pd.value, 32),
      .mw_type2 = c.bool_val(mw.type == mem::MwType::TYPE_2),
      .mw_valid = c.bool_val(mw.state == mem::MwState::VALID),
      .mw_pd = c.bv_val(mw.pd.value, 32),
      .has_mr = c.bool_val(mr != nullptr),
      .mr_pd = c.bv_val(r.pd.value, 32),
      .mr_valid = c.bool_val(r.state == mem::MrState::VALID),
      .mr_access = c.bv_val(bit(r.access), 32),
      .mr_iova = c.bv_val(r.iova, 64),
      .mr_length = c.bv_val(r.length, 64),
      .addr = c.bv_val(wr.addr, 64),
      .length = c.bv_val(wr.length, 64),
      .access = c.bv_val(bit(wr.access), 32),
  };
  return bind_accepted(c, x, Variant::MODEL, Ranges::TRANSCRIBED).simplify().is_true();
}

}  // namespace rocecert::proofs::detail
