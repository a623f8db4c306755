#include "rocecert/check/split.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "rocecert/check/checker.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"

namespace rocecert::check {
namespace {

using Key = std::tuple<std::array<std::uint8_t, 16>, std::array<std::uint8_t, 16>, std::uint32_t>;

// The flow a frame belongs to, as the checker keys it; nullopt for a frame of no flow.
std::optional<Key> key_of(const wire::ParsedFrame& f) {
  if (!f.roce || !f.has_bth) return std::nullopt;
  return Key{f.ip.src, f.ip.dst, f.bth.dqpn};
}

}  // namespace

std::vector<SplitPart> split_capture(const std::string& capture, unsigned parts,
                                     const std::string& out_prefix) {
  if (parts == 0) throw std::invalid_argument("split: the number of parts must be at least 1");
  // Pass 1: reconstruct the connections, count the frames of each flow.
  Options o;
  o.reconstruct_only = true;
  o.verify_icrc = false;
  Checker checker(o);
  std::map<Key, std::uint64_t> frames_of;
  int linktype = 1;
  {
    pcap::Reader r(capture);
    linktype = r.linktype();
    pcap::Record rec;
    while (r.next(rec)) {
      const wire::ParsedFrame f = wire::decode(rec.data, {r.link(), false});
      checker.add_decoded(rec.frame, rec.ts_ns, rec.len, f);
      if (const auto k = key_of(f)) ++frames_of[*k];
    }
  }
  checker.finish(capture);
  // Groups, largest first, each to the part with the fewest frames so far.
  struct Group {
    std::vector<Key> keys;
    std::uint64_t frames = 0;
  };
  std::vector<Group> groups;
  for (const std::vector<FlowId>& g : checker.flow_groups()) {
    Group x;
    for (const FlowId& id : g) {
      const Key k{id.src, id.dst, id.qpn};
      x.keys.push_back(k);
      if (const auto it = frames_of.find(k); it != frames_of.end()) x.frames += it->second;
    }
    groups.push_back(std::move(x));
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.frames > b.frames; });
  std::vector<SplitPart> out(parts);
  std::map<Key, unsigned> part_of;
  for (const Group& g : groups) {
    const auto least =
        static_cast<unsigned>(std::min_element(out.begin(), out.end(),
                                               [](const SplitPart& a, const SplitPart& b) {
                                                 return a.frames < b.frames;
                                               }) -
                              out.begin());
    out[least].frames += g.frames;
    ++out[least].groups;
    for (const Key& k : g.keys) part_of[k] = least;
  }
  // Pass 2: write every frame to its part, in capture order.
  std::vector<pcap::Writer> writers;
  for (unsigned k = 0; k < parts; ++k) {
    out[k].file = fmt::format("{}-{}-of-{}.pcap", out_prefix, k + 1, parts);
    out[k].frames = 0;
    writers.emplace_back(out[k].file, linktype);
  }
  pcap::Reader r(capture);
  pcap::Record rec;
  while (r.next(rec)) {
    const wire::ParsedFrame f = wire::decode(rec.data, {r.link(), false});
    unsigned k = 0;
    if (const auto key = key_of(f))
      if (const auto it = part_of.find(*key); it != part_of.end()) k = it->second;
    writers[k].write(rec.ts_ns, rec.data, rec.len);
    ++out[k].frames;
  }
  for (pcap::Writer& w : writers) w.close();
  return out;
}

}  // namespace rocecert::check
