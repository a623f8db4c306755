// Fault injection on a simulated link (docs/faults.md): what a lossy, reordering, corrupting or
// ECN-marking network does to the frames between two adapters, declared as plain data.
//
// A FaultPlan has deterministic rules ("the 3rd RC_RDMA_WRITE_MIDDLE on QP 0x11 is dropped")
// and per-direction probabilities driven only by the plan's seed. The FaultInjector turns the
// plan into one decision per frame; Link (simulation.h) carries the decision out through the
// event queue. docs/faults.md describes the rule language and the determinism guarantee.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/sim/event_queue.h"
#include "rocecert/wire/bytes.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::model {

// What the link can do to a frame. The order is the order in which the injector draws its
// random numbers and in which a frame's fault events are reported.
enum class FaultAction : std::uint8_t { DROP, DUPLICATE, REORDER, DELAY, CORRUPT, ECN_CE };
inline constexpr std::size_t kFaultActionCount = 6;

std::string_view to_string(FaultAction a);  // "drop", "duplicate", ..., "ecn_ce"
bool fault_action_from_name(std::string_view name, FaultAction& out);

// The two directions of a link: A is the first adapter given to Simulation::connect.
enum class LinkDirection : std::uint8_t { A_TO_B = 0, B_TO_A = 1 };
std::string_view to_string(LinkDirection d);  // "a>b", "b>a"

// Opcode classes a rule can name instead of one opcode (from the opcode table, plus the AETH
// syndrome type for acknowledges: docs/spec-notes.md §4.1).
enum class OpcodeClass : std::uint8_t {
  ANY,
  REQUEST,   // every requester-to-responder opcode
  RESPONSE,  // every responder-to-requester opcode (READ responses and acknowledges)
  SEND,      // SEND_* of any transport
  WRITE,     // RDMA_WRITE_*
  READ_REQUEST,
  READ_RESPONSE,  // RDMA_READ_RESPONSE_{FIRST,MIDDLE,LAST,ONLY}
  ATOMIC,         // COMPARE_SWAP, FETCH_ADD
  ATOMIC_ACK,     // ATOMIC_ACKNOWLEDGE
  ACKNOWLEDGE,    // the ACKNOWLEDGE opcode, whatever its syndrome
  ACK,            // ACKNOWLEDGE with a positive-ACK syndrome (bits 6:5 = 00)
  NAK,            // ACKNOWLEDGE with a NAK or RNR NAK syndrome
  CNP,
};
std::string_view to_string(OpcodeClass c);  // "any", "request", ..., "read_response", "ack"
bool opcode_class_from_name(std::string_view name, OpcodeClass& out);

// Which frames a rule looks at. Every field that is set must match; an empty match takes
// every frame. Frames that do not decode as RoCEv2 match only a match that asks for nothing
// but a direction.
struct FrameMatch {
  std::optional<LinkDirection> direction;
  std::optional<std::uint8_t> opcode;  // a BTH opcode value (wire::opcode_from_name for names)
  OpcodeClass opcode_class = OpcodeClass::ANY;
  std::optional<wire::Position> position;  // FIRST / MIDDLE / LAST / ONLY
  std::optional<std::uint32_t> dest_qp;    // BTH DestQP
  std::optional<std::uint32_t> psn;        // BTH PSN
  std::optional<bool> ackreq;              // BTH AckReq
  friend bool operator==(const FrameMatch&, const FrameMatch&) = default;
};

// How a DELAY or REORDER is carried out (per rule, and per direction for random faults).
struct FaultTiming {
  sim::SimTime delay_ns = 10'000;      // DELAY: extra latency of the delayed frame alone ...
  sim::SimTime jitter_ns = 0;          // ... plus a seeded amount in [0, jitter_ns]
  std::uint32_t overtake = 1;          // REORDER: the held frame arrives after this many later ones
  sim::SimTime max_hold_ns = 100'000;  // REORDER: released anyway this long after it was due
  friend bool operator==(const FaultTiming&, const FaultTiming&) = default;
};

inline constexpr std::uint64_t kEveryOccurrence = UINT64_MAX;

// "The Nth frame (or frames first..last, or every frame) that matches `match` gets `action`."
// Occurrences count from 1, per rule, over every frame the link is handed in either direction
// the match allows, before any fault is applied.
struct FaultRule {
  FaultAction action = FaultAction::DROP;
  FrameMatch match;
  std::uint64_t first = 1;
  std::uint64_t last = kEveryOccurrence;
  FaultTiming timing;
  friend bool operator==(const FaultRule&, const FaultRule&) = default;

  static FaultRule nth(FaultAction a, FrameMatch m, std::uint64_t n) { return {a, m, n, n, {}}; }
  static FaultRule range(FaultAction a, FrameMatch m, std::uint64_t from, std::uint64_t to) {
    return {a, m, from, to, {}};
  }
  static FaultRule every(FaultAction a, FrameMatch m) { return {a, m, 1, kEveryOccurrence, {}}; }
};

// Independent per-frame probabilities for one direction, in [0, 1].
struct FaultRates {
  double drop = 0;
  double duplicate = 0;
  double reorder = 0;
  double delay = 0;
  double corrupt = 0;
  double ecn_ce = 0;
  FaultTiming timing;
  double of(FaultAction a) const;
  bool any() const;
  friend bool operator==(const FaultRates&, const FaultRates&) = default;
};

