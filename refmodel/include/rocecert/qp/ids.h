// Strong types for the per-QP numbers: PSN and MSN are 24-bit serial numbers, a QPN
// is a 24-bit identifier, and PD/CQ/SRQ ids are opaque handles of different kinds that must not
// be mixed up. Time is integer nanoseconds (simulated, never the wall clock).
//
// These live in the qp block because it is the first block that needs them; they depend on
// nothing else and can move to a shared header without changing their spelling.
#pragma once

#include <compare>
#include <cstdint>

namespace rocecert::qp {

// Simulated time and durations, integer nanoseconds.
using TimeNs = std::uint64_t;
// A timer deadline that is not armed.
inline constexpr TimeNs kNoDeadline = UINT64_MAX;

// 24-bit Packet Sequence Number with serial arithmetic (docs/spec-notes.md §3.1).
class Psn {
 public:
  static constexpr std::uint32_t kMask = 0xFFFFFFu;
  static constexpr std::uint32_t kHalf = 0x800000u;  // 2^23

  constexpr Psn() = default;
  // Takes the low 24 bits; callers that must reject wider values check before constructing.
  constexpr explicit Psn(std::uint32_t v) : value_(v & kMask) {}

  constexpr std::uint32_t value() const { return value_; }
  constexpr Psn operator+(std::uint32_t n) const { return Psn(value_ + n); }
  constexpr Psn operator-(std::uint32_t n) const { return Psn(value_ - n); }
  constexpr Psn& operator+=(std::uint32_t n) { return *this = *this + n; }
  constexpr Psn& operator++() { return *this = *this + 1u; }
  friend constexpr bool operator==(Psn, Psn) = default;

 private:
  std::uint32_t value_ = 0;
};

// Signed serial distance a - b in [-2^23, 2^23 - 1]. This is rxe's psn_compare (docs/spec-notes.md
// §3.1): (a - b) mod 2^24 in [1, 2^23 - 1] is "after", [2^23, 2^24 - 1] is "before", so the
// boundary value +2^23 reads as -2^23 ("before"). No ordering operators on Psn, on purpose.
constexpr std::int32_t psn_diff(Psn a, Psn b) {
  const std::uint32_t d = (a.value() - b.value()) & Psn::kMask;
  return d >= Psn::kHalf ? static_cast<std::int32_t>(d) - static_cast<std::int32_t>(Psn::kMask + 1)
                         : static_cast<std::int32_t>(d);
}
constexpr bool psn_after(Psn a, Psn b) {
  return psn_diff(a, b) > 0;
}
constexpr bool psn_before(Psn a, Psn b) {
  return psn_diff(a, b) < 0;
}

// 24-bit Message Sequence Number (AETH bytes 1-3, docs/spec-notes.md §3.5). Wraps like a PSN.
class Msn {
 public:
  static constexpr std::uint32_t kMask = 0xFFFFFFu;
  constexpr Msn() = default;
  constexpr explicit Msn(std::uint32_t v) : value_(v & kMask) {}
  constexpr std::uint32_t value() const { return value_; }
  constexpr Msn& operator++() {
    value_ = (value_ + 1u) & kMask;
    return *this;
  }
  friend constexpr bool operator==(Msn, Msn) = default;

 private:
  std::uint32_t value_ = 0;
};

// 24-bit Queue Pair Number (BTH DestQP, DETH SrcQP). QPN 0 (SMI) and 1 (GSI) are reserved and
// 0xFFFFFF is the multicast QPN (docs/spec-notes.md §1.9 check 4, §9.1).
class Qpn {
 public:
  static constexpr std::uint32_t kMask = 0xFFFFFFu;
  static constexpr std::uint32_t kMulticast = 0xFFFFFFu;
  constexpr Qpn() = default;
  constexpr explicit Qpn(std::uint32_t v) : value_(v & kMask) {}
  constexpr std::uint32_t value() const { return value_; }
  friend constexpr auto operator<=>(Qpn, Qpn) = default;

 private:
  std::uint32_t value_ = 0;
};

// Opaque handles owned by other blocks (mem: PD; cq: CQ; the model's SRQ and AH tables).
// Distinct types so a CQ id can never be passed where a PD id is expected.
template <typename Tag>
struct Handle {
  std::uint32_t value = 0;
  friend constexpr auto operator<=>(Handle, Handle) = default;
};
struct PdTag;
struct CqTag;
struct SrqTag;
struct AhTag;
using PdId = Handle<PdTag>;
using CqId = Handle<CqTag>;
using SrqId = Handle<SrqTag>;
using AhId = Handle<AhTag>;  // an address handle (ibv_create_ah), named by UD send WRs

}  // namespace rocecert::qp
