// Capability gating: each capability a device lacks makes a vector that needs it UNSUPPORTED,
// with a reason naming the adapter and the limit; a vector within the device's caps runs.
#include <gtest/gtest.h>

#include <functional>

#include "rocecert/verbs/player.h"
#include "verbs_test_support.h"

namespace rocecert::verbs {
namespace {

using testing::load;
using testing::rxe_like_caps;

Gate gate_on(const std::string& id, const std::function<void(DeviceCaps&)>& lack = {},
             const std::string& lacking = "B") {
  const vectors::Loaded v = load(id);
  std::map<std::string, DeviceCaps> caps = {{"A", rxe_like_caps()}, {"B", rxe_like_caps()}};
  if (lack) lack(caps.at(lacking));
  return gate(v.vector, v.scenario, caps);
}

TEST(VerbsGate, VectorsWithinTheDevicesCapsRun) {
  for (const char* id :
       {"opcodes/rc-rdma-write-1pkt-00", "opcodes/rc-atomic-fetch-and-add-00",
        "opcodes/uc-send-1pkt-00", "opcodes/ud-send-1pkt-00", "opcodes/rc-send-with-inv-1pkt-00",
        "boundary/write-one-byte-past-mw-end-00", "transitions/rc-from-err-00"}) {
    const Gate g = gate_on(id);
    EXPECT_TRUE(g.runs) << id << ": " << g.reason;
    EXPECT_TRUE(g.reason.empty()) << id;
  }
}

struct Lack {
  const char* vector;
  std::function<void(DeviceCaps&)> lack;
  const char* reason;  // the reason must contain this
  const char* adapter = "B";
};

class VerbsGateLacks : public ::testing::TestWithParam<Lack> {};

TEST_P(VerbsGateLacks, IsUnsupportedWithTheReason) {
  const Lack& l = GetParam();
  const Gate g = gate_on(l.vector, l.lack, l.adapter);
  EXPECT_FALSE(g.runs) << l.vector;
  EXPECT_NE(g.reason.find(l.reason), std::string::npos) << g.reason;
  EXPECT_EQ(g.reason.rfind(std::string(l.adapter) + ": ", 0), 0u) << g.reason;
}

INSTANTIATE_TEST_SUITE_P(
    EachCapability, VerbsGateLacks,
    ::testing::Values(
        Lack{"opcodes/rc-atomic-fetch-and-add-00", [](DeviceCaps& c) { c.atomic = false; },
             "atomic operations (atomic_cap is IBV_ATOMIC_NONE)"},
        // A requester needs atomics too: the check is on every adapter.
        Lack{"opcodes/rc-atomic-cmp-and-swp-00", [](DeviceCaps& c) { c.atomic = false; },
             "atomic operations", "A"},
        Lack{"boundary/write-one-byte-past-mw-end-00",
             [](DeviceCaps& c) { c.mw_type1 = c.mw_type2 = false; }, "memory windows"},
        Lack{"opcodes/rc-send-with-inv-1pkt-00",
             [](DeviceCaps& c) { c.mem_mgt_extensions = false; },
             "SEND with invalidate (no IBV_DEVICE_MEM_MGT_EXTENSIONS)"},
        Lack{"opcodes/uc-send-1pkt-00", [](DeviceCaps& c) { c.uc = false; }, "UC QPs"},
        Lack{"opcodes/ud-send-1pkt-00", [](DeviceCaps& c) { c.ud = false; }, "UD QPs"},
        Lack{"opcodes/rc-rdma-write-1pkt-00", [](DeviceCaps& c) { c.rc = false; }, "RC QPs"},
        Lack{"opcodes/rc-flush-00", [](DeviceCaps& c) { c.flush = false; }, "FLUSH"},
        Lack{"opcodes/rc-atomic-write-00", [](DeviceCaps& c) { c.atomic_write = false; },
             "ATOMIC WRITE"},
        Lack{"opcodes/rc-rdma-write-1pkt-00", [](DeviceCaps& c) { c.max_mr_size = 4096; },
             "16384 bytes in one MR (max_mr_size is 4096)"},
        Lack{"opcodes/rc-rdma-write-1pkt-00", [](DeviceCaps& c) { c.max_cqe = 8; },
             "16 entries in one CQ (max_cqe is 8)"},
        Lack{"opcodes/rc-rdma-write-1pkt-00", [](DeviceCaps& c) { c.max_qp_wr = 8; },
             "work requests per queue (max_qp_wr is 8)"},
        Lack{"opcodes/rc-rdma-write-1pkt-00", [](DeviceCaps& c) { c.max_sge = 0; },
             "SGEs per work request (max_sge is 0)"},
        Lack{"opcodes/rc-rdma-write-1pkt-00", [](DeviceCaps& c) { c.max_qp = 0; },
             "1 QPs (max_qp is 0)"},
        Lack{"opcodes/rc-rdma-write-1pkt-00", [](DeviceCaps& c) { c.max_qp_init_rd_atom = 2; },
             "4 outstanding READs and atomics as initiator (max_rd_atomic) "
             "(max_qp_init_rd_atom is 2)"},
        Lack{"opcodes/rc-rdma-write-1pkt-00", [](DeviceCaps& c) { c.max_qp_rd_atom = 1; },
             "4 responder resources (max_dest_rd_atomic) (max_qp_rd_atom is 1)"},
        Lack{"opcodes/rc-rdma-write-1pkt-00",
             [](DeviceCaps& c) { c.active_mtu = qp::PathMtu::MTU_512; },
             "1024 bytes of path MTU (the port's active MTU is 512)"},
        Lack{"opcodes/cnp-00",
             {},
             "CNPs (congestion notification is not visible through verbs)",
             "A"}));

TEST(VerbsGate, AUdMessageBetweenTheTwoMtusDependsOnWhichOne) {
  // ud-message-too-long sends 2,048 bytes with a port MTU of 1,024: refused there, carried by a
  // port whose active MTU is 4,096 (the live guest's). Devices with the vector's MTU run it.
  const auto on = [](const char* id, qp::PathMtu mtu) {
    const vectors::Loaded v = load(id);
    std::map<std::string, DeviceCaps> caps = {{"A", rxe_like_caps()}, {"B", rxe_like_caps()}};
    for (auto& [name, c] : caps) c.active_mtu = mtu;
    return gate(v.vector, v.scenario, caps);
  };
  const char* id = "errors/ud-req-ud-message-too-long-rxe-00";
  const Gate at_4096 = on(id, qp::PathMtu::MTU_4096);
  EXPECT_FALSE(at_4096.runs);
  EXPECT_NE(at_4096.reason.find("A: steps[23]: a UD message of 2048 bytes, beyond one of the "
                                "vector's port MTU (1024) and the port's active MTU (4096) but "
                                "not the other"),
            std::string::npos)
      << at_4096.reason;
  EXPECT_TRUE(on(id, qp::PathMtu::MTU_1024).runs);
  // A UD message within both MTUs is not concerned.
  EXPECT_TRUE(on("opcodes/ud-send-1pkt-00", qp::PathMtu::MTU_4096).runs);
}

TEST(VerbsGate, ForgedFramesAndLinkFaultsAreBeyondAnyDevice) {
  const Gate inject = gate_on("errors/rc-pkt-address-mismatch-iba-00");
  EXPECT_FALSE(inject.runs);
  EXPECT_NE(inject.reason.find("inject puts forged frames on the wire"), std::string::npos)
      << inject.reason;
  const Gate faults = gate_on("errors/rc-pkt-icrc-error-iba-00");
  EXPECT_FALSE(faults.runs);
  EXPECT_NE(faults.reason.find("links[0]: the link's faults"), std::string::npos) << faults.reason;
}

TEST(VerbsGate, SharedReceiveQueuesNeedMaxSrq) {
  // No committed vector has an SRQ yet: one is added to a SEND vector.
  std::string text = testing::read_text(testing::vector_path("opcodes/rc-send-1pkt-00"));
  const std::string cq = "\"op\": \"create_cq\",";
  const std::size_t at = text.rfind('{', text.find(cq));
  text.insert(at,
              "{\"op\": \"create_srq\", \"pd\": \"pdB\", \"as\": \"srqB\", \"max_wr\": 128},\n");
  const vectors::Loaded v = vectors::parse(text, "srq.json");
  std::map<std::string, DeviceCaps> caps = {{"A", rxe_like_caps()}, {"B", rxe_like_caps()}};
  EXPECT_TRUE(gate(v.vector, v.scenario, caps).runs);
  caps.at("B").max_srq_wr = 64;
  EXPECT_EQ(gate(v.vector, v.scenario, caps).reason,
            "B: 128 work requests in one SRQ (max_srq_wr is 64)");
  caps.at("B").max_srq = 0;
  EXPECT_EQ(gate(v.vector, v.scenario, caps).reason, "B: shared receive queues (max_srq is 0)");
}

TEST(VerbsGate, AStepExpectedToBeRefusedIsNotANeed) {
  // A create_qp asking for more work requests than the device has, expected to be refused,
  // tests the refusal: the vector runs. The same step expected to succeed is a need.
  const std::string base =
      testing::read_text(testing::vector_path("opcodes/rc-rdma-write-1pkt-00"));
  const std::string big =
      "{\"op\": \"create_qp\", \"pd\": \"pdA\", \"as\": \"qpBig\", \"type\": \"RC\", "
      "\"send_cq\": \"cqA\", \"cap\": {\"max_send_wr\": 100000}";
  const auto with = [&](const std::string& tail) {
    std::string text = base;
    text.insert(text.rfind('{', text.find("\"op\": \"create_qp\"")), big + tail + "},\n");
    return vectors::parse(text, "big.json");
  };
  const std::map<std::string, DeviceCaps> caps = {{"A", rxe_like_caps()}, {"B", rxe_like_caps()}};
  const vectors::Loaded refused = with(", \"expect_error\": \"INVALID_CAP\"");
  EXPECT_TRUE(gate(refused.vector, refused.scenario, caps).runs);
  const vectors::Loaded needed = with("");
  EXPECT_EQ(gate(needed.vector, needed.scenario, caps).reason,
            "A: 100000 work requests per queue (max_qp_wr is 16384)");
}

}  // namespace
}  // namespace rocecert::verbs
