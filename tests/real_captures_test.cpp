// The real Soft-RoCE captures in vectors/real/ (how each was taken and what it holds: its
// README.md): every frame decodes, every ICRC validates but the one netem corrupted on purpose, and
// the per-file counts and opcode mixes match the figures the capture notes give independently.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "rocecert/pcap/reader.h"
#include "rocecert/wire/decode.h"

using namespace rocecert;

namespace {

struct Expected {
  const char* file;
  std::uint64_t frames;
  std::uint64_t icrc_ok;
};

// From vectors/real/README.md, "Overview" (packets, ICRC ok).
const Expected kCaptures[] = {
    {"rc_pingpong_64_mtu1024.pcap", 40, 40},
    {"rc_pingpong_10000_mtu1024.pcap", 220, 220},
    {"uc_pingpong_4096_mtu1024.pcap", 80, 80},
    {"ud_pingpong_1024.pcap", 20, 20},
    {"srq_pingpong_q4_4096_mtu1024.pcap", 50, 50},
    {"rc_write_bw_4096_mtu1024.pcap", 100, 100},
    {"rc_send_bw_10000_mtu1024.pcap", 220, 220},
    {"rc_read_bw_10000_mtu1024.pcap", 220, 220},
    {"rc_atomic_fadd_bw.pcap", 40, 40},
    {"uc_write_bw_10000_mtu1024.pcap", 200, 200},
    {"rc_ops_mtu4096.pcap", 35, 35},
    {"err_write_bad_rkey.pcap", 2, 2},
    {"err_atomic_qp_denied.pcap", 4, 4},
    {"err_send_too_long.pcap", 5, 5},
    {"send_inv_memory_window.pcap", 10, 10},
    {"rnr_nak_then_ok.pcap", 30, 30},
    {"retry_exceeded_no_peer.pcap", 4, 4},
    {"rc_write_bw_10000_mtu1024_loss5.pcap", 1709, 1709},
    {"rc_read_bw_10000_mtu1024_resploss10.pcap", 2832, 2832},
    {"uc_write_bw_4096_mtu1024_loss5.pcap", 186, 186},
    {"rc_send_bw_4096_mtu1024_reorder_dup.pcap", 246, 246},
    {"rc_send_bw_64_mtu1024_corrupt2.pcap", 103, 102},
    {"rc_write_bw_4096_mtu1024_q8.pcap", 400, 400},
    {"multi_qp_errors.pcap", 76, 76},
    {"cq_overflow.pcap", 34, 34},
    {"rc_pingpong_10000_mtu1024_v6.pcap", 220, 220},
    {"ud_pingpong_1024_v6.pcap", 20, 20},
    {"rc_pingpong_64_mtu1024_vlan.pcap", 40, 40},
};

std::string path_of(const std::string& file) {
  return std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + file;
}

std::map<std::string, int> opcode_histogram(const std::string& file) {
  std::map<std::string, int> h;
  pcap::Reader r(path_of(file));
  pcap::Record rec;
  while (r.next(rec)) {
    const wire::ParsedFrame p = wire::decode(rec.data, {r.link(), true});
    EXPECT_FALSE(p.has_error);
    if (p.has_bth) ++h[std::string(p.op->name)];
  }
  return h;
}

}  // namespace

class RealCapture : public ::testing::TestWithParam<Expected> {};

TEST_P(RealCapture, DecodesWithValidIcrc) {
  const Expected& e = GetParam();
  pcap::Reader r(path_of(e.file));
  pcap::Record rec;
  std::uint64_t frames = 0, ok = 0;
  while (r.next(rec)) {
    ++frames;
    const wire::ParsedFrame p = wire::decode(rec.data, {r.link(), true});
    ASSERT_FALSE(p.has_error) << e.file << " frame " << rec.frame << ": "
                              << wire::to_string(p.error.code) << " at " << p.error.offset;
    ASSERT_TRUE(p.roce) << e.file << " frame " << rec.frame;
    ASSERT_TRUE(p.icrc_checked);
    ok += p.icrc_ok ? 1 : 0;
    // rxe 6.1 (capture notes): UDP checksum 0, TVer 0, P_Key 0xFFFF, no FECN/BECN.
    EXPECT_EQ(p.udp.checksum, 0);
    EXPECT_EQ(p.bth.tver, 0);
    EXPECT_EQ(p.bth.pkey, 0xFFFF);
    EXPECT_FALSE(p.bth.fecn || p.bth.becn);
    EXPECT_EQ(rec.caplen, rec.len);
  }
  EXPECT_EQ(frames, e.frames);
  EXPECT_EQ(ok, e.icrc_ok);
}

std::string capture_test_name(const ::testing::TestParamInfo<Expected>& param_info) {
  const std::string n = param_info.param.file;
  return n.substr(0, n.find('.'));
}

