// The mutations of `rocecert mutate` (docs/mutate.md), one function per kind of mutations.def.
// Each collects the frames it may apply to, lets the seed pick one, and edits a copy of the
// capture, re-encoding what it touched.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>

#include "rocecert/mutate/mutate.h"
#include "rocecert/wire/bytes.h"
#include "rocecert/wire/headers.h"
#include "rocecert/wire/opcode.h"
#include "rocecert/wire/sample_frames.h"
#include "work.h"

namespace rocecert::mutate {
namespace {

using detail::Analysis;
using detail::Flow;
using detail::Offsets;
using detail::Work;
using wire::ParsedFrame;

// Far beyond any run of frames a tap could miss (the profiles' max_capture_errors).
constexpr std::uint32_t kPsnShift = 5000;
constexpr std::uint32_t kMsnJump = 1000;
// Well past the profiles' fatal_nak_grace_ns.
constexpr std::int64_t kAfterFatalNs = 50'000'000;
// Far below any RNR timer (IBA Vol. 1 Table 45: the shortest is 10 µs).
constexpr std::int64_t kRnrResendNs = 1'000;
// Gap given to a frame inserted after the last one of the capture.
constexpr std::int64_t kTailGapNs = 1'000;

struct Ctx {
  const Capture& in;
  const Analysis& a;
  Kind kind;
  std::uint64_t seed;
  wire::SplitMix64 rng;

  const ParsedFrame& p(std::size_t i) const { return a.parsed[i]; }
  // The seed's pick among `n` candidates; throws when there is none.
  std::size_t pick(std::size_t n) {
    if (n == 0) {
      throw NoEligibleFrame(fmt::format("no eligible frame for {}", info(kind).name));
    }
    return static_cast<std::size_t>(rng.next() % n);
  }
};

wire::MutableByteSpan span_at(Frame& f, std::size_t off) {
  return wire::MutableByteSpan(f.data).subspan(off);
}

std::uint32_t hdr_off(const ParsedFrame& p, wire::Header h) {
  return p.bth_off + p.op->offset[static_cast<std::size_t>(h)];
}

void add(detail::Entry& e, std::string field, std::string from, std::string to) {
  e.changes.push_back(Change{0, std::move(field), std::move(from), std::move(to)});
}

// Sets BTH fields of input frame i through `edit` and re-encodes it.
void edit_bth(Ctx& c, Work& w, std::size_t i, const std::function<void(wire::Bth&)>& edit,
              bool icrc = true) {
  Frame& f = w.at(i).frame;
  const Offsets o = detail::offsets_of(c.p(i));
  wire::Bth bth = wire::read_bth(span_at(f, o.bth_off));
  edit(bth);
  wire::write_bth(span_at(f, o.bth_off), bth);
  detail::refresh(f, o, icrc);
}

void set_psn(Ctx& c, Work& w, std::size_t i, std::uint32_t psn) {
  add(w.at(i), "bth.psn", std::to_string(c.p(i).bth.psn), std::to_string(psn));
  edit_bth(c, w, i, [&](wire::Bth& b) { b.psn = psn; });
}

bool is_ack_op(const ParsedFrame& p) {
  return p.op->operation == wire::Operation::ACK;
}
bool has_aeth(const ParsedFrame& p) {
  return p.has(wire::Header::Aeth);
}
wire::AethKind aeth_kind(const ParsedFrame& p) {
  return wire::aeth_kind(p.aeth.syndrome);
}
bool is_fatal_nak(const ParsedFrame& p) {
  if (!is_ack_op(p) || aeth_kind(p) != wire::AethKind::NAK) return false;
  return wire::aeth_value(p.aeth.syndrome) !=
         static_cast<std::uint8_t>(wire::NakCode::PSN_SEQUENCE_ERROR);
}
bool is_atomic(const ParsedFrame& p) {
  return p.op->operation == wire::Operation::COMPARE_SWAP ||
         p.op->operation == wire::Operation::FETCH_ADD;
}

// Every input frame for which `pred` holds.
std::vector<std::size_t> frames_where(const Ctx& c, const std::function<bool(std::size_t)>& pred) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < c.in.frames.size(); ++i) {
    if (c.a.usable(i) && pred(i)) out.push_back(i);
  }
  return out;
}

std::int64_t ts_between(const Capture& in, std::size_t i, std::int64_t num, std::int64_t den) {
  const std::int64_t t0 = in.frames[i].ts_ns;
  if (i + 1 >= in.frames.size()) return t0 + kTailGapNs * num / den;
  return t0 + (in.frames[i + 1].ts_ns - t0) * num / den;
}

// The path MTU a QP pair uses: its largest FIRST or MIDDLE payload (4096 if it has none).
std::uint32_t path_mtu(const Ctx& c, const Flow& q) {
  std::uint32_t mtu = 0;
  auto scan = [&](const Flow& f) {
    for (std::size_t i : f.frames) {
      const ParsedFrame& p = c.p(i);
      if (p.op->position == wire::Position::FIRST || p.op->position == wire::Position::MIDDLE) {
        mtu = std::max(mtu, p.payload_len);
      }
    }
  };
  scan(q);
  if (q.peer >= 0) scan(c.a.flows[static_cast<std::size_t>(q.peer)]);
  return mtu == 0 ? 4096 : mtu;
}

// The last PSN a request uses (a READ takes one per response packet).
std::uint32_t last_psn(const Ctx& c, const Flow& q, std::size_t i) {
  const ParsedFrame& p = c.p(i);
  if (p.op->operation != wire::Operation::READ_REQUEST) return p.bth.psn;
  const std::uint32_t mtu = path_mtu(c, q);
  const std::uint32_t n = std::max<std::uint32_t>(1, (p.reth.dmalen + mtu - 1) / mtu);
  return detail::psn_add(p.bth.psn, n - 1);
}

// The next new PSN of request flow `q` as of input frame `upto`: past every PSN its requests
// used and its responses named until then.
std::uint32_t next_new_psn(const Ctx& c, const Flow& q, std::size_t upto) {
  std::uint32_t next = c.p(q.frames.front()).bth.psn;
  for (std::size_t i : q.frames) {
    if (i > upto) break;
    const std::uint32_t end = detail::psn_add(last_psn(c, q, i), 1);
    if (detail::psn_diff(end, next) > 0) next = end;
  }
  for (std::size_t i : c.a.flows[static_cast<std::size_t>(q.peer)].frames) {
    if (i > upto) break;
    const std::uint32_t end = detail::psn_add(c.p(i).bth.psn, 1);
    if (detail::psn_diff(end, next) > 0) next = end;
  }
  return next;
}

// Whether the PSN of request frame i is sent again in its flow.
bool resent(const Ctx& c, const Flow& q, std::size_t i) {
  return std::any_of(q.frames.begin(), q.frames.end(),
                     [&](std::size_t j) { return j != i && c.p(j).bth.psn == c.p(i).bth.psn; });
}

// The first response of `r` after input frame i that carries PSN `psn` or a later one.
std::optional<std::size_t> first_response_from(const Ctx& c, const Flow& r, std::size_t i,
                                               std::uint32_t psn) {
  for (std::size_t j : r.frames)
    if (j > i && detail::psn_diff(c.p(j).bth.psn, psn) >= 0) return j;
  return std::nullopt;
}

