// The MR / MW / PD table of one adapter: registration verbs, fast registration, memory
// windows, invalidation, key resolution, and the table-level access check.
//
// Models IBTA Vol. 1 §10.6; docs/spec-notes.md §7 (clauses quoted from the rxe sources that cite
// them):
//   * §7.1 key layout and index spaces (rxe: MR 1..0x40000, MW 0x40001..0x60000, configurable);
//     indices are handed out cyclically like rxe's xa_alloc_cyclic, so a freed index is not
//     reused at once. Key bytes come from KeyGenerator (keys.h) and never repeat the previous
//     key byte of the same index, even across dereg/reg, so a stale key never matches.
//   * §7.2 registration rules: REMOTE_WRITE / REMOTE_ATOMIC need LOCAL_WRITE; optional bits
//     20-29 never fail; other unknown bits fail; ibv_reg_mr_iova / ZERO_BASED.
//   * ibv_rereg_mr (CHANGE_TRANSLATION / CHANGE_PD / CHANGE_ACCESS; new keys; on failure the
//     old MR is untouched) and ibv_dereg_mr (fails while MWs are bound, IBA 10.6.7.2.6).
//   * §7.4 fast registration (REG_MR WR: MR FREE, QP.PD == MR.PD, only the key byte may
//     change) and MR invalidation (key match, no bound MWs, fast-reg MR only).
//   * §7.4 memory windows: type 1 (ibv_bind_mw) and type 2B (BIND_MW WR), with C10-72,
//     C10-73, C10-74, C10-75, o10-36.2.2, o10-37.2.26, o10-37.2.30, o10-37.2.40.
//
// Verbs misuse and WR failures return a MemErrc (an error code, never an exception); the model
// turns a failed BIND_MW into MW_BIND_ERR and a failed LOCAL_INV / REG_MR into LOC_QP_OP_ERR
// (docs/spec-notes.md §5.5), and a failed SEND_WITH_INV invalidation as §4.4 says. No method
// throws, except the constructor on an unusable MemConfig (a configuration error).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "rocecert/mem/access_check.h"
#include "rocecert/mem/keys.h"
#include "rocecert/mem/region.h"

