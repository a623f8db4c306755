// Placeholder: the checker lands in its own change.
#include "rocecert/check/checker.h"

namespace rocecert::check {
struct Checker::Impl {};
Checker::Checker(Options) : impl_(std::make_unique<Impl>()) {}
Checker::~Checker() = default;
void Checker::add_frame(std::uint64_t, std::int64_t, std::uint32_t, std::span<const std::uint8_t>,
                        wire::LinkType) {}
Report Checker::finish(const std::string& file) {
  Report r;
  r.files.push_back(file);
  return r;
}
}  // namespace rocecert::check
