// What `rocecert check` found: the report every writer (text, JSON, JUnit) and `merge` work
// from. Plain data; docs/json.md §2 is the JSON contract built from it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/check/catalog.h"

namespace rocecert::check {

// In order of precedence: the overall verdict is the highest of its parts (docs/json.md §2).
enum class Verdict : std::uint8_t { PASS, DEVIATION, UNSUPPORTED, INCONCLUSIVE, FAIL };
std::string_view to_string(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view s);
Verdict worst(Verdict a, Verdict b);

// One end of a connection as the capture shows it. qpn is unknown for a requester whose
// responses were never paired with its requests.
struct Endpoint {
  std::string ip;
  std::optional<std::uint32_t> qpn;
};

struct RuleCount {
  std::uint64_t checked = 0;     // evaluated with a decided outcome
  std::uint64_t violations = 0;  // failed (Error rules: FAIL; Advisory: reported only)
  std::uint64_t deviations = 0;  // failed, but declared by the profile
  std::uint64_t explained = 0;   // failed, and the network explains it (a frame corrupted on the
                                 // link and resent): reported, not held against the device
};

// The model's view of the QP where a violation was found: enough to understand it without
// re-running. Absent fields were not known at that point.
struct StateSnapshot {
  std::optional<std::uint32_t> next_psn;        // the PSN the requester would send next
  std::optional<std::uint32_t> oldest_unacked;  // requester's oldest unacknowledged PSN
  std::optional<std::uint32_t> expected_psn;    // responder's expected PSN
  std::optional<std::uint32_t> msn;             // responder's MSN
  std::uint32_t outstanding = 0;                // PSNs sent and not acknowledged
  std::uint32_t outstanding_reads = 0;          // READ/atomic requests awaiting responses
  std::uint32_t retries = 0;                    // resends seen since the last progress
  std::uint32_t rnr_naks = 0;                   // RNR NAKs since the last progress
  std::string expected;  // what a conformant device would have sent or done, one line
};

// Violation::connection of a frame that belongs to no connection (a malformed frame, a response
// that could not be paired); JSON null.
inline constexpr std::uint32_t kNoConnection = 0xFFFFFFFFu;

struct Violation {
  RuleId rule;
  std::string cause;        // which case of the rule, e.g. "resumed_mid_read" (profiles key on it)
  bool deviation = false;   // declared by the profile: DEVIATION, not FAIL
  std::string explained;    // non-empty: what in the network explains it (no verdict effect)
  std::uint32_t file = 0;   // index in Report::files
  std::uint64_t frame = 0;  // 1-based, in that file
  std::uint32_t connection = 0;  // index in Report::connections, or kNoConnection
  std::uint32_t qpn = 0;         // the frame's destination QP
  std::uint32_t psn = 0;
  std::string message;  // one line: what was expected, what was seen
  StateSnapshot state;
};

// Why a verdict is INCONCLUSIVE or UNSUPPORTED, or which explanation of a gap was used.
enum class NoteKind : std::uint8_t {
  CaptureError,  // an explanation that needs the tap to have missed or duplicated frames
  Gap,           // a PSN never seen and never resent, a capture that starts mid-connection
  Truncated,     // frames cut short by the capture (snaplen)
  OneDirection,  // requests without any response, or responses without requests
  Unpaired,      // requests and responses could not be paired to one QP pair
  Unsupported,   // traffic the checker does not model (RD, XRC, ...)
  Assumption,    // an assumption the verdict rests on (static MR table, ...)
  Deviation,     // a profile deviation was applied
  Replay,        // what the golden replay compared, agreed on and resynchronised
};
std::string_view to_string(NoteKind k);
// What a note of this kind makes its connection's verdict (docs/json.md §2, "Verdicts").
Verdict verdict_of(NoteKind k);

struct Note {
  NoteKind kind;
  std::optional<std::uint32_t> connection;
  std::uint32_t file = 0;
  std::uint64_t frame = 0;  // 0: not tied to a frame
  std::string message;
};

struct Connection {
  std::uint32_t id = 0;
  std::string transport;  // "RC", "UC", "UD", "XRC", "RD", "CNP"
  Endpoint a, b;          // a: the end whose request the capture shows first
  std::uint64_t frames = 0;
  std::uint32_t capture_errors = 0;  // tap errors the explanations used (<= the budget)
  Verdict verdict = Verdict::PASS;
  std::array<RuleCount, kRuleCount> rules{};
  // The worst verdict of this connection's notes that the report does not list (past its bound
  // on notes), so that its verdict still counts them (settle); read back from JSON, the verdict
  // the report gave. Not written: the connection's verdict includes it.
  Verdict unlisted = Verdict::PASS;
};

struct Report {
  Verdict verdict = Verdict::PASS;
  std::string profile;  // the profile's name
  std::uint32_t max_capture_errors = 0;
  std::vector<std::string> files;
  std::uint64_t frames = 0;       // records read, over all files
  std::uint64_t roce_frames = 0;  // of which RoCEv2
  // A deque: a check adds connections one by one, and a vector's doublings moved and first
  // touched every 1.8 KB connection again (about a third of the checker's thread's fresh memory on
  // 6,300 connections, docs/bench.md).
  std::deque<Connection> connections;
  std::array<RuleCount, kRuleCount> rules{};
  std::vector<Violation> violations;  // capture order
  std::vector<Note> notes;

  // Recomputes every verdict (after merge): from the rule counts, which stay exact past the
  // bound on listed violations, and from the notes, listed or not (Connection::unlisted).
  void settle();
};

// Why a report with no RoCEv2 frame is INCONCLUSIVE (settle), as the text and JUnit reports say.
inline constexpr std::string_view kNoRoceFrames =
    "no RoCEv2 frame in the capture: nothing was judged";

// The report's violations and notes grouped by connection, each group in the report's order;
// the group at index connections.size() holds those of no connection. The writers go through a
// report connection by connection: a scan of every finding per connection cost 40 ms of a
// 6,300-connection report's text, all of it on one thread after the check.
struct ByConnection {
  std::vector<std::vector<const Violation*>> violations;
  std::vector<std::vector<const Note*>> notes;
};
ByConnection by_connection(const Report& r);

// Reports of separate runs as one (files appended, connections renumbered, verdicts settled).
Report merge(std::vector<Report> parts);

}  // namespace rocecert::check
