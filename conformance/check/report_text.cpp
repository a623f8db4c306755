// Placeholder: filled in by its own change. Until then, one line with the verdict.
#include <ostream>

#include "rocecert/check/profile.h"
#include "rocecert/check/report_io.h"

namespace rocecert::check {
void write_text(const Report& r, std::ostream& out, const TextOptions&) {
  out << to_string(r.verdict) << ": " << r.frames << " frames (placeholder report)\n";
}
}  // namespace rocecert::check