// The RC requests for which `want` holds, sent once, whose first answer is an ACK of their own
// PSN, with that ACK: (request, ACK) in capture order.
std::vector<std::pair<std::size_t, std::size_t>> acked_on_their_psn(
    const Ctx& c, const std::function<bool(const ParsedFrame&)>& want) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const Flow& q : c.a.flows) {
    if (!q.request || q.transport != wire::Transport::RC || q.peer < 0) continue;
    const Flow& r = c.a.flows[static_cast<std::size_t>(q.peer)];
    for (std::size_t i : q.frames) {
      const ParsedFrame& p = c.p(i);
      if (!want(p) || resent(c, q, i)) continue;
      const std::optional<std::size_t> j = first_response_from(c, r, i, p.bth.psn);
      if (j && is_ack_op(c.p(*j)) && aeth_kind(c.p(*j)) == wire::AethKind::ACK &&
          c.p(*j).bth.psn == p.bth.psn)
        out.emplace_back(i, *j);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint8_t> bth_bytes(const wire::Bth& b) {
  std::vector<std::uint8_t> out(wire::kBthLen);
  wire::write_bth(out, b);
  return out;
}

// A response without payload: `bth` with opcode `op` and no pad, then `aeth`.
std::vector<std::uint8_t> bth_aeth(wire::Bth bth, wire::Opcode op, wire::Aeth aeth) {
  bth.opcode = wire::to_u8(op);
  bth.padcnt = 0;
  std::vector<std::uint8_t> out = bth_bytes(bth);
  out.resize(wire::kBthLen + 4);
  wire::write_aeth(wire::MutableByteSpan(out).subspan(wire::kBthLen), aeth);
  return out;
}

// --- forbidden ---------------------------------------------------------------------------------

// The response of flow `r` that ends its opening: the first one beyond every PSN answered before
// whose MSN passes every MSN before it, so the responder had executed a request the capture
// shows. Until then
// the checker explains a response beyond what the capture shows sent, an MSN the capture's
// requests do not account for, or PSNs acknowledged that the capture never showed sent, by
// requests sent before the capture began (docs/check.md, "A capture that begins
// mid-conversation"), so a change there cannot be told apart.
std::optional<std::size_t> opening_end(const Ctx& c, const Flow& r) {
  std::optional<std::uint32_t> top_msn, top_psn;
  for (const std::size_t j : r.frames) {
    if (!c.a.usable(j)) continue;
    const ParsedFrame& q = c.p(j);
    const bool beyond = top_psn && detail::psn_diff(q.bth.psn, *top_psn) > 0;
    if (has_aeth(q) && aeth_kind(q) == wire::AethKind::ACK) {
      const bool above = !top_msn || detail::psn_diff(q.aeth.msn, *top_msn) > 0;
      if (top_msn && above && beyond) return j;
      if (above) top_msn = q.aeth.msn;
    }
    if (!top_psn || detail::psn_diff(q.bth.psn, *top_psn) > 0) top_psn = q.bth.psn;
  }
  return std::nullopt;
}

// Whether response frame i comes after its flow's opening.
bool after_opening(const Ctx& c, std::size_t i) {
  const Flow* r = c.a.flow_of(i);
  if (r == nullptr) return false;
  const std::optional<std::size_t> end = opening_end(c, *r);
  return end && *end < i;
}

// The new requests of the RC QPs with a response flow, sent after the opening of their responses
// (see opening_end), that `keep(i, psn, before, r)` keeps: `before` is the highest PSN the QP
// sent before request i, `r` its response flow. In capture order.
template <class Keep>
std::vector<std::size_t> new_requests_after_opening(const Ctx& c, Keep keep) {
  std::vector<std::size_t> cand;
  for (const Flow& q : c.a.flows) {
    if (!q.request || q.transport != wire::Transport::RC || q.peer < 0) continue;
    const Flow& r = c.a.flows[static_cast<std::size_t>(q.peer)];
    const std::optional<std::size_t> opened = opening_end(c, r);
    std::uint32_t highest = c.p(q.frames.front()).bth.psn;
    for (std::size_t k = 1; k < q.frames.size(); ++k) {
      const std::size_t i = q.frames[k];
      const std::uint32_t psn = c.p(i).bth.psn;
      if (detail::psn_diff(psn, highest) <= 0) continue;
      const std::uint32_t before = highest;
      highest = psn;
      if (opened && *opened <= i && keep(i, psn, before, r)) cand.push_back(i);
    }
  }
  std::sort(cand.begin(), cand.end());
  return cand;
}

// From request `start` on, its QP's request PSNs and its QP pair's response PSNs (those not
// before its PSN) move by `delta`.
void shift_qp_pair(Ctx& c, Work& w, std::size_t start, std::uint32_t delta) {
  const Flow& q = *c.a.flow_of(start);
  const std::uint32_t p0 = c.p(start).bth.psn;
  auto shift = [&](const Flow& f) {
    for (std::size_t i : f.frames) {
      if (i < start || detail::psn_diff(c.p(i).bth.psn, p0) < 0) continue;
      set_psn(c, w, i, detail::psn_add(c.p(i).bth.psn, delta));
    }
  };
  shift(q);
  if (q.peer >= 0) shift(c.a.flows[static_cast<std::size_t>(q.peer)]);
}

// New requests take consecutive PSNs (IBA Vol. 1 chapter 9; spec-notes §3.1-3.2).
void psn_skip(Ctx& c, Work& w) {
  // A new request the responder answers afterwards (a response at or beyond its PSN), so the
  // jump cannot be taken for requests the tap missed at the end of the capture.
  const std::vector<std::size_t> cand = new_requests_after_opening(
      c, [&](std::size_t i, std::uint32_t psn, std::uint32_t, const Flow& r) {
        return std::any_of(r.frames.begin(), r.frames.end(), [&](std::size_t j) {
          return j > i && detail::psn_diff(c.p(j).bth.psn, psn) >= 0;
        });
      });
  shift_qp_pair(c, w, cand[c.pick(cand.size())], kPsnShift);
}

// Whether a SEND with Invalidate of `rkey` to `dst` lies between input frames lo and hi.
bool invalidated_between(const Ctx& c, const detail::FlowKey& dst, std::uint32_t rkey,
                         std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo + 1; i < hi; ++i) {
    if (!c.a.is_request(i)) continue;
    const ParsedFrame& p = c.p(i);
    if (p.has(wire::Header::Ieth) && p.ieth.rkey == rkey && p.ip.dst == dst.dst) return true;
  }
  return false;
}

// Response frame `resp` becomes an ACKNOWLEDGE with NAK remote access error and `msn`, its PSN
// kept.
void access_nak_in_place(Ctx& c, Work& w, std::size_t resp, std::uint32_t msn) {
  const std::uint8_t access_nak = wire::nak_syndrome(wire::NakCode::REMOTE_ACCESS_ERROR);
  const ParsedFrame& p = c.p(resp);
  const std::vector<std::uint8_t> transport =
      bth_aeth(p.bth, wire::Opcode::RC_ACKNOWLEDGE, wire::Aeth{access_nak, msn});
  detail::Entry& e = w.at(resp);
  e.frame = detail::rebuild(c.in.frames[resp], detail::offsets_of(p), transport);
  if (p.op->operation != wire::Operation::ACK)
    add(e, "bth.opcode", std::string(p.op->name), "RC_ACKNOWLEDGE");
  add(e, "aeth", fmt::format("syndrome 0x{:02x} MSN {}", p.aeth.syndrome, p.aeth.msn),
      fmt::format("syndrome 0x{:02x} MSN {}", access_nak, msn));
}

// Removes the frames of request flow `q` and of its responses that come after input frame
// `after`: the QP pair's traffic ends there.
void cut_after(Ctx& c, Work& w, const Flow& q, std::size_t after) {
  for (const Flow* f : {&q, &c.a.flows[static_cast<std::size_t>(q.peer)]}) {
    for (std::size_t i : f->frames) {
      if (i > after) w.remove(i, "after the NAK: " + detail::describe(c.p(i)));
    }
  }
}

// An rkey and range granted once are not refused later without an invalidation between
// (IBA Vol. 1 chapter 10, memory protection; spec-notes §7.3).
void rkey_change(Ctx& c, Work& w) {
  // (a) An ACKed WRITE/READ before a NAK remote access error on the same QP takes the refused
  // access's rkey and VA.
  struct Swap {
    std::size_t granted;
    std::size_t refused;
  };
  std::vector<Swap> swaps;
  const std::uint8_t access_nak = wire::nak_syndrome(wire::NakCode::REMOTE_ACCESS_ERROR);
  for (std::size_t n = 0; n < c.in.frames.size(); ++n) {
    if (!c.a.is_response(n) || !is_ack_op(c.p(n)) || c.p(n).aeth.syndrome != access_nak) continue;
    const Flow* q = c.a.peer_of(n);
    if (q == nullptr) continue;
    std::optional<std::size_t> refused;
    for (std::size_t i : q->frames) {
      if (i < n && c.p(i).bth.psn == c.p(n).bth.psn && c.p(i).has(wire::Header::Reth)) refused = i;
    }
    if (!refused) continue;
    const ParsedFrame& r2 = c.p(*refused);
    std::vector<Swap> fit;
    std::vector<Swap> any;
    for (std::size_t i : q->frames) {
      if (i >= *refused) break;
      const ParsedFrame& r1 = c.p(i);
      // The same operation: an MR may grant remote writes and not reads (spec-notes §7.2).
      if (!r1.has(wire::Header::Reth) || r1.op->operation != r2.op->operation ||
          r1.reth.rkey == r2.reth.rkey || detail::psn_diff(r1.bth.psn, r2.bth.psn) >= 0 ||
          invalidated_between(c, q->key, r2.reth.rkey, i, *refused)) {
        continue;
      }
      (r1.reth.dmalen >= r2.reth.dmalen ? fit : any).push_back(Swap{i, *refused});
    }
    const std::vector<Swap>& use = fit.empty() ? any : fit;
    swaps.insert(swaps.end(), use.begin(), use.end());
  }
  if (!swaps.empty()) {
    const Swap s = swaps[c.pick(swaps.size())];
    const ParsedFrame& r1 = c.p(s.granted);
    const ParsedFrame& r2 = c.p(s.refused);
    Frame& f = w.at(s.granted).frame;
    wire::Reth reth = r1.reth;
    reth.rkey = r2.reth.rkey;
    reth.va = r2.reth.va;
    wire::write_reth(span_at(f, hdr_off(r1, wire::Header::Reth)), reth);
    detail::refresh(f, detail::offsets_of(r1));
    add(w.at(s.granted), "reth.rkey", fmt::format("0x{:x}", r1.reth.rkey),
        fmt::format("0x{:x}", reth.rkey));
    add(w.at(s.granted), "reth.va", fmt::format("0x{:x}", r1.reth.va),
        fmt::format("0x{:x}", reth.va));
    return;
  }
  // (b) A READ inside a range granted before on the QP (same rkey) is answered with NAK remote
  // access error instead of its data; the QP's later traffic, now after a fatal NAK, is cut.
  struct Refusal {
    std::size_t read;
    std::size_t first_resp;
    std::uint32_t msn;
  };
  std::vector<Refusal> refusals;
  for (const Flow& q : c.a.flows) {
    if (!q.request || q.transport != wire::Transport::RC || q.peer < 0) continue;
    const Flow& r = c.a.flows[static_cast<std::size_t>(q.peer)];
    std::vector<std::size_t> granted;  // earlier accesses the responder carried out
    for (std::size_t m : q.frames) {
      const ParsedFrame& pm = c.p(m);
      if (!pm.has(wire::Header::Reth)) continue;
      // The responses to this access, if any, and whether it was carried out.
      std::optional<std::size_t> first;
      std::optional<std::uint32_t> last_msn;
      bool acked = false;
      const bool read = pm.op->operation == wire::Operation::READ_REQUEST;
      for (std::size_t i : r.frames) {
        if (i < m) continue;
        const ParsedFrame& pr = c.p(i);
        if (read && pr.op->operation == wire::Operation::READ_RESPONSE) {
          if (!first && pr.bth.psn == pm.bth.psn && pr.op->starts_message()) first = i;
          if (first && pr.op->ends_message() && detail::psn_diff(pr.bth.psn, pm.bth.psn) >= 0 &&
              detail::psn_diff(pr.bth.psn, last_psn(c, q, m)) <= 0) {
            last_msn = pr.aeth.msn;
            break;
          }
        }
        if (!read && is_ack_op(pr) && aeth_kind(pr) == wire::AethKind::ACK &&
            detail::psn_diff(pr.bth.psn, pm.bth.psn) >= 0) {
          acked = true;
          break;
        }
      }
      // Never requested again: a READ sent again is answered as a duplicate (spec-notes §4.5).
      const bool repeated = std::any_of(q.frames.begin(), q.frames.end(), [&](std::size_t j) {
        return j != m && c.p(j).bth.psn == pm.bth.psn;
      });
      if (read && first && last_msn && !repeated) {
        for (std::size_t g : granted) {
          const ParsedFrame& pg = c.p(g);
          if (pg.op->operation == pm.op->operation && pg.reth.rkey == pm.reth.rkey &&
              pg.reth.va <= pm.reth.va &&
              pm.reth.va + pm.reth.dmalen <= pg.reth.va + pg.reth.dmalen &&
              !invalidated_between(c, q.key, pm.reth.rkey, g, m)) {
            refusals.push_back(Refusal{m, *first, (*last_msn - 1) & wire::kMask24});
            break;
          }
        }
      }
      if ((read && last_msn) || acked) granted.push_back(m);
    }
  }
  std::sort(refusals.begin(), refusals.end(),
            [](const Refusal& x, const Refusal& y) { return x.read < y.read; });
  const Refusal ref = refusals[c.pick(refusals.size())];
  access_nak_in_place(c, w, ref.first_resp, ref.msn);
  cut_after(c, w, *c.a.flow_of(ref.read), ref.first_resp);
}

// The AETH syndrome is a defined one (IBA Vol. 1 chapter 9, AETH; spec-notes §4.1).
void nak_code_change(Ctx& c, Work& w) {
  auto acks = frames_where(c, [&](std::size_t i) { return is_ack_op(c.p(i)); });
  std::vector<std::size_t> naks;
  for (std::size_t i : acks) {
    if (aeth_kind(c.p(i)) == wire::AethKind::NAK) naks.push_back(i);
  }
  const std::vector<std::size_t>& cand = naks.empty() ? acks : naks;
  const std::size_t i = cand[c.pick(cand.size())];
  const std::uint8_t reserved_codes = static_cast<std::uint8_t>(32 - wire::kFirstReservedNakCode);
  const auto code =
      static_cast<std::uint8_t>(wire::kFirstReservedNakCode + c.rng.next() % reserved_codes);
  const auto syndrome = static_cast<std::uint8_t>(wire::kAethTypeNak | code);
  const ParsedFrame& p = c.p(i);
  Frame& f = w.at(i).frame;
  wire::write_aeth(span_at(f, hdr_off(p, wire::Header::Aeth)), wire::Aeth{syndrome, p.aeth.msn});
  detail::refresh(f, detail::offsets_of(p));
  add(w.at(i), "aeth.syndrome", fmt::format("0x{:02x}", p.aeth.syndrome),
      fmt::format("0x{:02x}", syndrome));
}

// A READ's responses carry its DMA length (IBA Vol. 1 chapter 9; spec-notes §1.7).
void read_truncate(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) {
    const ParsedFrame& p = c.p(i);
    return p.op->operation == wire::Operation::READ_RESPONSE && p.op->ends_message() &&
           p.payload_len > 0;
  });
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  const std::uint32_t keep = p.payload_len / 2;
  const auto pad = static_cast<std::uint8_t>((4 - keep % 4) % 4);
  Frame& f = w.at(i).frame;
  const Offsets o = detail::offsets_of(p);
  const std::vector<std::uint8_t> zeros(pad, 0);
  splice(f, o, p.payload_off + keep, p.payload_len - keep + p.bth.padcnt, zeros);
  wire::Bth bth = p.bth;
  bth.padcnt = pad;
  wire::write_bth(span_at(f, o.bth_off), bth);
  detail::refresh(f, o);
  add(w.at(i), "payload_len", std::to_string(p.payload_len), std::to_string(keep));
  if (pad != p.bth.padcnt)
    add(w.at(i), "bth.padcnt", std::to_string(p.bth.padcnt), std::to_string(pad));
}

