// Internal pieces of the checker shared by its files: the compact packet every rule reads, and
// the Judge that counts checks and collects violations, explanations and notes.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "rocecert/check/checker.h"
#include "rocecert/errors/error_table.h"
#include "rocecert/qp/ids.h"
#include "rocecert/wire/decode.h"

namespace rocecert::check::detail {

// 24-bit serial arithmetic of the model (docs/spec-notes.md §3.1): one source for PSN and MSN.
inline std::int32_t pdiff(std::uint32_t a, std::uint32_t b) {
  return qp::psn_diff(qp::Psn(a), qp::Psn(b));
}
// Raises `top` to `psn` when it is unset or `psn` comes later (24-bit serial order).
inline void raise_psn(std::optional<std::uint32_t>& top, std::uint32_t psn) {
  if (!top || pdiff(psn, *top) > 0) top = psn;
}
inline std::uint32_t padd(std::uint32_t a, std::int64_t n) {
  return static_cast<std::uint32_t>((static_cast<std::int64_t>(a) + n) & 0xFFFFFF);
}

struct IpAddr {
  std::array<std::uint8_t, 16> b{};
  std::uint8_t version = 4;
  friend bool operator==(const IpAddr&, const IpAddr&) = default;
  std::string str() const;
};

// What the rules read of a RoCEv2 frame; copied (not a view) so that frames can be held while
// a pairing is undecided.
struct Pkt {
  std::uint64_t frame = 0;
  std::int64_t ts = 0;  // ns
  IpAddr src, dst;
  std::uint16_t ip_id = 0;
  std::uint8_t ecn = 0;
  wire::Bth bth{};
  const wire::OpcodeInfo* op = nullptr;
  wire::Reth reth{};
  wire::AtomicEth atomic{};
  wire::Aeth aeth{};
  wire::AtomicAckEth atomic_ack{};
  wire::Deth deth{};
  wire::Ieth ieth{};
  wire::Feth feth{};
  std::uint32_t payload_len = 0;
  std::uint32_t icrc = 0;
  bool icrc_ok = true;
  std::uint16_t udp_sport = 0;  // (in the padding after icrc_ok)
  // RC requests: the generation of the rkey they name (KeyEpochs::get), set by the checker when
  // it hands the request to its stream, so that every stream sees one order of invalidations.
  std::uint32_t key_epoch = 0;
  // RC requests: the --events log shows the sending QP in ERR (or RESET) before the tap saw this
  // frame, so it left the QP before that and was held up on the way (a QP in ERR sends nothing).
  bool sender_stopped = false;
  // RC requests: the --events log shows the rkey they name deregistered or invalidated before
  // (KeyEpochs::dead), so they must be refused.
  bool key_dead = false;
  // RC responses: the first one a stream gets after the checker paired its flow, when the flow
  // had responses before (taken as answers to requests the capture does not show): the highest
  // MSN they carried, and the highest PSN. The capture began mid-connection.
  std::optional<std::uint32_t> earlier_msn, earlier_psn;

