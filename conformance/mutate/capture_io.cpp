// Whole-capture reading and writing for the mutation tool: a mutation may insert, move or remove
// frames anywhere, so the capture is held in memory (the captures it is meant for are small).
#include "rocecert/mutate/mutate.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"

namespace rocecert::mutate {

Capture read_capture(const std::string& path) {
  pcap::Reader reader(path);
  Capture c;
  c.linktype = reader.linktype();
  c.link = reader.link();
  pcap::Record rec;
  while (reader.next(rec)) {
    Frame f;
    f.ts_ns = rec.ts_ns;
    f.orig_len = rec.len;
    f.data.assign(rec.data.begin(), rec.data.end());
    c.frames.push_back(std::move(f));
  }
  return c;
}

void write_capture(const Capture& capture, const std::string& path) {
  pcap::Writer writer(path, capture.linktype, pcap::Precision::Nano);
  for (const Frame& f : capture.frames) {
    const std::uint32_t orig =
        f.orig_len < f.data.size() ? static_cast<std::uint32_t>(f.data.size()) : f.orig_len;
    writer.write(f.ts_ns, f.data, orig);
  }
  writer.close();
}

}  // namespace rocecert::mutate