// Messages run FIRST MIDDLE* LAST or ONLY (IBA Vol. 1 chapter 9; spec-notes §2.6).
void opcode_sequence_break(Ctx& c, Work& w) {
  std::vector<std::pair<std::size_t, std::uint8_t>> cand;
  for (const Flow& q : c.a.flows) {
    if (!q.request) continue;
    for (std::size_t k = 0; k + 1 < q.frames.size(); ++k) {
      const ParsedFrame& p = c.p(q.frames[k]);
      const ParsedFrame& next = c.p(q.frames[k + 1]);
      const bool data_op =
          p.op->operation == wire::Operation::SEND || p.op->operation == wire::Operation::WRITE;
      if (!data_op || p.op->flags != 0 || next.bth.psn != detail::psn_add(p.bth.psn, 1)) continue;
      // Never sent again: a resend of the original LAST would be another rule's case.
      if (resent(c, q, q.frames[k])) continue;
      std::optional<wire::Position> to;
      if (p.op->position == wire::Position::LAST) to = wire::Position::MIDDLE;
      if (p.op->position == wire::Position::ONLY) to = wire::Position::FIRST;
      if (!to) continue;
      for (unsigned v = 0; v < 256; ++v) {
        const wire::OpcodeInfo& o = wire::opcode_info(static_cast<std::uint8_t>(v));
        if (o.known && o.transport == p.op->transport && o.operation == p.op->operation &&
            o.position == *to && o.flags == 0 && o.headers == p.op->headers) {
          cand.emplace_back(q.frames[k], o.value);
        }
      }
    }
  }
  std::sort(cand.begin(), cand.end());
  const auto [i, picked] = cand[c.pick(cand.size())];
  const std::uint8_t opcode = picked;  // a structured binding cannot be captured (C++20)
  add(w.at(i), "bth.opcode", std::string(c.p(i).op->name),
      std::string(wire::opcode_info(opcode).name));
  edit_bth(c, w, i, [&](wire::Bth& b) { b.opcode = opcode; });
}

