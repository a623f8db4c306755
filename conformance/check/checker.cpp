// Connection reconstruction and the checker's single pass (docs/check.md).
//
// RC/UC: a request stream is keyed by (requester IP, responder IP, destination QPN); its
// responses come back on (responder IP, requester IP, requester QPN), and the requester's QPN
// appears only there. A response flow is paired with a request stream by evidence: its PSNs must
// lie in the PSNs the stream has sent. Several QPs between the same hosts start at independent
// PSNs, so the evidence separates them; while more than one stream fits, the frames wait
// (bounded), and a flow whose evidence fits no single stream stays unpaired: its responses are
// not judged and the connection is INCONCLUSIVE. Pairing is never guessed. Once (A, qa) and
// (B, qb) are paired, traffic the other way between them (B's requests to qa) is paired too.
#include "rocecert/check/checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "check_internal.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/qp/timers.h"
#include "shards.h"
#include "stream.h"

namespace rocecert::check {
namespace {

using detail::ConnIndex;
using detail::IpAddr;
using detail::Pkt;

// Frames held while a pairing is undecided; beyond this the undecided flow is given up.
constexpr std::size_t kMaxHeld = 1u << 16;
// How far before a stream's first PSN a response may lie and not count against it (a capture
// that starts mid-connection shows ACKs of earlier requests).
constexpr std::int32_t kPairSlack = 4096;
// The requests an unpaired RC stream keeps for pairing (StreamEntry::recent).
constexpr std::size_t kRecentRequests = 256;

struct FlowKey {
  std::array<std::uint8_t, 16> src{}, dst{};
  std::uint32_t qpn = 0;
  auto operator<=>(const FlowKey&) const = default;
};
FlowKey flow_key(const IpAddr& src, const IpAddr& dst, std::uint32_t qpn) {
  return {src.b, dst.b, qpn};
}
using EndpointKey = std::pair<std::array<std::uint8_t, 16>, std::uint32_t>;

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}
std::uint64_t hash_addr(std::uint64_t h, const std::array<std::uint8_t, 16>& a) {
  std::uint64_t lo = 0, hi = 0;
  std::memcpy(&lo, a.data(), 8);
  std::memcpy(&hi, a.data() + 8, 8);
  return mix(mix(h, lo), hi);
}
struct FlowHash {
  std::size_t operator()(const FlowKey& k) const {
    return static_cast<std::size_t>(hash_addr(hash_addr(k.qpn, k.src), k.dst));
  }
};
struct EndpointHash {
  std::size_t operator()(const EndpointKey& k) const {
    return static_cast<std::size_t>(hash_addr(k.second, k.first));
  }
};

std::string_view transport_name(wire::Transport t) {
  switch (t) {
    case wire::Transport::RC:
      return "RC";
    case wire::Transport::UC:
      return "UC";
    case wire::Transport::RD:
      return "RD";
    case wire::Transport::UD:
      return "UD";
    case wire::Transport::CNP:
      return "CNP";
    case wire::Transport::XRC:
      return "XRC";
  }
  return "?";
}

// A frame cut by the capture that was RoCEv2: UDP to port 4791 as far as its bytes show.
bool cut_roce(const wire::ParsedFrame& f) {
  if (f.roce) return true;
  if (!f.has_ip) return false;
  const wire::ByteSpan b = f.bytes;
  const std::size_t l4 = std::size_t{f.ip_off} + f.ip_header_len;
  const std::uint8_t proto = f.ip.version == 4 ? b[f.ip_off + 9] : f.ip.next_header;
  if (proto != wire::kIpProtoUdp || l4 + 4 > b.size()) return false;
  return ((b[l4 + 2] << 8) | b[l4 + 3]) == wire::kRoceV2Port;
}

Pkt make_pkt(const wire::ParsedFrame& f, std::uint64_t frame, std::int64_t ts) {
  Pkt p;
  p.frame = frame;
  p.ts = ts;
  p.src.version = p.dst.version = f.ip.version;
  p.src.b = f.ip.src;
  p.dst.b = f.ip.dst;
  p.ip_id = f.ip.id;
  p.ecn = f.ip.ecn;
  p.bth = f.bth;
  p.op = f.op;
  p.reth = f.reth;
  p.atomic = f.atomiceth;
  p.aeth = f.aeth;
  p.atomic_ack = f.atomicacketh;
  p.deth = f.deth;
  p.ieth = f.ieth;
  p.feth = f.feth;
  p.payload_len = f.payload_len;
  p.icrc = f.icrc;
  p.icrc_ok = !f.icrc_checked || f.icrc_ok;
  p.udp_sport = f.udp.sport;
  return p;
}

// Options::jobs threads for one capture: this one (reading, decoding, frame rules, pairing, and
// the streams of the inline shard) and a shard thread for each other (the streams and their
// golden replay: shards.h).
std::size_t shard_threads(unsigned jobs) {
  return jobs >= 2 ? jobs - 1 : 0;
}

}  // namespace

struct Checker::Impl {
  // The UDP source port one direction of a QP pair carried on its intact frames, and whether it
  // carried more than one (then the port tells nothing about it): port_rules_out().
  struct PortSeen {
    std::uint16_t port = 0;
    bool seen = false, varies = false;
    void note(const Pkt& p) {
      if (!p.icrc_ok) return;  // a frame the link corrupted proves nothing
      if (!seen) {
        seen = true;
        port = p.udp_sport;
      } else if (port != p.udp_sport) {
        varies = true;
      }
    }
    bool known() const { return seen && !varies; }
  };
  struct StreamEntry {
    IpAddr requester, responder;
    std::uint32_t responder_qpn = 0;
    std::optional<std::uint32_t> requester_qpn;
    std::unique_ptr<detail::Stream> stream;
    // The stream's connection and transport, kept here: the stream's own memory is written by
    // its shard's thread, and reading it from this one for every frame cost more than the rules.
    ConnIndex conn = 0;
    wire::Transport transport = wire::Transport::RC;
    std::size_t shard = 0;             // sharded checking: the shard that runs the stream
    detail::Budget* budget = nullptr;  // the stream's budget as the checker last set it
    // What pairing reads, updated as frames arrive (before any holding).
    bool seen = false;
    std::uint32_t first = 0, next = 0;
    // RC, until paired: its latest requests (at most kRecentRequests), what a READ response or
    // an ATOMIC ACKNOWLEDGE must answer to count as evidence for it (answers()).
    struct Recent {
      std::uint32_t psn = 0;
      wire::Operation op = wire::Operation::SEND;
    };
    std::vector<Recent> recent;
    // The time of the last frame handed to the stream (a QP reset in between restarts it).
    std::optional<std::int64_t> last_ts;
    // Sharded checking: the pieces of work handed to the stream since the balance's last look
    // (`work_look`, the look they count for), to choose the streams that move (move_streams).
    std::uint64_t work = 0, work_look = 0;
    // Retiring idle QP pairs (Profile::retire_idle_ns): the latest time of a frame handed to
    // the stream, and whether its responder sent a fatal NAK (such a stream stays to the end,
    // where the requests after the NAK are judged: err.after_fatal).
    std::int64_t active_ts = std::numeric_limits<std::int64_t>::min();
    bool fatal_seen = false;
    PortSeen sport;  // of its requests
  };
  struct ResponseFlow {
    IpAddr responder, requester;
    std::uint32_t requester_qpn = 0;
    std::optional<std::size_t> stream;
    std::optional<std::set<std::size_t>> candidates;
    std::set<std::size_t> ever;  // every stream that was once a candidate (for flow_groups)
    // The candidates that sent the PSN of one of its responses: the only ones it may pair with
    // (a response just before a stream's first PSN is no evidence for it).
    std::set<std::size_t> fitted;
    std::set<std::size_t> contradicted;  // that sent another kind of request at one of its PSNs
    // The candidates whose READ or atomic at a response's PSN that response answers in kind (a
    // READ response, an ATOMIC ACKNOWLEDGE): evidence no ACK gives, as any request takes one.
    std::set<std::size_t> answered_in_kind;
    std::size_t known_streams = 0;  // streams.size() at its last response
    // Responses taken before it was paired (orphans): the highest MSN and PSN among them,
    // handed to its stream with the next response (Pkt::earlier_msn, earlier_psn).
    std::optional<std::uint32_t> orphan_msn, orphan_psn;
    bool orphan_msn_due = false;
    // The streams that sent the PSN of one of its responses, whatever they sent there.
    std::set<std::size_t> fit_any;
    // Paired streams (another flow's) that its responses fit as well: should it stay unpaired,
    // which flow answers them cannot be decided (finish()).
    std::vector<std::size_t> rivals;
    std::uint64_t rival_frame = 0;
    std::optional<std::uint32_t> psn_lo, psn_hi;  // the earliest and latest PSN of its responses
    bool given_up = false;
    bool paired_at_end = false;  // by finish(), its one candidate contradicted
    bool noted_orphan = false;
    bool port_ruled_out = false;  // a stream its PSNs fit was ruled out by the port (evidence())
    PortSeen sport;               // of its responses
    std::optional<ConnIndex> orphan_conn;
    std::uint64_t unjudged = 0;
  };
  struct UdFlow {
    ConnIndex conn;
    std::uint32_t qkey = 0;
  };

  explicit Impl(Options o)
      : opts(std::move(o)),
        judge(opts, report),
        keys(opts.events.get(), static_cast<std::int64_t>(opts.profile.timing_tolerance_ns)),
        golden(opts) {
    if (opts.events)
      for (const Event& ev : opts.events->events)
        if (ev.kind == Event::Kind::QpState && ev.qpn && ev.t_ns)
          states[{ev.host, *ev.qpn}].push_back({*ev.t_ns, ev.name == "RESET" ? LoggedState::RESET
                                                          : ev.name == "ERR" ? LoggedState::ERR
                                                                             : LoggedState::OTHER});
    for (auto& [qp, list] : states)
      std::stable_sort(list.begin(), list.end(),
                       [](const LoggedState& a, const LoggedState& b) { return a.t < b.t; });
    report.profile = opts.profile.name;
    report.max_capture_errors = opts.profile.max_capture_errors;
    retire_after = retire_bound(opts);
    if (opts.jobs >= 2 && !opts.reconstruct_only) {
      shards = std::make_unique<detail::Shards>(opts, shard_threads(opts.jobs), std::uint16_t{1});
      judge.set_log(&front_log);
    }
  }