  std::uint32_t psn() const { return bth.psn; }
  bool has(wire::Header h) const { return op != nullptr && op->has(h); }
  // What a duplicate by the link or the tap has the same (IPv4 id included): kept on its own
  // where a frame is remembered only to recognise its copies.
  struct CopyKey {
    std::uint32_t icrc = 0;
    std::uint16_t ip_id = 0;
    std::uint32_t payload_len = 0;
    wire::Bth bth{};
    bool operator==(const CopyKey&) const = default;
  };
  CopyKey copy_key() const { return {icrc, ip_id, payload_len, bth}; }
  bool same_frame(const Pkt& o) const { return copy_key() == o.copy_key(); }
};

// Bounds on what a report stores (the counts stay exact beyond them).
inline constexpr std::size_t kMaxViolations = 100'000;
inline constexpr std::size_t kMaxNotes = 10'000;

// Index of a connection inside the checker (merged connections forward to their survivor).
using ConnIndex = std::uint32_t;

// The capture-error budget of a connection (Profile::max_capture_errors): what its request
// streams' explanations used. The two streams of one QP pair share one (Checker::Impl merges
// them when it pairs the directions).
struct Budget {
  std::uint32_t used = 0;
};

// Sharded checking (Options::jobs >= 2, shards.h): what a Judge finds away from the report. Each
// event carries its place in the single-thread order: the dispatch it came from (the checker
// numbers what it hands to the streams), its phase (1: a stream's work on that dispatch, 2: the
// checker's own work after it) and its rank there. Judge::replay puts every log's events into
// the report in that order, so the report is the one a single thread writes.
struct JudgeLog {
  struct Key {
    std::uint64_t dispatch = 0;
    std::uint8_t phase = 0;
    std::uint32_t rank = 0;
    auto operator<=>(const Key&) const = default;
  };
  enum class Kind : std::uint8_t { Violation, Note, Explain, ExplainViolation };
  struct Event {
    Key key;
    Kind kind = Kind::Note;
    std::optional<ConnIndex> conn;  // as the finder named it (resolved at replay)
    Violation violation;            // Violation
    Note note;                      // Note, Explain
    std::uint32_t errors = 0;       // Explain: tap errors assumed
    std::uint16_t ticket_log = 0;   // ExplainViolation: the violation explained
    std::size_t ticket_index = SIZE_MAX;
    RuleId ticket_rule{};
    bool ticket_deviation = false;
    std::optional<ConnIndex> ticket_conn;
  };

  explicit JudgeLog(std::uint16_t log_id) : id(log_id) {}
  Key next_key() { return {dispatch, phase, rank++}; }
  void at(std::uint64_t d, std::uint8_t ph) {
    if (d != dispatch || ph != phase) rank = 0;
    dispatch = d;
    phase = ph;
  }

  std::uint16_t id;
  std::uint64_t dispatch = 0;
  std::uint8_t phase = 0;
  std::uint32_t rank = 0;
  std::vector<Event> events;
  std::size_t violations_kept = 0;  // at most kMaxViolations (the rest are only counted)
  std::size_t notes_kept = 0;       // of connections' notes, at most kMaxNotes
  // Per connection index as the finder named it: the worst verdict of its notes past the bound
  // (Connection::unlisted).
  std::unordered_map<ConnIndex, Verdict> unlisted;
  // A shard's counts (they commute: added to the report at the end), per rule and per
  // connection index as the finder named it. A shard runs a part of the connections: each has
  // its 1.6 KB of counts only in the shards that ran it (`slot` is dense, 4 bytes an index).
  // Arrays for every index up to the highest cost a two-job check 20 MB of first-touched
  // memory on 6,300 connections, half of it on the checker's own thread (docs/bench.md).
  bool counts = false;
  std::array<RuleCount, kRuleCount> rules{};
  using ConnCounts = std::array<RuleCount, kRuleCount>;
  std::vector<std::uint32_t> slot;  // per connection index: 1 + its place in `conns`; 0: none
  std::deque<ConnCounts> conns;     // a deque: no copy of the arrays as it grows
  std::vector<ConnIndex> conn_of;   // the connection index of each of `conns`
  RuleCount& conn_count(ConnIndex c, RuleId r) {
    if (slot.size() <= c) slot.resize(std::size_t{c} + 1, 0);
    std::uint32_t& s = slot[c];
    if (s == 0) {
      conns.emplace_back();
      conn_of.push_back(c);
      s = static_cast<std::uint32_t>(conns.size());
    }
    return conns[s - 1][static_cast<std::size_t>(r)];
  }
};

class Judge {
 public:
  // The checker's Judge: writes the report.
  Judge(const Options& opts, Report& report) : opts_(opts), report_(&report) {}
  // A shard's Judge (shards.h): everything goes to `log`, counts included.
  Judge(const Options& opts, JudgeLog& log) : opts_(opts), log_(&log) { log.counts = true; }

  // Connections (the checker's Judge only).
  ConnIndex new_connection(std::string transport, Endpoint a, Endpoint b);
  // `from` joins `into` (both ends of one QP pair seen as two request streams).
  void merge_connections(ConnIndex into, ConnIndex from);
  ConnIndex resolve(ConnIndex c) const;
  Connection& conn(ConnIndex c) { return report_->connections[resolve(c)]; }