std::int32_t psn_diff(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t d = (a - b) & wire::kMask24;
  return d >= 0x800000u ? static_cast<std::int32_t>(d) - 0x1000000 : static_cast<std::int32_t>(d);
}

// Whether the packet of frame i comes again later: the same request PSN sent again, a response
// for the same PSN, or (for a response) a request resent that it covered. A corrupted frame
// that comes again is what a lossy link does (docs/check.md), so check explains it.
bool comes_again(const Ctx& c, std::size_t i) {
  const ParsedFrame& p = c.p(i);
  for (std::size_t j = i + 1; j < c.in.frames.size(); ++j) {
    if (!c.a.usable(j)) continue;
    const ParsedFrame& q = c.p(j);
    const bool same_way = q.ip.src == p.ip.src && q.ip.dst == p.ip.dst;
    if (same_way && q.bth.dqpn == p.bth.dqpn && q.op->is_request() == p.op->is_request() &&
        q.bth.psn == p.bth.psn)
      return true;
    if (p.op->is_response() && q.op->is_request() && q.ip.src == p.ip.dst && q.ip.dst == p.ip.src &&
        psn_diff(q.bth.psn, p.bth.psn) <= 0)
      return true;
  }
  return false;
}

// A resend repeats what was sent (IBA Vol. 1 §9.7.5.2, go-back-N; spec-notes §5.3): the
// model's requester, replayed in lockstep on the same messages, sends the original RETH there.
void resend_changed(Ctx& c, Work& w) {
  std::vector<std::size_t> cand;
  for (const Flow& q : c.a.flows) {
    if (!q.request || q.transport != wire::Transport::RC) continue;
    for (std::size_t m = 1; m < q.frames.size(); ++m) {
      const ParsedFrame& p = c.p(q.frames[m]);
      if (!p.op->has(wire::Header::Reth)) continue;
      const wire::ByteSpan b = p.bytes.subspan(p.bth_off, p.icrc_off - p.bth_off);
      for (std::size_t k = 0; k < m; ++k) {
        const ParsedFrame& e = c.p(q.frames[k]);
        if (e.bth.psn != p.bth.psn) continue;
        const wire::ByteSpan a = e.bytes.subspan(e.bth_off, e.icrc_off - e.bth_off);
        if (std::equal(a.begin(), a.end(), b.begin(), b.end())) {
          cand.push_back(q.frames[m]);
          break;
        }
      }
    }
  }
  std::sort(cand.begin(), cand.end());
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  wire::Reth reth = p.reth;
  reth.va += 0x1000;
  Frame& f = w.at(i).frame;
  wire::write_reth(span_at(f, hdr_off(p, wire::Header::Reth)), reth);
  detail::refresh(f, detail::offsets_of(p));
  add(w.at(i), "reth.va", fmt::format("0x{:x}", p.reth.va), fmt::format("0x{:x}", reth.va));
}

// The ICRC (IBA Vol. 1 Annex A17.4; spec-notes §1.8), on a frame whose packet never comes again.
void icrc_corrupt(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) { return !comes_again(c, i); });
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  std::uint32_t mask = static_cast<std::uint32_t>(c.rng.next());
  if (mask == 0) mask = 1;
  const std::uint32_t icrc = p.icrc ^ mask;
  wire::store_le32(wire::MutableByteSpan(w.at(i).frame.data), p.icrc_off, icrc);
  add(w.at(i), "icrc", fmt::format("0x{:08x}", p.icrc), fmt::format("0x{:08x}", icrc));
}

