// Attribute value checks at their boundaries (IBTA Vol. 1 §9.7.6.1.3, C9-140; docs/spec-notes.md
// §5.1, §6.2 "rxe additionally rejects").
#include "rocecert/qp/attr.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace rocecert::qp {
namespace {

const DeviceLimits kDev{};  // rxe defaults: active MTU 1024, P_Key table 1, rd_atom 128

ModifyError value_error(AttrBit bit, const QpAttr& a, const QpProfile& p = {},
                        const DeviceLimits& dev = kDev) {
  const ModifyCheck c = validate_attr_values(QpType::RC, a, AttrMask(bit), dev, p);
  if (!c.ok()) {
    EXPECT_EQ(c.attrs, AttrMask(bit));
  }
  return c.error;
}

TEST(QpAttrValues, Timeout) {
  QpAttr a;
  a.timeout = 31;
  EXPECT_EQ(value_error(AttrBit::TIMEOUT, a), ModifyError::OK);
  a.timeout = 32;
  EXPECT_EQ(value_error(AttrBit::TIMEOUT, a), ModifyError::INVALID_TIMEOUT);
  a.timeout = 0;  // 0 = infinite, legal
  EXPECT_EQ(value_error(AttrBit::TIMEOUT, a), ModifyError::OK);
}

TEST(QpAttrValues, RetryCounters) {
  QpAttr a;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  EXPECT_EQ(value_error(AttrBit::RETRY_CNT, a), ModifyError::OK);
  EXPECT_EQ(value_error(AttrBit::RNR_RETRY, a), ModifyError::OK);
  a.retry_cnt = 8;
  a.rnr_retry = 8;
  EXPECT_EQ(value_error(AttrBit::RETRY_CNT, a), ModifyError::INVALID_RETRY_CNT);
  EXPECT_EQ(value_error(AttrBit::RNR_RETRY, a), ModifyError::INVALID_RNR_RETRY);
}

TEST(QpAttrValues, MinRnrTimer) {
  QpAttr a;
  a.min_rnr_timer = 31;
  EXPECT_EQ(value_error(AttrBit::MIN_RNR_TIMER, a), ModifyError::OK);
  a.min_rnr_timer = 32;
  EXPECT_EQ(value_error(AttrBit::MIN_RNR_TIMER, a), ModifyError::INVALID_MIN_RNR_TIMER);
}

TEST(QpAttrValues, PathMtu) {
  QpAttr a;
  a.path_mtu = PathMtu::MTU_1024;  // = active
  EXPECT_EQ(value_error(AttrBit::PATH_MTU, a), ModifyError::OK);
  a.path_mtu = PathMtu::MTU_2048;
  EXPECT_EQ(value_error(AttrBit::PATH_MTU, a), ModifyError::PATH_MTU_ABOVE_PORT);
  QpProfile rxe_mtu;
  rxe_mtu.mtu_check = MtuCheck::MAX;  // rxe compares with max_mtu (4096)
  a.path_mtu = PathMtu::MTU_4096;
  EXPECT_EQ(value_error(AttrBit::PATH_MTU, a, rxe_mtu), ModifyError::OK);
  a.path_mtu = static_cast<PathMtu>(0);
  EXPECT_EQ(value_error(AttrBit::PATH_MTU, a), ModifyError::INVALID_PATH_MTU);
  a.path_mtu = static_cast<PathMtu>(6);
  EXPECT_EQ(value_error(AttrBit::PATH_MTU, a, rxe_mtu), ModifyError::INVALID_PATH_MTU);
  DeviceLimits jumbo;
  jumbo.active_mtu = PathMtu::MTU_4096;
  a.path_mtu = PathMtu::MTU_4096;
  EXPECT_EQ(value_error(AttrBit::PATH_MTU, a, {}, jumbo), ModifyError::OK);
}

TEST(QpAttrValues, RdAtomicAgainstDevice) {
  QpAttr a;
  a.max_rd_atomic = 128;
  a.max_dest_rd_atomic = 128;
  EXPECT_EQ(value_error(AttrBit::MAX_QP_RD_ATOMIC, a), ModifyError::OK);
  EXPECT_EQ(value_error(AttrBit::MAX_DEST_RD_ATOMIC, a), ModifyError::OK);
  a.max_rd_atomic = 129;
  a.max_dest_rd_atomic = 129;
  EXPECT_EQ(value_error(AttrBit::MAX_QP_RD_ATOMIC, a), ModifyError::INVALID_MAX_RD_ATOMIC);
  EXPECT_EQ(value_error(AttrBit::MAX_DEST_RD_ATOMIC, a), ModifyError::INVALID_MAX_DEST_RD_ATOMIC);
  DeviceLimits small;
  small.max_qp_init_rd_atom = 4;
  small.max_qp_rd_atom = 16;
  a.max_rd_atomic = 5;
  a.max_dest_rd_atomic = 16;
  EXPECT_EQ(value_error(AttrBit::MAX_QP_RD_ATOMIC, a, {}, small),
            ModifyError::INVALID_MAX_RD_ATOMIC);
  EXPECT_EQ(value_error(AttrBit::MAX_DEST_RD_ATOMIC, a, {}, small), ModifyError::OK);
}

TEST(QpAttrValues, Psns) {
  QpAttr a;
  a.sq_psn = 0xFFFFFF;
  a.rq_psn = 0xFFFFFF;
  EXPECT_EQ(value_error(AttrBit::SQ_PSN, a), ModifyError::OK);
  EXPECT_EQ(value_error(AttrBit::RQ_PSN, a), ModifyError::OK);
  a.sq_psn = 0x1000000;
  a.rq_psn = 0x1000000;
  EXPECT_EQ(value_error(AttrBit::SQ_PSN, a), ModifyError::INVALID_SQ_PSN);
  EXPECT_EQ(value_error(AttrBit::RQ_PSN, a), ModifyError::INVALID_RQ_PSN);
  QpProfile linux_masks;
  linux_masks.mask_psn_to_24_bits = true;
  EXPECT_EQ(value_error(AttrBit::SQ_PSN, a, linux_masks), ModifyError::OK);
  EXPECT_EQ(value_error(AttrBit::RQ_PSN, a, linux_masks), ModifyError::OK);
}

TEST(QpAttrValues, PkeyPortDestQpn) {
  QpAttr a;
  a.pkey_index = 0;
  EXPECT_EQ(value_error(AttrBit::PKEY_INDEX, a), ModifyError::OK);
  a.pkey_index = 1;  // table size 1
  EXPECT_EQ(value_error(AttrBit::PKEY_INDEX, a), ModifyError::INVALID_PKEY_INDEX);
  DeviceLimits pkeys64;
  pkeys64.pkey_table_size = 64;
  a.pkey_index = 63;
  EXPECT_EQ(value_error(AttrBit::PKEY_INDEX, a, {}, pkeys64), ModifyError::OK);

  a.port_num = 1;
  EXPECT_EQ(value_error(AttrBit::PORT, a), ModifyError::OK);
  for (std::uint8_t port : {std::uint8_t{0}, std::uint8_t{2}}) {
    a.port_num = port;
    EXPECT_EQ(value_error(AttrBit::PORT, a), ModifyError::INVALID_PORT) << int{port};
  }

  for (std::uint32_t good : {1u, 0x11u, 0xFFFFFEu}) {
    a.dest_qp_num = good;
    EXPECT_EQ(value_error(AttrBit::DEST_QPN, a), ModifyError::OK) << good;
  }
  for (std::uint32_t bad : {0u, 0xFFFFFFu, 0x1000000u, 0x1000011u}) {
    a.dest_qp_num = bad;
    EXPECT_EQ(value_error(AttrBit::DEST_QPN, a), ModifyError::INVALID_DEST_QPN) << bad;
  }
}

TEST(QpAttrValues, AccessFlagsAvAltPathMigState) {
  QpAttr a;
  a.qp_access_flags =
      mem::to_u32(mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE | mem::Access::REMOTE_READ |
                  mem::Access::REMOTE_ATOMIC | mem::Access::RELAXED_ORDERING);
  EXPECT_EQ(value_error(AttrBit::ACCESS_FLAGS, a), ModifyError::OK);
  for (std::uint32_t bad : {0x20u /* ZERO_BASED */, 0x80u /* HUGETLB */, 0x40000000u}) {
    a.qp_access_flags = bad;
    EXPECT_EQ(value_error(AttrBit::ACCESS_FLAGS, a), ModifyError::INVALID_ACCESS_FLAGS) << bad;
  }
  a.ah_attr.sgid_index = 255;
  a.ah_attr.flow_label = 0xFFFFF;
  EXPECT_EQ(value_error(AttrBit::AV, a), ModifyError::OK);
  a.ah_attr.flow_label = 0x100000;
  EXPECT_EQ(value_error(AttrBit::AV, a), ModifyError::INVALID_AV);
  DeviceLimits small_gid;
  small_gid.gid_table_size = 4;
  a.ah_attr.flow_label = 0;
  a.ah_attr.sgid_index = 4;
  EXPECT_EQ(value_error(AttrBit::AV, a, {}, small_gid), ModifyError::INVALID_AV);
  EXPECT_EQ(value_error(AttrBit::ALT_PATH, a), ModifyError::ALT_PATH_NOT_SUPPORTED);
  a.path_mig_state = PathMigState::ARMED;
  EXPECT_EQ(value_error(AttrBit::PATH_MIG_STATE, a), ModifyError::OK);
  a.path_mig_state = static_cast<PathMigState>(3);
  EXPECT_EQ(value_error(AttrBit::PATH_MIG_STATE, a), ModifyError::INVALID_PATH_MIG_STATE);
}

TEST(QpAttrValues, OnlyMaskedAttributesAreChecked) {
  QpAttr a;
  a.timeout = 99;
  a.retry_cnt = 99;
  a.path_mtu = static_cast<PathMtu>(0);
  EXPECT_TRUE(validate_attr_values(QpType::RC, a, AttrBit::STATE | AttrBit::SQ_PSN, kDev).ok());
  // Several bad attributes: the lowest bit is reported (PATH_MTU 8 < TIMEOUT 9 < RETRY_CNT 10).
  const ModifyCheck c = validate_attr_values(
      QpType::RC, a, AttrBit::RETRY_CNT | AttrBit::TIMEOUT | AttrBit::PATH_MTU, kDev);
  EXPECT_EQ(c.error, ModifyError::INVALID_PATH_MTU);
  EXPECT_EQ(c.attrs, AttrMask(AttrBit::PATH_MTU));
}

TEST(QpAttrValues, AddressVectorIpv4Mapped) {
  AddressVector av;
  EXPECT_FALSE(av.is_ipv4());
  av.dgid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 168, 1, 2};
  EXPECT_TRUE(av.is_ipv4());
  av.dgid[0] = 0xFE;
  EXPECT_FALSE(av.is_ipv4());
}

