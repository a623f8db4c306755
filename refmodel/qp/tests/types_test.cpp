// Enum values against the verbs values (docs/spec-notes.md §6.1), names, MTU conversion and the
// strong PSN/MSN/QPN types (docs/spec-notes.md §3.1).
#include "rocecert/qp/types.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "rocecert/qp/ids.h"

namespace rocecert::qp {
namespace {

TEST(QpTypes, VerbsValues) {
  EXPECT_EQ(static_cast<int>(QpType::RC), 2);  // IBV_QPT_RC
  EXPECT_EQ(static_cast<int>(QpType::UC), 3);
  EXPECT_EQ(static_cast<int>(QpType::UD), 4);
  const char* names[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};
  for (int v = 0; v < 7; ++v) {
    EXPECT_EQ(to_string(static_cast<QpState>(v)), names[v]);
    EXPECT_TRUE(is_valid_state(static_cast<QpState>(v)));
  }
  EXPECT_FALSE(is_valid_state(static_cast<QpState>(7)));  // IBV_QPS_UNKNOWN
  EXPECT_EQ(to_string(static_cast<QpState>(7)), "?");
  EXPECT_EQ(to_string(QpType::UD), "UD");
}

TEST(QpTypes, AttrBitValuesAndNames) {
  // docs/spec-notes.md §6.1, typed again.
  const std::pair<const char*, int> expected[] = {{"STATE", 0},
                                                  {"CUR_STATE", 1},
                                                  {"EN_SQD_ASYNC_NOTIFY", 2},
                                                  {"ACCESS_FLAGS", 3},
                                                  {"PKEY_INDEX", 4},
                                                  {"PORT", 5},
                                                  {"QKEY", 6},
                                                  {"AV", 7},
                                                  {"PATH_MTU", 8},
                                                  {"TIMEOUT", 9},
                                                  {"RETRY_CNT", 10},
                                                  {"RNR_RETRY", 11},
                                                  {"RQ_PSN", 12},
                                                  {"MAX_QP_RD_ATOMIC", 13},
                                                  {"ALT_PATH", 14},
                                                  {"MIN_RNR_TIMER", 15},
                                                  {"SQ_PSN", 16},
                                                  {"MAX_DEST_RD_ATOMIC", 17},
                                                  {"PATH_MIG_STATE", 18},
                                                  {"CAP", 19},
                                                  {"DEST_QPN", 20},
                                                  {"RATE_LIMIT", 25}};
  ASSERT_EQ(std::size(expected), kAllAttrBits.size());
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < kAllAttrBits.size(); ++i) {
    const AttrBit b = kAllAttrBits[i];
    EXPECT_EQ(static_cast<std::uint32_t>(b), 1u << expected[i].second) << expected[i].first;
    EXPECT_EQ(to_string(b), expected[i].first);
    EXPECT_TRUE(kKnownAttrBits.has(b));
    seen.insert(static_cast<std::uint32_t>(b));
  }
  EXPECT_EQ(seen.size(), kAllAttrBits.size());
  EXPECT_EQ(kKnownAttrBits.raw(), 0x021FFFFFu);
}

TEST(QpTypes, AttrMaskOperations) {
  const AttrMask m = AttrBit::PORT | AttrBit::PKEY_INDEX | AttrBit::ACCESS_FLAGS;
  EXPECT_EQ(m.raw(), 0x38u);
  EXPECT_TRUE(m.has(AttrBit::PORT));
  EXPECT_FALSE(m.has(AttrBit::QKEY));
  EXPECT_TRUE(m.contains(AttrBit::PORT | AttrBit::PKEY_INDEX));
  EXPECT_FALSE(m.contains(AttrBit::PORT | AttrBit::QKEY));
  EXPECT_EQ((m - AttrBit::PORT).raw(), 0x18u);
  EXPECT_EQ((m & AttrMask(AttrBit::PORT)).raw(), 0x20u);
  EXPECT_EQ(to_string(m), "ACCESS_FLAGS|PKEY_INDEX|PORT");  // bit order
  EXPECT_EQ(to_string(AttrMask{}), "-");
  EXPECT_EQ(to_string(AttrMask::from_raw((1u << 21) | 1u)), "STATE|BIT21");
}

TEST(QpTypes, PathMtu) {
  const std::uint32_t bytes[] = {256, 512, 1024, 2048, 4096};
  for (std::uint8_t code = 1; code <= 5; ++code) {
    const auto m = static_cast<PathMtu>(code);
    EXPECT_TRUE(is_valid_path_mtu(m));
    EXPECT_EQ(mtu_bytes(m), bytes[code - 1]);
    EXPECT_EQ(to_string(m), std::to_string(bytes[code - 1]));
    PathMtu back{};
    ASSERT_TRUE(path_mtu_from_bytes(bytes[code - 1], back));
    EXPECT_EQ(back, m);
  }
  for (int bad : {0, 6, 255}) {
    EXPECT_FALSE(is_valid_path_mtu(static_cast<PathMtu>(bad)));
    EXPECT_EQ(mtu_bytes(static_cast<PathMtu>(bad)), 0u);
    EXPECT_EQ(to_string(static_cast<PathMtu>(bad)), "?");
  }
  PathMtu out{};
  EXPECT_FALSE(path_mtu_from_bytes(1500, out));
}

TEST(QpIds, PsnArithmetic) {
  EXPECT_EQ(Psn(0x1000000).value(), 0u);  // 24 bits
  EXPECT_EQ((Psn(0xFFFFFF) + 1).value(), 0u);
  EXPECT_EQ((Psn(0) - 1).value(), 0xFFFFFFu);
  Psn p(0xFFFFFE);
  ++p;
  ++p;
  EXPECT_EQ(p.value(), 0u);
  // docs/spec-notes.md §3.1: [1, 2^23 - 1] after, [2^23, 2^24 - 1] before; +2^23 counts as before.
  EXPECT_EQ(psn_diff(Psn(5), Psn(5)), 0);
  EXPECT_EQ(psn_diff(Psn(1), Psn(0xFFFFFF)), 2);
  EXPECT_TRUE(psn_after(Psn(0x7FFFFF), Psn(0)));
  EXPECT_TRUE(psn_before(Psn(0x800000), Psn(0)));
  EXPECT_EQ(psn_diff(Psn(0x800000), Psn(0)), -0x800000);
  EXPECT_EQ(psn_diff(Psn(0), Psn(0x800000)), -0x800000);
  EXPECT_TRUE(psn_before(Psn(0xFFFFFF), Psn(0)));
}

TEST(QpIds, MsnAndQpn) {
  Msn m(0xFFFFFF);
  ++m;
  EXPECT_EQ(m.value(), 0u);
  EXPECT_EQ(Qpn(0x1000011).value(), 0x11u);
  EXPECT_LT(Qpn(0x11), Qpn(0x12));
  EXPECT_EQ(PdId{3}, PdId{3});
}

}  // namespace
}  // namespace rocecert::qp