  Options opts;
  Report report;
  detail::Judge judge;
  detail::KeyEpochs keys;
  detail::GoldenReplay golden;         // the replays run on this thread (one job)
  std::deque<detail::Budget> budgets;  // one per stream (stable addresses)
  std::vector<StreamEntry> streams;
  // Sharded checking (shards.h): after the streams, so that its threads stop before the streams
  // they run go away. The checker's own findings go to front_log meanwhile; `dispatch` numbers
  // what it hands to the streams (JudgeLog::Key).
  std::unique_ptr<detail::Shards> shards;
  detail::JudgeLog front_log{0};
  std::uint64_t dispatch = 0;
  // The balance of the work between this thread and the shards' (Shards::lean), looked at every
  // kLook RoCE frames: new streams go where it leans, and when it leans the same way at two looks
  // in a row (new streams alone do not even it out, as when all connections start at once),
  // busy streams move.
  static constexpr std::uint64_t kLook = 16384;
  static constexpr std::size_t kMaxMoves = 64;  // streams moved at one look, at most
  std::uint64_t since_look = 0, look = 0;
  detail::Shards::Lean leaning = detail::Shards::Lean::Even;
  double lean_share = 0, inline_credit = 0;  // place_new_stream
  std::size_t placed_inline = 0;             // new streams placed inline since the last look
  std::vector<std::size_t> worked;           // the streams given work since the last look (indices)
  // (requester, responder, responder QPN)
  std::unordered_map<FlowKey, std::size_t, FlowHash> stream_of;
  // (responder, requester, requester QPN)
  std::unordered_map<FlowKey, ResponseFlow, FlowHash> responses;
  std::unordered_map<EndpointKey, EndpointKey, EndpointHash> peer;  // paired QP ends, both ways
  std::vector<FlowKey> unresolved;  // response flows still weighing their evidence
  // The streams from one host to another: (requester, responder, 0) -> indices in `streams`.
  std::unordered_map<FlowKey, std::vector<std::size_t>, FlowHash> between;
  // Response flows not paired with a stream (undecided or given up), per (responder, requester)
  // host pair: while there is one, a stream of that pair may not have heard all its responses.
  std::unordered_map<FlowKey, std::uint32_t, FlowHash> unpaired_between;
  std::deque<Pkt> held;
  std::map<std::pair<FlowKey, std::uint32_t>, UdFlow> ud;  // (src, dst, dest QPN), source QP
  std::unordered_set<EndpointKey, EndpointHash> ud_endpoints;
  std::map<FlowKey, ConnIndex> other;  // XRC, RD, CNP-only flows
  std::set<std::pair<std::array<std::uint8_t, 16>, std::array<std::uint8_t, 16>>> ce_marked;
  std::set<EndpointKey> ce_marked_qp;
  std::set<std::pair<std::array<std::uint8_t, 16>, std::array<std::uint8_t, 16>>> ect;
  std::vector<std::pair<Pkt, ConnIndex>> unmarked_cnps;  // CNPs with no CE mark before them
  std::uint64_t truncated = 0;
  std::uint64_t first_truncated = 0;
  std::int64_t last_frame_ts = 0;  // the capture's last frame (check_events)
  std::uint64_t short_frames = 0;  // bad_ip_length: shorter than their IP length, whole
  std::uint64_t first_short = 0;
  // Every QP state the --events log gives each QP end, in time order; the streams a logged
  // reset ended.
  struct LoggedState {
    enum Kind : std::uint8_t { OTHER, ERR, RESET };
    std::int64_t t = 0;
    Kind kind = OTHER;
  };
  std::unordered_map<EndpointKey, std::vector<LoggedState>, EndpointHash> states;
  std::vector<std::unique_ptr<detail::Stream>> retired;
  // Retiring idle QP pairs (retire_idle): the streams not yet retired, the capture time of the
  // next look for idle ones, and what the report's note counts.
  std::vector<std::size_t> live;
  static constexpr std::int64_t kMaxRetireAfter = std::numeric_limits<std::int64_t>::max() / 4;
  std::int64_t retire_after = 0;  // the bound in use (ns)
  std::int64_t now_ts = std::numeric_limits<std::int64_t>::min();
  std::int64_t next_sweep = std::numeric_limits<std::int64_t>::min();
  std::uint64_t idle_retired = 0;
  std::uint64_t first_idle_frame = 0;
  // Response flows the port policy kept from a stream their PSNs fit (port_rules_out).
  std::uint64_t port_ruled_out_flows = 0;
  std::uint64_t first_port_ruled_out = 0;

  // The logged states of a QP end from time `from` on (or none).
  std::span<const LoggedState> states_from(const IpAddr& host, std::uint32_t qpn,
                                           std::int64_t from) const {
    const auto it = states.find({host.b, qpn});
    if (it == states.end()) return {};
    const auto first =
        std::lower_bound(it->second.begin(), it->second.end(), from,
                         [](const LoggedState& s, std::int64_t t) { return s.t < t; });
    return {first, it->second.end()};
  }

  // Whether the last state the log gives the requester QP before `p` reached the tap is ERR or
  // RESET: then `p` left it earlier and was delayed on the way.
  bool sender_stopped(const StreamEntry& e, const Pkt& p) const {
    if (states.empty() || !e.requester_qpn) return false;
    const auto it = states.find({e.requester.b, *e.requester_qpn});
    if (it == states.end()) return false;
    const std::size_t before =
        it->second.size() - states_from(e.requester, *e.requester_qpn, p.ts).size();
    return before > 0 && it->second[before - 1].kind != LoggedState::OTHER;
  }

  // ------------------------------------------------------------------------------ streams

  std::size_t stream_for(const Pkt& p) {
    const FlowKey k = flow_key(p.src, p.dst, p.bth.dqpn);
    if (const auto it = stream_of.find(k); it != stream_of.end()) return it->second;
    StreamEntry e;
    e.requester = p.src;
    e.responder = p.dst;
    e.responder_qpn = p.bth.dqpn;
    const ConnIndex c = judge.new_connection(std::string(transport_name(p.op->transport)),
                                             Endpoint{p.src.str(), std::nullopt},
                                             Endpoint{p.dst.str(), p.bth.dqpn});
    e.conn = c;
    e.transport = p.op->transport;
    e.budget = &budgets.emplace_back();
    // A QP already paired the other way round: its peer is known, and so is the stream of the
    // other direction, which this one joins at once (pair): on that stream's shard, with no
    // move (the checker's thread waits for one to the inline shard).
    const auto known = peer.find({p.dst.b, p.bth.dqpn});
    const bool paired = known != peer.end() && known->second.first == p.src.b;
    if (shards) {
      const auto back =
          paired ? stream_of.find(flow_key(p.dst, p.src, known->second.second)) : stream_of.end();
      e.shard = back != stream_of.end() ? streams[back->second].shard : place_new_stream();
    }
    e.stream = new_stream(e);
    const std::size_t idx = streams.size();
    streams.push_back(std::move(e));
    live.push_back(idx);
    stream_of.emplace(k, idx);
    between[flow_key(p.src, p.dst, 0)].push_back(idx);
    if (paired) pair(idx, known->second.second);
    return idx;
  }

  std::unique_ptr<detail::Stream> new_stream(const StreamEntry& e) {
    return std::make_unique<detail::Stream>(shards ? shards->judge(e.shard) : judge, e.conn,
                                            e.transport, e.responder, e.responder_qpn, *e.budget,
                                            shards ? shards->golden(e.shard) : golden);
  }

  // A QP of the stream went to RESET (the --events log says when) between the stream's last
  // frame and this one: the QP pair starts again from the PSNs it is given anew, with nothing
  // outstanding (IBA Vol. 1 §10.3.1: Reset clears the QP's queues and state). The stream ends
  // there, as at the end of the capture, and a new one goes on with the same connection.
  void restart_after_reset(StreamEntry& e, const Pkt& p) {
    if (states.empty()) return;
    const std::optional<std::int64_t> last = e.last_ts;
    e.last_ts = p.ts;
    if (!last) return;
    const auto reset_between = [&](const IpAddr& host, std::uint32_t qpn) {
      for (const LoggedState& s : states_from(host, qpn, *last + 1)) {
        if (s.t >= p.ts) break;
        if (s.kind == LoggedState::RESET) return true;
      }
      return false;
    };
    if (!reset_between(e.responder, e.responder_qpn) &&
        !(e.requester_qpn && reset_between(e.requester, *e.requester_qpn)))
      return;
    run(e, detail::Shards::Kind::Finish, Pkt{});
    retired.push_back(std::move(e.stream));  // a shard may still hold it: kept to the end
    e.stream = new_stream(e);
    judge.note(NoteKind::Assumption, e.conn, p.frame,
               fmt::format("{} logs a reset of QP {:#x} at {} or of its peer before this frame: "
                           "the connection is judged afresh from here",
                           opts.events->file, e.responder_qpn, e.responder.str()));
  }

  void track_range(StreamEntry& e, const Pkt& p) {
    e.sport.note(p);
    std::uint32_t span = 1;
    if (p.op->operation == wire::Operation::READ_REQUEST)
      span = std::max<std::uint32_t>(1, (p.reth.dmalen + 255) / 256);  // at most, MTU 256
    if (e.transport == wire::Transport::RC && !e.requester_qpn) {
      if (e.recent.size() >= kRecentRequests)
        e.recent.erase(e.recent.begin(), e.recent.begin() + kRecentRequests / 2);
      e.recent.push_back({p.psn(), p.op->operation});
    }
    const std::uint32_t end = detail::padd(p.psn(), span);
    if (!e.seen) {
      e.seen = true;
      e.first = p.psn();
      e.next = end;
    } else if (detail::pdiff(end, e.next) > 0) {
      e.next = end;
    } else if (detail::pdiff(p.psn(), e.first) < 0 &&
               detail::pdiff(p.psn(), e.first) >= -kPairSlack) {
      e.first = p.psn();  // sent too (the first requests came out of order, or a resend)
    }
  }

  // Evidence for a pairing: `psn` lies among the PSNs the stream has sent.
  bool plausible(const StreamEntry& e, std::uint32_t psn) const {
    return e.seen && detail::pdiff(psn, e.next) < 0 && detail::pdiff(psn, e.first) >= 0;
  }
  // No evidence either way: `psn` lies shortly before the stream's first PSN, an answer to a
  // request sent before the capture began. Another QP's requests, unseen, may have had that
  // PSN as well, so it pairs nothing on its own (but rules nothing out).
  bool before_first(const StreamEntry& e, std::uint32_t psn) const {
    return e.seen && detail::pdiff(psn, e.first) < 0 && detail::pdiff(psn, e.first) >= -kPairSlack;
  }

