// Placeholder: the checker lands in its own change. Until then check_files reads every frame
// (so that unusable captures are reported) and judges nothing.
#include "rocecert/check/checker.h"

#include "rocecert/pcap/reader.h"

namespace rocecert::check {
struct Checker::Impl {
  std::uint64_t frames = 0;
};
Checker::Checker(Options) : impl_(std::make_unique<Impl>()) {}
Checker::~Checker() = default;
void Checker::add_frame(std::uint64_t, std::int64_t, std::uint32_t, std::span<const std::uint8_t>,
                        wire::LinkType) {
  ++impl_->frames;
}
Report Checker::finish(const std::string& file) {
  Report r;
  r.files.push_back(file);
  r.frames = impl_->frames;
  return r;
}
Report check_files(const std::vector<std::string>& files, const Options& opts) {
  std::vector<Report> parts;
  for (const std::string& f : files) {
    pcap::Reader reader(f);
    Checker c(opts);
    pcap::Record rec;
    while (reader.next(rec)) c.add_frame(rec.frame, rec.ts_ns, rec.len, rec.data, reader.link());
    parts.push_back(c.finish(f));
  }
  Report r = merge(std::move(parts));
  r.profile = opts.profile.name;
  r.max_capture_errors = opts.profile.max_capture_errors;
  return r;
}
}  // namespace rocecert::check
