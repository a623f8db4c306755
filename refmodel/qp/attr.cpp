// Value checks of modify_qp and create_qp (IBTA Vol. 1 §9.7.6.1.3, C9-140; docs/spec-notes.md §5.1,
// §6.2 "rxe additionally rejects"; rxe_qp_chk_attr, rxe_qp_chk_cap; Linux core _ib_modify_qp for
// PSN width and ALT_PATH on RoCE).
#include "rocecert/qp/attr.h"

#include "rocecert/qp/ids.h"

namespace rocecert::qp {

namespace {

constexpr std::uint32_t kMax5Bit = 31;  // timeout, min_rnr_timer (5-bit fields, IBTA Vol. 1
                                        // §9.7.6.1.3, C9-140; docs/spec-notes.md §5.1)
constexpr std::uint32_t kMax3Bit = 7;   // retry_cnt, rnr_retry (3-bit fields)
constexpr std::uint32_t kMaxFlowLabel = 0xFFFFF;

ModifyCheck fail(ModifyError e, AttrBit b) {
  return ModifyCheck{e, AttrMask(b), QpState::RESET};
}

// The check for one attribute; OK when its value is acceptable.
ModifyError check_one(AttrBit bit, const QpAttr& a, const DeviceLimits& dev, const QpProfile& p) {
  using enum ModifyError;
  switch (bit) {
    case AttrBit::STATE:
    case AttrBit::CUR_STATE:
      return OK;  // check_modify's
    case AttrBit::EN_SQD_ASYNC_NOTIFY:
    case AttrBit::QKEY:  // any 32-bit Q_Key
      return OK;
    case AttrBit::ACCESS_FLAGS:
      return (a.qp_access_flags & ~dev.qp_access_supported) == 0 ? OK : INVALID_ACCESS_FLAGS;
    case AttrBit::PKEY_INDEX:
      return a.pkey_index < dev.pkey_table_size ? OK : INVALID_PKEY_INDEX;
    case AttrBit::PORT:
      return a.port_num >= 1 && a.port_num <= dev.port_count ? OK : INVALID_PORT;
    case AttrBit::AV:
      if (a.ah_attr.sgid_index >= dev.gid_table_size) return INVALID_AV;
      return a.ah_attr.flow_label <= kMaxFlowLabel ? OK : INVALID_AV;
    case AttrBit::PATH_MTU: {
      if (!is_valid_path_mtu(a.path_mtu)) return INVALID_PATH_MTU;
      const PathMtu limit = p.mtu_check == MtuCheck::MAX ? dev.max_mtu : dev.active_mtu;
      return mtu_bytes(a.path_mtu) <= mtu_bytes(limit) ? OK : PATH_MTU_ABOVE_PORT;
    }
    case AttrBit::TIMEOUT:
      return a.timeout <= kMax5Bit ? OK : INVALID_TIMEOUT;
    case AttrBit::RETRY_CNT:
      return a.retry_cnt <= kMax3Bit ? OK : INVALID_RETRY_CNT;
    case AttrBit::RNR_RETRY:
      return a.rnr_retry <= kMax3Bit ? OK : INVALID_RNR_RETRY;
    case AttrBit::RQ_PSN:
      return p.mask_psn_to_24_bits || a.rq_psn <= Psn::kMask ? OK : INVALID_RQ_PSN;
    case AttrBit::MAX_QP_RD_ATOMIC:
      return a.max_rd_atomic <= dev.max_qp_init_rd_atom ? OK : INVALID_MAX_RD_ATOMIC;
    case AttrBit::ALT_PATH:
      // Linux core refuses alternate paths on RoCE ports ("Ban them in roce mode").
      return ALT_PATH_NOT_SUPPORTED;
    case AttrBit::MIN_RNR_TIMER:
      return a.min_rnr_timer <= kMax5Bit ? OK : INVALID_MIN_RNR_TIMER;
    case AttrBit::SQ_PSN:
      return p.mask_psn_to_24_bits || a.sq_psn <= Psn::kMask ? OK : INVALID_SQ_PSN;
    case AttrBit::MAX_DEST_RD_ATOMIC:
      return a.max_dest_rd_atomic <= dev.max_qp_rd_atom ? OK : INVALID_MAX_DEST_RD_ATOMIC;
    case AttrBit::PATH_MIG_STATE:
      return static_cast<std::uint8_t>(a.path_mig_state) <= 2u ? OK : INVALID_PATH_MIG_STATE;
    case AttrBit::CAP:
      // Never legal in modify_qp for RC/UC/UD (§6.2 table); if a table ever allows it, the
      // capabilities are checked like at create time.
      return validate_caps(a.cap, false, dev).error;
    case AttrBit::DEST_QPN:
      // 24-bit, not QPN 0, and not the multicast QPN: a connected QP has one peer QP.
      return a.dest_qp_num != 0 && a.dest_qp_num < Qpn::kMulticast ? OK : INVALID_DEST_QPN;
    case AttrBit::RATE_LIMIT:
      return OK;  // never legal for RC/UC/UD today (§6.2 note); no value constraint modelled
  }
  return OK;
}

}  // namespace

ModifyCheck validate_attr_values(QpType /*type*/, const QpAttr& attr, AttrMask mask,
                                 const DeviceLimits& device, const QpProfile& profile) {
  for (AttrBit bit : kAllAttrBits) {  // bit order: a deterministic first failure
    if (!mask.has(bit)) continue;
    const ModifyError e = check_one(bit, attr, device, profile);
    if (e != ModifyError::OK) return fail(e, bit);
  }
  return ModifyCheck{};
}

ModifyCheck validate_caps(const QpCaps& caps, bool has_srq, const DeviceLimits& device) {
  const bool ok =
      caps.max_send_wr <= device.max_qp_wr && caps.max_send_sge <= device.max_send_sge &&
      caps.max_inline_data <= device.max_inline_data &&
      (has_srq ||
       (caps.max_recv_wr <= device.max_qp_wr && caps.max_recv_sge <= device.max_recv_sge));
  return ok ? ModifyCheck{}
            : ModifyCheck{ModifyError::INVALID_CAP, AttrMask(AttrBit::CAP), QpState::RESET};
}

}  // namespace rocecert::qp
