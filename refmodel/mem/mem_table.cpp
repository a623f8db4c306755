// The MR / MW / PD table (mem_table.h). Clause numbers are those the rxe sources cite; the
// docs/spec-notes.md section is given where no clause number is known.
#include "rocecert/mem/mem_table.h"

#include <cerrno>
#include <stdexcept>

namespace rocecert::mem {
namespace {

// The rights a window may carry (ibv_bind_mw.3 lists REMOTE_WRITE, REMOTE_READ,
// REMOTE_ATOMIC, ZERO_BASED; rxe's RXE_ACCESS_SUPPORTED_MW also lets LOCAL_WRITE and the
// FLUSH rights through). MW_BIND, ON_DEMAND and HUGETLB describe registrations, not windows.
constexpr std::uint32_t kMwAccessAllowed =
    to_u32(Access::LOCAL_WRITE | Access::REMOTE_WRITE | Access::REMOTE_READ |
           Access::REMOTE_ATOMIC | Access::ZERO_BASED | Access::FLUSH_GLOBAL |
           Access::FLUSH_PERSISTENT) |
    kAccessOptionalMask;

// §7.2 / kernel ib_check_mr_access: the optional bits are ignored, the LOCAL_WRITE rule is
// checked first, then unknown bits.
MemErrc validate_mr_access(Access access) {
  const std::uint32_t v = to_u32(access) & ~kAccessOptionalMask;
  const std::uint32_t needs_local = to_u32(Access::REMOTE_WRITE | Access::REMOTE_ATOMIC);
  if ((v & needs_local) != 0 && (v & to_u32(Access::LOCAL_WRITE)) == 0) {
    return MemErrc::REMOTE_NEEDS_LOCAL_WRITE;
  }
  if ((v & ~kAccessDefinedMask) != 0) return MemErrc::INVALID_ACCESS_FLAGS;
  return MemErrc::OK;
}

template <typename T>
Result<T> error(MemErrc e) {
  Result<T> r;
  r.error = e;
  return r;
}

}  // namespace

bool is_valid(const MemConfig& c) {
  const auto range_ok = [](std::uint32_t first, std::uint32_t last) {
    return first >= 1 && first <= last && last <= kMaxKeyIndex;
  };
  return range_ok(c.mr_index_first, c.mr_index_last) &&
         range_ok(c.mw_index_first, c.mw_index_last) &&
         (c.mr_index_last < c.mw_index_first || c.mw_index_last < c.mr_index_first);
}

std::string_view to_string(MemErrc e) {
  switch (e) {
#define ROCECERT_X(name, errno_name, text) \
  case MemErrc::name:                      \
    return #name;
    ROCECERT_MEM_ERRORS(ROCECERT_X)
#undef ROCECERT_X
  }
  return "?";
}

std::string_view describe(MemErrc e) {
  switch (e) {
#define ROCECERT_X(name, errno_name, text) \
  case MemErrc::name:                      \
    return text;
    ROCECERT_MEM_ERRORS(ROCECERT_X)
#undef ROCECERT_X
  }
  return "?";
}

int errno_value(MemErrc e) {
  switch (e) {
#define ROCECERT_X(name, errno_name, text) \
  case MemErrc::name:                      \
    return errno_name;
    ROCECERT_MEM_ERRORS(ROCECERT_X)
#undef ROCECERT_X
  }
  return EINVAL;
}

MemTable::MemTable(const MemConfig& config)
    : config_(config),
      keygen_(config.seed),
      next_mr_index_(config.mr_index_first),
      next_mw_index_(config.mw_index_first) {
  if (!is_valid(config)) {
    throw std::invalid_argument(
        "MemConfig: MR and MW index ranges must be non-empty, disjoint, inside 1..0xFFFFFF");
  }
}

// ---------------------------------------------------------------------------------------------
// Indices and keys

KeySpace MemTable::key_space(Key key) const {
  const std::uint32_t i = key.index();
  if (i >= config_.mr_index_first && i <= config_.mr_index_last) return KeySpace::MR;
  if (i >= config_.mw_index_first && i <= config_.mw_index_last) return KeySpace::MW;
  return KeySpace::NONE;  // includes index 0 (§7.1: key 0 is never valid)
}

// Cyclic allocation, as rxe's xa_alloc_cyclic: start after the last index handed out.
std::optional<std::uint32_t> MemTable::take_index(KeySpace space) {
  const bool mr = space == KeySpace::MR;
  const std::uint32_t first = mr ? config_.mr_index_first : config_.mw_index_first;
  const std::uint32_t last = mr ? config_.mr_index_last : config_.mw_index_last;
  std::uint32_t& next = mr ? next_mr_index_ : next_mw_index_;
  const std::uint32_t size = last - first + 1;
  for (std::uint32_t n = 0; n < size; ++n) {
    const std::uint32_t candidate = next;
    next = candidate == last ? first : candidate + 1;
    const bool used = mr ? mrs_.count(candidate) != 0 : mws_.count(candidate) != 0;
    if (!used) return candidate;
  }
  return std::nullopt;
}

// §7.1: a fresh key byte that differs from the previous key byte of the same index.
std::uint8_t MemTable::fresh_key_byte(std::uint32_t index) {
  const auto it = last_key_byte_.find(index);
  const std::uint8_t b =
      it == last_key_byte_.end() ? keygen_.next_byte() : keygen_.next_byte_avoiding(it->second);
  set_key_byte(index, b);
  return b;
}

// §7.1: newer rxe sets rkey == lkey; older rxe set rkey = 0 without a REMOTE_* right.
Key MemTable::rkey_for(Key lkey, Access access) const {
  if (config_.rkey_zero_without_remote && !any(access & kRemoteRights)) return Key{0};
  return lkey;
}

const MemoryRegion* MemTable::find_mr(MrId id) const {
  const auto it = mrs_.find(id.index);
  return it == mrs_.end() ? nullptr : &it->second;
}

const MemoryWindow* MemTable::find_mw(MwId id) const {
  const auto it = mws_.find(id.index);
  return it == mws_.end() ? nullptr : &it->second;
}

// ---------------------------------------------------------------------------------------------
// Protection domains

Result<Pd> MemTable::alloc_pd() {
  if (next_pd_ == 0) return error<Pd>(MemErrc::INDEX_EXHAUSTED);  // 2^32 - 1 PDs handed out
  Result<Pd> r;
  r.value = Pd{next_pd_++};
  pds_.insert(r.value.value);
  return r;
}

MemErrc MemTable::dealloc_pd(Pd pd) {
  if (!has_pd(pd)) return MemErrc::INVALID_PD;
  for (const auto& [index, mr] : mrs_) {
    if (mr.pd == pd) return MemErrc::PD_IN_USE;
  }
  for (const auto& [index, mw] : mws_) {
    if (mw.pd == pd) return MemErrc::PD_IN_USE;
  }
  pds_.erase(pd.value);
  return MemErrc::OK;
}

// ---------------------------------------------------------------------------------------------
// User MRs

Result<MrKeys> MemTable::reg_mr(const MrRegistration& reg) {
  if (!has_pd(reg.pd)) return error<MrKeys>(MemErrc::INVALID_PD);
  if (const MemErrc e = validate_mr_access(reg.access); e != MemErrc::OK) return error<MrKeys>(e);
  if (!range_fits(reg.addr, reg.length)) return error<MrKeys>(MemErrc::RANGE_WRAPS);
  // ibv_reg_mr: iova = addr. ibv_reg_mr_iova: iova = hca_va. ZERO_BASED: iova = 0 (§7.2,
  // "hca_va = 0 is equivalent to ZERO_BASED"); it wins over a hca_va.
  std::uint64_t iova = reg.iova.value_or(reg.addr);
  if (contains(reg.access, Access::ZERO_BASED)) iova = 0;
  if (!range_fits(iova, reg.length)) return error<MrKeys>(MemErrc::RANGE_WRAPS);
  const auto index = take_index(KeySpace::MR);
  if (!index) return error<MrKeys>(MemErrc::INDEX_EXHAUSTED);

  MemoryRegion mr;
  mr.id = MrId{*index};
  mr.pd = reg.pd;
  mr.kind = MrKind::USER;
  mr.state = MrState::VALID;
  mr.lkey = Key::make(*index, fresh_key_byte(*index));
  mr.rkey = rkey_for(mr.lkey, reg.access);
  mr.access = reg.access;
  mr.host_addr = reg.addr;
  mr.iova = iova;
  mr.length = reg.length;
  mr.max_length = reg.length;
  mrs_[*index] = mr;
  return Result<MrKeys>{MemErrc::OK, MrKeys{mr.id, mr.lkey, mr.rkey}};
}

// ibv_rereg_mr.3: "conceptually deregister followed by register". Checks first, then one
// update, so a failure leaves the MR as it was (IBV_REREG_MR_ERR_INPUT: "old MR is valid").
Result<MrKeys> MemTable::rereg_mr(MrId id, const MrRereg& rereg) {
  const auto it = mrs_.find(id.index);
  if (it == mrs_.end()) return error<MrKeys>(MemErrc::INVALID_MR);
  MemoryRegion& mr = it->second;
  constexpr std::uint32_t kAll = kReregChangeTranslation | kReregChangePd | kReregChangeAccess;
  if (rereg.flags == 0 || (rereg.flags & ~kAll) != 0) {
    return error<MrKeys>(MemErrc::INVALID_REREG_FLAGS);
  }
  if (mr.kind != MrKind::USER) return error<MrKeys>(MemErrc::MR_NOT_USER);
  // As a deregistration, it may not pull the MR from under bound windows (IBA 10.6.7.2.6).
  if (mr.bound_mws > 0) return error<MrKeys>(MemErrc::MR_HAS_BOUND_MWS);

  const bool translation = (rereg.flags & kReregChangeTranslation) != 0;
  const Pd pd = (rereg.flags & kReregChangePd) != 0 ? rereg.pd : mr.pd;
  const Access access = (rereg.flags & kReregChangeAccess) != 0 ? rereg.access : mr.access;
  if (!has_pd(pd)) return error<MrKeys>(MemErrc::INVALID_PD);
  if (const MemErrc e = validate_mr_access(access); e != MemErrc::OK) return error<MrKeys>(e);
  const std::uint64_t addr = translation ? rereg.addr : mr.host_addr;
  const std::uint64_t length = translation ? rereg.length : mr.length;
  if (!range_fits(addr, length)) return error<MrKeys>(MemErrc::RANGE_WRAPS);
  // A new translation is registered at iova = addr (ibv_rereg_mr has no hca_va). Without
  // one, the iova is kept, unless ZERO_BASED is switched on (iova 0) or off (iova = addr).
  std::uint64_t iova = mr.iova;
  if (contains(access, Access::ZERO_BASED)) {
    iova = 0;
  } else if (translation || contains(mr.access, Access::ZERO_BASED)) {
    iova = addr;
  }
  if (!range_fits(iova, length)) return error<MrKeys>(MemErrc::RANGE_WRAPS);

  mr.pd = pd;
  mr.access = access;
  mr.host_addr = addr;
  mr.iova = iova;
  mr.length = length;
  mr.max_length = length;
  mr.state = MrState::VALID;
  mr.lkey = Key::make(id.index, fresh_key_byte(id.index));  // new keys (§7.1)
  mr.rkey = rkey_for(mr.lkey, access);
  return Result<MrKeys>{MemErrc::OK, MrKeys{mr.id, mr.lkey, mr.rkey}};
}

MemErrc MemTable::dereg_mr(MrId id) {
  const auto it = mrs_.find(id.index);
  if (it == mrs_.end()) return MemErrc::INVALID_MR;
  // ibv_reg_mr.3 "ibv_dereg_mr() fails if any memory window is still bound to this MR";
  // rxe_dereg_mr: "See IBA 10.6.7.2.6".
  if (it->second.bound_mws > 0) return MemErrc::MR_HAS_BOUND_MWS;
  mrs_.erase(it);  // last_key_byte_ keeps the index's key byte
  return MemErrc::OK;
}

// ---------------------------------------------------------------------------------------------
// Fast registration (§7.4)

Result<MrKeys> MemTable::alloc_fast_reg_mr(Pd pd, std::uint64_t max_length) {
  if (!has_pd(pd)) return error<MrKeys>(MemErrc::INVALID_PD);
  const auto index = take_index(KeySpace::MR);
  if (!index) return error<MrKeys>(MemErrc::INDEX_EXHAUSTED);
  MemoryRegion mr;
  mr.id = MrId{*index};
  mr.pd = pd;
  mr.kind = MrKind::FAST_REG;
  mr.state = MrState::FREE;
  mr.lkey = Key::make(*index, fresh_key_byte(*index));
  mr.rkey = mr.lkey;  // rxe_mr_init_fast: "always allow remote access for FMRs"
  mr.max_length = max_length;
  mrs_[*index] = mr;
  return Result<MrKeys>{MemErrc::OK, MrKeys{mr.id, mr.lkey, mr.rkey}};
}

// §7.4 REG_MR WR (rxe_reg_fast_mr): the MR must be FREE, QP.PD == MR.PD, and only the key byte
// may change; it sets access, iova and the mapping, and makes the MR VALID. The access rules of
// a registration (§7.2) and the capacity fixed at allocation apply too.
MemErrc MemTable::reg_mr_wr(QpRef qp, const RegMrWr& wr) {
  const auto it = mrs_.find(wr.mr.index);
  if (it == mrs_.end()) return MemErrc::INVALID_MR;
  MemoryRegion& mr = it->second;
  if (mr.kind != MrKind::FAST_REG) return MemErrc::MR_NOT_FAST_REG;
  if (mr.state != MrState::FREE) return MemErrc::MR_NOT_FREE;
  if (qp.pd != mr.pd) return MemErrc::QP_PD_MISMATCH;  // §7.5
  if (wr.key.index() != mr.id.index) return MemErrc::KEY_INDEX_CHANGED;
  if (const MemErrc e = validate_mr_access(wr.access); e != MemErrc::OK) return e;
  const std::uint64_t iova = contains(wr.access, Access::ZERO_BASED) ? 0 : wr.iova;
  if (!range_fits(wr.host_addr, wr.length) || !range_fits(iova, wr.length)) {
    return MemErrc::RANGE_WRAPS;
  }
  if (wr.length > mr.max_length) return MemErrc::LENGTH_EXCEEDS_MAX;

  mr.access = wr.access;
  mr.lkey = wr.key;
  mr.rkey = rkey_for(wr.key, wr.access);
  mr.iova = iova;
  mr.host_addr = wr.host_addr;
  mr.length = wr.length;
  mr.state = MrState::VALID;
  set_key_byte(mr.id.index, wr.key.key_byte());
  return MemErrc::OK;
}

// ---------------------------------------------------------------------------------------------
// Invalidation: LOCAL_INV and SEND_WITH_INV

MemErrc MemTable::invalidate(QpRef qp, Key key) {
  switch (key_space(key)) {
    case KeySpace::MR:
      return invalidate_mr(qp, key);
    case KeySpace::MW:
      return invalidate_mw(qp, key);
    case KeySpace::NONE:
      return MemErrc::INVALID_KEY;
  }
  return MemErrc::INVALID_KEY;
}

// §7.4 "MR invalidation requires all of: the key matches (rkey if the MR has any remote right,
// else lkey); no MWs are bound to the MR; and the MR is a fast-reg (MEM_REG) MR. It then moves
// the MR to FREE." (rxe_invalidate_mr; a FREE MR may be invalidated again.)
MemErrc MemTable::invalidate_mr(QpRef qp, Key key) {
  const auto it = mrs_.find(key.index());
  if (it == mrs_.end()) return MemErrc::INVALID_MR_KEY;
  MemoryRegion& mr = it->second;
  const Key expected = mr.rkey.value() != 0 ? mr.rkey : mr.lkey;
  if (key != expected) return MemErrc::MR_KEY_MISMATCH;
  if (config_.invalidate_checks_pd && qp.pd != mr.pd) return MemErrc::QP_PD_MISMATCH;
  if (mr.bound_mws > 0) return MemErrc::MR_HAS_BOUND_MWS;
  if (mr.kind != MrKind::FAST_REG) return MemErrc::MR_NOT_FAST_REG;
  mr.state = MrState::FREE;
  return MemErrc::OK;
}

// §7.4: a type-2 MW goes FREE and its MR's bind count drops (rxe_invalidate_mw). A type-1 MW
// "cannot be invalidated by LOCAL_INV or SEND_WITH_INV (o10-37.2.26)". Invalidating a FREE
// type-2 MW fails (rxe would dereference the absent QP and MR there).
MemErrc MemTable::invalidate_mw(QpRef qp, Key key) {
  const auto it = mws_.find(key.index());
  if (it == mws_.end()) return MemErrc::INVALID_MW_KEY;
  MemoryWindow& mw = it->second;
  if (key != mw.rkey) return MemErrc::MW_KEY_MISMATCH;
  if (config_.invalidate_checks_pd && qp.pd != mw.pd) return MemErrc::QP_PD_MISMATCH;
  if (mw.type == MwType::TYPE_1) return MemErrc::MW_TYPE1_NOT_INVALIDATABLE;  // o10-37.2.26
  if (mw.state != MwState::VALID) return MemErrc::MW_NOT_BOUND;
  if (const auto mr = mrs_.find(mw.mr.index); mr != mrs_.end() && mr->second.bound_mws > 0) {
    --mr->second.bound_mws;
  }
  mw.state = MwState::FREE;
  mw.access = Access::NONE;
  mw.addr = 0;
  mw.length = 0;
  mw.mr = MrId{};
  mw.qpn = 0;
  return MemErrc::OK;
}

// ---------------------------------------------------------------------------------------------
// Memory windows (§7.4)

Result<MwKeys> MemTable::alloc_mw(Pd pd, MwType type) {
  if (!has_pd(pd)) return error<MwKeys>(MemErrc::INVALID_PD);
  const auto index = take_index(KeySpace::MW);
  if (!index) return error<MwKeys>(MemErrc::INDEX_EXHAUSTED);
  MemoryWindow mw;
  mw.id = MwId{*index};
  mw.pd = pd;
  mw.type = type;
  // §7.4: type 1 is VALID at allocation (usable once bound with a length); type 2 is FREE.
  mw.state = type == MwType::TYPE_1 ? MwState::VALID : MwState::FREE;
  mw.rkey = Key::make(*index, fresh_key_byte(*index));
  mws_[*index] = mw;
  return Result<MwKeys>{MemErrc::OK, MwKeys{mw.id, mw.rkey}};
}

// rxe_check_bind_mw, in its order, plus the PD rules of §7.5.
MemErrc check_bind(QpRef qp, const MemoryWindow& mw, const MemoryRegion* mr, const BindMwWr& wr) {
  if (mw.type == MwType::TYPE_1) {
    if (mw.state != MwState::VALID) return MemErrc::MW_NOT_VALID;
    if (contains(wr.access, Access::ZERO_BASED)) return MemErrc::MW_ZERO_BASED_TYPE1;  // o10-36.2.2
  } else {
    if (mw.state != MwState::FREE) return MemErrc::MW_NOT_FREE;  // o10-37.2.30
  }
  // C10-72 for type 2; §7.5 ("MW usable by a QP only in the same PD") for type 1, as the hns
  // provider checks it (rxe checks it for type 2 only).
  if (qp.pd != mw.pd) return MemErrc::QP_PD_MISMATCH;
  if (mw.type == MwType::TYPE_2 && (mr == nullptr || wr.length == 0)) {
    return MemErrc::MW_ZERO_LENGTH;  // o10-37.2.40
  }
  if (mr == nullptr) return MemErrc::OK;  // type-1 unbind: the MR checks do not apply

  if (mr->pd != mw.pd) return MemErrc::MR_PD_MISMATCH;  // §7.5 (rxe provider: EPERM)
  if (mr->state != MrState::VALID) return MemErrc::MR_NOT_VALID;
  if (contains(mr->access, Access::ZERO_BASED)) return MemErrc::MR_ZERO_BASED;   // rxe
  if (!contains(mr->access, Access::MW_BIND)) return MemErrc::MR_LACKS_MW_BIND;  // C10-73
  if (any(wr.access & (Access::REMOTE_WRITE | Access::REMOTE_ATOMIC)) &&
      !contains(mr->access, Access::LOCAL_WRITE)) {
    return MemErrc::MR_LACKS_LOCAL_WRITE;  // C10-74
  }
  // C10-75: VA-based, [addr, addr + len) inside the MR; zero-based, len <= MR length.
  if (contains(wr.access, Access::ZERO_BASED)) {
    if (wr.length > mr->length) return MemErrc::MW_OUTSIDE_MR;
  } else if (!range_within(wr.addr, wr.length, mr->iova, mr->length)) {
    return MemErrc::MW_OUTSIDE_MR;
  }
  return MemErrc::OK;
}

// BIND_MW WR (rxe_bind_mw): look up the MW by its current rkey and the MR by its lkey (only
// for a non-zero length), check, then bind.
Result<Key> MemTable::bind_mw(QpRef qp, const BindMwWr& wr) {
  if (key_space(wr.mw_rkey) != KeySpace::MW) return error<Key>(MemErrc::INVALID_MW_KEY);
  const auto mw_it = mws_.find(wr.mw_rkey.index());
  if (mw_it == mws_.end()) return error<Key>(MemErrc::INVALID_MW_KEY);
  MemoryWindow& mw = mw_it->second;
  if (mw.rkey != wr.mw_rkey) return error<Key>(MemErrc::MW_KEY_MISMATCH);

  MemoryRegion* mr = nullptr;
  if (wr.length != 0) {
    if (key_space(wr.mr_lkey) != KeySpace::MR) return error<Key>(MemErrc::INVALID_MR_KEY);
    const auto mr_it = mrs_.find(wr.mr_lkey.index());
    if (mr_it == mrs_.end()) return error<Key>(MemErrc::INVALID_MR_KEY);
    if (mr_it->second.lkey != wr.mr_lkey) return error<Key>(MemErrc::MR_KEY_MISMATCH);
    mr = &mr_it->second;
  }
  if ((to_u32(wr.access) & ~kMwAccessAllowed) != 0) {
    return error<Key>(MemErrc::MW_ACCESS_UNSUPPORTED);
  }
  if (const MemErrc e = check_bind(qp, mw, mr, wr); e != MemErrc::OK) return error<Key>(e);

  // rxe_do_bind_mw: "new rkey = (MW index << 8) | low byte of the WR's rkey" (§7.4).
  mw.rkey = Key::make(mw.id.index, wr.new_rkey.key_byte());
  set_key_byte(mw.id.index, mw.rkey.key_byte());
  mw.access = wr.access;
  mw.addr = wr.addr;
  mw.length = wr.length;
  mw.state = MwState::VALID;
  if (mw.mr.index != 0) {  // a type-1 rebind releases the previous MR
    if (const auto old = mrs_.find(mw.mr.index); old != mrs_.end() && old->second.bound_mws > 0) {
      --old->second.bound_mws;
    }
    mw.mr = MrId{};
  }
  if (mr != nullptr) {
    mw.mr = mr->id;
    ++mr->bound_mws;  // §7.4 "MR bind count +1"
  }
  // §7.4: a type-2 window becomes associated with the binding QP.
  mw.qpn = mw.type == MwType::TYPE_2 ? qp.qpn : 0;
  return Result<Key>{MemErrc::OK, mw.rkey};
}

// ibv_bind_mw (verbs.h + the rxe provider): type 1 only; no address or length without an MR;
// no ZERO_BASED; MW and MR in one PD; the new rkey is ibv_inc_rkey(mw->rkey). Then the same
// BIND_MW WR as above.
Result<Key> MemTable::bind_mw_type1(QpRef qp, MwId id, const MwBindInfo& info) {
  const MemoryWindow* mw = find_mw(id);
  if (mw == nullptr) return error<Key>(MemErrc::INVALID_MW);
  if (mw->type != MwType::TYPE_1) return error<Key>(MemErrc::MW_WRONG_TYPE);
  if (info.mr.index == 0 && (info.addr != 0 || info.length != 0)) {
    return error<Key>(MemErrc::BIND_ADDR_WITHOUT_MR);
  }
  if (contains(info.access, Access::ZERO_BASED)) {
    return error<Key>(MemErrc::MW_ZERO_BASED_TYPE1);
  }
  BindMwWr wr;
  if (info.mr.index != 0) {
    const MemoryRegion* mr = find_mr(info.mr);
    if (mr == nullptr) return error<Key>(MemErrc::INVALID_MR);
    if (mr->pd != mw->pd) return error<Key>(MemErrc::MR_PD_MISMATCH);
    wr.mr_lkey = mr->lkey;
  }
  wr.mw_rkey = mw->rkey;
  wr.new_rkey = inc_rkey(mw->rkey);
  wr.addr = info.addr;
  wr.length = info.length;
  wr.access = info.access;
  return bind_mw(qp, wr);
}

// Deallocation of a bound window releases its MR (rxe_mw_cleanup).
MemErrc MemTable::dealloc_mw(MwId id) {
  const auto it = mws_.find(id.index);
  if (it == mws_.end()) return MemErrc::INVALID_MW;
  if (const auto mr = mrs_.find(it->second.mr.index);
      mr != mrs_.end() && mr->second.bound_mws > 0) {
    --mr->second.bound_mws;
  }
  mws_.erase(it);
  return MemErrc::OK;
}

// ---------------------------------------------------------------------------------------------
// Resolution and the table-level check

AccessTarget MemTable::resolve(Key key, MemOp op) const {
  AccessTarget t;
  switch (key_space(key)) {
    case KeySpace::MR:
      t.mr = find_mr(MrId{key.index()});
      break;
    case KeySpace::MW:
      if (is_local(op)) break;  // an lkey never names a window
      t.mw = find_mw(MwId{key.index()});
      if (t.mw != nullptr && t.mw->mr.index != 0) t.mr = find_mr(t.mw->mr);
      break;
    case KeySpace::NONE:
      break;
  }
  return t;
}

AccessResult MemTable::check(const AccessRequest& req) const {
  // C9-88: no lookup at all for an exempt request (its rkey may be 0).
  if (is_zero_length_exempt(req.op, req.length)) return check_access(AccessTarget{}, req);
  return check_access(resolve(req.key, req.op), req);
}

}  // namespace rocecert::mem