// A response carries the PSN of a request that was sent (spec-notes §4.6).
void ack_unsent_psn(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) {
    return is_ack_op(c.p(i)) && aeth_kind(c.p(i)) == wire::AethKind::ACK && after_opening(c, i);
  });
  const std::size_t i = cand[c.pick(cand.size())];
  set_psn(c, w, i, detail::psn_add(c.p(i).bth.psn, kPsnShift));
}

// The responder's expected PSN only moves forward (IBA Vol. 1 §9.7.5.1; spec-notes §3.3, §4.6):
// an ACK turned into a NAK PSN sequence error carrying PSN v, where a response of the flow had
// shown v received before the requester even sent a PSN after v. No reordering explains it: the
// NAK needs such a request to set it off, and the response left the responder before.
void epsn_back(Ctx& c, Work& w) {
  struct Cand {
    std::size_t frame;
    std::uint32_t psn;
  };
  std::vector<Cand> cand;
  for (const Flow& f : c.a.flows) {
    if (f.request || f.transport != wire::Transport::RC || f.peer < 0) continue;
    const Flow& req = c.a.flows[static_cast<std::size_t>(f.peer)];
    if (req.frames.empty()) continue;
    // The requests' highest PSN so far, on an axis from the first one's (never decreasing).
    const std::uint32_t anchor = c.p(req.frames.front()).bth.psn;
    std::vector<std::int64_t> highest;
    for (const std::size_t r : req.frames) {
      const std::int64_t u = detail::psn_diff(c.p(r).bth.psn, anchor);
      highest.push_back(highest.empty() ? u : std::max(highest.back(), u));
    }
    for (const std::size_t j : f.frames) {
      if (!c.a.usable(j)) continue;
      const ParsedFrame& p = c.p(j);
      const bool shows_received = p.op->operation == wire::Operation::READ_RESPONSE ||
                                  p.op->operation == wire::Operation::ATOMIC_ACK ||
                                  (is_ack_op(p) && aeth_kind(p) == wire::AethKind::ACK);
      if (!shows_received) continue;
      const std::int64_t v = detail::psn_diff(p.bth.psn, anchor);
      const auto after = std::upper_bound(highest.begin(), highest.end(), v);
      if (after == highest.end()) continue;
      const std::size_t first = req.frames[static_cast<std::size_t>(after - highest.begin())];
      if (first < j) continue;
      // An ACK of the flow after that request becomes the NAK.
      for (const std::size_t i : f.frames)
        if (i > first && c.a.usable(i) && is_ack_op(c.p(i)) &&
            aeth_kind(c.p(i)) == wire::AethKind::ACK) {
          cand.push_back({i, p.bth.psn});
          break;
        }
    }
  }
  const Cand& k = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(k.frame);
  const auto syndrome = static_cast<std::uint8_t>(
      wire::kAethTypeNak | static_cast<std::uint8_t>(wire::NakCode::PSN_SEQUENCE_ERROR));
  Frame& f = w.at(k.frame).frame;
  wire::write_aeth(span_at(f, hdr_off(p, wire::Header::Aeth)), wire::Aeth{syndrome, p.aeth.msn});
  detail::refresh(f, detail::offsets_of(p));
  add(w.at(k.frame), "aeth.syndrome", fmt::format("0x{:02x}", p.aeth.syndrome),
      fmt::format("0x{:02x}", syndrome));
  set_psn(c, w, k.frame, k.psn);
}

// The MSN counts completed messages (IBA Vol. 1 chapter 9, C9-148; spec-notes §3.5).
void msn_jump(Ctx& c, Work& w) {
  // An ACK's; in a capture without one, the AETH of a READ RESPONSE LAST/ONLY or ATOMIC
  // ACKNOWLEDGE (the MSN of every AETH counts messages).
  auto with_aeth = frames_where(c, [&](std::size_t i) {
    const ParsedFrame& p = c.p(i);
    return p.op->is_response() && has_aeth(p) && p.op->ends_message() &&
           aeth_kind(p) == wire::AethKind::ACK && after_opening(c, i);
  });
  std::vector<std::size_t> acks;
  std::copy_if(with_aeth.begin(), with_aeth.end(), std::back_inserter(acks),
               [&](std::size_t i) { return is_ack_op(c.p(i)); });
  const std::vector<std::size_t>& cand = acks.empty() ? with_aeth : acks;
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  const std::uint32_t msn = (p.aeth.msn + kMsnJump) & wire::kMask24;
  Frame& f = w.at(i).frame;
  wire::write_aeth(span_at(f, hdr_off(p, wire::Header::Aeth)), wire::Aeth{p.aeth.syndrome, msn});
  detail::refresh(f, detail::offsets_of(p));
  add(w.at(i), "aeth.msn", std::to_string(p.aeth.msn), std::to_string(msn));
}

// A copy of request frame `req` with PSN `psn`, inserted 50 ms after NAK frame `nak`.
void copy_after_nak(Ctx& c, Work& w, std::size_t req, std::uint32_t psn, std::size_t nak,
                    std::string_view nak_name) {
  const ParsedFrame& p = c.p(req);
  Frame f = c.in.frames[req];
  f.ts_ns = c.in.frames[nak].ts_ns + kAfterFatalNs;
  const Offsets o = detail::offsets_of(p);
  wire::Bth bth = p.bth;
  bth.psn = psn;
  wire::write_bth(span_at(f, o.bth_off), bth);
  detail::refresh(f, o);
  const std::size_t anchor = w.anchor_for(nak, f.ts_ns);
  w.insert_after(anchor, std::move(f),
                 fmt::format("copy of input frame {} with PSN {}, 50 ms after the {} (input "
                             "frame {})",
                             req + 1, psn, nak_name, nak + 1));
}

// After a fatal NAK no new request (IBA Vol. 1 chapters 9 and 10; spec-notes §4.3, §6.5).
void request_after_fatal_nak(Ctx& c, Work& w) {
  struct Cand {
    std::size_t nak;
    std::size_t last_req;
  };
  std::vector<Cand> cand;
  for (std::size_t n = 0; n < c.in.frames.size(); ++n) {
    if (!c.a.is_response(n) || !is_fatal_nak(c.p(n)) || c.a.peer_of(n) == nullptr) continue;
    std::optional<std::size_t> last;
    for (std::size_t i : c.a.peer_of(n)->frames) {
      if (i < n) last = i;
    }
    if (last) cand.push_back(Cand{n, *last});
  }
  const Cand pick = cand[c.pick(cand.size())];
  const Flow& q = *c.a.peer_of(pick.nak);
  copy_after_nak(c, w, pick.last_req, next_new_psn(c, q, c.in.frames.size()), pick.nak, "NAK");
}

// PadCnt makes the payload a multiple of 4 (IBA Vol. 1 §9.2; spec-notes §1.7).
void pad_wrong(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) { return c.p(i).payload_len > 0; });
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  const auto pad = static_cast<std::uint8_t>((p.bth.padcnt + 1 + c.rng.next() % 3) % 4);
  Frame& f = w.at(i).frame;
  const Offsets o = detail::offsets_of(p);
  const std::vector<std::uint8_t> zeros(pad, 0);
  splice(f, o, p.payload_off + p.payload_len, p.bth.padcnt, zeros);
  wire::Bth bth = p.bth;
  bth.padcnt = pad;
  wire::write_bth(span_at(f, o.bth_off), bth);
  detail::refresh(f, o);
  add(w.at(i), "bth.padcnt", std::to_string(p.bth.padcnt), std::to_string(pad));
}