  // What stream `e` sent at the PSN of response `p`, against the kind of the response: whether
  // a READ response answers a READ (or a FLUSH or ATOMIC WRITE), an ATOMIC ACKNOWLEDGE an
  // atomic, as far as the stream's latest requests show. Nothing (std::nullopt) for another
  // kind of response, or a PSN they do not show (a READ's response slot among them).
  // Two QPs between the same hosts may send the same PSNs (a capture that begins
  // mid-connection shows one QP's answers before its requests): what was sent there tells them
  // apart.
  static std::optional<bool> kind_at(const StreamEntry& e, const Pkt& p) {
    const wire::Operation op = p.op->operation;
    if (op != wire::Operation::READ_RESPONSE && op != wire::Operation::ATOMIC_ACK)
      return std::nullopt;
    for (auto it = e.recent.rbegin(); it != e.recent.rend(); ++it)
      if (it->psn == p.psn())
        return op == wire::Operation::ATOMIC_ACK
                   ? detail::is_atomic(it->op)
                   : it->op == wire::Operation::READ_REQUEST || detail::is_placement(it->op);
    return std::nullopt;
  }
  // Whether the profile's UDP source port policy shows that response `p` does not answer stream
  // `e`: both directions of a QP pair carry one source port (Profile::UdpSourcePort), and the
  // stream's intact requests all carried another. Two QPs between the same hosts may send the
  // same PSNs, one of them with no answer at all (its peer QP does not exist), and a capture
  // that begins after the other's requests shows nothing else that tells them apart. A frame
  // the link corrupted proves nothing.
  bool port_rules_out(const StreamEntry& e, const Pkt& p) const {
    return opts.profile.udp_source_port == Profile::UdpSourcePort::PerQpPair && p.icrc_ok &&
           e.sport.known() && e.sport.port != p.udp_sport;
  }
  // Whether response `p` can answer what stream `e` sent at its PSN (nothing shown against it).
  static bool answers(const StreamEntry& e, const Pkt& p) { return kind_at(e, p).value_or(true); }
  // Whether it answers in kind a READ or an atomic the stream sent there: evidence no ACK gives,
  // as any request takes one.
  static bool answers_in_kind(const StreamEntry& e, const Pkt& p) {
    return kind_at(e, p).value_or(false);
  }

  // Pairs stream `idx` with its requester QPN (and the reverse direction with it).
  void pair(std::size_t idx, std::uint32_t requester_qpn) {
    StreamEntry& e = streams[idx];
    if (e.requester_qpn) return;
    e.requester_qpn = requester_qpn;
    std::vector<StreamEntry::Recent>().swap(e.recent);  // pairing needs them no more
    // The connection's requester end learns its QP; not once the stream's connection was merged
    // into its reverse direction's, whose ends pair() below has set.
    if (judge.resolve(e.conn) == e.conn) judge.conn(e.conn).a.qpn = requester_qpn;
    const FlowKey rk = flow_key(e.responder, e.requester, requester_qpn);
    ResponseFlow& rf = response_flow(rk, e.responder, e.requester, requester_qpn);
    if (!rf.stream) --unpaired_between[flow_key(e.responder, e.requester, 0)];
    rf.stream = idx;
    rf.candidates.reset();
    if (rf.orphan_conn) judge.merge_connections(e.conn, *rf.orphan_conn);
    rf.orphan_conn.reset();
    peer[{e.requester.b, requester_qpn}] = {e.responder.b, e.responder_qpn};
    peer[{e.responder.b, e.responder_qpn}] = {e.requester.b, requester_qpn};
    // No other flow can be answered by this stream now.
    std::erase_if(unresolved, [&](const FlowKey& k) {
      const ResponseFlow& f = responses.at(k);
      return f.stream || f.given_up;
    });
    for (const FlowKey& key : std::vector<FlowKey>(unresolved)) {
      ResponseFlow& flow = responses.at(key);
      if (!flow.candidates || flow.stream || flow.given_up) continue;
      flow.candidates->erase(idx);
      if (const auto only = sole_fit(flow)) pair(*only, flow.requester_qpn);
    }
    // The reverse direction: the responder QP's own requests go to requester_qpn.
    if (const auto it = stream_of.find(flow_key(e.responder, e.requester, requester_qpn));
        it != stream_of.end()) {
      StreamEntry& back = streams[it->second];
      judge.merge_connections(e.conn, back.conn);
      // One connection for both directions: `a` is the end whose request the tap saw first (the
      // stream whose connection was opened first), both ends with their QP numbers.
      Endpoint requester_end{e.requester.str(), requester_qpn};
      Endpoint responder_end{e.responder.str(), e.responder_qpn};
      Connection& c = judge.conn(e.conn);
      const bool back_first = back.conn < e.conn;
      c.a = back_first ? responder_end : requester_end;
      c.b = back_first ? requester_end : responder_end;
      join_budgets(e, back);
      pair(it->second, e.responder_qpn);
    }
  }

  // The two directions of a QP pair share one capture-error budget from their pairing on.
  void join_budgets(StreamEntry& into, StreamEntry& from) {
    if (into.budget == from.budget) return;
    detail::Budget* const old = from.budget;
    from.budget = into.budget;
    if (!shards) {
      into.budget->used += old->used;
      from.stream->set_budget(*into.budget);
      return;
    }
    if (from.shard == into.shard) {
      // In order with the stream's work: the shard joins them.
      detail::Shards::Command c;
      c.stream = from.stream.get();
      c.kind = detail::Shards::Kind::JoinBudget;
      c.dispatch = dispatch;
      c.budget = into.budget;
      shards->post(into.shard, std::move(c));
      return;
    }
    // On another shard: the stream moves there (in order with both shards' work).
    shards->move(from.stream.get(), from.shard, into.shard, into.budget, dispatch);
    from.shard = into.shard;
  }

  // Hands a piece of a stream's work to it: now, or to its shard.
  void run(StreamEntry& e, detail::Shards::Kind kind, const Pkt& p, bool hears_all = true,
           const detail::Judge::Ticket& ticket = {}) {
    if (kind == detail::Shards::Kind::Request || kind == detail::Shards::Kind::Response ||
        kind == detail::Shards::Kind::Corrupted)
      e.active_ts = std::max(e.active_ts, p.ts);
    const bool crowded = streams.size() > detail::GoldenReplay::kModels;
    if (!shards) {
      golden.crowded = crowded;
      detail::Stream& s = *e.stream;
      switch (kind) {
        case detail::Shards::Kind::Request:
          s.set_hears_all(hears_all);
          return s.on_request(p);
        case detail::Shards::Kind::Response:
          return s.on_response(p);
        case detail::Shards::Kind::Corrupted:
          return s.corrupted(p, ticket);
        case detail::Shards::Kind::Finish:
          return s.finish();
        case detail::Shards::Kind::Retire:
          s.finish();
          e.stream.reset();
          return;
        case detail::Shards::Kind::JoinBudget:
        case detail::Shards::Kind::Release:
        case detail::Shards::Kind::Acquire:
        case detail::Shards::Kind::FinishPool:
          return;  // sharded checking only
      }
      return;
    }
    if (e.work_look != look) {
      e.work_look = look;
      e.work = 0;
      worked.push_back(static_cast<std::size_t>(&e - streams.data()));
    }
    ++e.work;
    detail::Shards::Command& c = shards->next(e.shard);
    // Retire: the shard finishes the stream and frees it, in order with its other work.
    c.stream = kind == detail::Shards::Kind::Retire ? e.stream.release() : e.stream.get();
    c.kind = kind;
    c.hears_all = hears_all;
    c.crowded = crowded;
    c.dispatch = ++dispatch;
    c.ticket = ticket;
    c.p = p;
    front_log.at(dispatch, 2);
    shards->commit(e.shard);
  }

  // Sharded checking: the shard of a new stream. While the work leans toward the inline shard,
  // the part of the new streams the last look asked for (Balance::share) goes there, spread
  // evenly; all of them went, and the two threads then took turns waiting for each other.
  std::size_t place_new_stream() {
    if (leaning != detail::Shards::Lean::Inline) return shards->pick(leaning);
    inline_credit += lean_share;
    if (inline_credit < 1) return shards->pick(detail::Shards::Lean::Threads);
    inline_credit -= 1;
    ++placed_inline;
    return shards->pick(detail::Shards::Lean::Inline);
  }

  // Sharded checking: a look at the balance of the work (kLook).
  void rebalance() {
    since_look = 0;
    detail::Shards::Balance b;
    if (opts.shard_drill != 0) {
      b = {look % 2 == 0 ? detail::Shards::Lean::Inline : detail::Shards::Lean::Threads, 0.5};
      move_streams(b);
    } else {
      b = shards->lean();
      // Moving streams to the inline shard makes this thread wait for the threads to get to
      // them: not while new streams placed there can do it.
      const bool placing = b.lean == detail::Shards::Lean::Inline && placed_inline > 0;
      if (b.lean != detail::Shards::Lean::Even && b.lean == leaning && !placing) move_streams(b);
    }
    leaning = b.lean;
    lean_share = b.share;
    inline_credit = 0;
    placed_inline = 0;
    ++look;
    worked.clear();
  }

  // Moves the busiest streams of the side the work leans away from to the other side, up to
  // `b.share` of that side's stream work since the last look (a stream that alone would carry
  // it too far stays). Where a stream is run never changes the report (shards.h).
  void move_streams(const detail::Shards::Balance& b) {
    const bool to_inline = b.lean == detail::Shards::Lean::Inline;
    std::vector<std::size_t> busy;
    std::uint64_t total = 0;
    for (const std::size_t i : worked) {
      if (!streams[i].stream || (streams[i].shard == 0) == to_inline) continue;
      busy.push_back(i);
      total += streams[i].work;
    }
    std::sort(busy.begin(), busy.end(), [&](std::size_t x, std::size_t y) {
      return streams[x].work != streams[y].work ? streams[x].work > streams[y].work : x < y;
    });
    const auto target = static_cast<std::uint64_t>(std::ceil(b.share * static_cast<double>(total)));
    std::uint64_t moved = 0;
    std::size_t count = 0;
    for (const std::size_t i : busy) {
      if (moved >= target || count == kMaxMoves) break;
      StreamEntry& e = streams[i];
      if (moved + e.work > target + target / 4) continue;
      const std::size_t to = to_inline ? 0 : shards->pick(detail::Shards::Lean::Threads);
      shards->move(e.stream.get(), e.shard, to, nullptr, dispatch);
      e.shard = to;
      moved += e.work;
      ++count;
    }
  }

