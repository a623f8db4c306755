// What one simulated device allows (DeviceLimits) and which of the documented source
// disagreements it follows (QpProfile). The defaults follow current Linux core verbs and the spec
// where the notes name one; each switch names the docs/spec-notes.md section that explains it.
#pragma once

#include <cstdint>

#include "rocecert/mem/keys.h"
#include "rocecert/qp/types.h"

namespace rocecert::qp {

// Device and port attributes the modify/create checks compare against (ibv_device_attr,
// ibv_port_attr). Defaults are rxe's (docs/spec-notes.md §0 rxe-qp / rxe_param.h) on a 1500-byte
// Ethernet.
struct DeviceLimits {
  std::uint8_t port_count = 1;              // RoCE devices here have one port: port_num must be 1
  PathMtu max_mtu = PathMtu::MTU_4096;      // ibv_port_attr.max_mtu
  PathMtu active_mtu = PathMtu::MTU_1024;   // ibv_port_attr.active_mtu (1500-byte netdev)
  std::uint16_t pkey_table_size = 1;        // rxe RXE_PORT_PKEY_TBL_LEN (64 in older kernels)
  std::uint16_t gid_table_size = 1024;      // rxe RXE_PORT_GID_TBL_LEN
  std::uint32_t max_qp_rd_atom = 128;       // responder resources: bound on max_dest_rd_atomic
  std::uint32_t max_qp_init_rd_atom = 128;  // initiator depth: bound on max_rd_atomic
  std::uint32_t max_qp_wr = 0x4000;         // bound on max_send_wr / max_recv_wr
  // The requester's window of PSNs sent and not acknowledged (rxe RXE_MAX_UNACKED_PSNS;
  // docs/spec-notes.md §3.2); a replay of another device's requester opens it wider.
  std::uint32_t max_unacked_psns = 128;
  std::uint32_t max_send_sge = 32;  // rxe RXE_MAX_SGE
  std::uint32_t max_recv_sge = 32;
  std::uint32_t max_inline_data = 512;  // rxe RXE_MAX_INLINE_DATA (recent kernels)
  // Access flags a QP accepts (rxe RXE_ACCESS_SUPPORTED_QP: LOCAL_WRITE, REMOTE_*, MW_BIND,
  // ON_DEMAND, FLUSH_*, and the optional range, IBTA Vol. 1 §10.6; docs/spec-notes.md §7.2).
  // The flags are mem::Access (rocecert/mem/keys.h), the values of enum ibv_access_flags.
  std::uint32_t qp_access_supported =
      mem::to_u32(mem::Access::LOCAL_WRITE | mem::Access::REMOTE_WRITE | mem::Access::REMOTE_READ |
                  mem::Access::REMOTE_ATOMIC | mem::Access::MW_BIND | mem::Access::ON_DEMAND |
                  mem::Access::FLUSH_GLOBAL | mem::Access::FLUSH_PERSISTENT) |
      mem::kAccessOptionalMask;
};

// Which PATH_MTU bound modify_qp enforces.
enum class MtuCheck : std::uint8_t {
  ACTIVE,  // path_mtu <= the port's active MTU (default: a path MTU above it cannot be sent)
  MAX,     // path_mtu <= the port's max MTU (rxe_qp_chk_attr compares with max_mtu only)
};

// Behaviour switches for the QP block. Default = current Linux core + spec reading.
struct QpProfile {
  // docs/spec-notes.md §6.2 note / §11.13: v4.x-era kernels marked RESET -> ERR valid (empty
  // attribute sets).
  bool reset_to_err_allowed = false;
  // docs/spec-notes.md §6.2 rule 4 and CUR_STATE: by default a CUR_STATE that differs from the QP's
  // actual state is refused (CUR_STATE_MISMATCH). rxe and mlx instead use attr.cur_qp_state as the
  // row of the table without comparing it (rxe __qp_chk_state); set this to mirror them.
  bool cur_state_selects_row = false;
  // docs/spec-notes.md §6.6: while the SQ is still draining, only SQD -> ERR is accepted (rxe). rxe
  // applies it only when STATE is in the mask; this model also refuses a STATE-less SQD -> SQD
  // modify.
  bool sqd_drain_only_to_err = true;
  // docs/spec-notes.md §5.1, §11.14: rxe rounds max_rd_atomic / max_dest_rd_atomic up to a power of
  // two (after the device-limit check) and stores and reports the rounded value.
  bool round_rd_atomic_pow2 = false;
  // IBTA Vol. 1 §9.7.5.2.8, Table 45; docs/spec-notes.md §4.2, §11.3: rxe's rnrnak_usec table has
  // 61410 us for code 25 instead of 61440 us.
  bool rxe_rnr_code25_typo = false;
  // Linux core (_ib_modify_qp) masks an rq_psn/sq_psn wider than 24 bits with a warning instead
  // of refusing it. Default: refuse (INVALID_SQ_PSN / INVALID_RQ_PSN).
  bool mask_psn_to_24_bits = false;
  MtuCheck mtu_check = MtuCheck::ACTIVE;
};

// Profiles with a name, for scenarios and DUT profiles.
constexpr QpProfile linux_core_profile() {
  return QpProfile{};
}
constexpr QpProfile rxe_profile() {
  QpProfile p;
  p.cur_state_selects_row = true;
  p.round_rd_atomic_pow2 = true;
  p.rxe_rnr_code25_typo = true;
  p.mask_psn_to_24_bits = true;
  p.mtu_check = MtuCheck::MAX;
  return p;
}

}  // namespace rocecert::qp