void tver_nonzero(Ctx& c, Work& w) {
  auto cand = frames_where(c, [](std::size_t) { return true; });
  const std::size_t i = cand[c.pick(cand.size())];
  const auto tver = static_cast<std::uint8_t>(1 + c.rng.next() % 15);
  add(w.at(i), "bth.tver", std::to_string(c.p(i).bth.tver), std::to_string(tver));
  edit_bth(c, w, i, [&](wire::Bth& b) { b.tver = tver; });
}

// A duplicate atomic gets the saved original value (IBA Vol. 1 chapter 9; spec-notes §8.3).
void atomic_replay_value(Ctx& c, Work& w) {
  struct Cand {
    std::size_t req;
    std::size_t ack;
    bool duplicate;  // the ACK answers a repeated request: change it in place
  };
  std::vector<Cand> cand;
  for (const Flow& q : c.a.flows) {
    if (!q.request || q.peer < 0) continue;
    const Flow& r = c.a.flows[static_cast<std::size_t>(q.peer)];
    for (std::size_t i : q.frames) {
      if (!is_atomic(c.p(i))) continue;
      std::size_t answered = 0;
      for (std::size_t k : r.frames) {
        if (k > i && c.p(k).op->operation == wire::Operation::ATOMIC_ACK &&
            c.p(k).bth.psn == c.p(i).bth.psn) {
          cand.push_back(Cand{i, k, answered > 0});
          ++answered;
        }
      }
    }
  }
  std::vector<Cand> dups;
  std::copy_if(cand.begin(), cand.end(), std::back_inserter(dups),
               [](const Cand& x) { return x.duplicate; });
  // Keep one candidate per ATOMIC ACK, the earliest request before it.
  std::vector<Cand> firsts;
  for (const Cand& x : cand) {
    if (!x.duplicate) firsts.push_back(x);
  }
  const std::vector<Cand>& use = dups.empty() ? firsts : dups;
  const Cand pick = use[c.pick(use.size())];
  const ParsedFrame& ack = c.p(pick.ack);
  const std::uint64_t orig = ack.atomicacketh.orig + 1 + c.rng.next() % 0xFFFF;
  Frame changed = c.in.frames[pick.ack];
  wire::write_atomicacketh(span_at(changed, hdr_off(ack, wire::Header::AtomicAckEth)),
                           wire::AtomicAckEth{orig});
  detail::refresh(changed, detail::offsets_of(ack));
  const std::string from = fmt::format("0x{:x}", ack.atomicacketh.orig);
  const std::string to = fmt::format("0x{:x}", orig);
  if (pick.duplicate) {
    w.at(pick.ack).frame = std::move(changed);
    add(w.at(pick.ack), "atomicacketh.orig", from, to);
    return;
  }
  Frame req = c.in.frames[pick.req];
  req.ts_ns = ts_between(c.in, pick.ack, 1, 3);
  changed.ts_ns = ts_between(c.in, pick.ack, 2, 3);
  w.insert_after(pick.ack, std::move(req),
                 fmt::format("repeat of the atomic request, input frame {}", pick.req + 1));
  detail::Entry& e =
      w.insert_after(pick.ack, std::move(changed),
                     fmt::format("repeat of its ATOMIC ACKNOWLEDGE, input frame {}", pick.ack + 1));
  add(e, "atomicacketh.orig", from, to);
}

// The requester waits the RNR timer before resending (IBA Vol. 1 §9.7.5.2.8, Table 45).
void rnr_wait_short(Ctx& c, Work& w) {
  std::vector<std::pair<std::size_t, std::size_t>> cand;  // NAK, resend
  for (std::size_t n = 0; n < c.in.frames.size(); ++n) {
    if (!c.a.is_response(n) || !has_aeth(c.p(n)) || aeth_kind(c.p(n)) != wire::AethKind::RNR_NAK ||
        c.a.peer_of(n) == nullptr) {
      continue;
    }
    for (std::size_t i : c.a.peer_of(n)->frames) {
      if (i > n && c.p(i).bth.psn == c.p(n).bth.psn) {
        if (c.in.frames[i].ts_ns > c.in.frames[n].ts_ns + kRnrResendNs) cand.emplace_back(n, i);
        break;
      }
    }
  }
  const auto [nak, resend] = cand[c.pick(cand.size())];
  Frame f = c.in.frames[resend];
  f.ts_ns = c.in.frames[nak].ts_ns + kRnrResendNs;
  w.remove(resend, "moved to 1 us after the RNR NAK");
  const std::size_t anchor = w.anchor_for(nak, f.ts_ns);
  detail::Entry& e =
      w.insert_after(anchor, std::move(f),
                     fmt::format("input frame {} ({}) moved from t={} ns", resend + 1,
                                 detail::describe(c.p(resend)), c.in.frames[resend].ts_ns));
  e.origin = static_cast<std::int64_t>(resend);
}

void pkey_zero(Ctx& c, Work& w) {
  auto cand = frames_where(c, [](std::size_t) { return true; });
  const std::size_t i = cand[c.pick(cand.size())];
  const std::uint16_t pkey = (c.rng.next() & 1) != 0 ? 0x8000 : 0x0000;
  add(w.at(i), "bth.pkey", fmt::format("0x{:04x}", c.p(i).bth.pkey), fmt::format("0x{:04x}", pkey));
  edit_bth(c, w, i, [&](wire::Bth& b) { b.pkey = pkey; });
}

// A CNP goes only to a QP whose packets arrived CE-marked (Annex A17.9; spec-notes §10.1).
void cnp_unmarked(Ctx& c, Work& w) {
  std::vector<std::size_t> cand;  // responses after which to insert, toward unmarked requesters
  for (const Flow& q : c.a.flows) {
    if (!q.request || q.peer < 0) continue;
    const bool marked = std::any_of(q.frames.begin(), q.frames.end(),
                                    [&](std::size_t i) { return c.p(i).ip.ecn == 3; });
    if (marked) continue;
    const Flow& r = c.a.flows[static_cast<std::size_t>(q.peer)];
    cand.insert(cand.end(), r.frames.begin(), r.frames.end());
  }
  std::sort(cand.begin(), cand.end());
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  wire::Bth bth{};
  bth.opcode = wire::to_u8(wire::Opcode::CNP_CNP);
  bth.pkey = p.bth.pkey;
  bth.becn = true;
  bth.dqpn = p.bth.dqpn;
  std::vector<std::uint8_t> transport = bth_bytes(bth);
  transport.resize(
      wire::kBthLen + wire::kHeaderSize[static_cast<std::size_t>(wire::Header::CnpReserved)], 0);
  Frame f = detail::rebuild(c.in.frames[i], detail::offsets_of(p), transport);
  f.ts_ns = ts_between(c.in, i, 1, 2);
  w.insert_after(i, std::move(f), fmt::format("CNP to QP 0x{:06x}", bth.dqpn));
}