  ResponseFlow& response_flow(const FlowKey& k, const IpAddr& responder, const IpAddr& requester,
                              std::uint32_t requester_qpn) {
    auto [it, fresh] = responses.try_emplace(k);
    if (fresh) {
      it->second.responder = responder;
      it->second.requester = requester;
      it->second.requester_qpn = requester_qpn;
      ++unpaired_between[flow_key(responder, requester, 0)];
    }
    return it->second;
  }

  // Updates the pairing evidence with a response as it arrives.
  ResponseFlow& evidence(const Pkt& p) {
    const FlowKey k = flow_key(p.src, p.dst, p.bth.dqpn);
    ResponseFlow& rf = response_flow(k, p.src, p.dst, p.bth.dqpn);
    if (!rf.psn_lo || detail::pdiff(p.psn(), *rf.psn_lo) < 0) rf.psn_lo = p.psn();
    detail::raise_psn(rf.psn_hi, p.psn());
    rf.sport.note(p);
    if (rf.stream) return rf;
    note_rivals(rf, p);
    if (rf.given_up) return rf;
    // fit: the stream sent the response's PSN; strong: and what it sent there is what such a
    // response answers (answers()); open: fit, or no evidence either way (before_first()).
    std::set<std::size_t> fit, strong, open;
    if (const auto it = between.find(flow_key(p.dst, p.src, 0)); it != between.end())
      for (std::size_t i : it->second) {
        const StreamEntry& e = streams[i];
        if (e.requester_qpn || e.transport != wire::Transport::RC) continue;
        if (port_rules_out(e, p)) {
          if (!rf.port_ruled_out && (plausible(e, p.psn()) || before_first(e, p.psn()))) {
            rf.port_ruled_out = true;
            if (port_ruled_out_flows++ == 0) first_port_ruled_out = p.frame;
          }
          continue;
        }
        if (plausible(e, p.psn())) {
          fit.insert(i);
          open.insert(i);
          if (answers(e, p)) strong.insert(i);
          if (answers_in_kind(e, p)) rf.answered_in_kind.insert(i);
        } else if (before_first(e, p.psn())) {
          open.insert(i);
        }
      }
    rf.ever.insert(open.begin(), open.end());
    if (!rf.candidates) {
      // From the first response that some stream sent the PSN of, or lies just before.
      if (!open.empty()) {
        rf.candidates = std::move(open);
        unresolved.push_back(k);
      }
    } else {
      // A stream seen since the last response may be the one (its requests may have been sent
      // before the capture began, and answered before it showed them).
      std::set<std::size_t> both;
      for (std::size_t i : open)
        if (rf.candidates->count(i) || i >= rf.known_streams) both.insert(i);
      rf.candidates = std::move(both);
      if (rf.candidates->empty()) give_up(rf, p.frame, "its PSNs fit no single request stream");
    }
    rf.known_streams = streams.size();
    rf.fit_any.insert(fit.begin(), fit.end());
    // A response of another kind than the request at its PSN (a READ response to a SEND) does
    // not rule that stream out (the device may be wrong), but no later ACK, which any stream
    // fits, pairs them then: only the end of the capture does, if no other stream fits
    // (finish()).
    rf.fitted.insert(strong.begin(), strong.end());
    for (const std::size_t i : fit)
      if (!strong.count(i)) rf.contradicted.insert(i);
    if (const auto only = sole_fit(rf)) pair(*only, p.bth.dqpn);
    return rf;
  }

  // The one candidate left to a flow, when the flow's responses fit it and none contradicts it:
  // the stream the flow pairs with.
  static std::optional<std::size_t> sole_fit(const ResponseFlow& f) {
    if (!f.candidates || f.candidates->size() != 1) return std::nullopt;
    const std::size_t only = *f.candidates->begin();
    if (!f.fitted.count(only) || f.contradicted.count(only)) return std::nullopt;
    return only;
  }

  // The paired streams whose sent PSNs hold the response of unpaired flow `rf` (one whose
  // requests the capture does not show, or whose evidence fit no single stream).
  void note_rivals(ResponseFlow& rf, const Pkt& p) {
    const auto it = between.find(flow_key(p.dst, p.src, 0));
    if (it == between.end()) return;
    for (std::size_t i : it->second) {
      const StreamEntry& e = streams[i];
      if (!e.requester_qpn || *e.requester_qpn == rf.requester_qpn || !plausible(e, p.psn()) ||
          !answers(e, p))
        continue;
      if (std::find(rf.rivals.begin(), rf.rivals.end(), i) != rf.rivals.end()) continue;
      if (rf.rivals.empty()) rf.rival_frame = p.frame;
      rf.rivals.push_back(i);
    }
  }

  // After the capture, the pairings that cannot be told from another as likely: the
  // violations of the connections they touch are not held against the device (INCONCLUSIVE),
  // each with a note that says why. Each check below explains a connection once (`done`).
  void settle_rivals() {
    std::set<ConnIndex> done;
    undecide_rival_flows(done);
    undecide_late_streams(done);
    undecide_ack_only_orphans(done);
    const bool unanswered = shows_unanswered_responses();
    undecide_end_pairings(done, unanswered);
    undecide_unheld_flows(done, unanswered);
    undecide_crossed_pairs(done);
    undecide_ignored_flows(done);
    undecide_port_mismatches(done);
  }
  // Which flow answers connection `c`'s stream cannot be decided after all: its violations are
  // not held against the device (INCONCLUSIVE), and a note says why.
  void undecided(std::set<ConnIndex>& done, ConnIndex c, std::uint64_t frame,
                 const std::string& why) {
    if (!done.insert(c).second) return;
    judge.explain_connection(c, why);
    judge.note(NoteKind::Unpaired, c, frame,
               why + "; the connection's violations are not held against the device");
  }
  // The same, only for a connection the pairing produced violations on: one without stands
  // (declared deviations are no verdict to take back).
  void undecided_if_violated(std::set<ConnIndex>& done, ConnIndex c, const std::string& why) {
    if (has_violations(c)) undecided(done, c, 0, why);
  }
  // Whether the capture shows responses no stream answers (some QP's requests are not in it).
  bool shows_unanswered_responses() const {
    return std::any_of(responses.begin(), responses.end(),
                       [](const auto& kv) { return !kv.second.stream && kv.second.unjudged > 0; });
  }
  // At most this many streams are looked at by the checks that go through the streams between
  // two hosts for each (the work is theirs times the streams between the same hosts).
  static constexpr std::size_t kMaxLateStreams = 256;

  // A stream paired with one flow while another, left unpaired, fits it as well: a capture that
  // begins mid-connection may show a QP's answers whose requests it never shows, with PSNs
  // another QP between the same hosts sends too. Which flow answers the stream cannot be told.
  void undecide_rival_flows(std::set<ConnIndex>& done) {
    for (const auto& [k, rf] : responses) {
      if (rf.stream) continue;
      for (std::size_t i : rf.rivals) {
        const ConnIndex c = judge.resolve(streams[i].conn);
        undecided(done, c, rf.rival_frame,
                  fmt::format("responses from {} to QP {:#x}, never paired, fit this QP pair's "
                              "requests too (frame {}): which QP answered them cannot be decided",
                              rf.responder.str(), rf.requester_qpn, rf.rival_frame));
      }
    }
  }

  // The other way round: a stream that stayed unpaired, first seen after a flow was paired with
  // another stream, that could have sent what the flow's responses answer (holds()): the flow
  // may be its.
  void undecide_late_streams(std::set<ConnIndex>& done) {
    std::size_t late = 0;
    for (std::size_t s2 = 0; s2 < streams.size() && late < kMaxLateStreams; ++s2) {
      const StreamEntry& e2 = streams[s2];
      if (e2.requester_qpn || !e2.seen || e2.transport != wire::Transport::RC) continue;
      const auto hosts = between.find(flow_key(e2.requester, e2.responder, 0));
      if (hosts == between.end()) continue;
      ++late;
      for (const std::size_t s1 : hosts->second) {
        const StreamEntry& e1 = streams[s1];
        const ResponseFlow* rf = flow_of(s1);
        if (rf == nullptr || s2 < rf->known_streams || !holds(e2, *rf)) continue;
        // Only what the pairing produced is at stake: a connection without violations stands
        // (declared deviations are no verdict to take back). The unpaired stream's own may be
        // its doing too (resends "in silence" while its answers went to the other stream).
        for (const ConnIndex c : {judge.resolve(e1.conn), judge.resolve(e2.conn)})
          undecided_if_violated(
              done, c,
              fmt::format("the requests from {} to QP {:#x}, never paired, were sent "
                          "with the PSNs of the responses to QP {:#x}, paired with QP "
                          "{:#x}'s: which QP these answered cannot be decided",
                          e2.requester.str(), e2.responder_qpn, rf->requester_qpn,
                          e1.responder_qpn));
      }
    }
  }

  // A flow with responses before any request they answer (the capture began mid-connection),
  // paired by ACKs alone: any request takes an ACK, so the requests of another QP, all sent
  // before the capture began, may have had the PSNs that paired it.
  void undecide_ack_only_orphans(std::set<ConnIndex>& done) {
    for (const auto& [k, rf] : responses) {
      if (!rf.stream || !rf.psn_lo || rf.answered_in_kind.count(*rf.stream)) continue;
      const StreamEntry& e = streams[*rf.stream];
      if (!rf.orphan_psn && detail::pdiff(*rf.psn_lo, e.first) >= 0) continue;
      // (Not when the stream shows the connection's start: then no request came before.)
      if (e.stream && e.stream->shows_connection_start()) continue;
      undecided_if_violated(
          done, judge.resolve(e.conn),
          fmt::format("the responses to QP {:#x} began before any request they answer, and "
                      "only ACKs paired them with QP {:#x}'s requests: another QP's "
                      "requests, sent before the capture began, may have had the same PSNs",
                      rf.requester_qpn, e.responder_qpn));
    }
  }