TEST(QpCaps, AgainstDevice) {
  const DeviceLimits dev;
  QpCaps c{dev.max_qp_wr, dev.max_qp_wr, dev.max_send_sge, dev.max_recv_sge, dev.max_inline_data};
  EXPECT_TRUE(validate_caps(c, false, dev).ok());
  QpCaps over = c;
  over.max_send_wr += 1;
  EXPECT_EQ(validate_caps(over, false, dev).error, ModifyError::INVALID_CAP);
  over = c;
  over.max_inline_data += 1;
  EXPECT_EQ(validate_caps(over, true, dev).error, ModifyError::INVALID_CAP);
  over = c;
  over.max_recv_sge += 1;
  EXPECT_EQ(validate_caps(over, false, dev).error, ModifyError::INVALID_CAP);
  EXPECT_TRUE(validate_caps(over, true, dev).ok());  // with an SRQ the RQ caps are not used
}

TEST(QpAttrValues, RoundUpPow2) {
  EXPECT_EQ(round_up_pow2(0), 0u);
  EXPECT_EQ(round_up_pow2(1), 1u);
  EXPECT_EQ(round_up_pow2(3), 4u);
  EXPECT_EQ(round_up_pow2(5), 8u);
  EXPECT_EQ(round_up_pow2(64), 64u);
  EXPECT_EQ(round_up_pow2(65), 128u);
}

}  // namespace
}  // namespace rocecert::qp
