#include "rocecert/tx/work_request.h"

namespace rocecert::tx {

namespace {
struct Name {
  WrOpcode op;
  std::string_view name;
};
constexpr Name kNames[] = {
    {WrOpcode::RDMA_WRITE, "RDMA_WRITE"},
    {WrOpcode::RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM"},
    {WrOpcode::SEND, "SEND"},
    {WrOpcode::SEND_WITH_IMM, "SEND_WITH_IMM"},
    {WrOpcode::RDMA_READ, "RDMA_READ"},
    {WrOpcode::ATOMIC_CMP_AND_SWP, "ATOMIC_CMP_AND_SWP"},
    {WrOpcode::ATOMIC_FETCH_AND_ADD, "ATOMIC_FETCH_AND_ADD"},
    {WrOpcode::LOCAL_INV, "LOCAL_INV"},
    {WrOpcode::BIND_MW, "BIND_MW"},
    {WrOpcode::SEND_WITH_INV, "SEND_WITH_INV"},
    {WrOpcode::TSO, "TSO"},
    {WrOpcode::DRIVER1, "DRIVER1"},
    {WrOpcode::FLUSH, "FLUSH"},
    {WrOpcode::ATOMIC_WRITE, "ATOMIC_WRITE"},
};
}  // namespace

std::string_view to_string(WrOpcode op) {
  for (const Name& n : kNames)
    if (n.op == op) return n.name;
  return "?";
}

bool wr_opcode_from_name(std::string_view name, WrOpcode& out) {
  for (const Name& n : kNames) {
    if (n.name == name) {
      out = n.op;
      return true;
    }
  }
  return false;
}

std::uint64_t SendWr::total_length() const {
  if (send_flags & kSendInline) return inline_data.size();
  std::uint64_t total = 0;
  for (const Sge& s : sg_list) total += s.length;
  return total;
}

}  // namespace rocecert::tx