  // A flow paired at the end with the one stream that sent its PSNs, though not what its
  // responses answer, where the capture shows that another QP's requests, not in it, may have
  // had the same PSNs: it shows responses no stream answers (some QP's requests are not in it),
  // or not the stream's connection from its start (requests of other QPs may have come before),
  // or the stream resending PSNs the flow had acknowledged (as if it never had those answers).
  void undecide_end_pairings(std::set<ConnIndex>& done, bool unanswered) {
    for (const auto& [k, rf] : responses) {
      if (!rf.paired_at_end) continue;
      const StreamEntry& e = streams[*rf.stream];
      // (A stream retired before the end was judged then: none of the signs is looked for.)
      std::string sign;
      if (unanswered) {
        sign = "the capture shows responses no QP's requests account for";
      } else if (e.stream && !e.stream->shows_connection_start() &&
                 !(rf.orphan_psn && rf.orphan_msn &&
                   e.stream->msn_shows_start(*rf.orphan_psn, *rf.orphan_msn))) {
        // (The start shown by the stream, or by the responses the flow gave before it was
        // paired: their highest PSN and MSN.)
        sign = "the capture does not show the connection's start";
      } else if (e.stream && e.stream->acknowledged_resends() > 0) {
        sign =
            fmt::format("QP {:#x}'s requester resent PSNs they had acknowledged", e.responder_qpn);
      } else {
        continue;
      }
      undecided_if_violated(
          done, judge.resolve(e.conn),
          fmt::format("the responses to QP {:#x} answer requests QP {:#x} did not send at "
                      "their PSNs, and {}: another QP's requests, not in the capture, may "
                      "have had the same PSNs",
                      rf.requester_qpn, e.responder_qpn, sign));
    }
  }

  // A flow paired by ACKs alone with a stream that did not send all it answers (responses past
  // the stream's highest PSN, or more than kPairSlack PSNs before its first: !holds()), in a
  // capture that shows the PSNs of its responses are no single QP's to claim: it shows responses no
  // stream answers (some QP's requests are not in it), or another stream between the same hosts
  // could have sent every request the flow answers (holds()), or the stream acted as if the
  // flow's answers were not its own (ignores_answers()). The flow's own QP may be one whose
  // requests the capture misses, and the pairing took another QP's that share their first PSNs:
  // which QP it answers cannot be decided. (With a READ response or atomic ACK answering the
  // stream's request in kind, or in a capture that accounts for every response, an ACK past what
  // the stream sent stays ack.psn's.)
  void undecide_unheld_flows(std::set<ConnIndex>& done, bool unanswered) {
    std::size_t looked = 0;
    for (std::size_t s1 = 0; s1 < streams.size() && looked < kMaxLateStreams; ++s1) {
      const ResponseFlow* f1 = flow_of(s1);
      if (f1 == nullptr || f1->answered_in_kind.count(s1) || holds(streams[s1], *f1) ||
          !has_violations(streams[s1].conn))
        continue;
      ++looked;
      std::optional<std::size_t> holder;  // a stream that could have sent it all
      const auto hosts = between.find(flow_key(streams[s1].requester, streams[s1].responder, 0));
      for (const std::size_t s2 : hosts->second)
        if (s2 != s1 && streams[s2].transport == wire::Transport::RC && holds(streams[s2], *f1)) {
          holder = s2;
          break;
        }
      const bool resent = ignores_answers(streams[s1]);
      if (!holder && !unanswered && !resent) continue;
      const std::string why =
          holder ? fmt::format(
                       "the responses to QP {:#x}, paired by ACKs with QP {:#x}'s "
                       "requests, answer PSNs it never sent, and QP {:#x}'s requests could "
                       "have had them all: which QP these answered cannot be decided",
                       f1->requester_qpn, streams[s1].responder_qpn, streams[*holder].responder_qpn)
                 : fmt::format(
                       "the responses to QP {:#x}, paired by ACKs with QP {:#x}'s "
                       "requests, answer PSNs it never sent, and {}: another QP's "
                       "requests, not in the capture, may have had these PSNs",
                       f1->requester_qpn, streams[s1].responder_qpn,
                       unanswered ? "the capture shows responses no QP's requests account for"
                                  : "its requester resent PSNs they had acknowledged, as if it "
                                    "never had these answers");
      undecided(done, judge.resolve(streams[s1].conn), 0, why);
      if (holder) undecided_if_violated(done, judge.resolve(streams[*holder].conn), why);
    }
  }

  // A stream whose requester acted as if its flow's answers were not its own: after the first of
  // them it sent no new PSN, only resent, and resent PSNs they had acknowledged (a requester
  // whose peer QP does not exist keeps resending its first PSNs to the end).
  bool ignores_answers(const StreamEntry& e) const {
    return e.stream && e.stream->acknowledged_resends() > 0 &&
           e.stream->nothing_new_since_answers();
  }
  // A flow paired by ACKs alone (no READ response or atomic ACK answers its stream in kind) whose
  // stream ignored its answers (ignores_answers()), in a capture that does not show the
  // connection's start: the flow may answer another QP's requests, sent before the capture
  // began with the same PSNs. Only where the pairing produced violations. (A requester whose
  // ACKs were all lost after the tap, to the end of the capture, acts the same: a violation
  // there is left undecided as well.)
  void undecide_ignored_flows(std::set<ConnIndex>& done) {
    for (std::size_t s = 0; s < streams.size(); ++s) {
      const ResponseFlow* f = flow_of(s);
      const StreamEntry& e = streams[s];
      if (f == nullptr || f->answered_in_kind.count(s) || !ignores_answers(e) ||
          e.stream->shows_connection_start())
        continue;
      undecided_if_violated(
          done, judge.resolve(e.conn),
          fmt::format("the responses to QP {:#x}, paired by ACKs with QP {:#x}'s requests, "
                      "acknowledge PSNs its requester resent afterwards, as if they were not "
                      "its answers, and the capture does not show the connection's start: "
                      "another QP's requests, sent before the capture began, may have had "
                      "the same PSNs",
                      f->requester_qpn, e.responder_qpn));
    }
  }

  // With no port policy declared (Profile::UdpSourcePort::Any): a flow paired by its PSNs with a
  // stream whose requests carried another UDP source port, in a capture where another QP pair
  // with a different QPN at each end keeps one port both ways (so the device derives the port
  // from the pair, as rxe does, or uses one for all; a port derived from one QPN alone would
  // differ there). The pairing went against what the device shows of itself: the PSNs it rests
  // on may be those of another QP whose requests the capture misses. Only where the pairing
  // produced violations.
  void undecide_port_mismatches(std::set<ConnIndex>& done) {
    if (opts.profile.udp_source_port != Profile::UdpSourcePort::Any) return;
    bool per_pair = false;
    std::vector<std::size_t> mismatched;
    for (std::size_t s = 0; s < streams.size(); ++s) {
      const ResponseFlow* f = flow_of(s);
      const StreamEntry& e = streams[s];
      if (f == nullptr || !e.sport.known() || !f->sport.known()) continue;
      if (e.sport.port == f->sport.port)
        per_pair = per_pair || f->requester_qpn != e.responder_qpn;
      else if (has_violations(e.conn))
        mismatched.push_back(s);
    }
    if (!per_pair) return;
    for (const std::size_t s : mismatched) {
      const StreamEntry& e = streams[s];
      const ResponseFlow& f = *flow_of(s);
      undecided(done, judge.resolve(e.conn), 0,
                fmt::format("the responses to QP {:#x}, paired by their PSNs with QP {:#x}'s "
                            "requests, carry UDP source port {} where the requests carry {}, "
                            "while the capture's other QP pairs keep one port both ways: "
                            "another QP's requests, not in the capture, may have had these PSNs",
                            f.requester_qpn, e.responder_qpn, f.sport.port, e.sport.port));
    }
  }

  // Two pairs, one of them paired before the other's stream was seen, each stream able to have
  // sent what the other's flow answers (holds()): paired one way when the other was just as
  // possible. Only where the pairing produced violations.
  void undecide_crossed_pairs(std::set<ConnIndex>& done) {
    std::size_t crossed = 0;
    for (std::size_t s1 = 0; s1 < streams.size() && crossed < kMaxLateStreams; ++s1) {
      const ResponseFlow* f1 = flow_of(s1);
      if (f1 == nullptr || !has_violations(streams[s1].conn)) continue;
      ++crossed;
      const auto hosts = between.find(flow_key(streams[s1].requester, streams[s1].responder, 0));
      for (const std::size_t s2 : hosts->second) {
        const ResponseFlow* f2 = s2 == s1 ? nullptr : flow_of(s2);
        if (f2 == nullptr || !holds(streams[s1], *f2) || !holds(streams[s2], *f1) ||
            (s2 < f1->known_streams && s1 < f2->known_streams))
          continue;
        for (const std::size_t s : {s1, s2})
          undecided(done, judge.resolve(streams[s].conn), 0,
                    fmt::format("the responses to QP {:#x} and to QP {:#x} each fit both QPs' "
                                "requests: which QP answered which cannot be decided",
                                f1->requester_qpn, f2->requester_qpn));
      }
    }
  }
  // The flow paired with stream `s`, if any.
  const ResponseFlow* flow_of(std::size_t s) const {
    const StreamEntry& e = streams[s];
    if (!e.requester_qpn || e.transport != wire::Transport::RC) return nullptr;
    const auto it = responses.find(flow_key(e.responder, e.requester, *e.requester_qpn));
    return it == responses.end() || it->second.stream != s || !it->second.psn_hi ? nullptr
                                                                                 : &it->second;
  }
  // Whether stream `e` could have sent every request flow `f`'s responses answer: their PSNs,
  // from first to last, lie within what it sent or just before its first PSN (evidence()'s
  // `open`: requests sent before the capture began). Had it been seen in time, it would have
  // been a candidate of every response of the flow.
  bool holds(const StreamEntry& e, const ResponseFlow& f) const {
    // (The spans compared too: PSN differences are taken modulo 2^24, and a flow whose
    // responses spread over half the PSN space would otherwise fit any stream.)
    return e.seen && detail::pdiff(*f.psn_hi, e.next) < 0 &&
           detail::pdiff(*f.psn_lo, e.first) >= -kPairSlack &&
           detail::pdiff(*f.psn_hi, *f.psn_lo) <= detail::pdiff(e.next, e.first) + kPairSlack;
  }
  bool has_violations(ConnIndex c) {
    const Connection& conn = judge.conn(judge.resolve(c));
    return std::any_of(conn.rules.begin(), conn.rules.end(),
                       [](const RuleCount& n) { return n.violations != 0; });
  }

  void give_up(ResponseFlow& rf, std::uint64_t frame, std::string_view why) {
    rf.given_up = true;
    rf.candidates.reset();
    judge.note(NoteKind::Unpaired, orphan_conn(rf), frame,
               fmt::format("responses from {} to QP {:#x} at {} could not be paired with a "
                           "request stream ({}); they are not judged",
                           rf.responder.str(), rf.requester_qpn, rf.requester.str(), why));
  }