namespace rocecert::mem {

// Profile of the key table. The defaults are rxe's (rxe_param.h) and newer rxe's behaviour.
struct MemConfig {
  std::uint64_t seed = 0;  // KeyGenerator seed
  std::uint32_t mr_index_first = 0x00001;
  std::uint32_t mr_index_last = 0x40000;
  std::uint32_t mw_index_first = 0x40001;
  std::uint32_t mw_index_last = 0x60000;
  // Older rxe: an MR (user or fast-reg) granted no REMOTE_* right gets rkey 0 (§7.1). Newer
  // rxe, the default: rkey == lkey always.
  bool rkey_zero_without_remote = false;
  // Require QP.PD == MR/MW PD for LOCAL_INV / SEND_WITH_INV. rxe does not check it
  // (rxe_invalidate_mr / rxe_invalidate_mw), so the default is off.
  bool invalidate_checks_pd = false;
};
// Index ranges inside 1..0xFFFFFF, non-empty, disjoint.
bool is_valid(const MemConfig& config);

// Verbs / WR failures. The errno is what rxe (kernel and rdma-core provider) returns.
#define ROCECERT_MEM_ERRORS(X)                                                                \
  X(OK, 0, "success")                                                                         \
  X(INVALID_PD, EINVAL, "no such protection domain")                                          \
  X(PD_IN_USE, EBUSY, "the PD still has MRs or MWs")                                          \
  X(INVALID_ACCESS_FLAGS, EINVAL, "access bits outside 0-9 and the optional range 20-29")     \
  X(REMOTE_NEEDS_LOCAL_WRITE, EINVAL, "REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE")    \
  X(RANGE_WRAPS, EINVAL, "address + length runs past 2^64")                                   \
  X(INDEX_EXHAUSTED, ENOMEM, "no free MR/MW index")                                           \
  X(INVALID_MR, EINVAL, "no such MR")                                                         \
  X(INVALID_MW, EINVAL, "no such MW")                                                         \
  X(INVALID_REREG_FLAGS, EINVAL, "re-registration flags empty or unknown")                    \
  X(MR_NOT_USER, EINVAL, "re-registration of a fast-register MR")                             \
  X(MR_HAS_BOUND_MWS, EINVAL, "memory windows are bound to the MR (IBA 10.6.7.2.6)")          \
  X(MR_NOT_FAST_REG, EINVAL, "REG_MR / invalidation of an MR that is not a fast-register MR") \
  X(MR_NOT_FREE, EINVAL, "REG_MR of an MR that is not FREE")                                  \
  X(KEY_INDEX_CHANGED, EINVAL, "REG_MR key names another index than the MR's")                \
  X(LENGTH_EXCEEDS_MAX, EINVAL, "REG_MR length above the MR's capacity")                      \
  X(INVALID_KEY, EINVAL, "the key's index is in neither the MR nor the MW range")             \
  X(INVALID_MR_KEY, EINVAL, "the key's index names no MR")                                    \
  X(MR_KEY_MISMATCH, EINVAL, "the key differs from the MR's current key")                     \
  X(INVALID_MW_KEY, EINVAL, "the key's index names no MW")                                    \
  X(MW_KEY_MISMATCH, EINVAL, "the key differs from the MW's current rkey")                    \
  X(QP_PD_MISMATCH, EINVAL, "the QP's PD differs from the MR's or MW's (C10-72, §7.5)")       \
  X(MR_PD_MISMATCH, EPERM, "the MR's PD differs from the MW's (§7.5)")                        \
  X(MW_WRONG_TYPE, EINVAL, "ibv_bind_mw on a type-2 MW")                                      \
  X(MW_ACCESS_UNSUPPORTED, EOPNOTSUPP, "access bits not meaningful for a memory window")      \
  X(BIND_ADDR_WITHOUT_MR, EINVAL, "bind with an address or length but no MR")                 \
  X(MW_NOT_VALID, EINVAL, "type-1 bind of an MW that is not VALID")                           \
  X(MW_ZERO_BASED_TYPE1, EINVAL, "zero-based type-1 MW (o10-36.2.2)")                         \
  X(MW_NOT_FREE, EINVAL, "type-2 bind of an MW that is not FREE (o10-37.2.30)")               \
  X(MW_ZERO_LENGTH, EINVAL, "type-2 bind without an MR or with length 0 (o10-37.2.40)")       \
  X(MR_NOT_VALID, EINVAL, "bind to an MR that is not VALID")                                  \
  X(MR_ZERO_BASED, EINVAL, "bind to a zero-based MR (rxe)")                                   \
  X(MR_LACKS_MW_BIND, EINVAL, "the MR lacks MW_BIND (C10-73)")                                \
  X(MR_LACKS_LOCAL_WRITE, EINVAL, "writable/atomic MW on an MR without LOCAL_WRITE (C10-74)") \
  X(MW_OUTSIDE_MR, EINVAL, "the window is not inside the MR (C10-75)")                        \
  X(MW_TYPE1_NOT_INVALIDATABLE, EINVAL,                                                       \
    "type-1 MWs are not invalidated by LOCAL_INV or "                                         \
    "SEND_WITH_INV (o10-37.2.26)")                                                            \
  X(MW_NOT_BOUND, EINVAL, "invalidation of a type-2 MW that is not bound")

enum class [[nodiscard]] MemErrc : std::uint8_t{
#define ROCECERT_X(name, errno_name, text) name,
    ROCECERT_MEM_ERRORS(ROCECERT_X)
#undef ROCECERT_X
};
std::string_view to_string(MemErrc e);  // "MW_NOT_FREE"
std::string_view describe(MemErrc e);   // one line of prose, with the clause
int errno_value(MemErrc e);             // POSIX errno as rxe returns it; 0 for OK

template <typename T>
struct [[nodiscard]] Result {
  MemErrc error = MemErrc::OK;
  T value{};
  constexpr bool ok() const { return error == MemErrc::OK; }
};

// ibv_reg_mr / ibv_reg_mr_iova.
struct MrRegistration {
  Pd pd{};
  std::uint64_t addr = 0;  // host address
  std::uint64_t length = 0;
  Access access = Access::NONE;
  std::optional<std::uint64_t> iova;  // ibv_reg_mr_iova's hca_va; unset: iova = addr
};
struct MrKeys {
  MrId id{};
  Key lkey{};
  Key rkey{};
};

// enum ibv_rereg_mr_flags.
inline constexpr std::uint32_t kReregChangeTranslation = 1u << 0;
inline constexpr std::uint32_t kReregChangePd = 1u << 1;
inline constexpr std::uint32_t kReregChangeAccess = 1u << 2;
struct MrRereg {
  std::uint32_t flags = 0;
  Pd pd{};                 // with kReregChangePd
  std::uint64_t addr = 0;  // with kReregChangeTranslation (iova becomes addr, or 0 if ZERO_BASED)
  std::uint64_t length = 0;
  Access access = Access::NONE;  // with kReregChangeAccess
};

// REG_MR WR (fast registration): the MR, the new key (only its low byte may differ), the
// access, and the mapping that ib_map_mr_sg prepared.
struct RegMrWr {
  MrId mr{};
  Key key{};
  Access access = Access::NONE;
  std::uint64_t iova = 0;  // ignored (0) when access has ZERO_BASED
  std::uint64_t host_addr = 0;
  std::uint64_t length = 0;
};

struct MwKeys {
  MwId id{};
  Key rkey{};
};
// BIND_MW WR (rxe_bind_mw): the MW named by its current rkey, the new rkey (only the low byte
// is used), the MR named by its lkey (ignored when length is 0), and the window.
struct BindMwWr {
  Key mw_rkey{};
  Key new_rkey{};
  Key mr_lkey{};
  std::uint64_t addr = 0;  // MR iova of the window start
  std::uint64_t length = 0;
  Access access = Access::NONE;
};
// ibv_bind_mw's ibv_mw_bind_info. mr.index == 0: no MR (unbind).
struct MwBindInfo {
  MrId mr{};
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
  Access access = Access::NONE;
};

enum class KeySpace : std::uint8_t { NONE, MR, MW };

// The bind rules (rxe_check_bind_mw, in its order, plus the PD rules of §7.5; C10-72..75): may
// `qp` bind `mw` over `mr` (null: unbind a type-1 window) as `wr` asks? Pure; bind_mw() calls it
// after resolving the keys, and proofs/keys.cpp proves what it guarantees.
MemErrc check_bind(QpRef qp, const MemoryWindow& mw, const MemoryRegion* mr, const BindMwWr& wr);

class MemTable {
 public:
  explicit MemTable(const MemConfig& config = {});  // throws std::invalid_argument if !is_valid
  const MemConfig& config() const { return config_; }

