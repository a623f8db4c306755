// The transition table and check_modify, against docs/spec-notes.md §6.2 table typed here again by
// hand (names and bit values as text), independently of kTransitionRows.
#include "rocecert/qp/transitions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace rocecert::qp {
namespace {

// docs/spec-notes.md §6.1 mask bit table.
const std::map<std::string, std::uint32_t>& bit_values() {
  static const std::map<std::string, std::uint32_t> m = {{"STATE", 1u << 0},
                                                         {"CUR_STATE", 1u << 1},
                                                         {"EN_SQD_ASYNC_NOTIFY", 1u << 2},
                                                         {"ACCESS_FLAGS", 1u << 3},
                                                         {"PKEY_INDEX", 1u << 4},
                                                         {"PORT", 1u << 5},
                                                         {"QKEY", 1u << 6},
                                                         {"AV", 1u << 7},
                                                         {"PATH_MTU", 1u << 8},
                                                         {"TIMEOUT", 1u << 9},
                                                         {"RETRY_CNT", 1u << 10},
                                                         {"RNR_RETRY", 1u << 11},
                                                         {"RQ_PSN", 1u << 12},
                                                         {"MAX_QP_RD_ATOMIC", 1u << 13},
                                                         {"ALT_PATH", 1u << 14},
                                                         {"MIN_RNR_TIMER", 1u << 15},
                                                         {"SQ_PSN", 1u << 16},
                                                         {"MAX_DEST_RD_ATOMIC", 1u << 17},
                                                         {"PATH_MIG_STATE", 1u << 18},
                                                         {"CAP", 1u << 19},
                                                         {"DEST_QPN", 1u << 20},
                                                         {"RATE_LIMIT", 1u << 25}};
  return m;
}

std::uint32_t parse_set(const std::string& text) {
  std::uint32_t out = 0;
  std::stringstream ss(text);
  std::string name;
  while (std::getline(ss, name, ',')) {
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    if (name.empty()) continue;
    const auto it = bit_values().find(name);
    EXPECT_NE(it, bit_values().end()) << name;
    if (it != bit_values().end()) out |= it->second;
  }
  return out;
}

// docs/spec-notes.md §6.2, one line per row: from, to, RC req, RC opt, UC req, UC opt, UD req, UD
// opt.
struct SpecNotesRow {
  const char* from;
  const char* to;
  const char* sets[6];
};
const SpecNotesRow kSpecNotesRows[] = {
    {"RESET", "RESET", {"", "", "", "", "", ""}},
    {"RESET",
     "INIT",
     {"PKEY_INDEX, PORT, ACCESS_FLAGS", "", "PKEY_INDEX, PORT, ACCESS_FLAGS", "",
      "PKEY_INDEX, PORT, QKEY", ""}},
    {"INIT",
     "INIT",
     {"", "PKEY_INDEX, PORT, ACCESS_FLAGS", "", "PKEY_INDEX, PORT, ACCESS_FLAGS", "",
      "PKEY_INDEX, PORT, QKEY"}},
    {"INIT",
     "RTR",
     {"AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER",
      "ALT_PATH, ACCESS_FLAGS, PKEY_INDEX", "AV, PATH_MTU, DEST_QPN, RQ_PSN",
      "ALT_PATH, ACCESS_FLAGS, PKEY_INDEX", "", "PKEY_INDEX, QKEY"}},
    {"RTR",
     "RTS",
     {"TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC",
      "CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE", "SQ_PSN",
      "CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE", "SQ_PSN", "CUR_STATE, QKEY"}},
    {"RTS",
     "RTS",
     {"", "CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER", "",
      "CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE", "", "CUR_STATE, QKEY"}},
    {"RTS",
     "SQD",
     {"", "EN_SQD_ASYNC_NOTIFY", "", "EN_SQD_ASYNC_NOTIFY", "", "EN_SQD_ASYNC_NOTIFY"}},
    {"SQD",
     "RTS",
     {"", "CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE", "",
      "CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE", "", "CUR_STATE, QKEY"}},
    {"SQD",
     "SQD",
     {"",
      "PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC, ALT_PATH, "
      "ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE",
      "", "AV, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, PATH_MIG_STATE", "", "PKEY_INDEX, QKEY"}},
    {"SQE", "RTS", {"", "", "", "CUR_STATE, ACCESS_FLAGS", "", "CUR_STATE, QKEY"}},
    // INIT/RTR/RTS/SQD/SQE/ERR -> RESET and -> ERR: nothing required or optional.
    {"INIT", "RESET", {"", "", "", "", "", ""}},
    {"RTR", "RESET", {"", "", "", "", "", ""}},
    {"RTS", "RESET", {"", "", "", "", "", ""}},
    {"SQD", "RESET", {"", "", "", "", "", ""}},
    {"SQE", "RESET", {"", "", "", "", "", ""}},
    {"ERR", "RESET", {"", "", "", "", "", ""}},
    {"INIT", "ERR", {"", "", "", "", "", ""}},
    {"RTR", "ERR", {"", "", "", "", "", ""}},
    {"RTS", "ERR", {"", "", "", "", "", ""}},
    {"SQD", "ERR", {"", "", "", "", "", ""}},
    {"SQE", "ERR", {"", "", "", "", "", ""}},
    {"ERR", "ERR", {"", "", "", "", "", ""}},
};

// State names and numbers from docs/spec-notes.md §6.1, typed here.
QpState state_named(const std::string& name) {
  static const std::map<std::string, int> m = {{"RESET", 0}, {"INIT", 1}, {"RTR", 2}, {"RTS", 3},
                                               {"SQD", 4},   {"SQE", 5},  {"ERR", 6}};
  return static_cast<QpState>(m.at(name));
}

struct Expected {
  bool valid = false;
  std::uint32_t required = 0;
  std::uint32_t optional = 0;
};

Expected expected_cell(QpType type, QpState from, QpState to) {
  const std::size_t col = type == QpType::RC ? 0 : type == QpType::UC ? 2 : 4;
  for (const SpecNotesRow& row : kSpecNotesRows) {
    if (state_named(row.from) == from && state_named(row.to) == to) {
      return Expected{true, parse_set(row.sets[col]), parse_set(row.sets[col + 1])};
    }
  }
  return Expected{};
}

std::string cell_name(QpType t, QpState from, QpState to) {
  return std::string(to_string(t)) + " " + std::string(to_string(from)) + "->" +
         std::string(to_string(to));
}

bool cur_state_ok_in(QpState s) {  // rule 4, typed from docs/spec-notes.md §6.2
  return s == state_named("RTR") || s == state_named("RTS") || s == state_named("SQD") ||
         s == state_named("SQE");
}

constexpr std::uint32_t kStateBit = 1u << 0;
constexpr std::uint32_t kCurStateBit = 1u << 1;

ModifyCheck check(QpType t, QpState from, std::uint32_t mask, QpState to,
                  const QpProfile& profile = {}) {
  // cur_qp_state is always the true state here, so CUR_STATE is never a mismatch.
  return check_modify(t, from, AttrMask::from_raw(mask), to, from, profile);
}

// Every one of the 147 cells, legal and illegal.
TEST(QpTransitions, EveryCellMatchesSpecNotes) {
  int cells = 0;
  int valid_cells = 0;
  for (QpType type : {QpType::RC, QpType::UC, QpType::UD}) {
    for (int f = 0; f < 7; ++f) {
      for (int t = 0; t < 7; ++t) {
        const auto from = static_cast<QpState>(f);
        const auto to = static_cast<QpState>(t);
        const std::string name = cell_name(type, from, to);
        const Expected e = expected_cell(type, from, to);
        ++cells;

        const TransitionRule rule = transition_rule(type, from, to);
        EXPECT_EQ(rule.valid, e.valid) << name;
        if (!e.valid) {
          EXPECT_EQ(check(type, from, kStateBit, to).error, ModifyError::ILLEGAL_TRANSITION)
              << name;
          // Still illegal with every attribute bit except CUR_STATE set.
          EXPECT_EQ(check(type, from, ~kCurStateBit, to).error, ModifyError::ILLEGAL_TRANSITION)
              << name;
          if (from == to) {  // and without STATE (next = cur, rule 5)
            EXPECT_EQ(check(type, from, 0, to).error, ModifyError::ILLEGAL_TRANSITION) << name;
          }
          continue;
        }
        ++valid_cells;
        EXPECT_EQ(rule.required.raw(), e.required) << name;
        EXPECT_EQ(rule.optional.raw(), e.optional) << name;

        // The exact required mask passes and lands in `to`.
        const ModifyCheck ok = check(type, from, kStateBit | e.required, to);
        EXPECT_EQ(ok.error, ModifyError::OK) << name;
        EXPECT_EQ(ok.next, to) << name;
        if (from == to) {
          EXPECT_EQ(check(type, from, e.required, to).error, ModifyError::OK)
              << name << " no STATE";
        }
        // Each single missing required bit fails, naming that bit.
        for (int b = 0; b < 32; ++b) {
          const std::uint32_t bit = 1u << b;
          if ((e.required & bit) == 0) continue;
          const ModifyCheck r = check(type, from, kStateBit | (e.required & ~bit), to);
          EXPECT_EQ(r.error, ModifyError::MISSING_REQUIRED_ATTR) << name << " bit " << b;
          EXPECT_EQ(r.attrs.raw(), bit) << name << " bit " << b;
        }
        // Each optional bit is accepted, alone and all together.
        for (int b = 0; b < 32; ++b) {
          const std::uint32_t bit = 1u << b;
          if ((e.optional & bit) == 0) continue;
          EXPECT_EQ(check(type, from, kStateBit | e.required | bit, to).error, ModifyError::OK)
              << name << " bit " << b;
        }
        EXPECT_EQ(check(type, from, kStateBit | e.required | e.optional, to).error, ModifyError::OK)
            << name;
        // Each bit outside required | optional | STATE fails, naming that bit (CUR_STATE in a
        // state where it may not be given at all fails rule 4 first).
        for (int b = 0; b < 32; ++b) {
          const std::uint32_t bit = 1u << b;
          if (((e.required | e.optional | kStateBit) & bit) != 0) continue;
          const ModifyCheck r = check(type, from, kStateBit | e.required | bit, to);
          if (bit == kCurStateBit && !cur_state_ok_in(from)) {
            EXPECT_EQ(r.error, ModifyError::CUR_STATE_NOT_ALLOWED) << name;
          } else {
            EXPECT_EQ(r.error, ModifyError::UNEXPECTED_ATTR) << name << " bit " << b;
            EXPECT_EQ(r.attrs.raw(), bit) << name << " bit " << b;
          }
        }
      }
    }
  }
  EXPECT_EQ(cells, 147);
  EXPECT_EQ(valid_cells, 3 * 22);
}

TEST(QpTransitions, EntriesCoverEveryCellInOrder) {
  constexpr auto entries = transition_entries();
  static_assert(entries.size() == 147);
  std::size_t i = 0;
  int valid = 0;
  for (QpType type : {QpType::RC, QpType::UC, QpType::UD}) {
    for (int f = 0; f < 7; ++f) {
      for (int t = 0; t < 7; ++t) {
        const TransitionEntry& e = entries[i++];
        EXPECT_EQ(e.type, type);
        EXPECT_EQ(e.from, static_cast<QpState>(f));
        EXPECT_EQ(e.to, static_cast<QpState>(t));
        valid += e.rule.valid ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(valid, 66);
  QpProfile old_kernel;
  old_kernel.reset_to_err_allowed = true;
  int valid_old = 0;
  for (const TransitionEntry& e : transition_entries(old_kernel)) valid_old += e.rule.valid ? 1 : 0;
  EXPECT_EQ(valid_old, 69);  // + RESET -> ERR for RC, UC, UD
}

TEST(QpTransitions, UsableAtCompileTime) {
  static_assert(
      check_modify(QpType::RC, QpState::RESET,
                   AttrBit::STATE | AttrBit::PKEY_INDEX | AttrBit::PORT | AttrBit::ACCESS_FLAGS,
                   QpState::INIT, QpState::RESET)
          .ok());
  static_assert(check_modify(QpType::UD, QpState::RESET, AttrMask(AttrBit::STATE), QpState::ERR,
                             QpState::RESET)
                    .error == ModifyError::ILLEGAL_TRANSITION);
  static_assert(!transition_rule(QpType::RC, QpState::RTR, QpState::RTR).valid);
  SUCCEED();
}

TEST(QpTransitions, ResetToErrIsAProfileSwitch) {
  const auto reset = state_named("RESET");
  const auto err = state_named("ERR");
  for (QpType type : {QpType::RC, QpType::UC, QpType::UD}) {
    EXPECT_EQ(check(type, reset, kStateBit, err).error, ModifyError::ILLEGAL_TRANSITION);
    QpProfile old_kernel;
    old_kernel.reset_to_err_allowed = true;
    EXPECT_EQ(check(type, reset, kStateBit, err, old_kernel).error, ModifyError::OK);
    EXPECT_EQ(check(type, reset, kStateBit | (1u << 4), err, old_kernel).error,
              ModifyError::UNEXPECTED_ATTR);
    // The switch adds nothing else.
    EXPECT_EQ(check(type, reset, kStateBit, state_named("RTS"), old_kernel).error,
              ModifyError::ILLEGAL_TRANSITION);
  }
}

TEST(QpTransitions, CurStateRules) {
  const AttrMask state_cur = AttrBit::STATE | AttrBit::CUR_STATE;
  // Rule 4: not in RESET or INIT (nor ERR).
  for (QpState s : {QpState::RESET, QpState::INIT, QpState::ERR}) {
    const ModifyCheck r = check_modify(QpType::RC, s, state_cur, QpState::RESET, s);
    EXPECT_EQ(r.error, ModifyError::CUR_STATE_NOT_ALLOWED) << to_string(s);
    EXPECT_EQ(r.attrs, AttrMask(AttrBit::CUR_STATE));
  }
  // Allowed and matching in RTS (RTS -> RTS lists CUR_STATE as optional).
  EXPECT_TRUE(check_modify(QpType::RC, QpState::RTS, state_cur, QpState::RTS, QpState::RTS).ok());
  // Allowed in RTS but naming another state.
  const ModifyCheck mismatch =
      check_modify(QpType::RC, QpState::RTS, state_cur, QpState::RTS, QpState::SQD);
  EXPECT_EQ(mismatch.error, ModifyError::CUR_STATE_MISMATCH);
  EXPECT_EQ(mismatch.attrs, AttrMask(AttrBit::CUR_STATE));
  // Allowed in the state but not optional in the cell: RTS -> ERR has no optional bits.
  EXPECT_EQ(check_modify(QpType::RC, QpState::RTS, state_cur, QpState::ERR, QpState::RTS).error,
            ModifyError::UNEXPECTED_ATTR);
  // rxe/mlx profile: the claimed state selects the row.
  QpProfile rxe;
  rxe.cur_state_selects_row = true;
  const ModifyCheck row =
      check_modify(QpType::RC, QpState::RTS, state_cur, QpState::RTS, QpState::SQD, rxe);
  EXPECT_EQ(row.error, ModifyError::OK);  // SQD -> RTS with CUR_STATE optional
  EXPECT_EQ(
      check_modify(QpType::RC, QpState::RTS, state_cur, QpState::RTS, QpState::INIT, rxe).error,
      ModifyError::CUR_STATE_NOT_ALLOWED);
  // cur_qp_state is not read without CUR_STATE in the mask.
  EXPECT_TRUE(check_modify(QpType::UD, QpState::RTS, AttrMask(AttrBit::STATE), QpState::RTS,
                           static_cast<QpState>(200))
                  .ok());
}

TEST(QpTransitions, StateValuesOutOfRange) {
  const ModifyCheck bad_next = check_modify(QpType::RC, QpState::RTS, AttrMask(AttrBit::STATE),
                                            static_cast<QpState>(7), QpState::RTS);
  EXPECT_EQ(bad_next.error, ModifyError::INVALID_STATE_VALUE);
  EXPECT_EQ(bad_next.attrs, AttrMask(AttrBit::STATE));
  const ModifyCheck bad_cur =
      check_modify(QpType::RC, QpState::RTS, AttrBit::STATE | AttrBit::CUR_STATE, QpState::RTS,
                   static_cast<QpState>(9));
  EXPECT_EQ(bad_cur.error, ModifyError::INVALID_STATE_VALUE);
  EXPECT_EQ(bad_cur.attrs, AttrMask(AttrBit::CUR_STATE));
  // qp_state is not read without STATE: the mask means "stay in RTS".
  EXPECT_TRUE(
      check_modify(QpType::RC, QpState::RTS, AttrMask{}, static_cast<QpState>(7), QpState::RTS)
          .ok());
  EXPECT_FALSE(transition_rule(QpType::RC, static_cast<QpState>(7), QpState::ERR).valid);
}

TEST(QpTransitions, MissingIsReportedBeforeUnexpected) {
  // RESET -> INIT for RC without PORT and with QKEY: both wrong; Linux checks required first.
  const ModifyCheck r =
      check_modify(QpType::RC, QpState::RESET,
                   AttrBit::STATE | AttrBit::PKEY_INDEX | AttrBit::ACCESS_FLAGS | AttrBit::QKEY,
                   QpState::INIT, QpState::RESET);
  EXPECT_EQ(r.error, ModifyError::MISSING_REQUIRED_ATTR);
  EXPECT_EQ(r.attrs, AttrMask(AttrBit::PORT));
  // Several missing bits are all named.
  const ModifyCheck several =
      check_modify(QpType::RC, QpState::RTR, AttrMask(AttrBit::STATE), QpState::RTS, QpState::RTR);
  EXPECT_EQ(several.attrs, AttrBit::TIMEOUT | AttrBit::RETRY_CNT | AttrBit::RNR_RETRY |
                               AttrBit::SQ_PSN | AttrBit::MAX_QP_RD_ATOMIC);
}

TEST(QpTransitions, SqdDrainingAllowsOnlyErr) {
  const bool draining = true;
  for (QpType type : {QpType::RC, QpType::UC, QpType::UD}) {
    auto run = [&](AttrMask mask, QpState to, const QpProfile& p = {}) {
      return check_modify(type, QpState::SQD, mask, to, QpState::SQD, p, draining).error;
    };
    const AttrMask state(AttrBit::STATE);
    EXPECT_EQ(run(state, QpState::ERR), ModifyError::OK);
    EXPECT_EQ(run(state, QpState::RTS), ModifyError::SQ_DRAINING);
    EXPECT_EQ(run(state, QpState::RESET), ModifyError::SQ_DRAINING);
    EXPECT_EQ(run(state, QpState::SQD), ModifyError::SQ_DRAINING);
    EXPECT_EQ(run(AttrMask{}, QpState::SQD), ModifyError::SQ_DRAINING);  // STATE-less SQD -> SQD
    // The table still comes first.
    EXPECT_EQ(run(state, QpState::INIT), ModifyError::ILLEGAL_TRANSITION);
    QpProfile lax;
    lax.sqd_drain_only_to_err = false;
    EXPECT_EQ(run(state, QpState::RTS, lax), ModifyError::OK);
    // Not draining: SQD -> RTS is fine.
    EXPECT_TRUE(check_modify(type, QpState::SQD, state, QpState::RTS, QpState::SQD).ok());
  }
}

TEST(QpTransitions, UnknownMaskBitsAreUnexpected) {
  for (int b : {21, 22, 23, 24, 26, 31}) {
    const std::uint32_t bit = 1u << b;
    const ModifyCheck r = check_modify(
        QpType::UD, QpState::RTS, AttrMask::from_raw(kStateBit | bit), QpState::RTS, QpState::RTS);
    EXPECT_EQ(r.error, ModifyError::UNEXPECTED_ATTR) << b;
    EXPECT_EQ(r.attrs.raw(), bit) << b;
  }
  // RATE_LIMIT is not in any RC/UC/UD set (docs/spec-notes.md §6.2 note).
  EXPECT_EQ(check_modify(QpType::RC, QpState::RTS, AttrBit::STATE | AttrBit::RATE_LIMIT,
                         QpState::RTS, QpState::RTS)
                .error,
            ModifyError::UNEXPECTED_ATTR);
}

TEST(StateRules, OneRowPerStateInStateOrder) {
  ASSERT_EQ(kStateRules.size(), kAllQpStates.size());
  for (std::size_t i = 0; i < kStateRules.size(); ++i) {
    EXPECT_EQ(kStateRules[i].state, kAllQpStates[i]);
    EXPECT_EQ(state_rules(kAllQpStates[i]).state, kAllQpStates[i]);
  }
  const StateRules bad = state_rules(static_cast<QpState>(7));
  EXPECT_FALSE(bad.post_send || bad.post_recv || bad.rq_processes || bad.sq_processes ||
               bad.processes_responses);
}

TEST(StateRules, ColumnsAreConsistent) {
  // Relations between the columns that hold in every row, whatever the values.
  for (const StateRules& r : kStateRules) {
    SCOPED_TRACE(std::string(to_string(r.state)));
    if (r.sq_starts_wqe) {
      EXPECT_TRUE(r.sq_processes);  // starting a WQE sends it
    }
    if (r.processes_responses) {
      EXPECT_TRUE(r.sq_processes);  // responses answer our requests
    }
    if (r.sq_processes) {
      EXPECT_TRUE(r.post_send);
    }
    if (r.rq_processes) {
      EXPECT_TRUE(r.post_recv);
    }
    if (r.flush_on_post) {
      // A flushing state takes WRs only to flush them, and does nothing else.
      EXPECT_TRUE(r.post_send && r.post_recv);
      EXPECT_FALSE(r.rq_processes || r.sq_processes || r.processes_responses);
    }
    // Only RTS starts new WQEs; SQD and SQE finish what is in flight (IBA Vol. 1 §10.3.1).
    EXPECT_EQ(r.sq_starts_wqe, r.state == QpState::RTS);
  }
}

TEST(StateRules, IbaQpStates) {
  // IBA Vol. 1 §10.3.1: RESET accepts no work request and processes nothing; receives may be
  // posted from INIT; the receive side works from RTR; sends start in RTS only; SQD and SQE
  // finish or drop what is in flight; ERR flushes both queues, SQE the send queue.
  const StateRules reset = state_rules(QpState::RESET);
  EXPECT_FALSE(reset.post_send || reset.post_recv || reset.rq_processes || reset.sq_processes);
  EXPECT_TRUE(state_rules(QpState::INIT).post_recv);
  EXPECT_FALSE(state_rules(QpState::INIT).post_send);
  EXPECT_FALSE(state_rules(QpState::INIT).rq_processes);
  EXPECT_TRUE(state_rules(QpState::RTR).rq_processes);
  EXPECT_FALSE(state_rules(QpState::RTR).post_send);
  EXPECT_TRUE(state_rules(QpState::SQD).processes_responses);
  EXPECT_FALSE(state_rules(QpState::SQE).processes_responses);
  EXPECT_EQ(state_rules(QpState::SQE).flush, QueueFlush::SEND_QUEUE);
  EXPECT_EQ(state_rules(QpState::ERR).flush, QueueFlush::ALL);
  EXPECT_TRUE(state_rules(QpState::ERR).flush_on_post);
  for (QpState s : kAllQpStates) {
    if (s != QpState::ERR) {
      EXPECT_FALSE(state_rules(s).flush_on_post) << to_string(s);
    }
  }
}

}  // namespace
}  // namespace rocecert::qp
