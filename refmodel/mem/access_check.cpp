// The pure access check (access_check.h). Section references are to docs/spec-notes.md unless
// a clause number of the IBA specification is given.
#include "rocecert/mem/access_check.h"

namespace rocecert::mem {
namespace {

constexpr AccessResult fail(AccessOutcome o) {
  AccessResult r{};
  r.outcome = o;
  return r;
}

}  // namespace

std::string_view to_string(AccessOutcome o) {
  switch (o) {
#define ROCECERT_X(name, text) \
  case AccessOutcome::name:    \
    return #name;
    ROCECERT_ACCESS_OUTCOMES(ROCECERT_X)
#undef ROCECERT_X
  }
  return "?";
}

std::string_view describe(AccessOutcome o) {
  switch (o) {
#define ROCECERT_X(name, text) \
  case AccessOutcome::name:    \
    return text;
    ROCECERT_ACCESS_OUTCOMES(ROCECERT_X)
#undef ROCECERT_X
  }
  return "?";
}

std::string_view to_string(MemOp op) {
  switch (op) {
    case MemOp::LOCAL_READ:
      return "LOCAL_READ";
    case MemOp::LOCAL_WRITE:
      return "LOCAL_WRITE";
    case MemOp::REMOTE_READ:
      return "REMOTE_READ";
    case MemOp::REMOTE_WRITE:
      return "REMOTE_WRITE";
    case MemOp::REMOTE_ATOMIC:
      return "REMOTE_ATOMIC";
    case MemOp::ATOMIC_WRITE:
      return "ATOMIC_WRITE";
    case MemOp::FLUSH:
      return "FLUSH";
  }
  return "?";
}

Access required_access(MemOp op, std::uint8_t flush_placement) {
  switch (op) {
    case MemOp::LOCAL_READ:
      return Access::NONE;  // "local read is always allowed" (§7.2)
    case MemOp::LOCAL_WRITE:
      return Access::LOCAL_WRITE;
    case MemOp::REMOTE_READ:
      return Access::REMOTE_READ;
    case MemOp::REMOTE_WRITE:
      return Access::REMOTE_WRITE;
    case MemOp::ATOMIC_WRITE:
      return Access::REMOTE_WRITE;  // §8.4
    case MemOp::REMOTE_ATOMIC:
      return Access::REMOTE_ATOMIC;
    case MemOp::FLUSH: {
      // §8.4: "the matching FLUSH_* access". Both placement bits need both rights, as rxe's
      // lookup_mr and rxe_lookup_mw want every right asked (Linux 6.2 on, with FLUSH).
      Access a = Access::NONE;
      if ((flush_placement & kFlushGlobal) != 0) a |= Access::FLUSH_GLOBAL;
      if ((flush_placement & kFlushPersistent) != 0) a |= Access::FLUSH_PERSISTENT;
      return a;
    }
  }
  return Access::NONE;
}

AccessResult check_access(const AccessTarget& target, const AccessRequest& req) noexcept {
  // C9-88: "a zero-byte read or write op is not required to set an addr or rkey"; §7.3: a
  // zero-length SGE is skipped without lookup.
  if (is_zero_length_exempt(req.op, req.length)) {
    AccessResult r{};
    r.zero_length_exempt = true;
    return r;
  }
  const Access required = required_access(req.op, req.flush_placement);
  // rxe check_rkey: FLUSH with selectivity "MR" flushes the whole MR and skips the range.
  const bool check_range = !(req.op == MemOp::FLUSH && req.flush_whole_region);
  const MemoryRegion* mr = target.mr;
  std::uint64_t mr_va = req.va;  // the iova inside the MR

  if (target.mw != nullptr) {
    // §7.3 step 3 (rxe_lookup_mw): rkey, PD, state, bound QP, rights; then the range.
    const MemoryWindow& mw = *target.mw;
    if (is_local(req.op)) return fail(AccessOutcome::INVALID_KEY_INDEX);  // lkeys name MRs
    if (mw.rkey != req.key) return fail(AccessOutcome::KEY_MISMATCH);
    if (mw.pd != req.qp.pd) return fail(AccessOutcome::PD_MISMATCH);  // §7.5
    // A type-1 MW bound with length 0 is invalidated (§7.4 "Invalidate: bind with length 0");
    // a valid window always has an MR.
    if (mw.state != MwState::VALID || mw.length == 0 || mr == nullptr) {
      return fail(AccessOutcome::INVALID_STATE);
    }
    // §7.4: a type-2 window is usable only by the QP it was bound on.
    if (mw.type == MwType::TYPE_2 && mw.qpn != req.qp.qpn) {
      return fail(AccessOutcome::MW_QP_MISMATCH);
    }
    if (!contains(mw.access, required)) return fail(AccessOutcome::ACCESS_DENIED);
    if (check_range) {
      if (!range_fits(req.va, req.length)) return fail(AccessOutcome::LENGTH_OVERFLOW);
      // §7.3 / §11.15: the window's own bounds, not only the MR's. For a ZERO_BASED window the
      // VA is an offset from the window start (ibv_bind_mw.3), which lies at MR iova mw.addr.
      if (contains(mw.access, Access::ZERO_BASED)) {
        if (!range_within(req.va, req.length, 0, mw.length)) {
          return fail(AccessOutcome::OUT_OF_MW_BOUNDS);
        }
        if (req.va > ~std::uint64_t{0} - mw.addr) return fail(AccessOutcome::OUT_OF_BOUNDS);
        mr_va = mw.addr + req.va;
      } else if (!range_within(req.va, req.length, mw.addr, mw.length)) {
        return fail(AccessOutcome::OUT_OF_MW_BOUNDS);
      }
    }
    // The MR beneath cannot be invalidated or deregistered while the window is bound
    // (§7.4), so this only guards an inconsistent target.
    if (mr->state != MrState::VALID) return fail(AccessOutcome::INVALID_STATE);
  } else if (mr != nullptr) {
    // §7.3 steps 2 (remote) and the local rule: full 32-bit key, PD, state, rights.
    const Key expected = is_local(req.op) ? mr->lkey : mr->rkey;
    if (expected != req.key) return fail(AccessOutcome::KEY_MISMATCH);
    if (mr->pd != req.qp.pd) return fail(AccessOutcome::PD_MISMATCH);  // §7.5
    if (mr->state != MrState::VALID) return fail(AccessOutcome::INVALID_STATE);
    if (!contains(mr->access, required)) return fail(AccessOutcome::ACCESS_DENIED);
    if (check_range && !range_fits(req.va, req.length)) {
      return fail(AccessOutcome::LENGTH_OVERFLOW);
    }
  } else {
    return fail(AccessOutcome::INVALID_KEY_INDEX);
  }

  // §7.3 Bounds: [VA, VA+len) inside [MR.iova, MR.iova + MR.length).
  if (check_range && !range_within(mr_va, req.length, mr->iova, mr->length)) {
    return fail(AccessOutcome::OUT_OF_BOUNDS);
  }
  AccessResult r{};
  r.mr = mr->id;
  // Registration guarantees [host_addr, host_addr + length) fits, so no wrap here.
  r.host_addr = check_range ? mr->host_addr + (mr_va - mr->iova) : mr->host_addr;
  // §7.6: checked after the bounds (rxe: CHK_RKEY, then EXECUTE). Both the VA carried on the
  // wire (IBA, hfi1: vaddr & 7) and the host address (rxe: the mapped address & 7) must be
  // aligned; they differ only when iova and host address disagree modulo 8.
  if (needs_alignment(req.op) && ((req.va & 7u) != 0 || (r.host_addr & 7u) != 0)) {
    return fail(AccessOutcome::UNALIGNED_ATOMIC);
  }
  return r;
}

}  // namespace rocecert::mem
