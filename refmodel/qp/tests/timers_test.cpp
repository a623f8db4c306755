// The local ACK timeout and RNR timer tables, against the values typed from
// docs/spec-notes.md (§4.2 table, §5.1 list).
#include "rocecert/qp/timers.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace rocecert::qp {
namespace {

TEST(QpTimers, RnrTableIsTheIbaTable) {
  // IBTA Vol. 1 §9.7.5.2.8, Table 45; docs/spec-notes.md §4.2, in ms, times 100 (0.01 ms units).
  const std::uint64_t centi_ms[32] = {65536, 1,    2,    3,     4,     6,     8,     12,
                                      16,    24,   32,   48,    64,    96,    128,   192,
                                      256,   384,  512,  768,   1024,  1536,  2048,  3072,
                                      4096,  6144, 8192, 12288, 16384, 24576, 32768, 49152};
  for (std::uint8_t code = 0; code < 32; ++code) {
    const TimeNs want = centi_ms[code] * 10'000;  // 0.01 ms = 10'000 ns
    EXPECT_EQ(kRnrTimerNs[code], want) << int{code};
    EXPECT_EQ(rnr_timer_ns(code), want) << int{code};
  }
  EXPECT_EQ(rnr_timer_ns(0), 655'360'000u);  // code 0 = 655.36 ms
  EXPECT_EQ(rnr_timer_ns(25), 61'440'000u);  // 61.44 ms
  EXPECT_EQ(rnr_timer_ns(31), 491'520'000u);
  EXPECT_EQ(rnr_timer_ns(0x20 | 25), 61'440'000u);  // only the low 5 bits count
}

TEST(QpTimers, RxeCode25TypoIsAProfileDeviation) {
  EXPECT_EQ(rnr_timer_ns(25, true), 61'410'000u);  // rxe rnrnak_usec: 61410 us
  for (std::uint8_t code = 0; code < 32; ++code) {
    if (code == 25) continue;
    EXPECT_EQ(rnr_timer_ns(code, true), rnr_timer_ns(code)) << int{code};
  }
}

TEST(QpTimers, LocalAckTimeout) {
  EXPECT_EQ(local_ack_timeout_ns(0), kNoAckTimeout);  // 0 = infinite
  EXPECT_EQ(kNoAckTimeout, 0u);
  for (std::uint8_t t = 1; t < 32; ++t) {
    // 4.096 us * 2^t
    EXPECT_EQ(local_ack_timeout_ns(t), 4096ull * (1ull << t)) << int{t};
  }
  // A few of the values listed in docs/spec-notes.md §5.1 (IBTA Vol. 1 §9.7.6.1.3).
  EXPECT_EQ(local_ack_timeout_ns(1), 8'192u);               // 8.192 us
  EXPECT_EQ(local_ack_timeout_ns(7), 524'288u);             // 524.288 us
  EXPECT_EQ(local_ack_timeout_ns(14), 67'108'864u);         // 67.109 ms
  EXPECT_EQ(local_ack_timeout_ns(18), 1'073'741'824u);      // 1.074 s
  EXPECT_EQ(local_ack_timeout_ns(31), 8'796'093'022'208u);  // 8796.1 s
  EXPECT_EQ(local_ack_timeout_ns(32), kNoAckTimeout);       // refused by modify_qp anyway
}

}  // namespace
}  // namespace rocecert::qp
