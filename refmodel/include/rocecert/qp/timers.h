// The two 5-bit timer encodings of a QP, as constexpr tables in nanoseconds (one
// source of truth): the local ACK timeout (TIMEOUT, IBTA Vol. 1 §9.7.6.1.3, C9-140;
// docs/spec-notes.md §5.1) and the RNR NAK timer (MIN_RNR_TIMER and the AETH RNR code, IBTA Vol. 1
// §9.7.5.2.8, Table 45; docs/spec-notes.md §4.2).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "rocecert/qp/ids.h"

namespace rocecert::qp {

inline constexpr std::size_t kTimerCodeCount = 32;  // both encodings are 5 bits

// Local ACK timeout: 4.096 us * 2^timeout, i.e. 4096 ns << timeout; code 0 means no retransmit
// timer at all (IBTA Vol. 1 §9.7.6.1.3, C9-140; docs/spec-notes.md §5.1; rxe_qp_from_attr). Entry 0
// holds kNoAckTimeout.
inline constexpr TimeNs kNoAckTimeout = 0;
inline constexpr std::array<TimeNs, kTimerCodeCount> kLocalAckTimeoutNs = [] {
  std::array<TimeNs, kTimerCodeCount> t{};
  t[0] = kNoAckTimeout;
  for (std::size_t code = 1; code < kTimerCodeCount; ++code) t[code] = TimeNs{4096} << code;
  return t;
}();

// The timeout for a TIMEOUT code in ns, kNoAckTimeout (0) for "infinite". Codes above 31 are
// refused by modify_qp; here they also give kNoAckTimeout.
constexpr TimeNs local_ack_timeout_ns(std::uint8_t timeout) {
  return timeout < kTimerCodeCount ? kLocalAckTimeoutNs[timeout] : kNoAckTimeout;
}

// RNR NAK timer (IBA table, IBTA Vol. 1 §9.7.5.2.8, Table 45; docs/spec-notes.md §4.2): in units of
// 10 us the codes 1, 2, 3, ... give 1, 2, 3, 4, 6, 8, 12, 16, ... (even code c: 2^(c/2); odd code c
// >= 3: 3 * 2^((c-3)/2)), and code 0 is the longest delay, 2^16 units = 655.36 ms.
inline constexpr std::array<TimeNs, kTimerCodeCount> kRnrTimerNs = [] {
  std::array<TimeNs, kTimerCodeCount> t{};
  constexpr TimeNs kUnit = 10'000;  // 10 us
  t[0] = kUnit << 16;
  t[1] = kUnit;
  for (std::size_t code = 2; code < kTimerCodeCount; ++code) {
    t[code] = code % 2 == 0 ? kUnit << (code / 2) : 3 * (kUnit << ((code - 3) / 2));
  }
  return t;
}();

// rxe's rnrnak_usec table differs from the IBA values in one entry: code 25 is 61410 us instead
// of 61440 us (IBTA Vol. 1 §9.7.5.2.8, Table 45; docs/spec-notes.md §4.2, §11.3). Modelled as a
// profile deviation, never as the default.
inline constexpr std::uint8_t kRxeRnrTypoCode = 25;
inline constexpr TimeNs kRxeRnrTypoNs = 61'410'000;

// The RNR wait for a 5-bit code (only the low 5 bits are used, as in the AETH syndrome).
constexpr TimeNs rnr_timer_ns(std::uint8_t code, bool rxe_code25_typo = false) {
  const auto c = static_cast<std::size_t>(code & 0x1Fu);
  if (rxe_code25_typo && c == kRxeRnrTypoCode) return kRxeRnrTypoNs;
  return kRnrTimerNs[c];
}

}  // namespace rocecert::qp
