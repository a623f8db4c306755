// A DUT profile: what an implementation is known to do differently from the IBTA text, with
// the justification, so that `rocecert check` reports it as DEVIATION instead of FAIL; plus
// the few tolerances the checker needs. Profiles are JSON files (docs/profiles.md); `rxe` and
// `iba` are built in (profiles/*.json, compiled into the tool).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/check/catalog.h"

namespace rocecert::check {

struct Deviation {
  RuleId rule;
  std::string cause;  // the violation's cause it covers; "*" covers every cause of the rule
  std::string justification;
  std::string reference;  // where the DUT's behaviour is documented (driver source, erratum)
};

// What `rocecert vectors run --profile` accepts from the device in a vector (docs/profiles.md,
// "Vector deviations"): a FAILed vector whose id matches one of `vectors` and every one of
// whose differences matches one of `differences` is a DEVIATION. Both are shell patterns
// (fnmatch(3)); a difference is matched from its step on ("steps[59].async_events.A:
// unexpected asynchronous event #0: SQ_DRAINED (0xab)"), without what precedes it (the file).
struct VectorDeviation {
  std::vector<std::string> vectors;
  std::vector<std::string> differences;
  std::string cause;
  std::string justification;
  std::string reference;
};

struct Profile {
  std::string name;
  std::string description;
  // Tap errors (frames the capture missed or duplicated) an explanation may assume, per
  // connection, before a violation is a FAIL.
  std::uint32_t max_capture_errors = 0;
  // A request that left the requester before a fatal NAK reached it may still pass the tap
  // after the NAK: requests up to this long after the NAK are not held against it.
  std::uint64_t fatal_nak_grace_ns = 1'000'000;
  // Timestamp tolerance of the tap when measuring a requester's RNR wait.
  std::uint64_t timing_tolerance_ns = 100'000;
  // How much sooner than the QP's local ACK timeout the device's timer may fire (a timer that
  // counts in clock ticks fires up to one tick early): psn.timeout, with --setup.
  std::uint64_t timer_slack_ns = 0;
  // A QP pair that shows no frame, in either direction, for longer than this (capture time) is
  // judged as if the capture ended at its last frame and its state is freed, so that memory
  // follows the connections alive at once, not every connection the capture ever had; a later
  // frame of the pair starts a new connection. Longer than the device's longest local ACK
  // timeout, so that a silent requester with something outstanding has given up by then.
  // 0: never (every connection kept to the end of the capture).
  std::uint64_t retire_idle_ns = 10'000'000'000;
  // The golden replay's responder: "iba" or "rxe", the model's error profile (which answer an
  // error gets where the IBTA text and rxe differ; docs/errors.md).
  std::string model = "iba";
  // The device's UDP source port policy for connected QPs (IBTA Vol. 1 Annex A17.4 leaves the
  // port to the implementation). PerQpPair: both directions of an RC/UC QP pair carry one
  // source port, the same for the pair's life (rxe since Linux 5.18: rdma_get_udp_sport()
  // folds a flow label derived from the product of the two QPNs; docs/spec-notes.md §1.3).
  // The pairing of responses with request streams then takes a differing port as proof that a
  // response does not answer a stream (docs/check.md, "Pairing"); Any: the port says nothing.
  enum class UdpSourcePort : std::uint8_t { Any, PerQpPair };
  UdpSourcePort udp_source_port = UdpSourcePort::Any;
  std::vector<Deviation> deviations;
  std::vector<VectorDeviation> vector_deviations;

  // The deviation that covers this violation, or nullptr.
  const Deviation* covers(RuleId rule, std::string_view cause) const;
  // The declaration that covers every difference of this failed vector, or nullptr.
  const VectorDeviation* covers_vector(std::string_view id,
                                       const std::vector<std::string>& differences) const;
};

class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses a profile; errors name `source` and the JSON byte offset or key.
Profile parse_profile(std::string_view json, const std::string& source);
// "rxe", "iba" (built in), or the path of a profile file.
Profile load_profile(const std::string& name_or_path);
// The built-in profiles' names and JSON text.
std::vector<std::pair<std::string_view, std::string_view>> builtin_profiles();

}  // namespace rocecert::check
