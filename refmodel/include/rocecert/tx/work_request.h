// Work requests as the verbs post them (rdma-core libibverbs/verbs.h values, so that traces
// and scenarios use the numbers users know).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "rocecert/qp/ids.h"

namespace rocecert::tx {

// enum ibv_wr_opcode
enum class WrOpcode : std::uint8_t {
  RDMA_WRITE = 0,
  RDMA_WRITE_WITH_IMM = 1,
  SEND = 2,
  SEND_WITH_IMM = 3,
  RDMA_READ = 4,
  ATOMIC_CMP_AND_SWP = 5,
  ATOMIC_FETCH_AND_ADD = 6,
  LOCAL_INV = 7,
  BIND_MW = 8,
  SEND_WITH_INV = 9,
  TSO = 10,
  DRIVER1 = 11,
  FLUSH = 14,
  ATOMIC_WRITE = 15,
};
std::string_view to_string(WrOpcode op);
bool wr_opcode_from_name(std::string_view name, WrOpcode& out);

// enum ibv_send_flags
enum SendFlag : std::uint32_t {
  kSendFence = 1u << 0,
  kSendSignaled = 1u << 1,
  kSendSolicited = 1u << 2,
  kSendInline = 1u << 3,
};

struct Sge {
  std::uint64_t addr = 0;
  std::uint32_t length = 0;
  std::uint32_t lkey = 0;
};

struct SendWr {
  std::uint64_t wr_id = 0;
  WrOpcode opcode = WrOpcode::SEND;
  std::uint32_t send_flags = 0;
  std::vector<Sge> sg_list;
  std::vector<std::uint8_t> inline_data;  // used instead of sg_list with kSendInline
  std::uint32_t imm_data = 0;             // network order value, as ImmDt carries it
  std::uint32_t invalidate_rkey = 0;      // SEND_WITH_INV, LOCAL_INV
  std::uint64_t remote_addr = 0;          // RDMA, atomics, FLUSH, ATOMIC_WRITE
  std::uint32_t rkey = 0;
  std::uint64_t compare_add = 0;  // atomics
  std::uint64_t swap = 0;
  // UD: address handle, remote QPN and Q_Key
  std::uint32_t remote_qpn = 0;
  std::uint32_t remote_qkey = 0;
  qp::AhId ah;
  // BIND_MW
  std::uint32_t bind_mw_handle = 0;
  std::uint32_t bind_mr_lkey = 0;
  std::uint64_t bind_addr = 0;
  std::uint64_t bind_length = 0;
  std::uint32_t bind_access = 0;
  // FLUSH: placement type and selectivity level (FETH)
  std::uint8_t flush_type = 0;
  std::uint8_t flush_level = 0;

  std::uint64_t total_length() const;
};

}  // namespace rocecert::tx
