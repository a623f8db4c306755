// The QP table: create, destroy, query and modify QPs (the verbs ibv_create_qp, ibv_destroy_qp,
// ibv_query_qp, ibv_modify_qp), with deterministic QPN allocation. modify_qp validates a request
// completely (check_modify + validate_attr_values) and only then applies it: a refused request
// changes nothing (docs/spec-notes.md §6.2 rule 6). State changes come back as QpTransition values
// for the caller to hand to the observer; nothing is printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

#include "rocecert/qp/attr.h"
#include "rocecert/qp/context.h"
#include "rocecert/qp/ids.h"
#include "rocecert/qp/profile.h"
#include "rocecert/qp/transitions.h"
#include "rocecert/qp/types.h"

namespace rocecert::qp {

enum class QpnPolicy : std::uint8_t {
  // rxe (xa_alloc_cyclic over the QP pool): the search starts after the last QPN handed out and
  // wraps from `last` to `first`, so a destroyed QPN is not reused at once.
  CYCLIC,
  // The smallest free QPN >= first.
  LOWEST_FREE,
};

// QPN allocation. Defaults reproduce rxe: its QP pool starts at index 16, which the GSI QP takes
// when the device registers (and which it reports as QPN 1), so the first user QP is 0x11 and the
// next ones count upward. The range must lie inside [2, 0xFFFFFE]: QPN 0 and 1 are SMI/GSI and
// 0xFFFFFF is the multicast QPN.
struct QpnAllocation {
  std::uint32_t first = 0x11;
  std::uint32_t last = 0x20000;  // rxe RXE_MAX_QP_INDEX (older kernels)
  QpnPolicy policy = QpnPolicy::CYCLIC;
};

struct QpTableConfig {
  DeviceLimits device;
  QpProfile profile;
  QpnAllocation qpn;
};

// ibv_qp_init_attr, reduced to what the model uses.
struct CreateQpParams {
  QpType type = QpType::RC;
  PdId pd;
  CqId send_cq;
  CqId recv_cq;
  std::optional<SrqId> srq;
  QpCaps caps;
  bool sq_sig_all = false;
};

struct CreateResult {
  ModifyError error = ModifyError::OK;  // OK, INVALID_CAP or QPN_EXHAUSTED
  Qpn qpn;                              // meaningful when ok()
  constexpr bool ok() const { return error == ModifyError::OK; }
};

// A state change of one QP, for the observer (rocecert/trace/observer.h). from == to is
// possible (e.g. a modify to RTS while in RTS with STATE in the mask).
struct QpTransition {
  Qpn qpn;
  QpState from = QpState::RESET;
  QpState to = QpState::RESET;
  // The caller must flush: to == ERR, both queues (docs/spec-notes.md §6.5); to == SQE, the send
  // queue only (docs/spec-notes.md §6.6). The context's flush_pending carries the same fact until
  // the flush is done.
  bool flush_due = false;
  friend constexpr bool operator==(const QpTransition&, const QpTransition&) = default;
};

struct ModifyResult {
  ModifyCheck check;                       // error, offending bits, next state
  std::optional<QpTransition> transition;  // present iff ok and STATE was in the mask
  constexpr bool ok() const { return check.ok(); }
};

// Result of mark_sq_drained.
struct SqDrained {
  bool drained = false;  // the QP was in SQD and draining, and now is drained
  bool notify = false;   // en_sqd_async_notify was set: raise IB_EVENT_SQ_DRAINED
                         // (docs/spec-notes.md §6.6)
};

class QpTable {
 public:
  explicit QpTable(QpTableConfig config = {});

  // ibv_create_qp: the QP starts in RESET with default attributes. Fails with INVALID_CAP when
  // a capability exceeds the device (with an SRQ the receive capabilities are ignored), or
  // QPN_EXHAUSTED when the QPN range is full.
  CreateResult create_qp(const CreateQpParams& params);

  // ibv_destroy_qp: allowed in every state; the QPN becomes free. QP_NOT_FOUND or OK.
  ModifyError destroy_qp(Qpn qpn);

  // ibv_modify_qp. On success the attributes in `mask` are stored, derived values updated and the
  // state changed; entering RESET resets the runtime state (§6.4), entering ERR cancels timers
  // and sets flush_pending (§6.5), entering SQD from RTS starts the drain (§6.6).
  ModifyResult modify_qp(Qpn qpn, const QpAttr& attr, AttrMask mask);
  // The same on a context the caller has already looked up (one of this table's, from find()).
  ModifyResult modify_qp(QpContext& ctx, const QpAttr& attr, AttrMask mask);

  // ibv_query_qp as rxe answers it (rxe_qp_to_attr): cur_qp_state = the state, sq_psn = the next
  // PSN to send, rq_psn = the expected PSN, cap = the creation capabilities.
  std::optional<QpAttr> query_qp(Qpn qpn) const;

  // The context, for the blocks that run the QP. nullptr if there is no such QP.
  const QpContext* find(Qpn qpn) const;
  QpContext* find(Qpn qpn);
  std::size_t size() const { return qps_.size(); }

  // Model-internal transitions (not verbs).
  // A transport or local error moves the QP to ERR (docs/spec-notes.md §5.5, §6.5). Nothing happens
  // (and nullopt is returned) when the QP does not exist or is in RESET or already in ERR.
  std::optional<QpTransition> enter_error(Qpn qpn);
  std::optional<QpTransition> enter_error(QpContext& ctx);
  // A UC/UD send-side error moves the QP from RTS to SQE (docs/spec-notes.md §6.6). nullopt (no
  // change) for an RC QP or a QP not in RTS.
  std::optional<QpTransition> enter_sq_error(Qpn qpn);
  std::optional<QpTransition> enter_sq_error(QpContext& ctx);
  // The requester has finished every in-flight message of a QP in SQD (docs/spec-notes.md §6.6).
  SqDrained mark_sq_drained(Qpn qpn);
  SqDrained mark_sq_drained(QpContext& ctx);

  // Every QP in QPN order.
  template <typename F>
  void for_each(F&& f) const {
    for (const auto& entry : qps_) f(entry.second);
  }

  const QpTableConfig& config() const { return config_; }

 private:
  std::optional<std::uint32_t> allocate_qpn_();

  QpTableConfig config_;
  std::map<std::uint32_t, QpContext> qps_;  // ordered: deterministic iteration
  std::uint32_t next_qpn_;                  // CYCLIC: where the next search starts
};

}  // namespace rocecert::qp
