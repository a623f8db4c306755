// Memory Region and Memory Window entries as plain values: what the access check reads.
//
// Models IBTA Vol. 1 §10.6; docs/spec-notes.md §7.1-7.4: an MR maps the I/O virtual range [iova,
// iova + length) onto host memory at host_addr (ibv_reg_mr_iova: "a byte at iova x lives at addr +
// (x - hca_va)"); ZERO_BASED means iova = 0. A fast-register MR (IB_MR_TYPE_MEM_REG) has the
// FREE/VALID life cycle of §7.4 (REG_MR WR / LOCAL_INV); a user MR is VALID from registration to
// deregistration. A type-1 MW is VALID from allocation and is (un)bound by ibv_bind_mw; a
// type-2 (2B) MW is FREE until a BIND_MW WR binds it to one QP, and LOCAL_INV / SEND_WITH_INV
// make it FREE again.
#pragma once

#include <cstdint>
#include <string_view>

#include "rocecert/mem/keys.h"

namespace rocecert::mem {

enum class MrKind : std::uint8_t {
  USER,      // ibv_reg_mr / ibv_reg_mr_iova
  FAST_REG,  // allocated FREE, made VALID by a REG_MR WR (IB_MR_TYPE_MEM_REG)
};
enum class MrState : std::uint8_t { FREE, VALID };

enum class MwType : std::uint8_t { TYPE_1 = 1, TYPE_2 = 2 };  // ibv_mw_type values
enum class MwState : std::uint8_t { FREE, VALID };

struct MemoryRegion {
  MrId id{};
  Pd pd{};
  MrKind kind = MrKind::USER;
  MrState state = MrState::FREE;
  Key lkey{};
  Key rkey{};  // == lkey, or Key{0} under MemConfig::rkey_zero_without_remote
  Access access = Access::NONE;
  std::uint64_t host_addr = 0;  // host address of iova
  std::uint64_t iova = 0;
  std::uint64_t length = 0;
  std::uint64_t max_length = 0;  // FAST_REG: capacity fixed at allocation
  std::uint32_t bound_mws = 0;   // MWs currently bound to this MR (§7.4 "MR bind count")
};

struct MemoryWindow {
  MwId id{};
  Pd pd{};
  MwType type = MwType::TYPE_1;
  MwState state = MwState::FREE;
  Key rkey{};
  Access access = Access::NONE;  // as bound; ZERO_BASED makes VAs offsets into the window
  std::uint64_t addr = 0;        // MR iova of the window's first byte
  std::uint64_t length = 0;      // 0: not bound (a type-1 MW bound with length 0 is unbound)
  MrId mr{};                     // index 0: none
  std::uint32_t qpn = 0;         // TYPE_2 while VALID: the QP the window is bound to
};

std::string_view to_string(MrKind k);
std::string_view to_string(MrState s);
std::string_view to_string(MwType t);
std::string_view to_string(MwState s);

}  // namespace rocecert::mem
