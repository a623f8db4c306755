// `rocecert mutate`: semantic mutations of a capture (docs/mutate.md). Each forbidden kind
// records the rule of `rocecert check` that must catch it; each control changes only what a
// router, a lossy link or a tap may change, and must never be judged FAIL. Every frame a
// mutation touches is re-encoded consistently (IPv4 header checksum, IP and UDP lengths, ICRC)
// unless breaking one of them is the mutation itself.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/wire/decode.h"

namespace rocecert::mutate {

enum class Kind : std::uint8_t {
#define ROCECERT_MUTATION(name, rule, description) name,
#include "rocecert/mutate/mutations.def"
#undef ROCECERT_MUTATION
};

inline constexpr std::size_t kKindCount = 0
#define ROCECERT_MUTATION(name, rule, description) +1
#include "rocecert/mutate/mutations.def"
#undef ROCECERT_MUTATION
    ;

inline constexpr std::string_view kControl = "control";

struct KindInfo {
  Kind kind;
  std::string_view name;
  std::string_view rule;  // a rule id of rules.def, or "control"
  std::string_view description;
  bool control() const { return rule == kControl; }
};

const std::array<KindInfo, kKindCount>& kinds();
const KindInfo& info(Kind k);
std::optional<Kind> find_kind(std::string_view name);

struct Frame {
  std::int64_t ts_ns = 0;
  std::uint32_t orig_len = 0;  // length on the wire; equals data.size() for a whole frame
  std::vector<std::uint8_t> data;
};

struct Capture {
  int linktype = 1;  // LINKTYPE_* value, kept in the output
  wire::LinkType link = wire::LinkType::Ethernet;
  std::vector<Frame> frames;
};

// Reads a whole capture (pcap or pcapng); throws pcap::CaptureError.
Capture read_capture(const std::string& path);
// Writes a classic pcap with nanosecond timestamps and the capture's link type.
void write_capture(const Capture& capture, const std::string& path);

// One thing a mutation changed. `frame` is the 1-based number of the frame in the output;
// `field` names what changed ("bth.psn"), or is "inserted" (`to` says what the new frame is) or
// "removed" (`from` names the input frame, `frame` the output frame that now follows it).
struct Change {
  std::uint64_t frame = 0;
  std::string field;
  std::string from;
  std::string to;
};

struct Result {
  Capture capture;
  std::vector<Change> changes;
  // For each output frame, the 0-based index of the input frame whose bytes it carries (also
  // when it was moved or swapped), or -1 for a frame the mutation inserted. Frames not named in
  // `changes` are byte-identical to their origin and keep its timestamp.
  std::vector<std::int64_t> origin;
};

// No frame of the capture is eligible for the kind (exit 3 in the CLI).
class NoEligibleFrame : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Applies `kind` to `in`. The seed picks among the eligible frames; the same capture, kind and
// seed give the same output. Throws NoEligibleFrame (its message names the kind; the caller
// adds the file).
Result apply(const Capture& in, Kind kind, std::uint64_t seed);

// "frame 12: bth.psn 300 -> 5300", "frame 3: inserted: ...", "before frame 7: removed ...".
std::string to_string(const Change& c);

}  // namespace rocecert::mutate