// READ responses answer an outstanding READ (IBA Vol. 1 chapter 9, RDMA READ; spec-notes §2.1,
// §4.6): right after a SEND or WRITE request that ends its message and that an ACK of its
// own PSN answers, a READ RESPONSE ONLY with that PSN, no payload, the ACK's MSN.
void read_response_stray(Ctx& c, Work& w) {
  const auto cand = acked_on_their_psn(c, [](const ParsedFrame& p) {
    return (p.op->operation == wire::Operation::SEND ||
            p.op->operation == wire::Operation::WRITE) &&
           p.op->ends_message();
  });
  const auto [req, ack] = cand[c.pick(cand.size())];
  const ParsedFrame& a = c.p(ack);
  const std::vector<std::uint8_t> transport =
      bth_aeth(a.bth, wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY, a.aeth);
  Frame f = detail::rebuild(c.in.frames[ack], detail::offsets_of(a), transport);
  f.ts_ns = ts_between(c.in, req, 1, 2);
  w.insert_after(req, std::move(f),
                 fmt::format("RC_RDMA_READ_RESPONSE_ONLY PSN {} MSN {} for {} (input frame {})",
                             a.bth.psn, a.aeth.msn, detail::describe(c.p(req)), req + 1));
}

// R_Key checks are not made for a zero-length RDMA access (IBA Vol. 1 chapter 9, R_Key checks;
// spec-notes §4.4): an RDMA WRITE ONLY that an ACK of its own PSN answers is made zero-length
// (its payload dropped, RETH DMA length 0), the ACK becomes a NAK remote access error, and the
// QP pair's traffic after it is removed.
void zero_length_nak(Ctx& c, Work& w) {
  const auto cand = acked_on_their_psn(c, [](const ParsedFrame& p) {
    return p.op->operation == wire::Operation::WRITE && p.op->position == wire::Position::ONLY;
  });
  const auto [req, ack] = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(req);
  Frame& f = w.at(req).frame;
  const Offsets o = detail::offsets_of(p);
  if (p.payload_len > 0 || p.bth.padcnt > 0) {
    detail::splice(f, o, p.payload_off, p.payload_len + p.bth.padcnt, {});
    add(w.at(req), "payload_len", std::to_string(p.payload_len), "0");
  }
  wire::Reth reth = p.reth;
  reth.dmalen = 0;
  wire::write_reth(span_at(f, hdr_off(p, wire::Header::Reth)), reth);
  wire::Bth bth = p.bth;
  bth.padcnt = 0;
  wire::write_bth(span_at(f, o.bth_off), bth);
  detail::refresh(f, o);
  if (p.reth.dmalen != 0) add(w.at(req), "reth.dmalen", std::to_string(p.reth.dmalen), "0");
  access_nak_in_place(c, w, ack, (c.p(ack).aeth.msn - 1) & wire::kMask24);
  cut_after(c, w, *c.a.flow_of(req), ack);
}

// A NAK PSN sequence error calls for a resend from its PSN (IBA Vol. 1 §9.7.6.1.3, chapter 9,
// go-back-N; spec-notes §4.3, §5.3): after a NAK PSN sequence error that came while no resend was
// under way, the QP pair's traffic is removed and, 50 ms after the NAK, a copy of the QP's last
// request is sent with the next new PSN: the requester ignored the NAK.
void ignored_nak(Ctx& c, Work& w) {
  const auto seq_nak = static_cast<std::uint8_t>(wire::NakCode::PSN_SEQUENCE_ERROR);
  struct Cand {
    std::size_t nak;
    std::size_t last_req;
  };
  std::vector<Cand> cand;
  for (std::size_t n = 0; n < c.in.frames.size(); ++n) {
    if (!c.a.is_response(n) || !is_ack_op(c.p(n)) || aeth_kind(c.p(n)) != wire::AethKind::NAK ||
        wire::aeth_value(c.p(n).aeth.syndrome) != seq_nak || c.a.peer_of(n) == nullptr)
      continue;
    const Flow& q = *c.a.peer_of(n);
    // No go-back-N or timeout resend before the NAK: each request so far carried new PSNs.
    std::optional<std::size_t> last;
    std::optional<std::uint32_t> highest;
    bool resend = false;
    for (std::size_t i : q.frames) {
      if (i > n) break;
      if (highest && detail::psn_diff(c.p(i).bth.psn, *highest) <= 0) resend = true;
      highest = last_psn(c, q, i);
      last = i;
    }
    if (last && !resend) cand.push_back(Cand{n, *last});
  }
  const Cand pick = cand[c.pick(cand.size())];
  const Flow& q = *c.a.peer_of(pick.nak);
  const std::uint32_t next = next_new_psn(c, q, pick.nak);
  cut_after(c, w, q, pick.nak);
  copy_after_nak(c, w, pick.last_req, next, pick.nak, "NAK PSN sequence error");
}

// --- controls ----------------------------------------------------------------------------------

void ttl_change(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) { return c.p(i).ip.ttl > 1; });
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  const auto ttl = static_cast<std::uint8_t>(p.ip.ttl - 1 - c.rng.next() % (p.ip.ttl - 1));
  Frame& f = w.at(i).frame;
  f.data[p.ip_off + (p.ip.version == 4 ? 8 : 7)] = ttl;
  detail::refresh(f, detail::offsets_of(p), false);  // TTL is masked out of the ICRC
  add(w.at(i), p.ip.version == 4 ? "ip.ttl" : "ip.hop_limit", std::to_string(p.ip.ttl),
      std::to_string(ttl));
}

void ecn_toggle(Ctx& c, Work& w) {
  auto cand =
      frames_where(c, [&](std::size_t i) { return c.p(i).ip.ecn == 0 || c.p(i).ip.ecn == 2; });
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  const std::uint8_t ecn = p.ip.ecn == 0 ? 2 : 0;
  Frame& f = w.at(i).frame;
  if (p.ip.version == 4) {
    f.data[p.ip_off + 1] = static_cast<std::uint8_t>((f.data[p.ip_off + 1] & 0xFC) | ecn);
  } else {  // traffic class bits 1:0 are bits 5:4 of the second byte
    f.data[p.ip_off + 1] = static_cast<std::uint8_t>((f.data[p.ip_off + 1] & 0xCF) | (ecn << 4));
  }
  detail::refresh(f, detail::offsets_of(p), false);  // ECN is masked out of the ICRC
  add(w.at(i), "ip.ecn", std::to_string(p.ip.ecn), std::to_string(ecn));
}

void ip_id_change(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) { return c.p(i).ip.version == 4; });
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  const auto id = static_cast<std::uint16_t>(p.ip.id ^ (1 + c.rng.next() % 0xFFFF));
  Frame& f = w.at(i).frame;
  wire::store_be16(wire::MutableByteSpan(f.data), p.ip_off + 4, id);
  detail::refresh(f, detail::offsets_of(p));
  add(w.at(i), "ip.id", fmt::format("0x{:04x}", p.ip.id), fmt::format("0x{:04x}", id));
}

void drop_response(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) {
    return is_ack_op(c.p(i)) && aeth_kind(c.p(i)) == wire::AethKind::ACK;
  });
  const std::size_t i = cand[c.pick(cand.size())];
  w.remove(i, detail::describe(c.p(i)));
}

