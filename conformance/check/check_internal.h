// Internal pieces of the checker shared by its files: the compact packet every rule reads, and
// the Judge that counts checks and collects violations, explanations and notes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
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

  std::uint32_t psn() const { return bth.psn; }
  bool has(wire::Header h) const { return op != nullptr && op->has(h); }
  // Same bytes as far as a duplicate by the link or the tap goes (IPv4 id included).
  bool same_frame(const Pkt& o) const {
    return icrc == o.icrc && ip_id == o.ip_id && bth == o.bth && payload_len == o.payload_len;
  }
};

// Bounds on what a report stores (the counts stay exact beyond them).
inline constexpr std::size_t kMaxViolations = 100'000;
inline constexpr std::size_t kMaxNotes = 10'000;

// Index of a connection inside the checker (merged connections forward to their survivor).
using ConnIndex = std::uint32_t;

class Judge {
 public:
  Judge(const Options& opts, Report& report) : opts_(opts), report_(report) {}

  ConnIndex new_connection(std::string transport, Endpoint a, Endpoint b);
  // `from` joins `into` (both ends of one QP pair seen as two request streams).
  void merge_connections(ConnIndex into, ConnIndex from);
  ConnIndex resolve(ConnIndex c) const;
  Connection& conn(ConnIndex c) { return report_.connections[resolve(c)]; }

  void checked(RuleId r, std::optional<ConnIndex> c) {  // hot: inline
    const auto i = static_cast<std::size_t>(r);
    ++report_.rules[i].checked;
    if (c) ++report_.connections[forward_[*c]].rules[i].checked;
  }
  void checked(RuleId r, ConnIndex c, std::uint64_t n) {  // n checks at once
    report_.rules[static_cast<std::size_t>(r)].checked += n;
    conn(c).rules[static_cast<std::size_t>(r)].checked += n;
  }
  // A violation of `r` at `p`; a profile deviation turns it into a DEVIATION.
  void violation(RuleId r, std::string_view cause, const Pkt& p, std::optional<ConnIndex> c,
                 std::string message, StateSnapshot state = {});
  // An explanation that needs `errors` tap errors (missed or duplicated frames). Within the
  // connection's budget it is recorded as a note (the verdict becomes INCONCLUSIVE) and true is
  // returned; beyond it, false: the caller reports the violation.
  bool explain(ConnIndex c, std::uint32_t errors, const Pkt& p, const std::string& message);
  // A handle on the last violation reported (stored or not: the report keeps a bounded list).
  struct Ticket {
    std::size_t index = SIZE_MAX;  // in Report::violations, SIZE_MAX when not stored
    RuleId rule{};
    bool deviation = false;
    std::optional<ConnIndex> conn;
    bool valid = false;
  };
  Ticket last_violation() const { return last_; }
  // Marks a violation as explained by the network (`why`): it moves from the violation count to
  // the explained count and no longer affects a verdict.
  void explain_violation(const Ticket& t, std::string why);
  void note(NoteKind kind, std::optional<ConnIndex> c, std::uint64_t frame, std::string message);
  void count_frame(ConnIndex c) { ++conn(c).frames; }

  const Options& options() const { return opts_; }

 private:
  const Options& opts_;
  Report& report_;
  std::vector<ConnIndex> forward_;  // forward_[i] == i for a survivor
  Ticket last_;
};

// The golden model's error profile a check profile names ("model": "rxe" or "iba").
inline errors::ErrorProfile model_error_profile(const Profile& p) {
  return p.model == "rxe" ? errors::ErrorProfile::RXE : errors::ErrorProfile::IBA;
}

// Wire rules: everything one frame shows (wire.*, ack.syndrome, cnp.format). `conn` is the
// frame's connection when known.
void check_frame_rules(Judge& j, const wire::ParsedFrame& f, const Pkt& p,
                       std::optional<ConnIndex> conn);

}  // namespace rocecert::check::detail