  ConnIndex orphan_conn(ResponseFlow& rf) {
    if (!rf.orphan_conn)
      rf.orphan_conn = judge.new_connection("RC", Endpoint{rf.requester.str(), rf.requester_qpn},
                                            Endpoint{rf.responder.str(), std::nullopt});
    return *rf.orphan_conn;
  }

  // ------------------------------------------------------------------------- idle QP pairs

  // The silence after which a QP pair is retired: the profile's, or longer where --setup gives a
  // QP a local ACK timeout or a responder an RNR timer that, with the tap's tolerance, exceeds
  // it (IBA Vol. 1 §9.7.6.1.3, §9.7.5.2.8; docs/profiles.md). A QP without a timer (timeout 0)
  // waits for ever and raises nothing: the profile's bound is the assumption then.
  // 0: never (the profile says so; an --events log, whose rules compare the log with every
  // stream at the end; or only reconstructing the flows, as rocecert split groups them all).
  static std::int64_t retire_bound(const Options& o) {
    if (o.profile.retire_idle_ns == 0 || o.events || o.reconstruct_only) return 0;
    std::uint64_t bound = o.profile.retire_idle_ns;
    if (o.setup)
      for (const SetupQp& q : o.setup->qps) {
        const std::uint64_t wait =
            std::max<std::uint64_t>(q.timeout ? qp::local_ack_timeout_ns(*q.timeout) : 0,
                                    q.min_rnr_timer ? qp::rnr_timer_ns(*q.min_rnr_timer) : 0);
        if (wait != 0) bound = std::max(bound, wait + o.profile.timing_tolerance_ns);
      }
    return static_cast<std::int64_t>(
        std::min<std::uint64_t>(bound, static_cast<std::uint64_t>(kMaxRetireAfter)));
  }

  // A QP pair silent past the profile's bound is judged as if the capture had ended at its last
  // frame (Stream::finish: the same judgments, in the same order whatever the number of jobs)
  // and forgotten, so that memory follows the connections alive at once. Looked at every
  // quarter of the bound, in capture time; not while frames wait for a pairing decision, nor
  // for a stream an undecided response flow may still belong to, nor for one whose responder
  // sent a fatal NAK (the requests after it are judged at the very end, err.after_fatal).
  // Silence past the bound means the requester has nothing outstanding or has given up: one
  // still waiting for an answer resends within its local ACK timeout or RNR wait, which the
  // bound exceeds (retire_bound).
  void retire_idle(std::int64_t ts, std::uint64_t frame) {
    now_ts = std::max(now_ts, ts);
    if (now_ts < next_sweep) return;
    next_sweep = now_ts > kMaxRetireAfter ? std::numeric_limits<std::int64_t>::max()
                                          : now_ts + std::max<std::int64_t>(retire_after / 4, 1);
    if (!held.empty() || now_ts < std::numeric_limits<std::int64_t>::min() + retire_after) return;
    const std::int64_t before = now_ts - retire_after;
    // Flows paired or given up since pair() last pruned the list go first (their entries may be
    // erased below).
    std::erase_if(unresolved, [&](const FlowKey& k) {
      const ResponseFlow& f = responses.at(k);
      return f.stream || f.given_up;
    });
    std::unordered_set<std::size_t> wanted;
    for (const FlowKey& k : unresolved)
      if (const ResponseFlow& rf = responses.at(k); rf.candidates)
        wanted.insert(rf.candidates->begin(), rf.candidates->end());
    const auto quiet = [&](std::size_t i) {
      const StreamEntry& e = streams[i];
      return e.stream && e.active_ts < before && !e.fatal_seen && !wanted.count(i);
    };
    std::erase_if(live, [&](std::size_t i) {
      if (!streams[i].stream) return true;  // retired with the other direction of its pair
      if (!quiet(i)) return false;
      const std::optional<std::size_t> back = reverse_of(streams[i]);
      if (back && !quiet(*back)) return false;
      if (idle_retired == 0) first_idle_frame = frame;
      retire(i);
      if (back) retire(*back);
      return true;
    });
  }

  // The stream of the other direction of a paired stream's QP pair, if the capture shows one.
  std::optional<std::size_t> reverse_of(const StreamEntry& e) const {
    if (!e.requester_qpn) return std::nullopt;
    const auto it = stream_of.find(flow_key(e.responder, e.requester, *e.requester_qpn));
    if (it == stream_of.end() || !streams[it->second].stream) return std::nullopt;
    return it->second;
  }

  void retire(std::size_t i) {
    StreamEntry& e = streams[i];
    ++idle_retired;
    run(e, detail::Shards::Kind::Retire, Pkt{});
    stream_of.erase(flow_key(e.requester, e.responder, e.responder_qpn));
    if (const auto it = between.find(flow_key(e.requester, e.responder, 0)); it != between.end()) {
      std::erase(it->second, i);
      if (it->second.empty()) between.erase(it);
    }
    if (e.requester_qpn) {
      // Its responses' flow, and what pairing knew of the two QPs: a later frame of either is
      // paired afresh (the QPs may have been destroyed and their numbers reused since).
      responses.erase(flow_key(e.responder, e.requester, *e.requester_qpn));
      peer.erase({e.requester.b, *e.requester_qpn});
      peer.erase({e.responder.b, e.responder_qpn});
    }
  }

  // ------------------------------------------------------------------------------- frames

  void frame_rules(const wire::ParsedFrame& f, const Pkt& p, std::optional<ConnIndex> c) {
    if (!opts.reconstruct_only) detail::check_frame_rules(judge, f, p, c);
  }

  static bool decided(const ResponseFlow& rf) { return rf.stream || rf.given_up || !rf.candidates; }
  bool ready(const Pkt& p) {
    if (p.op->is_request()) return true;
    const auto it = responses.find(flow_key(p.src, p.dst, p.bth.dqpn));
    return it == responses.end() || decided(it->second);
  }

  void process(const Pkt& p) {
    if (p.op->is_request())
      process_request(p, streams[stream_for(p)]);
    else
      process_response(p, responses.at(flow_key(p.src, p.dst, p.bth.dqpn)));
  }
  void process_request(const Pkt& p, StreamEntry& e) {
    judge.count_frame(e.conn);
    if (opts.reconstruct_only) return;
    // Whether every response to this stream so far reached it: it is paired, or no response
    // from its responder's host to its requester's host is waiting for a stream. Only the QP
    // attribute rules read it (a setup given): no lookup per request otherwise.
    bool hears_all = true;
    if (opts.setup && !e.requester_qpn) {
      const auto u = unpaired_between.find(flow_key(e.responder, e.requester, 0));
      hears_all = u == unpaired_between.end() || u->second == 0;
    }
    restart_after_reset(e, p);
    // What the checker adds to the packet for its stream; copied only when there is something.
    // The rkey's generation, here in capture order for every stream to a host (stream.h).
    // Every SEND WITH INVALIDATE of an RC stream starts a new one, resends included.
    const bool keyed =
        e.transport == wire::Transport::RC && p.op->transport == wire::Transport::RC &&
        (p.has(wire::Header::Reth) || p.has(wire::Header::AtomicEth) || p.has(wire::Header::Ieth));
    const bool stopped = sender_stopped(e, p);
    if (!keyed && !stopped) return run(e, detail::Shards::Kind::Request, p, hears_all);
    Pkt q = p;
    q.sender_stopped = stopped;
    if (keyed) {
      if (q.has(wire::Header::Reth)) {
        q.key_epoch = keys.get(q.dst, q.reth.rkey, q.ts);
        q.key_dead = keys.dead(q.dst, q.reth.rkey, q.ts);
      } else if (q.has(wire::Header::AtomicEth)) {
        q.key_epoch = keys.get(q.dst, q.atomic.rkey, q.ts);
        q.key_dead = keys.dead(q.dst, q.atomic.rkey, q.ts);
      }
      if (q.has(wire::Header::Ieth)) keys.invalidate(q.dst, q.ieth.rkey);
    }
    run(e, detail::Shards::Kind::Request, q, hears_all);
  }
  void process_response(const Pkt& p, ResponseFlow& rf) {
    if (rf.stream) {
      StreamEntry& e = streams[*rf.stream];
      judge.count_frame(e.conn);
      if (opts.reconstruct_only) return;
      restart_after_reset(e, p);
      if (p.has(wire::Header::Aeth) && wire::aeth_kind(p.aeth.syndrome) == wire::AethKind::NAK &&
          wire::nak_code(p.aeth.syndrome) != wire::NakCode::PSN_SEQUENCE_ERROR)
        e.fatal_seen = true;
      if (rf.orphan_msn_due) {
        rf.orphan_msn_due = false;
        Pkt q = p;
        q.earlier_msn = rf.orphan_msn;
        q.earlier_psn = rf.orphan_psn;
        run(e, detail::Shards::Kind::Response, q);
        return;
      }
      run(e, detail::Shards::Kind::Response, p);
      return;
    }
    // Responses to requests the capture does not show (yet), or of a flow given up.
    const ConnIndex c = orphan_conn(rf);
    judge.count_frame(c);
    ++rf.unjudged;
    rf.orphan_msn_due = true;
    if (p.has(wire::Header::Aeth) &&
        (!rf.orphan_msn || detail::pdiff(p.aeth.msn, *rf.orphan_msn) > 0))
      rf.orphan_msn = p.aeth.msn;
    if (!rf.orphan_psn || detail::pdiff(p.psn(), *rf.orphan_psn) > 0) rf.orphan_psn = p.psn();
    if (!rf.given_up && !rf.noted_orphan) {
      rf.noted_orphan = true;
      judge.note(NoteKind::OneDirection, c, p.frame,
                 fmt::format("responses from {} to QP {:#x} before any request they could answer "
                             "(the capture starts mid-connection or misses one direction)",
                             rf.responder.str(), rf.requester_qpn));
    }
  }

  void drain() {
    while (!held.empty() && ready(held.front())) {
      process(held.front());
      held.pop_front();
    }
  }

