// Work completions with the libibverbs numbering (rdma-core verbs.h: enum ibv_wc_status,
// enum ibv_wc_opcode, enum ibv_wc_flags), so that traces and expectations read like
// ibv_poll_cq output. docs/spec-notes.md §5.6-§5.7.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "rocecert/tx/work_request.h"

namespace rocecert::cq {

#define ROCECERT_WC_STATUSES(X) \
  X(SUCCESS, 0)                 \
  X(LOC_LEN_ERR, 1)             \
  X(LOC_QP_OP_ERR, 2)           \
  X(LOC_EEC_OP_ERR, 3)          \
  X(LOC_PROT_ERR, 4)            \
  X(WR_FLUSH_ERR, 5)            \
  X(MW_BIND_ERR, 6)             \
  X(BAD_RESP_ERR, 7)            \
  X(LOC_ACCESS_ERR, 8)          \
  X(REM_INV_REQ_ERR, 9)         \
  X(REM_ACCESS_ERR, 10)         \
  X(REM_OP_ERR, 11)             \
  X(RETRY_EXC_ERR, 12)          \
  X(RNR_RETRY_EXC_ERR, 13)      \
  X(LOC_RDD_VIOL_ERR, 14)       \
  X(REM_INV_RD_REQ_ERR, 15)     \
  X(REM_ABORT_ERR, 16)          \
  X(INV_EECN_ERR, 17)           \
  X(INV_EEC_STATE_ERR, 18)      \
  X(FATAL_ERR, 19)              \
  X(RESP_TIMEOUT_ERR, 20)       \
  X(GENERAL_ERR, 21)            \
  X(TM_ERR, 22)                 \
  X(TM_RNDV_INCOMPLETE, 23)

enum class WcStatus : std::uint8_t {
#define ROCECERT_X(name, value) name = value,
  ROCECERT_WC_STATUSES(ROCECERT_X)
#undef ROCECERT_X
};
std::string_view to_string(WcStatus s);
bool wc_status_from_name(std::string_view name, WcStatus& out);

enum class WcOpcode : std::uint8_t {
  SEND = 0,
  RDMA_WRITE = 1,
  RDMA_READ = 2,
  COMP_SWAP = 3,
  FETCH_ADD = 4,
  BIND_MW = 5,
  LOCAL_INV = 6,
  TSO = 7,
  FLUSH = 8,
  ATOMIC_WRITE = 9,
  RECV = 128,
  RECV_RDMA_WITH_IMM = 129,
};
std::string_view to_string(WcOpcode op);
bool wc_opcode_from_name(std::string_view name, WcOpcode& out);

// libibverbs values (the kernel's ib_wc_flags number WITH_INVALIDATE differently:
// docs/spec-notes.md §5.6).
enum WcFlag : std::uint32_t {
  kWcGrh = 1u << 0,
  kWcWithImm = 1u << 1,
  kWcIpCsumOk = 1u << 2,
  kWcWithInv = 1u << 3,
};

struct Wc {
  std::uint64_t wr_id = 0;
  WcStatus status = WcStatus::SUCCESS;
  WcOpcode opcode = WcOpcode::SEND;  // valid only when status == SUCCESS (ibv_poll_cq(3))
  std::uint32_t vendor_err = 0;
  std::uint32_t byte_len = 0;
  std::uint32_t imm_data = 0;  // or the invalidated rkey with kWcWithInv
  std::uint32_t qp_num = 0;
  std::uint32_t src_qp = 0;
  std::uint32_t wc_flags = 0;
  std::uint16_t pkey_index = 0;
  friend bool operator==(const Wc&, const Wc&) = default;
};

// The send-side WC opcode of a successful WR (docs/spec-notes.md §5.6 table); nullopt for none.
std::optional<WcOpcode> send_wc_opcode(tx::WrOpcode op);

}  // namespace rocecert::cq
