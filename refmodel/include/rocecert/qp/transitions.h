// The QP state machine as one constexpr data table and the one pure function that
// checks a modify_qp request against it (docs/spec-notes.md §6.2, Linux ib_modify_qp_is_ok).
//
// kTransitionRows is the data, typed row by row exactly as docs/spec-notes.md §6.2 table;
// kTransitionTable is the same data indexed [type][from][to]. proofs/ and docs/ read them through
// transition_rule() / transition_entries() (refmodel/docgen renders the doc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rocecert/qp/profile.h"
#include "rocecert/qp/types.h"

namespace rocecert::qp {

// Why a modify_qp (or create_qp) request was refused. One enum for the state rules and the
// value checks, so a caller reports one code.
enum class ModifyError : std::uint8_t {
  OK,
  INVALID_STATE_VALUE,    // qp_state (STATE) or cur_qp_state (CUR_STATE) is not 0..6
  CUR_STATE_NOT_ALLOWED,  // rule 4: CUR_STATE given while the QP is not in RTR/RTS/SQD/SQE
  CUR_STATE_MISMATCH,     // CUR_STATE given and cur_qp_state != the QP's state
  ILLEGAL_TRANSITION,     // rules 1 and 5: the (cur, next) cell is not valid for the QP type
  MISSING_REQUIRED_ATTR,  // rule 2: ModifyCheck::attrs names the missing bits
  UNEXPECTED_ATTR,        // rule 3: ModifyCheck::attrs names the bits outside req|opt|STATE
  SQ_DRAINING,  // docs/spec-notes.md §6.6: leaving SQD for anything but ERR while draining
  // Value checks (attr.h validate_attr_values); ModifyCheck::attrs names the attribute.
  INVALID_PATH_MTU,            // path_mtu not 1..5
  PATH_MTU_ABOVE_PORT,         // path_mtu above the port's active (or max) MTU
  INVALID_TIMEOUT,             // timeout > 31
  INVALID_RETRY_CNT,           // retry_cnt > 7
  INVALID_RNR_RETRY,           // rnr_retry > 7
  INVALID_MIN_RNR_TIMER,       // min_rnr_timer > 31
  INVALID_MAX_RD_ATOMIC,       // max_rd_atomic > device max_qp_init_rd_atom
  INVALID_MAX_DEST_RD_ATOMIC,  // max_dest_rd_atomic > device max_qp_rd_atom
  INVALID_SQ_PSN,              // sq_psn wider than 24 bits
  INVALID_RQ_PSN,              // rq_psn wider than 24 bits
  INVALID_PKEY_INDEX,          // pkey_index >= P_Key table size
  INVALID_PORT,                // port_num not 1..port_count
  INVALID_DEST_QPN,            // dest_qp_num 0, wider than 24 bits, or the multicast QPN
  INVALID_ACCESS_FLAGS,        // qp_access_flags outside the device's supported set
  INVALID_AV,                  // sgid_index outside the GID table, or flow_label wider than 20 bits
  ALT_PATH_NOT_SUPPORTED,      // ALT_PATH on RoCE (Linux core bans APM in RoCE mode)
  INVALID_PATH_MIG_STATE,      // path_mig_state not MIGRATED/REARM/ARMED
  // QP table errors.
  QP_NOT_FOUND,
  INVALID_CAP,    // create_qp: a capability above the device limit
  QPN_EXHAUSTED,  // create_qp: no free QPN in the configured range
};
std::string_view to_string(ModifyError e);
// The errno ibv_modify_qp / ibv_create_qp return for it in rdma-core over rxe: EINVAL for every
// refused state or attribute, ENOMEM when no QPN is left; 0 for OK.
int errno_value(ModifyError e);

struct ModifyCheck {
  ModifyError error = ModifyError::OK;
  AttrMask attrs;                 // offending bits: missing, unexpected, or the invalid attribute
  QpState next = QpState::RESET;  // the state the QP moves to (meaningful when ok())
  constexpr bool ok() const { return error == ModifyError::OK; }
};

// One cell of the table.
struct TransitionRule {
  bool valid = false;
  AttrMask required;
  AttrMask optional;
};

// One row of docs/spec-notes.md §6.2 table: (from, to) and the required/optional sets per QP type
// in kAllQpTypes order (RC, UC, UD).
struct TypeSets {
  AttrMask required;
  AttrMask optional;
};
struct TransitionRow {
  QpState from;
  QpState to;
  std::array<TypeSets, kQpTypeCount> sets;
};

// The data. Every (from, to) pair not listed is illegal for every type.
// clang-format off
inline constexpr auto kTransitionRows = [] {
  using enum AttrBit;
  using enum QpState;
  constexpr AttrMask none{};
  constexpr TypeSets empty{none, none};
  return std::array{
    // Any state -> RESET, and RESET -> RESET: nothing required or optional.
    TransitionRow{RESET, RESET, {empty, empty, empty}},
    TransitionRow{INIT,  RESET, {empty, empty, empty}},
    TransitionRow{RTR,   RESET, {empty, empty, empty}},
    TransitionRow{RTS,   RESET, {empty, empty, empty}},
    TransitionRow{SQD,   RESET, {empty, empty, empty}},
    TransitionRow{SQE,   RESET, {empty, empty, empty}},
    TransitionRow{ERR,   RESET, {empty, empty, empty}},
    // Any state but RESET -> ERR (RESET -> ERR is illegal in current kernels; see QpProfile).
    TransitionRow{INIT,  ERR,   {empty, empty, empty}},
    TransitionRow{RTR,   ERR,   {empty, empty, empty}},
    TransitionRow{RTS,   ERR,   {empty, empty, empty}},
    TransitionRow{SQD,   ERR,   {empty, empty, empty}},
    TransitionRow{SQE,   ERR,   {empty, empty, empty}},
    TransitionRow{ERR,   ERR,   {empty, empty, empty}},
    //            from   to      {required, optional} for RC, then UC, then UD
    TransitionRow{RESET, INIT, {
      TypeSets{PKEY_INDEX | PORT | ACCESS_FLAGS, none},
      TypeSets{PKEY_INDEX | PORT | ACCESS_FLAGS, none},
      TypeSets{PKEY_INDEX | PORT | QKEY,         none}}},
    TransitionRow{INIT, INIT, {
      TypeSets{none, PKEY_INDEX | PORT | ACCESS_FLAGS},
      TypeSets{none, PKEY_INDEX | PORT | ACCESS_FLAGS},
      TypeSets{none, PKEY_INDEX | PORT | QKEY}}},
    TransitionRow{INIT, RTR, {
      TypeSets{AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
               ALT_PATH | ACCESS_FLAGS | PKEY_INDEX},
      TypeSets{AV | PATH_MTU | DEST_QPN | RQ_PSN,
               ALT_PATH | ACCESS_FLAGS | PKEY_INDEX},
      TypeSets{none, PKEY_INDEX | QKEY}}},
    TransitionRow{RTR, RTS, {
      TypeSets{TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC,
               CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE},
      TypeSets{SQ_PSN, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE},
      TypeSets{SQ_PSN, CUR_STATE | QKEY}}},
    TransitionRow{RTS, RTS, {
      TypeSets{none, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER},
      TypeSets{none, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE},
      TypeSets{none, CUR_STATE | QKEY}}},
    TransitionRow{RTS, SQD, {
      TypeSets{none, EN_SQD_ASYNC_NOTIFY},
      TypeSets{none, EN_SQD_ASYNC_NOTIFY},
      TypeSets{none, EN_SQD_ASYNC_NOTIFY}}},
    TransitionRow{SQD, RTS, {
      TypeSets{none, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE},
      TypeSets{none, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE},
      TypeSets{none, CUR_STATE | QKEY}}},
    TransitionRow{SQD, SQD, {
      TypeSets{none, PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC |
                     MAX_DEST_RD_ATOMIC | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER |
                     PATH_MIG_STATE},
      TypeSets{none, AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE},
      TypeSets{none, PKEY_INDEX | QKEY}}},
    // Valid for RC too (kernel table) with only STATE allowed; unreachable, RC never enters SQE.
    TransitionRow{SQE, RTS, {
      empty,
      TypeSets{none, CUR_STATE | ACCESS_FLAGS},
      TypeSets{none, CUR_STATE | QKEY}}},
  };
}();
// clang-format on

using TransitionTable =
    std::array<std::array<std::array<TransitionRule, kQpStateCount>, kQpStateCount>, kQpTypeCount>;

namespace detail {
constexpr TransitionTable build_transition_table() {
  TransitionTable table{};
  for (const TransitionRow& row : kTransitionRows) {
    for (std::size_t t = 0; t < kQpTypeCount; ++t) {
      TransitionRule& cell = table[t][qp_state_index(row.from)][qp_state_index(row.to)];
      if (cell.valid) throw "duplicate row in kTransitionRows";  // compile error in constexpr
      cell = TransitionRule{true, row.sets[t].required, row.sets[t].optional};
    }
  }
  return table;
}
}  // namespace detail

// The table [qp_type_index][from][to].
inline constexpr TransitionTable kTransitionTable = detail::build_transition_table();

// The cell for (type, from, to) under a profile (the profile can only add RESET -> ERR).
// Out-of-range states give an invalid cell.
constexpr TransitionRule transition_rule(QpType type, QpState from, QpState to,
                                         const QpProfile& profile = {}) {
  if (!is_valid_state(from) || !is_valid_state(to)) return {};
  TransitionRule rule =
      kTransitionTable[qp_type_index(type)][qp_state_index(from)][qp_state_index(to)];
  if (!rule.valid && profile.reset_to_err_allowed && from == QpState::RESET && to == QpState::ERR) {
    rule.valid = true;  // docs/spec-notes.md §11.13: v4.x kernels, no attributes
  }
  return rule;
}

// Every cell, valid or not, in (type, from, to) order: kQpTypeCount * 7 * 7 = 147 entries.
struct TransitionEntry {
  QpType type;
  QpState from;
  QpState to;
  TransitionRule rule;
};
inline constexpr std::size_t kTransitionEntryCount = kQpTypeCount * kQpStateCount * kQpStateCount;
constexpr std::array<TransitionEntry, kTransitionEntryCount> transition_entries(
    const QpProfile& profile = {}) {
  std::array<TransitionEntry, kTransitionEntryCount> out{};
  std::size_t i = 0;
  for (QpType t : kAllQpTypes) {
    for (QpState from : kAllQpStates) {
      for (QpState to : kAllQpStates) {
        out[i++] = TransitionEntry{t, from, to, transition_rule(t, from, to, profile)};
      }
    }
  }
  return out;
}

// What a QP does in each state (IBA Vol. 1 §10.3.1 "QP states"; docs/qp-state-machine.md):
// the one table the adapter's post_send / post_recv checks, the frame admission, the
// responder, the requester, the retransmission timers and the flush all query. The rules are
// the same for RC, UC and UD: a type changes which operations exist, not what a state allows.
enum class QueueFlush : std::uint8_t {
  NONE,        // nothing is flushed
  SEND_QUEUE,  // SQE: the send queue's WQEs complete with WR_FLUSH_ERR, the receive queue stays
  ALL,         // the send queue, then the receive queue (an SRQ only loses the WQE in progress)
};
struct StateRules {
  QpState state = QpState::RESET;
  // ibv_post_send is accepted (rxe_verbs.c rxe_post_send: EINVAL below RTS).
  bool post_send = false;
  // ibv_post_recv is accepted (rxe_verbs.c rxe_post_recv: EINVAL in RESET).
  bool post_recv = false;
  // A WR posted now completes at once with WR_FLUSH_ERR (rxe_verbs.c: flush in ERR).
  bool flush_on_post = false;
  // Request packets are accepted and executed, and the responder sends (coalesced) ACKs
  // (rxe_recv.c check_type_state: requests need RTR or later).
  bool rq_processes = false;
  // The requester sends packets of WQEs it already started (rxe_req.c rxe_requester).
  bool sq_processes = false;
  // The requester starts new WQEs (SQD and SQE finish what is in flight only; §10.3.1).
  bool sq_starts_wqe = false;
  // Response packets (ACK, NAK, READ response, atomic ACK) are processed, and the
  // retransmission and RNR timers resend (rxe_comp.c rxe_completer).
  bool processes_responses = false;
  // What flush() completes with WR_FLUSH_ERR in this state.
  QueueFlush flush = QueueFlush::ALL;
};

// clang-format off
inline constexpr std::array<StateRules, kQpStateCount> kStateRules = [] {
  using enum QpState;
  using enum QueueFlush;
  // Columns: post_send, post_recv, flush_on_post, rq_processes, sq_processes, sq_starts_wqe,
  // processes_responses, flush.
  //           state  send   recv   f_post rq     sq     start  resp   flush
  return std::array{
    StateRules{RESET, false, false, false, false, false, false, false, ALL},
    StateRules{INIT,  false, true,  false, false, false, false, false, ALL},
    StateRules{RTR,   false, true,  false, true,  false, false, false, ALL},
    StateRules{RTS,   true,  true,  false, true,  true,  true,  true,  ALL},
    StateRules{SQD,   true,  true,  false, true,  true,  false, true,  ALL},
    StateRules{SQE,   true,  true,  false, true,  true,  false, false, SEND_QUEUE},
    StateRules{ERR,   true,  true,  true,  false, false, false, false, ALL},
  };
}();
// clang-format on

namespace detail {
constexpr bool state_rules_are_indexed() {
  for (std::size_t i = 0; i < kStateRules.size(); ++i)
    if (qp_state_index(kStateRules[i].state) != i) return false;
  return true;
}
}  // namespace detail
static_assert(detail::state_rules_are_indexed(), "kStateRules rows must follow kAllQpStates");

// The row of a state; an out-of-range state allows nothing.
constexpr StateRules state_rules(QpState s) {
  if (!is_valid_state(s))
    return StateRules{s, false, false, false, false, false, false, false, QueueFlush::ALL};
  return kStateRules[qp_state_index(s)];
}

// CUR_STATE may be given only in these states (docs/spec-notes.md §6.2 rule 4).
constexpr bool cur_state_allowed_in(QpState s) {
  return s == QpState::RTR || s == QpState::RTS || s == QpState::SQD || s == QpState::SQE;
}

// The legality check of a modify_qp request (docs/spec-notes.md §6.2 rules 1-5, plus §6.6 SQD
// draining):
//   type, current   the QP's type and actual state;
//   mask            the ibv_qp_attr_mask;
//   qp_state        attr.qp_state, read only when STATE is in the mask;
//   cur_qp_state    attr.cur_qp_state, read only when CUR_STATE is in the mask;
//   sq_draining     the QP is in SQD and has not drained yet.
// The checks run in Linux's order and the first failure is returned: state values, rule 4,
// CUR_STATE mismatch, rule 1/5, rule 2, rule 3, SQD draining. Attribute values are not looked
// at here (validate_attr_values). Rule 6 (nothing changes on failure) is the caller's.
constexpr ModifyCheck check_modify(QpType type, QpState current, AttrMask mask, QpState qp_state,
                                   QpState cur_qp_state, const QpProfile& profile = {},
                                   bool sq_draining = false) {
  using enum ModifyError;
  const bool has_state = mask.has(AttrBit::STATE);
  const bool has_cur = mask.has(AttrBit::CUR_STATE);
  if (has_state && !is_valid_state(qp_state)) return {INVALID_STATE_VALUE, AttrBit::STATE, current};
  if (has_cur && !is_valid_state(cur_qp_state)) {
    return {INVALID_STATE_VALUE, AttrBit::CUR_STATE, current};
  }
  // The row of the table: the actual state, or (rxe/mlx profile) the state the caller claims.
  const QpState row = has_cur && profile.cur_state_selects_row ? cur_qp_state : current;
  if (has_cur && !cur_state_allowed_in(row))
    return {CUR_STATE_NOT_ALLOWED, AttrBit::CUR_STATE, current};
  if (has_cur && row != cur_qp_state) return {CUR_STATE_MISMATCH, AttrBit::CUR_STATE, current};
  const QpState next = has_state ? qp_state : row;  // rule 5: no STATE means next = cur
  const TransitionRule rule = transition_rule(type, row, next, profile);
  if (!rule.valid)
    return {ILLEGAL_TRANSITION, has_state ? AttrMask(AttrBit::STATE) : AttrMask{}, current};
  const AttrMask missing = rule.required - mask;
  if (!missing.empty()) return {MISSING_REQUIRED_ATTR, missing, current};
  const AttrMask unexpected = mask - (rule.required | rule.optional | AttrBit::STATE);
  if (!unexpected.empty()) return {UNEXPECTED_ATTR, unexpected, current};
  if (profile.sqd_drain_only_to_err && sq_draining && row == QpState::SQD && next != QpState::ERR) {
    return {SQ_DRAINING, has_state ? AttrMask(AttrBit::STATE) : AttrMask{}, current};
  }
  return {OK, AttrMask{}, next};
}

}  // namespace rocecert::qp
