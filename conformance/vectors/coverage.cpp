// Coverage of a vector set (vectors.h): the opcode x transport matrix, from the opcode table.
#include <map>

#include "internal.h"
#include "rocecert/qp/transitions.h"
#include "rocecert/vectors/vectors.h"

namespace rocecert::vectors {

std::size_t Coverage::Matrix::covered() const {
  std::size_t n = 0;
  for (const Cell& c : cells)
    if (!c.vectors.empty()) ++n;
  return n;
}
std::size_t Coverage::Matrix::reasoned() const {
  std::size_t n = 0;
  for (const Cell& c : cells)
    if (c.vectors.empty() && !c.reason.empty()) ++n;
  return n;
}
std::vector<const Coverage::Cell*> Coverage::Matrix::missing() const {
  std::vector<const Cell*> out;
  for (const Cell& c : cells)
    if (c.vectors.empty() && c.reason.empty()) out.push_back(&c);
  return out;
}

Coverage coverage(const std::vector<Vector>& set) {
  std::map<std::string, std::vector<std::string>> by_opcode;
  for (const Vector& v : set)
    for (const std::string& op : v.opcodes) by_opcode[op].push_back(v.id);
  Coverage c;
  Coverage::Matrix m;
  m.name = "opcode x transport";
  for (const wire::OpcodeInfo& op : wire::kOpcodeTable) {
    if (!op.known) continue;
    Coverage::Cell cell;
    cell.row = std::string(op.name);
    const std::string_view t = op.name.substr(0, op.name.find('_'));
    cell.column = std::string(t);
    if (const auto it = by_opcode.find(cell.row); it != by_opcode.end()) cell.vectors = it->second;
    if (cell.vectors.empty()) cell.reason = detail::no_vector_reason(op);
    m.cells.push_back(std::move(cell));
  }
  c.matrices.push_back(std::move(m));

  std::map<std::string, std::vector<std::string>> by_transition;
  for (const Vector& v : set)
    for (const std::string& t : v.transitions) by_transition[t].push_back(v.id);
  Coverage::Matrix tm;
  tm.name = "transition x QP type";
  for (const qp::TransitionEntry& e : qp::transition_entries()) {
    Coverage::Cell cell;
    cell.row = detail::transition_name(e.type, e.from, e.to);
    cell.column = detail::transport_name(e.type == qp::QpType::RC   ? wire::Transport::RC
                                         : e.type == qp::QpType::UC ? wire::Transport::UC
                                                                    : wire::Transport::UD);
    if (const auto it = by_transition.find(cell.row); it != by_transition.end())
      cell.vectors = it->second;
    if (cell.vectors.empty()) cell.reason = detail::no_transition_reason(e.type, e.from, e.to);
    tm.cells.push_back(std::move(cell));
  }
  c.matrices.push_back(std::move(tm));
  return c;
}

}  // namespace rocecert::vectors