  void checked(RuleId r, std::optional<ConnIndex> c) {  // hot: inline
    const auto i = static_cast<std::size_t>(r);
    if (log_ != nullptr && log_->counts) {
      ++log_->rules[i].checked;
      if (c) ++log_->conn_count(*c, r).checked;
      return;
    }
    ++report_->rules[i].checked;
    if (c) ++report_->connections[forward_[*c]].rules[i].checked;
  }
  void checked(RuleId r, ConnIndex c, std::uint64_t n);  // n checks at once
  // A violation of `r` at `p`; a profile deviation turns it into a DEVIATION.
  void violation(RuleId r, std::string_view cause, const Pkt& p, std::optional<ConnIndex> c,
                 std::string message, StateSnapshot state = {});
  // An explanation that needs `errors` tap errors (missed or duplicated frames). Within the
  // budget it is recorded as a note (the verdict becomes INCONCLUSIVE) and true is returned;
  // beyond it, false: the caller reports the violation.
  bool explain(ConnIndex c, Budget& budget, std::uint32_t errors, const Pkt& p,
               const std::string& message);
  // A handle on the last violation reported (stored or not: the report keeps a bounded list).
  struct Ticket {
    std::size_t index =
        SIZE_MAX;  // in Report::violations (or the log's events), SIZE_MAX: not kept
    RuleId rule{};
    bool deviation = false;
    std::optional<ConnIndex> conn;
    bool valid = false;
    std::uint16_t log = 0;  // the JudgeLog it was logged in (Judges with a log)
  };
  Ticket last_violation() const { return last_; }
  // Marks a violation as explained by the network (`why`): it moves from the violation count to
  // the explained count and no longer affects a verdict.
  void explain_violation(const Ticket& t, std::string why);
  // Every violation and deviation of connection `c` so far, explained by `why` (the checker's
  // Judge, once every log is in the report).
  void explain_connection(ConnIndex c, const std::string& why);
  void note(NoteKind kind, std::optional<ConnIndex> c, std::uint64_t frame, std::string message);
  void count_frame(ConnIndex c) { ++conn(c).frames; }

  // The checker's Judge while shards run: its violations, notes and explanations go to `log`
  // (counts still to the report), to take their place among the shards'; nullptr: back to the
  // report.
  void set_log(JudgeLog* log) { log_ = log; }
  // Puts the logs' events into the report in their single-thread order, and the shards' counts
  // (the checker's Judge, without a log, once every shard has finished).
  void replay(const std::vector<JudgeLog*>& logs);

  const Options& options() const { return opts_; }

 private:
  void keep(Violation v, std::optional<ConnIndex> c);  // into the report (counted already)
  void count_violation(RuleId r, bool deviation, std::optional<ConnIndex> c);

  const Options& opts_;
  Report* report_ = nullptr;
  JudgeLog* log_ = nullptr;
  std::vector<ConnIndex> forward_;  // forward_[i] == i for a survivor
  Ticket last_;
};

inline bool is_atomic(wire::Operation op) {
  return op == wire::Operation::COMPARE_SWAP || op == wire::Operation::FETCH_ADD;
}
// FLUSH and ATOMIC WRITE (IBA 1.5): single-packet requests answered by a READ RESPONSE ONLY
// with no payload at their PSN (docs/spec-notes.md §2.1, §4.5; rxe_resp.c, the FLUSH and
// ATOMIC WRITE replies).
inline bool is_placement(wire::Operation op) {
  return op == wire::Operation::FLUSH || op == wire::Operation::ATOMIC_WRITE;
}

// The golden model's error profile a check profile names ("model": "rxe" or "iba").
inline errors::ErrorProfile model_error_profile(const Profile& p) {
  return p.model == "rxe" ? errors::ErrorProfile::RXE : errors::ErrorProfile::IBA;
}

// Wire rules: everything one frame shows (wire.*, ack.syndrome, cnp.format). `conn` is the
// frame's connection when known.
void check_frame_rules(Judge& j, const wire::ParsedFrame& f, const Pkt& p,
                       std::optional<ConnIndex> conn);

}  // namespace rocecert::check::detail
