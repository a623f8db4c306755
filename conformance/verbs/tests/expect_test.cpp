// The expectations' comparison: completion flags are judged where verbs give them a meaning.
#include "expect.h"

#include <gtest/gtest.h>

#include "verbs_test_support.h"

namespace rocecert::verbs {
namespace {

using testing::load;

conformance::ObjId object_named(const conformance::Scenario& sc, const std::string& name) {
  for (std::size_t i = 0; i < sc.objects.size(); ++i)
    if (sc.objects[i].name == name) return static_cast<conformance::ObjId>(i);
  throw std::runtime_error("no object " + name);
}

// One receive completion of `qp_name`, expected with `want` flags, reported with `got`.
std::vector<std::string> compare_flags(const std::string& vector, const std::string& qp_name,
                                       std::uint32_t want, std::uint32_t got,
                                       bool name_the_qp = true) {
  const vectors::Loaded v = load(vector);
  const conformance::ObjId qp = object_named(v.scenario, qp_name);
  conformance::CqExpect e;
  e.path = "steps[9].completions.cqB";
  conformance::CompletionExpect x;
  x.path = e.path + "[0]";
  x.wr_id = 100;
  x.wc_flags = want;
  if (name_the_qp) x.qp = qp;
  e.completions.push_back(x);
  cq::Wc w;
  w.wr_id = 100;
  w.opcode = cq::WcOpcode::RECV;
  w.qp_num = 0x222;
  w.wc_flags = got;
  const NumberOf number = [&](conformance::ObjId id) -> std::optional<std::uint32_t> {
    if (id == qp) return 0x222;
    return 0x111;
  };
  return compare_completions(e, {w}, v.scenario, number);
}

TEST(VerbsExpect, GrhIsNotJudgedOnConnectedQps) {
  // rxe flags GRH on every RC and UC receive: valid only for UD (ibv_poll_cq(3)).
  EXPECT_TRUE(compare_flags("opcodes/rc-send-1pkt-00", "qpB", 0x0, 0x1).empty());
  EXPECT_TRUE(compare_flags("opcodes/uc-send-1pkt-00", "qpB", 0x0, 0x1).empty());
  EXPECT_TRUE(compare_flags("opcodes/rc-send-1pkt-00", "qpB", 0x0, 0x1, false).empty());
  // With immediate data the flag is judged on every type.
  EXPECT_EQ(compare_flags("opcodes/rc-send-1pkt-00", "qpB", 0x2, 0x1).size(), 1u);
}

TEST(VerbsExpect, GrhIsJudgedOnUd) {
  const std::vector<std::string> d = compare_flags("opcodes/ud-send-1pkt-00", "qpB", 0x1, 0x0);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "steps[9].completions.cqB[0]: wc_flags: expected 0x1, got 0x0");
}

TEST(VerbsExpect, InvalidateReportedInTheKernelsBitIsADifference) {
  // IBV_WC_WITH_INV is bit 3; the kernel's IB_WC_WITH_INVALIDATE is bit 2 (IBV_WC_IP_CSUM_OK in
  // libibverbs), which is what rxe 6.1 hands to user space.
  const std::vector<std::string> d =
      compare_flags("opcodes/rc-send-with-inv-1pkt-00", "qpB", 0x8, 0x5);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "steps[9].completions.cqB[0]: wc_flags: expected 0x8, got 0x5");
  EXPECT_TRUE(compare_flags("opcodes/rc-send-with-inv-1pkt-00", "qpB", 0x8, 0x9).empty());
}

// sq-flushed-in-err: qpA posts SENDs 1, 2, 3 and receives 200, 201, 202, all on cqA.
std::vector<std::string> compare_order(const std::vector<std::uint64_t>& want,
                                       const std::vector<std::uint64_t>& got) {
  const vectors::Loaded v = load("bugs/sq-flushed-in-err-00");
  const conformance::ObjId qp = object_named(v.scenario, "qpA");
  conformance::CqExpect e;
  e.path = "steps[22].completions.cqA";
  e.cq = object_named(v.scenario, "cqA");
  for (std::size_t i = 0; i < want.size(); ++i) {
    conformance::CompletionExpect x;
    x.path = e.path + "[" + std::to_string(i) + "]";
    x.wr_id = want[i];
    x.status = cq::WcStatus::WR_FLUSH_ERR;
    x.qp = qp;
    e.completions.push_back(x);
  }
  std::vector<cq::Wc> wcs;
  for (const std::uint64_t id : got) {
    cq::Wc w;
    w.wr_id = id;
    w.status = cq::WcStatus::WR_FLUSH_ERR;
    w.qp_num = 0x111;
    wcs.push_back(w);
  }
  const NumberOf number = [](conformance::ObjId) -> std::optional<std::uint32_t> { return 0x111; };
  return compare_completions(e, wcs, v.scenario, number);
}

TEST(VerbsExpect, WorkQueuesSharingACqInterleaveFreely) {
  // The model flushes the send queue first; rxe the receive queue: both keep each queue's order.
  EXPECT_TRUE(compare_order({1, 2, 3, 200, 201, 202}, {200, 201, 202, 1, 2, 3}).empty());
  EXPECT_TRUE(compare_order({1, 2, 3, 200, 201, 202}, {1, 200, 2, 201, 3, 202}).empty());
}

TEST(VerbsExpect, OrderWithinAWorkQueueIsHeld) {
  const std::vector<std::string> d = compare_order({1, 2, 3, 200}, {200, 2, 1, 3});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0],
            "steps[22].completions.cqA[1]: wr_id 2 completed before wr_id 1 of the same send "
            "queue (#1 and #2 on CQ \"cqA\")");
}

TEST(VerbsExpect, MissingAndUnexpectedCompletionsAreNamed) {
  const std::vector<std::string> d = compare_order({1, 2}, {2, 7});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0],
            "steps[22].completions.cqA[0]: missing: no completion of wr_id 1 (CQ \"cqA\" had 2 "
            "completions)");
  EXPECT_EQ(d[1],
            "steps[22].completions.cqA: unexpected completion #1: wr_id 7 WR_FLUSH_ERR on "
            "QP 0x111");
}

}  // namespace
}  // namespace rocecert::verbs
