// The QP attributes that matter for RoCE (the ibv_qp_attr subset, rdma-core ibv_modify_qp(3)),
// the creation capabilities, and the value checks modify_qp applies to them (IBTA Vol. 1
// §9.7.6.1.3, C9-140; docs/spec-notes.md §5.1, §6.2 "rxe additionally rejects").
#pragma once

#include <array>
#include <cstdint>

#include "rocecert/qp/profile.h"
#include "rocecert/qp/transitions.h"
#include "rocecert/qp/types.h"

namespace rocecert::qp {

// True when a GID is an IPv4-mapped address (::ffff:a.b.c.d): its frames are IPv4 (IBTA Vol. 1
// Annex A17.4).
constexpr bool is_ipv4_mapped(const std::array<std::uint8_t, 16>& gid) {
  for (std::size_t i = 0; i < 10; ++i) {
    if (gid[i] != 0) return false;
  }
  return gid[10] == 0xFF && gid[11] == 0xFF;
}

// Primary path of an RC/UC QP (AV bit; ibv_ah_attr reduced to what RoCEv2 puts on the wire,
// IBTA Vol. 1 Annex A17.4.5.2, Annex A17.4; docs/spec-notes.md §1.2, §1.3). UD QPs take their
// address per WR, not from here.
struct AddressVector {
  std::array<std::uint8_t, 16> dgid{};  // destination GID; IPv4 as ::ffff:a.b.c.d (IBTA Vol. 1
                                        // Annex A17.4.5.2; docs/spec-notes.md §1.2)
  std::uint8_t sgid_index = 0;          // source GID table index -> source IP
  std::uint8_t hop_limit = 64;          // IPv4 TTL / IPv6 Hop Limit
  std::uint8_t traffic_class = 0;       // IPv4 TOS / IPv6 Traffic Class (DSCP + ECN)
  std::uint32_t flow_label = 0;         // 20-bit IPv6 flow label; 0 = none (IBTA Vol. 1 Annex
                                        // A17.4; docs/spec-notes.md §1.3)
  std::array<std::uint8_t, 6> dmac{};   // resolved destination MAC
  // UDP source port: 0 = derive it deterministically from the QP (TX block, IBTA Vol. 1 Annex
  // A17.4; docs/spec-notes.md §1.3); otherwise this fixed value is used for every packet of the QP.
  std::uint16_t udp_sport = 0;

  // True when the destination GID is an IPv4-mapped address (the frame is IPv4).
  constexpr bool is_ipv4() const { return is_ipv4_mapped(dgid); }
  friend constexpr bool operator==(const AddressVector&, const AddressVector&) = default;
};

// enum ibv_mig_state, for PATH_MIG_STATE (accepted and stored; no path migration on RoCE).
enum class PathMigState : std::uint8_t { MIGRATED = 0, REARM = 1, ARMED = 2 };

// struct ibv_qp_cap: the creation capabilities (create_qp; CAP is never legal in modify_qp for
// RC/UC/UD by the §6.2 table).
struct QpCaps {
  std::uint32_t max_send_wr = 0;
  std::uint32_t max_recv_wr = 0;
  std::uint32_t max_send_sge = 0;
  std::uint32_t max_recv_sge = 0;
  std::uint32_t max_inline_data = 0;
  friend constexpr bool operator==(const QpCaps&, const QpCaps&) = default;
};

// The ibv_qp_attr fields that matter for RoCE. Raw widths as verbs has them, so out-of-range
// values can be expressed and refused by validate_attr_values().
struct QpAttr {
  QpState qp_state = QpState::RESET;      // STATE: the requested next state
  QpState cur_qp_state = QpState::RESET;  // CUR_STATE: the state the caller believes the QP is in
  PathMtu path_mtu = PathMtu::MTU_256;    // PATH_MTU (rxe creates QPs with 256)
  std::uint32_t qkey = 0;                 // QKEY (UD): DETH.Q_Key check on receive
                                          // (docs/spec-notes.md §1.9)
  std::uint32_t rq_psn = 0;               // RQ_PSN: initial ePSN (docs/spec-notes.md §3.3)
  std::uint32_t sq_psn = 0;               // SQ_PSN: initial next PSN and comp.psn
                                          // (docs/spec-notes.md §3.2)
  std::uint32_t dest_qp_num = 0;          // DEST_QPN: BTH.DestQP of every request (RC/UC)
  std::uint32_t qp_access_flags = 0;      // ACCESS_FLAGS: QP-level remote access gate (§4.4)
  std::uint16_t pkey_index = 0;           // PKEY_INDEX: index into the port's P_Key table
  std::uint8_t port_num = 0;              // PORT (0 until RESET -> INIT sets it)
  AddressVector ah_attr;                  // AV
  std::uint8_t timeout = 0;               // TIMEOUT: local ACK timeout code (IBTA Vol. 1
                                          // §9.7.6.1.3, C9-140; docs/spec-notes.md §5.1)
  std::uint8_t retry_cnt = 0;             // RETRY_CNT: 0..7
  std::uint8_t rnr_retry = 0;             // RNR_RETRY: 0..7, 7 = infinite
  std::uint8_t min_rnr_timer = 0;         // MIN_RNR_TIMER: the code put in our RNR NAKs (§4.2)
  std::uint8_t max_rd_atomic = 0;         // MAX_QP_RD_ATOMIC: initiator depth
  std::uint8_t max_dest_rd_atomic = 0;    // MAX_DEST_RD_ATOMIC: responder resources (§8.2)
  PathMigState path_mig_state = PathMigState::MIGRATED;  // PATH_MIG_STATE
  bool en_sqd_async_notify = false;                      // EN_SQD_ASYNC_NOTIFY (docs/spec-notes.md
                                                         // §6.6)
  bool sq_draining = false;      // query only: SQD entered, drain not finished (§6.6)
  std::uint32_t rate_limit = 0;  // RATE_LIMIT (kbps); never legal for RC/UC/UD today
  QpCaps cap;                    // query only (CAP is never legal in modify for these)
  friend constexpr bool operator==(const QpAttr&, const QpAttr&) = default;
};

// The value checks of modify_qp, for the attributes whose bit is in `mask` (bits are visited
// from bit 0 upward; the first failure is returned with ModifyCheck::attrs = that bit). STATE and
// CUR_STATE values are check_modify()'s. Pure.
ModifyCheck validate_attr_values(QpType type, const QpAttr& attr, AttrMask mask,
                                 const DeviceLimits& device, const QpProfile& profile = {});

// create_qp capability check against the device (rxe_qp_chk_cap); with an SRQ the receive
// capabilities are not looked at. INVALID_CAP or OK.
ModifyCheck validate_caps(const QpCaps& caps, bool has_srq, const DeviceLimits& device);

// rxe's rounding of max_rd_atomic / max_dest_rd_atomic: 0 stays 0, else the next power of two
// (docs/spec-notes.md §11.14).
constexpr std::uint32_t round_up_pow2(std::uint32_t v) {
  if (v == 0) return 0;
  std::uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace rocecert::qp