INSTANTIATE_TEST_SUITE_P(Soft_RoCE, RealCapture, ::testing::ValuesIn(kCaptures), capture_test_name);

TEST(RealCaptureDetail, RcOpsOpcodeMix) {
  // vectors/real/README.md, rc_ops_mtu4096.pcap "opcodes" line.
  const std::map<std::string, int> expected = {{"RC_SEND_FIRST", 1},
                                               {"RC_SEND_MIDDLE", 1},
                                               {"RC_SEND_LAST_WITH_IMMEDIATE", 1},
                                               {"RC_SEND_ONLY", 3},
                                               {"RC_SEND_ONLY_WITH_IMMEDIATE", 1},
                                               {"RC_RDMA_WRITE_FIRST", 2},
                                               {"RC_RDMA_WRITE_MIDDLE", 1},
                                               {"RC_RDMA_WRITE_LAST", 1},
                                               {"RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", 1},
                                               {"RC_RDMA_WRITE_ONLY", 1},
                                               {"RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", 1},
                                               {"RC_RDMA_READ_REQUEST", 3},
                                               {"RC_RDMA_READ_RESPONSE_FIRST", 1},
                                               {"RC_RDMA_READ_RESPONSE_MIDDLE", 1},
                                               {"RC_RDMA_READ_RESPONSE_LAST", 1},
                                               {"RC_RDMA_READ_RESPONSE_ONLY", 2},
                                               {"RC_ACKNOWLEDGE", 9},
                                               {"RC_ATOMIC_ACKNOWLEDGE", 2},
                                               {"RC_COMPARE_SWAP", 1},
                                               {"RC_FETCH_ADD", 1}};
  EXPECT_EQ(opcode_histogram("rc_ops_mtu4096.pcap"), expected);
}

TEST(RealCaptureDetail, UdAndUcAndErrors) {
  EXPECT_EQ(opcode_histogram("ud_pingpong_1024.pcap"),
            (std::map<std::string, int>{{"UD_SEND_ONLY", 20}}));
  EXPECT_EQ(
      opcode_histogram("uc_write_bw_10000_mtu1024.pcap"),
      (std::map<std::string, int>{
          {"UC_RDMA_WRITE_FIRST", 20}, {"UC_RDMA_WRITE_MIDDLE", 160}, {"UC_RDMA_WRITE_LAST", 20}}));
  // NAK remote access error (0x62) in err_write_bad_rkey: the second frame.
  pcap::Reader r(path_of("err_write_bad_rkey.pcap"));
  pcap::Record rec;
  ASSERT_TRUE(r.next(rec));
  ASSERT_TRUE(r.next(rec));
  const wire::ParsedFrame p = wire::decode(rec.data, {r.link(), true});
  ASSERT_TRUE(p.has(wire::Header::Aeth));
  EXPECT_EQ(p.aeth.syndrome, 0x62);
}

TEST(RealCaptureDetail, CqOverflowOpcodeMix) {
  // vectors/real/README.md, cq_overflow.pcap: 7 SENDs ACKed, then retransmissions only (the
  // responder whose receive CQ overran sends nothing more).
  EXPECT_EQ(opcode_histogram("cq_overflow.pcap"),
            (std::map<std::string, int>{{"RC_SEND_ONLY", 27}, {"RC_ACKNOWLEDGE", 7}}));
}

TEST(RealCaptureDetail, TheCorruptedFrameIsTheOnlyIcrcFailure) {
  pcap::Reader r(path_of("rc_send_bw_64_mtu1024_corrupt2.pcap"));
  pcap::Record rec;
  int failures = 0;
  while (r.next(rec)) {
    const wire::ParsedFrame p = wire::decode(rec.data, {r.link(), true});
    if (!p.icrc_ok) {
      ++failures;
      EXPECT_NE(p.icrc, p.icrc_computed);
    }
  }
  EXPECT_EQ(failures, 1);
}

TEST(RealCaptureDetail, VlanAndIpv6) {
  pcap::Reader v(path_of("rc_pingpong_64_mtu1024_vlan.pcap"));
  pcap::Record rec;
  ASSERT_TRUE(v.next(rec));
  wire::ParsedFrame p = wire::decode(rec.data, {v.link(), true});
  EXPECT_TRUE(p.eth.has_vlan);
  EXPECT_EQ(p.eth.vlan.vid, 100);
  EXPECT_TRUE(p.icrc_ok);
  pcap::Reader six(path_of("rc_pingpong_10000_mtu1024_v6.pcap"));
  ASSERT_TRUE(six.next(rec));
  p = wire::decode(rec.data, {six.link(), true});
  EXPECT_EQ(p.ip.version, 6);
  EXPECT_EQ(p.ip.ttl, 64);
  EXPECT_TRUE(p.icrc_ok);
}
