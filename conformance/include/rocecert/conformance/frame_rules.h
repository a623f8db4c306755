// What an expected frame leaves to the implementation, written once for the generator (which
// marks it in a vector) and the runner (which honours it when it compares a device's frames with
// the model's): vectors/README.md, "frames".
#pragma once

#include <cstdint>
#include <optional>

#include "rocecert/qp/ids.h"
#include "rocecert/wire/headers.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::conformance {

// The fields of a responder's frame that ACK coalescing looks at.
struct AckView {
  std::uint8_t opcode = 0;
  std::optional<std::uint8_t> syndrome;  // the AETH's, when the frame has one
  std::uint32_t psn = 0;
};

// Whether `ack` is a plain ACK that `later`, a later frame of the same sender to the same QP,
// covers: an ACK, a NAK or a response whose AETH acknowledges at or after the ACK's PSN. Such an
// ACK a responder may coalesce away (IBA Vol. 1 §9.7.5.1.1; docs/spec-notes.md §3.4).
inline bool ack_covered_by(const AckView& ack, const AckView& later) {
  if (ack.opcode != wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE) || !ack.syndrome ||
      wire::aeth_kind(*ack.syndrome) != wire::AethKind::ACK)
    return false;
  if (!later.syndrome) return false;
  const wire::AethKind k = wire::aeth_kind(*later.syndrome);
  if (k != wire::AethKind::ACK && k != wire::AethKind::NAK) return false;
  return qp::psn_diff(qp::Psn(later.psn), qp::Psn(ack.psn)) >= 0;
}

}  // namespace rocecert::conformance