struct FaultPlan {
  std::uint64_t seed = 1;
  FaultRates a_to_b;
  FaultRates b_to_a;
  std::vector<FaultRule> rules;  // checked in order, before the probabilities

  const FaultRates& rates(LinkDirection d) const {
    return d == LinkDirection::A_TO_B ? a_to_b : b_to_a;
  }
  bool empty() const { return rules.empty() && !a_to_b.any() && !b_to_a.any(); }
  friend bool operator==(const FaultPlan&, const FaultPlan&) = default;
};

// The rule language (docs/faults.md): an action, then space-separated key=value terms, e.g.
//   "drop opcode=RC_RDMA_WRITE_MIDDLE qp=0x11 nth=3"
//   "corrupt class=read_response psn=0x102"
//   "reorder dir=a>b class=send nth=2..4 overtake=2"
// format_rule() writes the canonical text, which parse_fault_rule() reads back unchanged.
struct RuleParseResult {
  FaultRule rule;
  std::string error;  // empty on success, else what is wrong and where
  bool ok() const { return error.empty(); }
};
RuleParseResult parse_fault_rule(std::string_view text);
std::string format_rule(const FaultRule& rule);

// One fault that fired on a frame: the action and what decided it ("rule 0: drop nth=1",
// "random p=0.05"). `source` points into the injector and lives as long as it does.
struct FiredFault {
  FaultAction action = FaultAction::DROP;
  std::string_view source;
};

// What happens to one frame. The link carries out the timing and applies the byte faults
// (apply_byte_faults) after it has reported the frame as it was handed over.
struct FaultDecision {
  bool drop = false;
  unsigned copies = 1;              // 2 when duplicated
  sim::SimTime extra_delay_ns = 0;  // DELAY (with its jitter)
  bool hold = false;                // REORDER: wait for `hold_timing.overtake` later frames
  FaultTiming hold_timing;
  bool corrupt = false;
  std::uint64_t corrupt_draw = 0;  // picks the bit corrupt_frame flips
  bool ecn_ce = false;
  std::vector<FiredFault> fired;  // in FaultAction order; only DROP when dropped
  bool any() const { return !fired.empty(); }
};

// Per-direction counts of the faults that fired.
struct FaultCounts {
  std::uint64_t frames = 0;  // frames handed to the link
  std::array<std::uint64_t, kFaultActionCount> fired{};
  std::uint64_t of(FaultAction a) const { return fired[static_cast<std::size_t>(a)]; }
};

// Decides the fate of every frame of one link from a FaultPlan. Determinism (docs/faults.md):
// direction d has its own SplitMix64 stream, derived from the seed; the k-th frame in d (from
// 0) always uses values 8k..8k+7 of it, one per action plus one for the jitter and one for
// the corrupted bit, whether or not anything uses them. Random decisions are therefore a pure
// function of (seed, direction, k): rules, probabilities of other actions and the other
// direction never shift them.
class FaultInjector {
 public:
  explicit FaultInjector(FaultPlan plan = {});

  const FaultPlan& plan() const { return plan_; }
  const FaultCounts& counts(LinkDirection d) const { return counts_[static_cast<std::size_t>(d)]; }

  // Decides what happens to the next frame sent in direction `d` and counts it. The frame is
  // not changed: apply_byte_faults() does that.
  FaultDecision decide(LinkDirection d, wire::ByteSpan frame);

 private:
  FaultPlan plan_;
  std::array<std::uint64_t, 2> stream_seed_{};
  std::vector<std::uint64_t> rule_hits_;  // matching frames seen, per rule
  std::vector<std::string> rule_text_;    // "rule 0: drop nth=1", per rule
  std::array<std::array<std::string, kFaultActionCount>, 2> random_text_;  // "random p=0.05"
  std::array<FaultCounts, 2> counts_{};
};

// Applies a decision's CORRUPT and ECN_CE to the frame it was made for.
void apply_byte_faults(const FaultDecision& decision, wire::MutableByteSpan frame);

// Sets the ECN field of a RoCEv2 frame's IPv4 TOS or IPv6 traffic class to CE (11) and, for
// IPv4, recomputes the header checksum. The ICRC masks that byte (IBTA Vol. 1 Annex A17.4.5.2,
// A17.9, §7.8, Annex A17.4; docs/spec-notes.md §1.4, §1.8), so it stays valid. False (frame
// unchanged) when the frame is not IP.
bool mark_ecn_ce(wire::MutableByteSpan frame);

// Flips one bit that only the ICRC can catch: in the BTH's AckReq/Resv7/PSN bytes, the
// extended headers after the addressing ones (RDETH, DETH, XRCETH stay intact), the payload,
// the pad or the ICRC itself. Never a variant field, never a byte that decides whether the
// frame is RoCEv2, whom it is for or how it decodes. `draw` picks the bit. Returns the byte
// offset flipped, or nullopt (frame unchanged) for a frame that does not decode as RoCEv2.
std::optional<std::size_t> corrupt_frame(wire::MutableByteSpan frame, std::uint64_t draw);

}  // namespace rocecert::model
