#include "rocecert/model/bring_up.h"

#include "rocecert/qp/transitions.h"

namespace rocecert::model {

std::optional<qp::ModifyResult> bring_up(Adapter& self, qp::Qpn qpn, const Adapter& peer,
                                         qp::Qpn peer_qpn, const BringUp& p) {
  return bring_up(self, qpn, peer.config().gid, peer.config().mac, peer_qpn, p);
}

std::optional<qp::ModifyResult> bring_up(Adapter& self, qp::Qpn qpn,
                                         const std::array<std::uint8_t, 16>& peer_gid,
                                         const wire::MacAddr& peer_mac, qp::Qpn peer_qpn,
                                         const BringUp& p) {
  const qp::QpContext* ctx = self.qps().find(qpn);
  if (ctx == nullptr)
    return qp::ModifyResult{{qp::ModifyError::QP_NOT_FOUND, {}, qp::QpState::RESET}, {}};
  const qp::QpType type = ctx->type;
  qp::QpAttr at;
  at.port_num = 1;
  at.qp_access_flags = p.access;
  at.qkey = p.qkey;
  qp::path_mtu_from_bytes(p.mtu, at.path_mtu);
  at.dest_qp_num = peer_qpn.value();
  at.rq_psn = p.rq_psn;
  at.sq_psn = p.sq_psn;
  at.max_dest_rd_atomic = p.max_dest_rd_atomic;
  at.min_rnr_timer = p.min_rnr_timer;
  at.ah_attr.dgid = peer_gid;
  at.ah_attr.dmac = peer_mac;
  at.timeout = p.timeout;
  at.retry_cnt = p.retry_cnt;
  at.rnr_retry = p.rnr_retry;
  at.max_rd_atomic = p.max_rd_atomic;
  const qp::QpState path[] = {qp::QpState::RESET, qp::QpState::INIT, qp::QpState::RTR,
                              qp::QpState::RTS};
  for (std::size_t i = 1; i < 4; ++i) {
    at.qp_state = path[i];
    const qp::TransitionRule rule = qp::transition_rule(type, path[i - 1], path[i]);
    const qp::AttrMask mask =
        rule.required | qp::AttrMask::from_raw(static_cast<std::uint32_t>(qp::AttrBit::STATE));
    const qp::ModifyResult r = self.modify_qp(qpn, at, mask);
    if (!r.ok()) return r;
  }
  return std::nullopt;
}

}  // namespace rocecert::model
