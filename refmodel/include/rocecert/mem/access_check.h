// The memory access check: one pure function from (resolved MR/MW entry, request) to a precise
// outcome. No table lookup happens inside; MemTable::check resolves the key and calls it.
//
// Models IBTA Vol. 1 §10.6; docs/spec-notes.md §7.3 (local lkey checks and remote rkey checks, in
// rxe's order: key, PD, state, rights; then bounds), §7.4/§11.15 (a memory window is checked
// against its own window [addr, addr + length) as the spec requires, and also against the MR
// beneath it), §7.5 (PD), §7.6 (8-byte alignment of atomic targets, checked after the bounds as
// rxe's responder does: CHK_RKEY before EXECUTE), §8.4 (ATOMIC_WRITE, FLUSH) and C9-88 (a
// zero-length RDMA READ/WRITE is not required to carry a valid rkey or address: nothing is
// checked).
//
// The model executes and reports: the outcome says what failed, never which NAK or WC status
// follows. That mapping lives in refmodel/errors. For its author, the class of each outcome:
//   * Local operations (LOCAL_READ / LOCAL_WRITE, lkey of an SGE): every failure is a local
//     protection error (verbs convention LOC_PROT_ERR; rxe reports LOC_QP_OP_ERR at the
//     requester, §11.20, and a malformed WQE, NAK 0x63, for a responder's receive SGE, §4.4).
//   * Remote operations (rkey): every failure except UNALIGNED_ATOMIC is a remote access
//     error (NAK 0x62 Remote Access Error, §4.4 CHK_RKEY). UNALIGNED_ATOMIC is an invalid
//     request (NAK 0x61, "misaligned atomic", §7.6).
#pragma once

#include <cstdint>
#include <string_view>

#include "rocecert/mem/keys.h"
#include "rocecert/mem/range.h"
#include "rocecert/mem/region.h"

namespace rocecert::mem {

// What the memory is accessed for. Determines the key used (lkey or rkey), the rights
// required (§7.3) and whether the target must be 8-byte aligned (§7.6, §8.4).
enum class MemOp : std::uint8_t {
  LOCAL_READ,     // gather (SEND / WRITE / ATOMIC_WRITE source): lkey, no right needed
  LOCAL_WRITE,    // scatter (receive buffer, READ-response and atomic-result targets): lkey
  REMOTE_READ,    // RDMA READ: rkey, REMOTE_READ
  REMOTE_WRITE,   // RDMA WRITE (with or without immediate): rkey, REMOTE_WRITE
  REMOTE_ATOMIC,  // CMP_SWAP / FETCH_ADD: rkey, REMOTE_ATOMIC, 8 bytes, aligned
  ATOMIC_WRITE,   // IBA 1.5 ATOMIC_WRITE: rkey, REMOTE_WRITE, 8 bytes, aligned
  FLUSH,          // IBA 1.5 FLUSH: rkey, FLUSH_GLOBAL and/or FLUSH_PERSISTENT
};

// FETH placement type bits (§8.4).
inline constexpr std::uint8_t kFlushGlobal = 0x1;
inline constexpr std::uint8_t kFlushPersistent = 0x2;

struct AccessRequest {
  MemOp op = MemOp::LOCAL_READ;
  Key key{};             // lkey for LOCAL_*, rkey otherwise
  QpRef qp{};            // the QP doing the access: its PD and, for type-2 MWs, its number
  std::uint64_t va = 0;  // iova; an offset into the window for a ZERO_BASED MW
  std::uint64_t length = 0;
  std::uint8_t flush_placement = 0;  // FLUSH only: FETH placement type bits
  bool flush_whole_region = false;   // FLUSH only: selectivity "MR", no range check (rxe)
};

#define ROCECERT_ACCESS_OUTCOMES(X)                                                          \
  X(OK, "access allowed")                                                                    \
  X(INVALID_KEY_INDEX,                                                                       \
    "the key's index names no MR/MW (index 0, unallocated, out of range, "                   \
    "or an lkey naming an MW)")                                                              \
  X(KEY_MISMATCH, "the key differs from the object's current key (stale or wrong key byte)") \
  X(PD_MISMATCH, "the MR/MW belongs to another protection domain than the QP")               \
  X(INVALID_STATE,                                                                           \
    "the MR/MW is not VALID (FREE, invalidated, or a type-1 MW bound with "                  \
    "length 0)")                                                                             \
  X(MW_QP_MISMATCH, "the type-2 MW is bound to another QP")                                  \
  X(ACCESS_DENIED, "the MR/MW lacks a required access right")                                \
  X(LENGTH_OVERFLOW, "va + length runs past 2^64")                                           \
  X(OUT_OF_MW_BOUNDS, "the range is not inside the memory window")                           \
  X(OUT_OF_BOUNDS, "the range is not inside the memory region")                              \
  X(UNALIGNED_ATOMIC, "the atomic target is not 8-byte aligned")

enum class AccessOutcome : std::uint8_t {
#define ROCECERT_X(name, text) name,
  ROCECERT_ACCESS_OUTCOMES(ROCECERT_X)
#undef ROCECERT_X
};
std::string_view to_string(AccessOutcome o);  // "KEY_MISMATCH"
std::string_view describe(AccessOutcome o);   // one line of prose
std::string_view to_string(MemOp op);

struct AccessResult {
  AccessOutcome outcome = AccessOutcome::OK;
  // C9-88 / zero-length SGE: nothing was checked and nothing may be touched. host_addr and mr
  // are then meaningless.
  bool zero_length_exempt = false;
  std::uint64_t host_addr = 0;  // host address of the first byte, when OK
  MrId mr{};                    // the MR whose memory is accessed, when OK
  constexpr bool ok() const { return outcome == AccessOutcome::OK; }
};

// The resolved entries for the request's key. For an MR key: mr set, mw null. For an MW key:
// mw set and mr = the MR the window is bound to (null if none). Both null: no such object.
struct AccessTarget {
  const MemoryRegion* mr = nullptr;
  const MemoryWindow* mw = nullptr;
};

constexpr bool is_local(MemOp op) {
  return op == MemOp::LOCAL_READ || op == MemOp::LOCAL_WRITE;
}
constexpr bool needs_alignment(MemOp op) {
  return op == MemOp::REMOTE_ATOMIC || op == MemOp::ATOMIC_WRITE;
}
// §7.3: the rights `op` needs on the MR/MW. FLUSH needs one right per placement bit.
Access required_access(MemOp op, std::uint8_t flush_placement = 0);
// C9-88: a zero-length RDMA READ or WRITE skips the rkey, VA and bounds checks. §7.3 (rxe
// copy_data): a zero-length SGE is skipped without lookup. Atomics, ATOMIC_WRITE and FLUSH
// are never exempt.
constexpr bool is_zero_length_exempt(MemOp op, std::uint64_t length) {
  return length == 0 && (op == MemOp::LOCAL_READ || op == MemOp::LOCAL_WRITE ||
                         op == MemOp::REMOTE_READ || op == MemOp::REMOTE_WRITE);
}

// The check. Order: zero-length exemption; object exists; key (all 32 bits); PD; state;
// (type-2 MW) bound QP; rights; va + length wrap; MW window bounds; MR bounds; alignment.
// Alignment is required of both the VA carried in the request (IBA, hfi1) and the host
// address it maps to (rxe); the two differ only when an MR's iova and host address differ
// modulo 8 or a zero-based window starts off an 8-byte boundary.
AccessResult check_access(const AccessTarget& target, const AccessRequest& req) noexcept;

}  // namespace rocecert::mem
