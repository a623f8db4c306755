#include "decode_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "frame_format.h"
#include "rocecert/pcap/reader.h"

namespace rocecert::cli {

namespace {

void flush(fmt::memory_buffer& buf) {
  std::fwrite(buf.data(), 1, buf.size(), stdout);
  buf.clear();
}

struct Totals {
  std::uint64_t frames = 0, roce = 0, errors = 0, icrc_bad = 0;
};

}  // namespace

int run_decode(const DecodeArgs& args) {
  fmt::memory_buffer out;
  Totals t;
  int rc = 0;
  try {
    pcap::Reader reader(args.file);
    const wire::DecodeOptions opts{reader.link(), args.verify_icrc};
    pcap::Record rec;
    std::int64_t first_ts = 0;
    while ((args.count == 0 || t.frames < args.count) && reader.next(rec)) {
      if (t.frames == 0) first_ts = rec.ts_ns;
      ++t.frames;
      const wire::ParsedFrame p = wire::decode(rec.data, opts);
      t.roce += p.roce ? 1 : 0;
      t.errors += p.has_error ? 1 : 0;
      t.icrc_bad += (p.icrc_checked && !p.icrc_ok) ? 1 : 0;
      const FrameContext ctx{rec.frame, rec.ts_ns, first_ts, rec.caplen, rec.len};
      if (args.json) {
        append_json(out, p, ctx);
      } else {
        append_text(out, p, ctx);
      }
      if (out.size() > (1u << 16)) flush(out);
    }
  } catch (const pcap::CaptureError& e) {
    // The frames before the broken one have been reported; then one line naming the place.
    flush(out);
    std::fflush(stdout);
    fmt::print(stderr, "rocecert decode: {}\n", e.what());
    return 2;
  }
  flush(out);
  if (args.strict && (t.errors > 0 || t.icrc_bad > 0)) rc = 1;
  if (args.stats) {
    fmt::print(stderr, "{}: {} frames, {} RoCEv2, {} malformed, {} ICRC failures\n", args.file,
               t.frames, t.roce, t.errors, t.icrc_bad);
  }
  return rc;
}

}  // namespace rocecert::cli