  // Protection domains. Dealloc fails while an MR or MW refers to the PD; QPs and AHs are the
  // qp block's business.
  Result<Pd> alloc_pd();
  MemErrc dealloc_pd(Pd pd);
  bool has_pd(Pd pd) const { return pds_.count(pd.value) != 0; }

  // User MRs.
  Result<MrKeys> reg_mr(const MrRegistration& reg);
  Result<MrKeys> rereg_mr(MrId mr, const MrRereg& rereg);
  MemErrc dereg_mr(MrId mr);

  // Fast-register MRs: allocated FREE with a capacity, made VALID by a REG_MR WR, made FREE
  // by invalidate().
  Result<MrKeys> alloc_fast_reg_mr(Pd pd, std::uint64_t max_length);
  MemErrc reg_mr_wr(QpRef qp, const RegMrWr& wr);

  // LOCAL_INV WR and the R_Key of a SEND_WITH_INV (IETH): the same rules in rxe
  // (rxe_invalidate_mr / rxe_invalidate_mw, chosen by the key's index range).
  MemErrc invalidate(QpRef qp, Key key);

  // Memory windows.
  Result<MwKeys> alloc_mw(Pd pd, MwType type);
  Result<Key> bind_mw(QpRef qp, const BindMwWr& wr);                     // BIND_MW WR
  Result<Key> bind_mw_type1(QpRef qp, MwId mw, const MwBindInfo& info);  // ibv_bind_mw
  MemErrc dealloc_mw(MwId mw);

  // Lookups.
  KeySpace key_space(Key key) const;  // by index range only
  const MemoryRegion* find_mr(MrId id) const;
  const MemoryWindow* find_mw(MwId id) const;
  // The entries `key` names for `op`: lkeys (LOCAL_*) name MRs only; rkeys name an MR or an
  // MW (with the MW's MR).
  AccessTarget resolve(Key key, MemOp op) const;
  // C9-88 exemption, then resolve(), then check_access().
  AccessResult check(const AccessRequest& req) const;

  std::size_t mr_count() const { return mrs_.size(); }
  std::size_t mw_count() const { return mws_.size(); }
  // Every entry in index order, for observers and state dumps (deterministic order).
  const std::map<std::uint32_t, MemoryRegion>& regions() const { return mrs_; }
  const std::map<std::uint32_t, MemoryWindow>& windows() const { return mws_; }

 private:
  std::optional<std::uint32_t> take_index(KeySpace space);
  std::uint8_t fresh_key_byte(std::uint32_t index);
  void set_key_byte(std::uint32_t index, std::uint8_t byte) { last_key_byte_[index] = byte; }
  Key rkey_for(Key lkey, Access access) const;
  MemErrc invalidate_mr(QpRef qp, Key key);
  MemErrc invalidate_mw(QpRef qp, Key key);

  MemConfig config_;
  KeyGenerator keygen_;
  std::uint32_t next_pd_ = 1;
  std::uint32_t next_mr_index_;
  std::uint32_t next_mw_index_;
  std::set<std::uint32_t> pds_;
  std::map<std::uint32_t, MemoryRegion> mrs_;            // by index
  std::map<std::uint32_t, MemoryWindow> mws_;            // by index
  std::map<std::uint32_t, std::uint8_t> last_key_byte_;  // by index, kept after dereg/dealloc
};

}  // namespace rocecert::mem