  void connected(const Pkt& p, const wire::ParsedFrame& f) {
    std::optional<ConnIndex> conn;
    StreamEntry* stream = nullptr;
    ResponseFlow* flow = nullptr;
    if (p.op->is_request()) {
      stream = &streams[stream_for(p)];
      track_range(*stream, p);
      conn = stream->conn;
    } else {
      if (!ud_endpoints.empty() && ud_endpoints.count({p.dst.b, p.bth.dqpn})) {
        const ConnIndex c = ud_conn_of_endpoint(p.dst, p.bth.dqpn);
        frame_rules(f, p, c);
        judge.checked(RuleId::AckUnsolicited, c);
        judge.violation(RuleId::AckUnsolicited, "ud", p, c,
                        fmt::format("{} sent to QP {:#x}, a UD QP (UD is never acknowledged)",
                                    p.op->name, p.bth.dqpn));
        return;
      }
      flow = &evidence(p);
      if (flow->stream) conn = streams[*flow->stream].conn;
    }
    frame_rules(f, p, conn);
    if (!p.icrc_ok) {
      // Dropped by its receiver: no state change. Its stream decides whether the rest of the
      // capture shows a link error (the packet comes again intact) or a device error.
      StreamEntry* owner = stream != nullptr                 ? stream
                           : flow != nullptr && flow->stream ? &streams[*flow->stream]
                                                             : nullptr;
      if (owner != nullptr)
        run(*owner, detail::Shards::Kind::Corrupted, p, true, judge.last_violation());
      return;
    }
    if (held.empty()) {
      if (stream) {
        process_request(p, *stream);
        return;
      }
      if (decided(*flow)) {
        process_response(p, *flow);
        return;
      }
    }
    held.push_back(p);
    drain();
    if (held.size() > kMaxHeld) {
      const Pkt& front = held.front();
      ResponseFlow& rf = responses.at(flow_key(front.src, front.dst, front.bth.dqpn));
      give_up(rf, front.frame, "the evidence stayed ambiguous for too long");
      drain();
    }
  }

  ConnIndex ud_conn_of_endpoint(const IpAddr& ip, std::uint32_t qpn) {
    for (const auto& [k, flow] : ud)
      if ((k.first.dst == ip.b && k.first.qpn == qpn) || (k.first.src == ip.b && k.second == qpn))
        return flow.conn;
    return ud.begin()->second.conn;
  }

  void datagram(const Pkt& p, const wire::ParsedFrame& f) {
    const auto key = std::make_pair(flow_key(p.src, p.dst, p.bth.dqpn), p.deth.srcqp);
    auto [it, fresh] = ud.try_emplace(key);
    if (fresh) {
      it->second.conn = judge.new_connection("UD", Endpoint{p.src.str(), p.deth.srcqp},
                                             Endpoint{p.dst.str(), p.bth.dqpn});
      it->second.qkey = p.deth.qkey;
      ud_endpoints.insert({p.src.b, p.deth.srcqp});
      ud_endpoints.insert({p.dst.b, p.bth.dqpn});
    }
    const ConnIndex c = it->second.conn;
    judge.count_frame(c);
    frame_rules(f, p, c);
    judge.checked(RuleId::UdQkey, c);
    if (p.deth.qkey != it->second.qkey)
      judge.violation(RuleId::UdQkey, "changed", p, c,
                      fmt::format("Q_Key {:#x}; earlier datagrams of this flow carried {:#x}",
                                  p.deth.qkey, it->second.qkey));
  }

  void cnp(const Pkt& p, const wire::ParsedFrame& f) {
    const FlowKey k = flow_key(p.src, p.dst, p.bth.dqpn);
    auto [it, fresh] = other.try_emplace(k);
    if (fresh)
      it->second = judge.new_connection("CNP", Endpoint{p.src.str(), std::nullopt},
                                        Endpoint{p.dst.str(), p.bth.dqpn});
    const ConnIndex c = it->second;
    judge.count_frame(c);
    frame_rules(f, p, c);
    // The reaction point is (p.dst, DestQP); its packets went from p.dst to p.src. Whether a
    // mark preceded the CNP is only visible if the tap sits after the congestion point: that
    // is decided at the end, from whether the capture shows any mark on that path at all.
    if (ce_marked_qp.count({p.dst.b, p.bth.dqpn}) || ce_marked.count({p.dst.b, p.src.b})) {
      judge.checked(RuleId::CnpCeMarked, c);
      return;
    }
    if (!ect.count({p.dst.b, p.src.b})) {
      // Only ECN-capable packets can be marked (RFC 3168 §5): if everything the reaction point
      // sent toward the CNP's sender was Not-ECT, no switch after the tap marked it either.
      cnp_violation(p, c, "not_ect",
                    "every packet from {} to {} before it was Not-ECT, so none "
                    "can have been marked CE");
      return;
    }
    if (unmarked_cnps.size() < 1024) unmarked_cnps.push_back({p, c});
  }
  // A CNP to the reaction point (p.dst, DestQP) that no CE mark justifies; `why` has two {}
  // for the reaction point's and the CNP sender's addresses.
  void cnp_violation(const Pkt& p, ConnIndex c, std::string_view cause, std::string_view why) {
    StateSnapshot s;
    s.expected = "no CNP";
    judge.checked(RuleId::CnpCeMarked, c);
    judge.violation(RuleId::CnpCeMarked, cause, p, c,
                    fmt::format("CNP to QP {:#x} at {}, but ", p.bth.dqpn, p.dst.str()) +
                        fmt::format(fmt::runtime(why), p.dst.str(), p.src.str()),
                    std::move(s));
  }

  void note_ce(const Pkt& p) {
    if (p.ecn == 0) return;
    if (p.op->transport != wire::Transport::CNP) ect.insert({p.src.b, p.dst.b});
    if (p.ecn != 3) return;
    ce_marked.insert({p.src.b, p.dst.b});
    // The sending QP, when the pairing already tells it.
    if (p.op->is_request()) {
      if (const auto it = stream_of.find(flow_key(p.src, p.dst, p.bth.dqpn));
          it != stream_of.end() && streams[it->second].requester_qpn)
        ce_marked_qp.insert({p.src.b, *streams[it->second].requester_qpn});
    } else if (p.op->is_response()) {
      const auto it = responses.find(flow_key(p.src, p.dst, p.bth.dqpn));
      if (it != responses.end() && it->second.stream)
        ce_marked_qp.insert({p.src.b, streams[*it->second.stream].responder_qpn});
    }
  }

  void unsupported(const Pkt& p, const wire::ParsedFrame& f) {
    const FlowKey k = flow_key(p.src, p.dst, p.bth.dqpn);
    auto [it, fresh] = other.try_emplace(k);
    if (fresh) {
      it->second = judge.new_connection(std::string(transport_name(p.op->transport)),
                                        Endpoint{p.src.str(), std::nullopt},
                                        Endpoint{p.dst.str(), p.bth.dqpn});
      judge.note(NoteKind::Unsupported, it->second, p.frame,
                 fmt::format("{} traffic is decoded and its frames checked, but its transport "
                             "rules are not modelled",
                             transport_name(p.op->transport)));
    }
    judge.count_frame(it->second);
    frame_rules(f, p, it->second);
  }

  void add(std::uint64_t frame, std::int64_t ts, std::uint32_t wire_len,
           const wire::ParsedFrame& f) {
    ++report.frames;
    last_frame_ts = std::max(last_frame_ts, ts);
    const std::span<const std::uint8_t> data = f.bytes;
    if (data.size() < wire_len) {
      // Cut by the capture's snap length (its IP length then exceeds what was captured): a
      // RoCEv2 frame is judged on nothing, and noted.
      if (cut_roce(f)) {
        ++report.roce_frames;
        if (truncated++ == 0) first_truncated = frame;
      }
      return;
    }
    if (!f.roce) {
      if (f.has_error && cut_roce(f) &&
          (f.error.code == wire::DecodeErrc::bad_ipv4_total_length ||
           f.error.code == wire::DecodeErrc::bad_ipv6_payload_length))
        bad_ip_length(frame, ts, f);
      return;
    }
    ++report.roce_frames;
    if (retire_after > 0) retire_idle(ts, frame);
    if (shards && ++since_look == (opts.shard_drill != 0 ? opts.shard_drill : kLook)) rebalance();
    const Pkt p = make_pkt(f, frame, ts);
    if (!f.has_bth || f.op == nullptr || !f.op->known ||
        (f.has_error && f.error.code != wire::DecodeErrc::pad_exceeds_payload &&
         f.error.code != wire::DecodeErrc::unexpected_payload)) {
      // Malformed: the wire rules name it; no transport state can be taken from it.
      std::optional<ConnIndex> c;
      if (f.has_bth && f.op && f.op->known && f.op->is_request()) {
        if (const auto it = stream_of.find(flow_key(p.src, p.dst, p.bth.dqpn));
            it != stream_of.end())
          c = streams[it->second].conn;
      }
      frame_rules(f, p, c);
      return;
    }
    note_ce(p);
    switch (p.op->transport) {
      case wire::Transport::RC:
      case wire::Transport::UC:
        connected(p, f);
        return;
      case wire::Transport::UD:
        datagram(p, f);
        return;
      case wire::Transport::CNP:
        cnp(p, f);
        return;
      case wire::Transport::RD:
      case wire::Transport::XRC:
        unsupported(p, f);
        return;
    }
  }

  // A RoCEv2 frame whose IP header gives a length its bytes do not match, though the capture
  // kept them all. Shorter than the IP header itself: the sender's error. Longer than the frame:
  // either the sender's, or a tap that cuts frames without saying so (a switch's mirror
  // truncation writes the cut length as the frame's): not judged, noted, like a snap cut.
  void bad_ip_length(std::uint64_t frame, std::int64_t ts, const wire::ParsedFrame& f) {
    ++report.roce_frames;
    if (f.ip.version == 4 && f.ip.total_length < f.ip_header_len) {
      const Pkt p = make_pkt(f, frame, ts);
      frame_rules(f, p, std::nullopt);
      if (opts.reconstruct_only) return;
      judge.violation(RuleId::WireIp, "total_length", p, std::nullopt,
                      fmt::format("IPv4 total length {} is shorter than its {}-byte header",
                                  f.ip.total_length, f.ip_header_len));
      return;
    }
    if (short_frames++ == 0) first_short = frame;
  }

  // Each of the profile's deviations that turned a violation into a DEVIATION, with the
  // justification the profile gives for it: the report says why it is not a FAIL.
  void deviation_notes() {
    struct Use {
      std::uint64_t count = 0, first = 0;
    };
    std::vector<Use> uses(opts.profile.deviations.size());
    for (const Violation& v : report.violations) {
      if (!v.deviation || !v.explained.empty()) continue;
      const Deviation* d = opts.profile.covers(v.rule, v.cause);
      if (d == nullptr) continue;
      Use& u = uses[static_cast<std::size_t>(d - opts.profile.deviations.data())];
      if (u.count++ == 0 || v.frame < u.first) u.first = v.frame;
    }
    for (std::size_t i = 0; i < uses.size(); ++i) {
      if (uses[i].count == 0) continue;
      const Deviation& d = opts.profile.deviations[i];
      judge.note(
          NoteKind::Deviation, std::nullopt, uses[i].first,
          fmt::format("{}{}: {} violation{} reported as DEVIATION, as profile {} "
                      "declares: {}{}",
                      rule(d.rule).id, d.cause == "*" ? "" : " (" + d.cause + ")", uses[i].count,
                      uses[i].count == 1 ? "" : "s", opts.profile.name, d.justification,
                      d.reference.empty() ? "" : fmt::format(" ({})", d.reference)));
    }
  }

