// The vector generator (vectors.h): the areas, each in its own file (opcodes.cpp,
// transitions.cpp, errors.cpp, bugs.cpp, boundary.cpp, reliability.cpp), recorded on the model
// (record.cpp), in id order.
#include <algorithm>

#include "internal.h"

namespace rocecert::vectors {

std::vector<Generated> generate(const std::string& scenarios_dir) {
  std::vector<Generated> out = detail::opcode_vectors();
  for (Generated& g : detail::transition_vectors()) out.push_back(std::move(g));
  for (Generated& g : detail::error_vectors()) out.push_back(std::move(g));
  for (Generated& g : detail::bug_vectors()) out.push_back(std::move(g));
  for (Generated& g : detail::boundary_vectors()) out.push_back(std::move(g));
  for (Generated& g : detail::reliability_vectors(scenarios_dir)) out.push_back(std::move(g));
  std::sort(out.begin(), out.end(),
            [](const Generated& a, const Generated& b) { return a.vector.id < b.vector.id; });
  return out;
}

}  // namespace rocecert::vectors
