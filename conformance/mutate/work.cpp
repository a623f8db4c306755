// The decoded view of a capture and the frame-level editing helpers of the mutation tool.
#include "work.h"

#include <fmt/format.h>

#include <map>
#include <unordered_set>
#include <utility>

#include "rocecert/wire/bytes.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/icrc.h"

namespace rocecert::mutate::detail {

std::uint32_t psn_add(std::uint32_t psn, std::uint32_t delta) {
  return (psn + delta) & wire::kMask24;
}

std::int32_t psn_diff(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t d = (a - b) & wire::kMask24;
  return (d & 0x800000u) != 0 ? static_cast<std::int32_t>(d) - 0x1000000
                              : static_cast<std::int32_t>(d);
}

bool Analysis::usable(std::size_t i) const {
  const wire::ParsedFrame& p = parsed[i];
  return p.roce && !p.has_error && p.has_bth && p.op != nullptr && p.op->known && p.has_icrc &&
         p.icrc_checked && p.icrc_ok;
}

bool Analysis::is_request(std::size_t i) const {
  return usable(i) && parsed[i].op->is_request();
}

bool Analysis::is_response(std::size_t i) const {
  return usable(i) && parsed[i].op->is_response();
}

const Flow* Analysis::flow_of(std::size_t i) const {
  return flow[i] < 0 ? nullptr : &flows[static_cast<std::size_t>(flow[i])];
}

const Flow* Analysis::peer_of(std::size_t i) const {
  const Flow* f = flow_of(i);
  if (f == nullptr || f->peer < 0) return nullptr;
  return &flows[static_cast<std::size_t>(f->peer)];
}

Analysis analyze(const Capture& c) {
  Analysis a;
  a.parsed.reserve(c.frames.size());
  a.flow.assign(c.frames.size(), -1);
  wire::DecodeOptions opts;
  opts.link = c.link;
  opts.verify_icrc = true;
  std::map<std::pair<FlowKey, bool>, int> index;
  for (std::size_t i = 0; i < c.frames.size(); ++i) {
    a.parsed.push_back(wire::decode(c.frames[i].data, opts));
    if (!a.usable(i)) continue;
    const wire::ParsedFrame& p = a.parsed[i];
    if (p.op->direction == wire::Direction::CNP) continue;
    FlowKey key;
    key.ip_version = p.ip.version;
    key.src = p.ip.src;
    key.dst = p.ip.dst;
    key.dqpn = p.bth.dqpn;
    const bool req = p.op->is_request();
    auto [it, fresh] = index.try_emplace({key, req}, static_cast<int>(a.flows.size()));
    if (fresh) {
      Flow f;
      f.key = key;
      f.request = req;
      f.transport = p.op->transport;
      a.flows.push_back(f);
    }
    a.flow[i] = it->second;
    a.flows[static_cast<std::size_t>(it->second)].frames.push_back(i);
  }
  // Pair each response flow with the request flow of the opposite direction whose PSNs it
  // answers (a response carries the PSN of a request: IBA Vol. 1 chapter 9; spec-notes §4.6).
  for (std::size_t r = 0; r < a.flows.size(); ++r) {
    Flow& resp = a.flows[r];
    if (resp.request) continue;
    std::unordered_set<std::uint32_t> psns;
    for (std::size_t i : resp.frames) psns.insert(a.parsed[i].bth.psn);
    int best = -1;
    std::size_t best_score = 0;
    std::size_t candidates = 0;
    int only = -1;
    for (std::size_t q = 0; q < a.flows.size(); ++q) {
      const Flow& req = a.flows[q];
      if (!req.request || req.peer >= 0 || req.key.ip_version != resp.key.ip_version ||
          req.key.src != resp.key.dst || req.key.dst != resp.key.src) {
        continue;
      }
      ++candidates;
      only = static_cast<int>(q);
      std::size_t score = 0;
      for (std::size_t i : req.frames) score += psns.count(a.parsed[i].bth.psn);
      if (score > best_score) {
        best_score = score;
        best = static_cast<int>(q);
      }
    }
    if (best < 0 && candidates == 1) best = only;
    if (best >= 0) {
      resp.peer = best;
      a.flows[static_cast<std::size_t>(best)].peer = static_cast<int>(r);
    }
  }
  return a;
}

Offsets offsets_of(const wire::ParsedFrame& p) {
  Offsets o;
  o.ip_off = p.ip_off;
  o.ip_header_len = p.ip_header_len;
  o.ip_version = p.ip.version;
  o.udp_off = p.udp_off;
  o.bth_off = p.bth_off;
  return o;
}

void refresh(Frame& f, const Offsets& o, bool icrc) {
  wire::MutableByteSpan b(f.data);
  if (o.ip_version == 4) {
    const std::uint16_t sum = wire::ipv4_checksum(b.subspan(o.ip_off, o.ip_header_len));
    wire::store_be16(b, o.ip_off + 10, sum);
  }
  if (icrc) {
    const std::size_t udp_len = wire::load_be16(b, o.udp_off + 4);
    const std::size_t icrc_off = o.udp_off + udp_len - wire::kIcrcLen;
    const std::uint32_t crc =
        wire::compute_icrc(b.subspan(o.ip_off, icrc_off - o.ip_off), o.ip_version, o.ip_header_len);
    wire::store_le32(b, icrc_off, crc);
  }
}

void splice(Frame& f, const Offsets& o, std::size_t at, std::size_t erase,
            std::span<const std::uint8_t> insert) {
  const auto pos = f.data.begin() + static_cast<std::ptrdiff_t>(at);
  f.data.erase(pos, pos + static_cast<std::ptrdiff_t>(erase));
  f.data.insert(f.data.begin() + static_cast<std::ptrdiff_t>(at), insert.begin(), insert.end());
  const auto delta = static_cast<std::int64_t>(insert.size()) - static_cast<std::int64_t>(erase);
  wire::MutableByteSpan b(f.data);
  const std::size_t ip_len_off = o.ip_version == 4 ? o.ip_off + 2 : o.ip_off + 4;
  auto bump = [&](std::size_t off) {
    wire::store_be16(b, off, static_cast<std::uint32_t>(wire::load_be16(b, off) + delta));
  };
  bump(ip_len_off);
  bump(o.udp_off + 4);
  f.orig_len = static_cast<std::uint32_t>(static_cast<std::int64_t>(f.orig_len) + delta);
}

Frame rebuild(const Frame& tmpl, const Offsets& o, std::span<const std::uint8_t> transport) {
  Frame f;
  f.ts_ns = tmpl.ts_ns;
  f.data.assign(tmpl.data.begin(), tmpl.data.begin() + o.bth_off);
  f.data.insert(f.data.end(), transport.begin(), transport.end());
  f.data.resize(f.data.size() + wire::kIcrcLen, 0);
  f.orig_len = static_cast<std::uint32_t>(f.data.size());
  wire::MutableByteSpan b(f.data);
  const std::size_t ip_payload = f.data.size() - o.ip_off - (o.ip_version == 4 ? 0 : 40);
  wire::store_be16(b, o.ip_version == 4 ? o.ip_off + 2 : o.ip_off + 4,
                   static_cast<std::uint32_t>(ip_payload));
  wire::store_be16(b, o.udp_off + 4, static_cast<std::uint32_t>(f.data.size() - o.udp_off));
  refresh(f, o);
  return f;
}

Work::Work(const Capture& in)
    : in_(in), removed_what_(in.frames.size()), inserted_(in.frames.size()) {
  entries_.reserve(in.frames.size());
  for (std::size_t i = 0; i < in.frames.size(); ++i) {
    Entry e;
    e.frame = in.frames[i];
    e.origin = static_cast<std::int64_t>(i);
    entries_.push_back(std::move(e));
  }
}

void Work::remove(std::size_t input_index, std::string what) {
  entries_[input_index].removed = true;
  removed_what_[input_index] = std::move(what);
}

Entry& Work::insert_after(std::size_t after, Frame f, std::string what) {
  Entry e;
  e.frame = std::move(f);
  e.changes.push_back(Change{0, "inserted", "-", std::move(what)});
  inserted_[after].push_back(std::move(e));
  return inserted_[after].back();
}

std::size_t Work::anchor_for(std::size_t from, std::int64_t ts) const {
  std::size_t a = from;
  while (a + 1 < in_.frames.size() && in_.frames[a + 1].ts_ns <= ts) ++a;
  return a;
}

Result Work::finish() && {
  Result r;
  r.capture.linktype = in_.linktype;
  r.capture.link = in_.link;
  auto emit = [&](Entry& e) {
    r.capture.frames.push_back(std::move(e.frame));
    r.origin.push_back(e.origin);
    for (Change& c : e.changes) {
      c.frame = r.capture.frames.size();
      r.changes.push_back(std::move(c));
    }
  };
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].removed) {
      r.changes.push_back(Change{r.capture.frames.size() + 1, "removed",
                                 fmt::format("input frame {}", i + 1), removed_what_[i]});
    } else {
      emit(entries_[i]);
    }
    for (Entry& e : inserted_[i]) emit(e);
  }
  return r;
}

std::string describe(const wire::ParsedFrame& p) {
  return fmt::format("{} QP=0x{:06x} PSN={}", p.op->name, p.bth.dqpn, p.bth.psn);
}

}  // namespace rocecert::mutate::detail
