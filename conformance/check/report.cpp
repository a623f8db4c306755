// Placeholder: filled in by its own change. Until then, verdict names and a merge that sums.
#include "rocecert/check/profile.h"
#include "rocecert/check/report_io.h"

namespace rocecert::check {
std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::PASS:
      return "PASS";
    case Verdict::DEVIATION:
      return "DEVIATION";
    case Verdict::UNSUPPORTED:
      return "UNSUPPORTED";
    case Verdict::INCONCLUSIVE:
      return "INCONCLUSIVE";
    case Verdict::FAIL:
      return "FAIL";
  }
  return "?";
}
Verdict worst(Verdict a, Verdict b) {
  return a > b ? a : b;
}
void Report::settle() {}
Report merge(std::vector<Report> parts) {
  Report all;
  for (Report& p : parts) {
    all.profile = p.profile;
    all.max_capture_errors = p.max_capture_errors;
    all.files.insert(all.files.end(), p.files.begin(), p.files.end());
    all.frames += p.frames;
    all.roce_frames += p.roce_frames;
    all.verdict = worst(all.verdict, p.verdict);
  }
  return all;
}
}  // namespace rocecert::check
