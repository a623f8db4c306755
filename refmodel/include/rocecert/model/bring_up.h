// The usual connection of a QP: RESET → INIT → RTR → RTS, each modify_qp carrying exactly the
// attributes the transition requires for the QP's type. The masks are read from the QP state
// table itself (qp::transition_rule), so this helper cannot drift from it.
#pragma once

#include <cstdint>
#include <optional>

#include "rocecert/model/adapter.h"

namespace rocecert::model {

struct BringUp {
  std::uint32_t mtu = 1024;  // path MTU in bytes (RC/UC)
  std::uint32_t sq_psn = 0;
  std::uint32_t rq_psn = 0;
  std::uint32_t access = 0;         // qp_access_flags (ibv values)
  std::uint32_t qkey = 0x11111111;  // UD
  std::uint8_t timeout = 14;
  std::uint8_t retry_cnt = 7;
  std::uint8_t rnr_retry = 7;
  std::uint8_t min_rnr_timer = 12;
  std::uint8_t max_rd_atomic = 4;
  std::uint8_t max_dest_rd_atomic = 4;
};

// Brings `qpn` on `self` to RTS aimed at `peer_qpn` on `peer` (for UD the peer is ignored).
// Returns the first modify_qp that was refused, or nullopt when all three succeeded.
std::optional<qp::ModifyResult> bring_up(Adapter& self, qp::Qpn qpn, const Adapter& peer,
                                         qp::Qpn peer_qpn, const BringUp& params);
// The same toward a peer known only by its address (a harness replaying another device's
// traffic: `rocecert check`'s golden replay).
std::optional<qp::ModifyResult> bring_up(Adapter& self, qp::Qpn qpn,
                                         const std::array<std::uint8_t, 16>& peer_gid,
                                         const wire::MacAddr& peer_mac, qp::Qpn peer_qpn,
                                         const BringUp& params);

}  // namespace rocecert::model
