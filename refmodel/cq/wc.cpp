#include "rocecert/cq/wc.h"

namespace rocecert::cq {

std::string_view to_string(WcStatus s) {
  switch (s) {
#define ROCECERT_X(name, value) \
  case WcStatus::name:          \
    return #name;
    ROCECERT_WC_STATUSES(ROCECERT_X)
#undef ROCECERT_X
  }
  return "?";
}

bool wc_status_from_name(std::string_view name, WcStatus& out) {
#define ROCECERT_X(n, value) \
  if (name == #n) {          \
    out = WcStatus::n;       \
    return true;             \
  }
  ROCECERT_WC_STATUSES(ROCECERT_X)
#undef ROCECERT_X
  return false;
}

namespace {
struct OpName {
  WcOpcode op;
  std::string_view name;
};
constexpr OpName kOpNames[] = {
    {WcOpcode::SEND, "SEND"},           {WcOpcode::RDMA_WRITE, "RDMA_WRITE"},
    {WcOpcode::RDMA_READ, "RDMA_READ"}, {WcOpcode::COMP_SWAP, "COMP_SWAP"},
    {WcOpcode::FETCH_ADD, "FETCH_ADD"}, {WcOpcode::BIND_MW, "BIND_MW"},
    {WcOpcode::LOCAL_INV, "LOCAL_INV"}, {WcOpcode::TSO, "TSO"},
    {WcOpcode::FLUSH, "FLUSH"},         {WcOpcode::ATOMIC_WRITE, "ATOMIC_WRITE"},
    {WcOpcode::RECV, "RECV"},           {WcOpcode::RECV_RDMA_WITH_IMM, "RECV_RDMA_WITH_IMM"},
};
}  // namespace

std::string_view to_string(WcOpcode op) {
  for (const OpName& n : kOpNames)
    if (n.op == op) return n.name;
  return "?";
}

bool wc_opcode_from_name(std::string_view name, WcOpcode& out) {
  for (const OpName& n : kOpNames) {
    if (n.name == name) {
      out = n.op;
      return true;
    }
  }
  return false;
}

std::optional<WcOpcode> send_wc_opcode(tx::WrOpcode op) {
  switch (op) {
    case tx::WrOpcode::SEND:
    case tx::WrOpcode::SEND_WITH_IMM:
    case tx::WrOpcode::SEND_WITH_INV:
      return WcOpcode::SEND;
    case tx::WrOpcode::RDMA_WRITE:
    case tx::WrOpcode::RDMA_WRITE_WITH_IMM:
      return WcOpcode::RDMA_WRITE;
    case tx::WrOpcode::RDMA_READ:
      return WcOpcode::RDMA_READ;
    case tx::WrOpcode::ATOMIC_CMP_AND_SWP:
      return WcOpcode::COMP_SWAP;
    case tx::WrOpcode::ATOMIC_FETCH_AND_ADD:
      return WcOpcode::FETCH_ADD;
    case tx::WrOpcode::BIND_MW:
      return WcOpcode::BIND_MW;
    case tx::WrOpcode::LOCAL_INV:
      return WcOpcode::LOCAL_INV;
    case tx::WrOpcode::TSO:
      return WcOpcode::TSO;
    case tx::WrOpcode::FLUSH:
      return WcOpcode::FLUSH;
    case tx::WrOpcode::ATOMIC_WRITE:
      return WcOpcode::ATOMIC_WRITE;
    case tx::WrOpcode::DRIVER1:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace rocecert::cq