void duplicate_frame(Ctx& c, Work& w) {
  auto cand = frames_where(
      c, [&](std::size_t i) { return c.p(i).op->is_request() || c.p(i).op->is_response(); });
  const std::size_t i = cand[c.pick(cand.size())];
  Frame f = c.in.frames[i];
  f.ts_ns = ts_between(c.in, i, 1, 2);
  w.insert_after(i, std::move(f), "repeat of input frame " + std::to_string(i + 1));
}

void reorder_adjacent(Ctx& c, Work& w) {
  std::vector<std::pair<std::size_t, std::size_t>> cand;
  for (const Flow& q : c.a.flows) {
    if (!q.request) continue;
    const Flow* r = q.peer < 0 ? nullptr : &c.a.flows[static_cast<std::size_t>(q.peer)];
    for (std::size_t k = 0; k + 1 < q.frames.size(); ++k) {
      const std::size_t i = q.frames[k];
      const std::size_t j = q.frames[k + 1];
      const bool answered_between =
          r != nullptr && std::any_of(r->frames.begin(), r->frames.end(),
                                      [&](std::size_t x) { return x > i && x < j; });
      if (!answered_between && c.in.frames[i].data != c.in.frames[j].data) cand.emplace_back(i, j);
    }
  }
  std::sort(cand.begin(), cand.end());
  const auto [i, j] = cand[c.pick(cand.size())];
  // The first is delayed past the second, as a link does: it reaches the tap after it, and no
  // earlier than the second was sent (the second keeps its time: a frame the tap showed before
  // it was sent would break the timing rules, ack.rnr_wait first).
  Frame f = c.in.frames[i];
  f.ts_ns = ts_between(c.in, j, 1, 2);
  detail::Entry& e = w.insert_after(j, std::move(f),
                                    "input frame " + std::to_string(i + 1) +
                                        " delayed past input frame " + std::to_string(j + 1));
  e.origin = static_cast<std::int64_t>(i);
  w.remove(i, detail::describe(c.p(i)));
}

void drop_request(Ctx& c, Work& w) {
  // A frame resent later whose loss the responses do not contradict: no response of the QP
  // pair comes right after it (one it set off, such as a NAK PSN sequence error) and none
  // before the resend answers its PSN or a later one.
  std::vector<std::size_t> cand;
  for (const Flow& q : c.a.flows) {
    if (!q.request) continue;
    const Flow* r = q.peer < 0 ? nullptr : &c.a.flows[static_cast<std::size_t>(q.peer)];
    for (std::size_t k = 0; k < q.frames.size(); ++k) {
      const std::size_t i = q.frames[k];
      const ParsedFrame& p = c.p(i);
      // Not a READ or atomic: their responses cannot be told from answers to the resend.
      if (p.op->operation != wire::Operation::SEND && p.op->operation != wire::Operation::WRITE) {
        continue;
      }
      // The resend repeats the packet: the same transport bytes (a READ resumed mid-way is not
      // one, spec-notes §5.3).
      std::optional<std::size_t> resend;
      for (std::size_t m = k + 1; m < q.frames.size() && !resend; ++m) {
        const ParsedFrame& later = c.p(q.frames[m]);
        if (later.bth.psn != p.bth.psn) continue;
        const wire::ByteSpan a = p.bytes.subspan(p.bth_off, p.icrc_off - p.bth_off);
        const wire::ByteSpan b = later.bytes.subspan(later.bth_off, later.icrc_off - later.bth_off);
        if (std::equal(a.begin(), a.end(), b.begin(), b.end())) resend = q.frames[m];
      }
      if (!resend) continue;
      bool contradicted = false;
      if (r != nullptr) {
        const std::size_t next_req = k + 1 < q.frames.size() ? q.frames[k + 1] : c.in.frames.size();
        for (std::size_t j : r->frames) {
          if (j <= i || j >= *resend) continue;
          contradicted |= j < next_req || detail::psn_diff(c.p(j).bth.psn, p.bth.psn) >= 0;
        }
      }
      if (!contradicted) cand.push_back(i);
    }
  }
  std::sort(cand.begin(), cand.end());
  const std::size_t i = cand[c.pick(cand.size())];
  w.remove(i, detail::describe(c.p(i)));
}

// A requester keeps fewer than 2^23 PSNs outstanding (IBA Vol. 1 chapter 9: the responder takes
// a PSN from 2^23 past its expected one for a duplicate; spec-notes §3.2). From a new request
// sent while the one before it was still unacknowledged, that QP pair's PSNs move by 2^23 - 1:
// the request then lies 2^23 or more PSNs past the oldest unacknowledged one.
void psn_window(Ctx& c, Work& w) {
  // Unacknowledged: no response before it reaches the PSN before it (a NAK's PSN is the one
  // expected, acknowledging those before).
  const std::vector<std::size_t> cand = new_requests_after_opening(
      c, [&](std::size_t i, std::uint32_t, std::uint32_t before, const Flow& r) {
        return std::none_of(r.frames.begin(), r.frames.end(), [&](std::size_t j) {
          if (j > i || !c.a.usable(j)) return false;
          const ParsedFrame& a = c.p(j);
          const std::uint32_t through = has_aeth(a) && aeth_kind(a) != wire::AethKind::ACK
                                            ? detail::psn_add(a.bth.psn, 0xFFFFFF)
                                            : a.bth.psn;
          return detail::psn_diff(through, before) >= 0;
        });
      });
  shift_qp_pair(c, w, cand[c.pick(cand.size())], (1u << 23) - 1);
}

// A PSN is 24 bits (IBA Vol. 1 §9.2): a counter kept wider and not masked carries its 25th bit
// into Resv7's lowest bit, which the sender must keep 0 (spec-notes §1.5).
void psn_spill(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) { return c.p(i).bth.resv7 == 0; });
  const std::size_t i = cand[c.pick(cand.size())];
  add(w.at(i), "bth.resv7", "0", "1");
  edit_bth(c, w, i, [](wire::Bth& b) { b.resv7 = 1; });
}

// The UDP length covers the RoCEv2 packet, BTH to ICRC (Annex A17.4.5.3; spec-notes §1.1): a
// datagram that ends at its own header carries none, whatever follows it in the IP payload.
void udp_length_short(Ctx& c, Work& w) {
  auto cand = frames_where(c, [&](std::size_t i) { return c.p(i).has_udp; });
  const std::size_t i = cand[c.pick(cand.size())];
  const ParsedFrame& p = c.p(i);
  wire::store_be16(wire::MutableByteSpan(w.at(i).frame.data), p.udp_off + 4, wire::kUdpLen);
  add(w.at(i), "udp.length", std::to_string(p.udp.length), std::to_string(wire::kUdpLen));
}

using Mutation = void (*)(Ctx&, Work&);

constexpr Mutation kMutations[] = {
#define ROCECERT_MUTATION(name, rule, description) &name,
#include "rocecert/mutate/mutations.def"
#undef ROCECERT_MUTATION
};
static_assert(std::size(kMutations) == kKindCount);

}  // namespace

Result apply(const Capture& in, Kind kind, std::uint64_t seed) {
  const Analysis a = detail::analyze(in);
  Ctx c{in, a, kind, seed, wire::SplitMix64(seed)};
  Work w(in);
  kMutations[static_cast<std::size_t>(kind)](c, w);
  return std::move(w).finish();
}

}  // namespace rocecert::mutate