  Report finish(const std::string& file) {
    for (const FlowKey& k : std::vector<FlowKey>(unresolved)) {
      ResponseFlow& rf = responses.at(k);
      if (rf.stream || rf.given_up || !rf.candidates) continue;
      // One stream sent every PSN these responses carry, only not what they answer (a READ
      // response to a SEND): theirs, and wrong.
      if (rf.candidates->size() == 1 && rf.fit_any.count(*rf.candidates->begin()) &&
          !streams[*rf.candidates->begin()].requester_qpn) {
        rf.paired_at_end = true;
        pair(*rf.candidates->begin(), rf.requester_qpn);
      } else
        give_up(rf, 0, "the capture ended first");
    }
    drain();
    if (shards) {
      // Every shard takes streams to finish from one pool (shards.h), each stream after its
      // shard has run the rest of its work.
      const bool crowded = streams.size() > detail::GoldenReplay::kModels;
      std::vector<detail::Shards::Ending> endings;
      endings.reserve(streams.size());
      for (StreamEntry& e : streams)
        if (e.stream) endings.push_back({e.stream.get(), ++dispatch, crowded});
      front_log.at(dispatch, 2);
      shards->finish_all(std::move(endings));
    } else {
      for (StreamEntry& e : streams)
        if (e.stream) run(e, detail::Shards::Kind::Finish, Pkt{});
    }
    if (shards) {
      shards->close();
      judge.set_log(nullptr);
      std::vector<detail::JudgeLog*> logs = shards->logs();
      logs.push_back(&front_log);
      judge.replay(logs);
      detail::GoldenReplay::settle(judge, shards->replays());
    } else {
      detail::GoldenReplay::settle(judge, {&golden});
    }
    if (opts.events && !opts.reconstruct_only) {
      std::vector<const detail::Stream*> all;
      all.reserve(streams.size() + retired.size());
      for (const StreamEntry& e : streams)
        if (e.stream) all.push_back(e.stream.get());
      for (const auto& s : retired) all.push_back(s.get());
      detail::check_events(judge, *opts.events, all, last_frame_ts);
    }
    settle_rivals();
    std::size_t undecided = 0;
    std::uint64_t first_undecided = 0;
    for (const auto& [p, c] : unmarked_cnps) {
      if (!ce_marked.count({p.dst.b, p.src.b})) {
        if (undecided++ == 0) first_undecided = p.frame;
        continue;
      }
      cnp_violation(p, c, "never_marked", "no packet from {} to {} was marked CE before it");
    }
    if (undecided > 0)
      judge.note(NoteKind::Assumption, std::nullopt, first_undecided,
                 fmt::format("cnp.ce_marked not decided for {} CNPs: the capture shows no ECN CE "
                             "mark on their path at all, so the tap sits before the congestion "
                             "point (capture at the notification point to check CNPs)",
                             undecided));
    if (truncated > 0)
      judge.note(NoteKind::Truncated, std::nullopt, first_truncated,
                 fmt::format("{} RoCEv2 frames cut short by the capture were not judged; the "
                             "PSNs they carried count as gaps",
                             truncated));
    if (short_frames > 0)
      judge.note(NoteKind::Truncated, std::nullopt, first_short,
                 fmt::format("{} RoCEv2 frames are shorter than their IP header says though the "
                             "capture kept all their bytes (a tap or mirror port that truncates "
                             "frames, or a sender's wrong IP length); not judged, the PSNs they "
                             "carried count as gaps",
                             short_frames));
    if (report.rules[static_cast<std::size_t>(RuleId::KeySetup)].checked > 0)
      judge.note(NoteKind::Assumption, std::nullopt, 0,
                 fmt::format("key.setup: the MRs and QPs of {} are taken as the DUT's for the "
                             "whole capture; an rkey it does not list is refused, unless the host "
                             "has memory windows",
                             opts.setup->file));
    if (report.rules[static_cast<std::size_t>(RuleId::Z3Key)].checked > 0)
      judge.note(NoteKind::Assumption, std::nullopt, 0,
                 "z3.key: each rkey names one region with one set of rights between the "
                 "invalidations key.static sees (an MR or window is one contiguous range)");
    if (report.rules[static_cast<std::size_t>(RuleId::KeyStatic)].checked > 0)
      judge.note(NoteKind::Assumption, std::nullopt, 0,
                 "key.static: the responder's memory regions are taken as unchanged during the "
                 "capture except where SEND WITH INVALIDATE shows an invalidation" +
                     (keys.logged_keys() == 0
                          ? std::string()
                          : fmt::format(" or {} logs a change of the key ({} rkeys; accesses on "
                                        "either side of a change are not compared)",
                                        opts.events->file, keys.logged_keys())));
    if (idle_retired > 0)
      judge.note(
          NoteKind::Assumption, std::nullopt, first_idle_frame,
          fmt::format("{} request stream{} of QP pairs silent for more than {} s (the "
                      "retire_idle_ns of profile {}) {} judged at {} last frame, as at the "
                      "end of a capture, and then forgotten; a later frame of such a QP "
                      "pair starts a new connection",
                      idle_retired, idle_retired == 1 ? "" : "s",
                      static_cast<double>(opts.profile.retire_idle_ns) / 1e9, opts.profile.name,
                      idle_retired == 1 ? "was" : "were", idle_retired == 1 ? "its" : "their"));
    if (port_ruled_out_flows > 0)
      judge.note(NoteKind::Assumption, std::nullopt, first_port_ruled_out,
                 fmt::format("{} response flow{} not paired with a request stream whose PSNs "
                             "{} fit, because the UDP source ports differ: profile {} declares "
                             "one source port both ways of a QP pair (udp_source_port "
                             "per_qp_pair)",
                             port_ruled_out_flows, port_ruled_out_flows == 1 ? " was" : "s were",
                             port_ruled_out_flows == 1 ? "it" : "they", opts.profile.name));
    deviation_notes();
    // Compact: merged connections disappear, ids are renumbered. In place: a second vector of
    // them (about 3 KB each, their per-rule counts) is memory first touched here, which costs
    // more than the moves (docs/bench.md, session 33).
    std::vector<std::uint32_t> new_id(report.connections.size(), kNoConnection);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < report.connections.size(); ++i) {
      if (judge.resolve(static_cast<ConnIndex>(i)) != i) continue;
      new_id[i] = static_cast<std::uint32_t>(kept);
      if (kept != i) report.connections[kept] = std::move(report.connections[i]);
      report.connections[kept].id = new_id[i];
      ++kept;
    }
    report.connections.erase(report.connections.begin() + static_cast<std::ptrdiff_t>(kept),
                             report.connections.end());
    auto remap = [&](std::uint32_t c) {
      return c == kNoConnection ? c : new_id[judge.resolve(static_cast<ConnIndex>(c))];
    };
    for (Violation& v : report.violations) v.connection = remap(v.connection);
    // Some violations are decided at the end (requests after a fatal NAK): capture order.
    std::stable_sort(report.violations.begin(), report.violations.end(),
                     [](const Violation& a, const Violation& b) { return a.frame < b.frame; });
    for (Note& n : report.notes)
      if (n.connection) n.connection = remap(*n.connection);
    report.files = {file};
    report.settle();
    return std::move(report);
  }
};

std::vector<std::vector<FlowId>> Checker::flow_groups() const {
  const Impl& m = *impl_;
  std::vector<FlowId> ids;
  std::unordered_map<FlowKey, std::size_t, FlowHash> index;
  auto id_of = [&](const FlowKey& k) {
    auto [it, fresh] = index.try_emplace(k, ids.size());
    if (fresh) ids.push_back({k.src, k.dst, k.qpn});
    return it->second;
  };
  std::vector<std::size_t> parent;
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  auto unite = [&](std::size_t a, std::size_t b) {
    while (parent.size() < ids.size()) parent.push_back(parent.size());
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  std::vector<std::size_t> stream_ids(m.streams.size());
  for (const auto& [k, i] : m.stream_of) stream_ids[i] = id_of(k);
  for (const auto& [k, rf] : m.responses) {
    const std::size_t me = id_of(k);
    unite(me, me);
    if (rf.stream) unite(me, stream_ids[*rf.stream]);
    for (std::size_t s : rf.ever) unite(me, stream_ids[s]);  // never split what was ambiguous
  }
  for (const auto& [k, c] : m.other) unite(id_of(k), id_of(k));
  for (const auto& [k, u] : m.ud) unite(id_of(k.first), id_of(k.first));
  // CNPs are judged against the marks of everything between their two hosts: keep a host pair
  // that carries CNPs in one group.
  for (const auto& [k, c] : m.other) {
    for (const auto& [k2, i] : index)
      if ((k2.src == k.src && k2.dst == k.dst) || (k2.src == k.dst && k2.dst == k.src))
        unite(id_of(k), i);
  }
  while (parent.size() < ids.size()) parent.push_back(parent.size());
  std::vector<std::vector<FlowId>> groups;
  std::unordered_map<std::size_t, std::size_t> group_of;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto [it, fresh] = group_of.try_emplace(find(i), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(ids[i]);
  }
  return groups;
}

Checker::Checker(Options opts) : impl_(std::make_unique<Impl>(std::move(opts))) {}
Checker::~Checker() = default;

void Checker::add_frame(std::uint64_t frame, std::int64_t ts_ns, std::uint32_t wire_len,
                        std::span<const std::uint8_t> data, wire::LinkType link) {
  impl_->add(frame, ts_ns, wire_len, wire::decode(data, {link, impl_->opts.verify_icrc}));
}

void Checker::add_decoded(std::uint64_t frame, std::int64_t ts_ns, std::uint32_t wire_len,
                          const wire::ParsedFrame& decoded) {
  impl_->add(frame, ts_ns, wire_len, decoded);
}

Report Checker::finish(const std::string& file) {
  return impl_->finish(file);
}

}  // namespace rocecert::check
