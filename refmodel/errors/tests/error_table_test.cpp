// The error table: totality and consistency of every row and cell, spot checks typed from
// docs/spec-notes.md and the captures (not from the table), and the two mappings (access outcome ->
// class, AETH syndrome -> requester status).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "rocecert/docgen/errors_doc.h"
#include "rocecert/errors/error_table.h"

namespace rocecert::errors {
namespace {

using cq::WcStatus;
using qp::QpType;

constexpr ErrorProfile kProfiles[] = {ErrorProfile::IBA, ErrorProfile::RXE};

// The lookups are usable in constant expressions.
static_assert(outcome(ErrorClass::RESP_RKEY_VIOLATION, QpType::RC).nak_code == 0x62);
static_assert(kErrorTable.size() == kErrorClassCount);
static_assert(kDefaultErrorProfile == ErrorProfile::RXE);
static_assert(error_for_syndrome(0x62) == ErrorClass::REQ_REMOTE_ACCESS);
static_assert(requester_status_for_syndrome(0x62) == WcStatus::REM_ACCESS_ERR);

std::string where(const ErrorRow& r, QpType t, ErrorProfile p) {
  return std::string(r.name) + " " + std::string(qp::to_string(t)) + " " +
         std::string(to_string(p));
}

bool is_error_status(WcStatus s) {
  return s != WcStatus::SUCCESS && s != WcStatus::WR_FLUSH_ERR;
}

// ---- totality -------------------------------------------------------------------------------

TEST(ErrorTable, OneRowPerClassInEnumOrder) {
  ASSERT_EQ(kErrorTable.size(), kErrorClassCount);
  for (std::size_t i = 0; i < kErrorTable.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kErrorTable[i].error), i);
    EXPECT_EQ(&error_row(kErrorTable[i].error), &kErrorTable[i]);
  }
}

TEST(ErrorTable, EveryClassHasARowForEveryQpTypeAndProfile) {
  for (const ErrorRow& r : kErrorTable) {
    ASSERT_EQ(r.by_type.size(), qp::kQpTypeCount) << r.name;
    bool applies_somewhere = false;
    for (QpType t : qp::kAllQpTypes)
      for (ErrorProfile p : kProfiles) {
        EXPECT_EQ(&outcome(r.error, t, p), &r.get(t, p));
        applies_somewhere = applies_somewhere || r.get(t, p).applies;
      }
    EXPECT_TRUE(applies_somewhere) << r.name << " applies to no QP type";
    // A class applies to the same QP types under both profiles.
    for (QpType t : qp::kAllQpTypes)
      EXPECT_EQ(r.get(t, ErrorProfile::IBA).applies, r.get(t, ErrorProfile::RXE).applies)
          << r.name << " " << qp::to_string(t);
  }
}

TEST(ErrorTable, NamesAreUniqueAndRoundTrip) {
  std::set<std::string_view> names;
  for (const ErrorRow& r : kErrorTable) {
    EXPECT_TRUE(names.insert(r.name).second) << "duplicate " << r.name;
    EXPECT_EQ(to_string(r.error), r.name);
    ErrorClass back{};
    ASSERT_TRUE(error_class_from_name(r.name, back)) << r.name;
    EXPECT_EQ(back, r.error);
    for (char c : r.name) EXPECT_TRUE((c >= 'A' && c <= 'Z') || c == '_') << r.name;
  }
  ErrorClass unused{};
  EXPECT_FALSE(error_class_from_name("NO_SUCH_ERROR", unused));
}

TEST(ErrorTable, EveryClassHasASummaryAndASpecReference) {
  for (const ErrorRow& r : kErrorTable) {
    EXPECT_FALSE(r.summary.empty()) << r.name;
    EXPECT_FALSE(r.reference.empty()) << r.name;
    // The reference names a docs/spec-notes.md section, or an IBA clause where one is given.
    const bool cites = r.reference.find("§") != std::string_view::npos ||
                       r.reference.find("IBA") != std::string_view::npos;
    EXPECT_TRUE(cites) << r.name << ": " << r.reference;
  }
}

TEST(ErrorTable, DivergenceIsExplainedExactlyWhereTheProfilesDiffer) {
  for (const ErrorRow& r : kErrorTable) {
    EXPECT_EQ(r.diverges(), !r.divergence.empty())
        << r.name
        << (r.diverges() ? ": profiles differ without an explanation"
                         : ": explanation without a difference");
  }
}

TEST(ErrorTable, TiersAreListedInOrder) {
  // error_classes.def keeps the rows in tier order, so the enum order inside a tier is the
  // order of the checks and the arbitration's last key.
  for (std::size_t i = 1; i < kErrorTable.size(); ++i)
    EXPECT_LE(kErrorTable[i - 1].tier, kErrorTable[i].tier) << kErrorTable[i].name;
}

// ---- consistency of every cell --------------------------------------------------------------

TEST(ErrorTable, CellsAreConsistent) {
  for (const ErrorRow& r : kErrorTable)
    for (QpType t : qp::kAllQpTypes)
      for (ErrorProfile p : kProfiles) {
        const Outcome& o = r.get(t, p);
        const std::string at = where(r, t, p);
        if (!o.applies) {
          Outcome blank = dsl::na();
          blank.note = o.note;
          EXPECT_TRUE(o.same_behaviour(blank)) << at << ": n/a cell with content";
          continue;
        }
        // Syndromes: NAK codes 0x60-0x64 (RNR NAKs are 0x20 | timer, built by nak_syndrome).
        if (o.response == Response::NAK) {
          EXPECT_GE(o.nak_code, 0x60) << at;
          EXPECT_LE(o.nak_code, 0x64) << at;
        } else {
          EXPECT_EQ(o.nak_code, 0) << at;
        }
        // UC and UD never acknowledge (docs/spec-notes.md §9).
        const bool answers = o.response == Response::NAK || o.response == Response::RNR_NAK ||
                             o.response == Response::ACK || o.response == Response::RESERVED_NAK;
        if (answers) {
          EXPECT_EQ(t, QpType::RC) << at;
        }
        // The requester's effect and its fields agree.
        EXPECT_EQ(o.requester == RequesterEffect::COMPLETES, o.requester_status.has_value()) << at;
        EXPECT_EQ(o.requester == RequesterEffect::RETRIES, o.when_retries_exhausted.has_value())
            << at;
        if (o.requester == RequesterEffect::RETRIES) {
          EXPECT_EQ(t, QpType::RC) << at << ": only RC retries";
          const Outcome& end = outcome(*o.when_retries_exhausted, t, p);
          EXPECT_EQ(tier_of(*o.when_retries_exhausted), Tier::FATAL) << at;
          ASSERT_EQ(end.requester, RequesterEffect::COMPLETES) << at;
          EXPECT_TRUE(*end.requester_status == WcStatus::RETRY_EXC_ERR ||
                      *end.requester_status == WcStatus::RNR_RETRY_EXC_ERR)
              << at;
        }
        // Flush follows the state change: ERR flushes everything, SQE the send queue.
        for (auto [s, f] : {std::pair{o.requester_state, o.requester_flush},
                            std::pair{o.responder_state, o.responder_flush}}) {
          switch (s) {
            case StateChange::NONE:
              EXPECT_EQ(f, Flush::NONE) << at;
              break;
            case StateChange::SQE:
              EXPECT_EQ(f, Flush::SEND_QUEUE) << at;
              break;
            case StateChange::ERR:
              EXPECT_EQ(f, Flush::ALL) << at;
              break;
          }
        }
        // RC has no SQE (docs/spec-notes.md §6.6); rxe has no SQE at all.
        if (o.requester_state == StateChange::SQE || o.responder_state == StateChange::SQE) {
          EXPECT_NE(t, QpType::RC) << at;
          EXPECT_EQ(p, ErrorProfile::IBA) << at;
        }
        EXPECT_NE(o.responder_state, StateChange::SQE) << at << ": SQE is a send-side state";
        // An error completion takes its QP out of service (docs/spec-notes.md §5.5 last line,
        // §4.4).
        if (o.requester_status && is_error_status(*o.requester_status)) {
          EXPECT_NE(o.requester_state, StateChange::NONE) << at;
        }
        if (o.receive_status && is_error_status(*o.receive_status)) {
          EXPECT_EQ(o.responder_state, StateChange::ERR) << at;
        }
        // Statuses are real ibv_wc_status values a RoCE QP can produce: 0-21, no RD-only
        // status except REM_INV_RD_REQ_ERR (the status named for NAK 0x64), no TM status.
        for (const auto& s : {o.requester_status, o.receive_status}) {
          if (!s) continue;
          EXPECT_LE(static_cast<int>(*s), static_cast<int>(WcStatus::GENERAL_ERR)) << at;
          EXPECT_NE(*s, WcStatus::LOC_EEC_OP_ERR) << at;
          EXPECT_NE(*s, WcStatus::LOC_RDD_VIOL_ERR) << at;
          EXPECT_NE(*s, WcStatus::INV_EECN_ERR) << at;
          EXPECT_NE(*s, WcStatus::INV_EEC_STATE_ERR) << at;
        }
        // Events: packed to the front, no repeats, asynchronous errors only; rxe raises no QP
        // event (captures multi_qp_errors), only CQ_ERR.
        if (o.events[0] == AsyncEventType::NONE) {
          EXPECT_EQ(o.events[1], AsyncEventType::NONE) << at;
        }
        if (o.events[1] != AsyncEventType::NONE) {
          EXPECT_NE(o.events[0], o.events[1]) << at;
        }
        for (AsyncEventType e : o.events) {
          if (e == AsyncEventType::NONE) continue;
          EXPECT_TRUE(is_async_error(e)) << at << " " << to_string(e);
          if (p == ErrorProfile::RXE) {
            EXPECT_EQ(e, AsyncEventType::CQ_ERR) << at;
          }
        }
      }
}

TEST(ErrorTable, NakCellsAgreeWithTheSyndromeMapping) {
  // A responder row's requester status must be what a requester receiving that NAK reports:
  // two parts of the table that must not drift apart.
  for (const ErrorRow& r : kErrorTable)
    for (QpType t : qp::kAllQpTypes)
      for (ErrorProfile p : kProfiles) {
        const Outcome& o = r.get(t, p);
        if (o.response != Response::NAK) continue;
        const std::string at = where(r, t, p);
        const std::optional<WcStatus> s = requester_status_for_syndrome(o.nak_code, p);
        if (o.nak_code == 0x60) {
          EXPECT_FALSE(s.has_value()) << at;
          EXPECT_EQ(o.requester, RequesterEffect::RETRIES) << at;
          EXPECT_EQ(o.requester_state, StateChange::NONE) << at;
          EXPECT_EQ(o.responder_state, StateChange::NONE) << at;
        } else {
          // Fatal NAK codes (docs/spec-notes.md §4.3): the requester completes in error, both sides
          // ERR.
          ASSERT_TRUE(s.has_value()) << at;
          EXPECT_EQ(o.requester_status, s) << at;
          EXPECT_EQ(o.requester_state, StateChange::ERR) << at;
          EXPECT_EQ(o.responder_state, StateChange::ERR) << at;
        }
      }
}

TEST(ErrorTable, TierMatchesWhatTheClassDoes) {
  for (const ErrorRow& r : kErrorTable) {
    bool changes_state = false, flushes = false;
    for (QpType t : qp::kAllQpTypes)
      for (ErrorProfile p : kProfiles) {
        const Outcome& o = r.get(t, p);
        changes_state = changes_state || o.requester_state != StateChange::NONE ||
                        o.responder_state != StateChange::NONE;
        flushes = flushes || o.requester_status == WcStatus::WR_FLUSH_ERR;
      }
    if (r.tier == Tier::BENIGN) {
      EXPECT_FALSE(changes_state) << r.name << " is BENIGN but changes a QP's state";
    } else {
      EXPECT_TRUE(changes_state || flushes) << r.name << " is " << to_string(r.tier);
    }
    if (r.tier == Tier::FLUSH) {
      EXPECT_TRUE(flushes) << r.name;
    }
  }
}

// ---- spot checks, typed from docs/spec-notes.md and the captures -----------------------------

TEST(ErrorSpot, RcRkeyViolation) {
  // docs/spec-notes.md §4.4 CHK_RKEY: NAK 0x62, QP->ERR; §4.3: REM_ACCESS_ERR; captures
  // multi_qp_errors: both QPs end in ERR and no async event is raised.
  const Outcome& o = outcome(ErrorClass::RESP_RKEY_VIOLATION, QpType::RC);
  EXPECT_EQ(o.response, Response::NAK);
  EXPECT_EQ(nak_syndrome(o), 0x62);
  EXPECT_EQ(o.requester_status, WcStatus::REM_ACCESS_ERR);
  EXPECT_EQ(o.requester_state, StateChange::ERR);
  EXPECT_EQ(o.responder_state, StateChange::ERR);
  EXPECT_EQ(o.requester_flush, Flush::ALL);
  EXPECT_EQ(o.responder_flush, Flush::ALL);
  EXPECT_FALSE(o.has_events());
  const Outcome& iba = outcome(ErrorClass::RESP_RKEY_VIOLATION, QpType::RC, ErrorProfile::IBA);
  EXPECT_EQ(nak_syndrome(iba), 0x62);
  EXPECT_TRUE(iba.raises(AsyncEventType::QP_ACCESS_ERR));
  EXPECT_EQ(iba.receive_status, WcStatus::LOC_ACCESS_ERR);
  EXPECT_EQ(o.receive_status, WcStatus::REM_ACCESS_ERR);
}

TEST(ErrorSpot, UcRkeyViolationIsASilentDrop) {
  // docs/spec-notes.md §9.2: an rkey failure drops the whole message; UC never moves to ERR for it.
  for (ErrorProfile p : kProfiles) {
    const Outcome& o = outcome(ErrorClass::RESP_RKEY_VIOLATION, QpType::UC, p);
    EXPECT_TRUE(o.applies);
    EXPECT_EQ(o.response, Response::SILENT_DROP);
    EXPECT_EQ(nak_syndrome(o), std::nullopt);
    EXPECT_EQ(o.requester_status, WcStatus::SUCCESS);
    EXPECT_EQ(o.requester_state, StateChange::NONE);
    EXPECT_EQ(o.responder_state, StateChange::NONE);
  }
  EXPECT_FALSE(outcome(ErrorClass::RESP_RKEY_VIOLATION, QpType::UD).applies);
}

TEST(ErrorSpot, UdQkeyMismatchIsDropped) {
  // docs/spec-notes.md §1.9 check 8, §9.1: silently dropped, counted, no
  // state change.
  const Outcome& o = outcome(ErrorClass::PKT_QKEY_VIOLATION, QpType::UD);
  EXPECT_EQ(o.response, Response::SILENT_DROP);
  EXPECT_EQ(o.responder_state, StateChange::NONE);
  EXPECT_EQ(o.requester_state, StateChange::NONE);
  EXPECT_FALSE(outcome(ErrorClass::PKT_QKEY_VIOLATION, QpType::RC).applies);
  EXPECT_FALSE(outcome(ErrorClass::PKT_QKEY_VIOLATION, QpType::UC).applies);
}

TEST(ErrorSpot, RnrNak) {
  // IBTA Vol. 1 §9.7.5.2.8; docs/spec-notes.md §4.4: RNR NAK 0x20 | min_rnr_timer, no state change;
  // §5.4: retried, then RNR_RETRY_EXC_ERR. Capture rnr_nak_then_ok: timer 18 -> syndrome 0x32.
  const Outcome& o = outcome(ErrorClass::RESP_RNR, QpType::RC);
  EXPECT_EQ(o.response, Response::RNR_NAK);
  EXPECT_EQ(nak_syndrome(o, 18), 0x32);
  EXPECT_EQ(nak_syndrome(o, 0), 0x20);
  EXPECT_EQ(nak_syndrome(o, 31), 0x3F);
  EXPECT_EQ(o.requester, RequesterEffect::RETRIES);
  EXPECT_EQ(o.when_retries_exhausted, ErrorClass::REQ_RNR_RETRY_EXCEEDED);
  EXPECT_EQ(o.requester_state, StateChange::NONE);
  EXPECT_EQ(o.responder_state, StateChange::NONE);
  EXPECT_EQ(outcome(ErrorClass::RESP_RNR, QpType::UD).response, Response::SILENT_DROP);
  EXPECT_EQ(outcome(ErrorClass::RESP_RNR, QpType::UC).response, Response::SILENT_DROP);
}

TEST(ErrorSpot, RetryExhaustion) {
  // IBTA Vol. 1 §9.7.6.1.3, C9-140, §9.7.5.2.8; docs/spec-notes.md §5.2: RETRY_EXC_ERR, QP -> ERR,
  // flush; §5.4: RNR_RETRY_EXC_ERR.
  const Outcome& r = outcome(ErrorClass::REQ_RETRY_EXCEEDED, QpType::RC);
  EXPECT_EQ(r.requester_status, WcStatus::RETRY_EXC_ERR);
  EXPECT_EQ(r.requester_state, StateChange::ERR);
  EXPECT_EQ(r.requester_flush, Flush::ALL);
  EXPECT_EQ(r.responder_state, StateChange::NONE);
  const Outcome& n = outcome(ErrorClass::REQ_RNR_RETRY_EXCEEDED, QpType::RC);
  EXPECT_EQ(n.requester_status, WcStatus::RNR_RETRY_EXC_ERR);
  EXPECT_EQ(n.requester_state, StateChange::ERR);
  EXPECT_FALSE(outcome(ErrorClass::REQ_RETRY_EXCEEDED, QpType::UC).applies);
  EXPECT_FALSE(outcome(ErrorClass::REQ_RETRY_EXCEEDED, QpType::UD).applies);
}

TEST(ErrorSpot, ReceiveBufferTooSmallDependsOnTheProfile) {
  // docs/spec-notes.md §11.6: rxe NAK 0x63 + LOC_QP_OP_ERR (capture err_send_too_long: NAK remote
  // operational error); IB convention NAK 0x61 + LOC_LEN_ERR.
  const Outcome& rxe = outcome(ErrorClass::RESP_RECV_BUFFER_TOO_SMALL, QpType::RC);
  EXPECT_EQ(nak_syndrome(rxe), 0x63);
  EXPECT_EQ(rxe.requester_status, WcStatus::REM_OP_ERR);
  EXPECT_EQ(rxe.receive_status, WcStatus::LOC_QP_OP_ERR);
  const Outcome& iba =
      outcome(ErrorClass::RESP_RECV_BUFFER_TOO_SMALL, QpType::RC, ErrorProfile::IBA);
  EXPECT_EQ(nak_syndrome(iba), 0x61);
  EXPECT_EQ(iba.requester_status, WcStatus::REM_INV_REQ_ERR);
  EXPECT_EQ(iba.receive_status, WcStatus::LOC_LEN_ERR);
  for (const Outcome* o : {&rxe, &iba}) {
    EXPECT_EQ(o->requester_state, StateChange::ERR);
    EXPECT_EQ(o->responder_state, StateChange::ERR);
  }
  // docs/spec-notes.md §9.1: UD, with or without SRQ: LOC_QP_OP_ERR and ERR
  // in rxe, no NAK.
  const Outcome& ud = outcome(ErrorClass::RESP_RECV_BUFFER_TOO_SMALL, QpType::UD);
  EXPECT_EQ(ud.response, Response::NONE);
  EXPECT_EQ(ud.receive_status, WcStatus::LOC_QP_OP_ERR);
  EXPECT_EQ(ud.responder_state, StateChange::ERR);
  EXPECT_EQ(
      outcome(ErrorClass::RESP_RECV_BUFFER_TOO_SMALL, QpType::UD, ErrorProfile::IBA).receive_status,
      WcStatus::LOC_LEN_ERR);
}

TEST(ErrorSpot, CqOverflowAsRxeDoes) {
  // Captures README cq_overflow: no ACK or NAK, the responder QP goes to ERR, CQ_ERR is
  // raised; the requester retransmits and ends with RETRY_EXC_ERR.
  const Outcome& o = outcome(ErrorClass::CQ_OVERFLOW, QpType::RC);
  EXPECT_EQ(o.response, Response::NONE);
  EXPECT_EQ(o.responder_state, StateChange::ERR);
  EXPECT_EQ(o.requester_state, StateChange::NONE);
  EXPECT_EQ(o.requester, RequesterEffect::RETRIES);
  EXPECT_EQ(o.when_retries_exhausted, ErrorClass::REQ_RETRY_EXCEEDED);
  EXPECT_TRUE(o.raises(AsyncEventType::CQ_ERR));
  EXPECT_FALSE(o.raises(AsyncEventType::QP_FATAL));
  EXPECT_EQ(event_target(AsyncEventType::CQ_ERR), EventTarget::CQ);
  EXPECT_EQ(tier_of(ErrorClass::CQ_OVERFLOW), Tier::RESOURCE);
  EXPECT_FALSE(cq_error_is_sticky(ErrorProfile::RXE));
  // IBA: the CQ error is permanent and the QP gets a local catastrophic error too.
  EXPECT_TRUE(outcome(ErrorClass::CQ_OVERFLOW, QpType::RC, ErrorProfile::IBA)
                  .raises(AsyncEventType::QP_FATAL));
  EXPECT_TRUE(cq_error_is_sticky(ErrorProfile::IBA));
  // rxe_comp.c do_complete ignores a full send CQ: the completion is lost, the QP stays.
  const Outcome& s = outcome(ErrorClass::CQ_OVERFLOW_SEND, QpType::RC);
  EXPECT_EQ(s.requester, RequesterEffect::LOST);
  EXPECT_EQ(s.requester_state, StateChange::NONE);
  EXPECT_TRUE(s.raises(AsyncEventType::CQ_ERR));
}

TEST(ErrorSpot, FatalNakCodesFromTheCaptures) {
  // err_atomic_qp_denied: NAK invalid request; err_write_bad_rkey: remote access error.
  EXPECT_EQ(nak_syndrome(outcome(ErrorClass::RESP_QP_ACCESS, QpType::RC)), 0x61);
  EXPECT_EQ(nak_syndrome(outcome(ErrorClass::RESP_OPCODE_SEQUENCE, QpType::RC)), 0x61);
  EXPECT_EQ(nak_syndrome(outcome(ErrorClass::RESP_MISALIGNED_ATOMIC, QpType::RC)), 0x61);
  EXPECT_EQ(nak_syndrome(outcome(ErrorClass::RESP_NO_RESOURCES_RD_ATOMIC, QpType::RC)), 0x61);
  EXPECT_EQ(nak_syndrome(outcome(ErrorClass::RESP_LENGTH, QpType::RC)), 0x61);
  EXPECT_EQ(nak_syndrome(outcome(ErrorClass::RESP_RECV_WQE_PROTECTION, QpType::RC)), 0x63);
  EXPECT_EQ(nak_syndrome(outcome(ErrorClass::RESP_MALFORMED_RECV_WQE, QpType::RC)), 0x63);
  const Outcome& psn = outcome(ErrorClass::RESP_PSN_SEQUENCE, QpType::RC);
  EXPECT_EQ(nak_syndrome(psn), 0x60);
  EXPECT_EQ(psn.responder_state, StateChange::NONE);
  EXPECT_EQ(outcome(ErrorClass::RESP_PSN_SEQUENCE, QpType::UC).response, Response::SILENT_DROP);
  EXPECT_FALSE(outcome(ErrorClass::RESP_PSN_SEQUENCE, QpType::UD).applies);
}

TEST(ErrorSpot, SendWithInvalidateFailure) {
  // docs/spec-notes.md §11.9: rxe ACKs (the requester succeeds) and fails only the receive.
  const Outcome& rxe = outcome(ErrorClass::RESP_INVALIDATE_FAILED, QpType::RC);
  EXPECT_EQ(rxe.response, Response::ACK);
  EXPECT_EQ(rxe.requester_status, WcStatus::SUCCESS);
  EXPECT_EQ(rxe.requester_state, StateChange::NONE);
  EXPECT_EQ(rxe.receive_status, WcStatus::REM_INV_REQ_ERR);
  EXPECT_EQ(rxe.responder_state, StateChange::ERR);
  const Outcome& iba = outcome(ErrorClass::RESP_INVALIDATE_FAILED, QpType::RC, ErrorProfile::IBA);
  EXPECT_EQ(nak_syndrome(iba), 0x61);
  EXPECT_EQ(iba.requester_state, StateChange::ERR);
}

TEST(ErrorSpot, LocalErrorsOnUnreliableQps) {
  // docs/spec-notes.md §6.6: the spec takes UC/UD to SQE on a send error; rxe goes to ERR. §11.20:
  // the verbs convention is LOC_PROT_ERR, rxe reports LOC_QP_OP_ERR for a bad lkey.
  for (QpType t : {QpType::UC, QpType::UD}) {
    const Outcome& iba = outcome(ErrorClass::REQ_LOCAL_PROTECTION, t, ErrorProfile::IBA);
    EXPECT_EQ(iba.requester_status, WcStatus::LOC_PROT_ERR);
    EXPECT_EQ(iba.requester_state, StateChange::SQE);
    EXPECT_EQ(iba.requester_flush, Flush::SEND_QUEUE);
    const Outcome& rxe = outcome(ErrorClass::REQ_LOCAL_PROTECTION, t);
    EXPECT_EQ(rxe.requester_status, WcStatus::LOC_QP_OP_ERR);
    EXPECT_EQ(rxe.requester_state, StateChange::ERR);
  }
  EXPECT_EQ(
      outcome(ErrorClass::REQ_LOCAL_PROTECTION, QpType::RC, ErrorProfile::IBA).requester_state,
      StateChange::ERR);
  EXPECT_EQ(outcome(ErrorClass::REQ_MW_BIND, QpType::RC).requester_status, WcStatus::MW_BIND_ERR);
  EXPECT_FALSE(outcome(ErrorClass::REQ_MW_BIND, QpType::UD).applies);
  // C10-93.1.1: a UD WR above the MTU completes with SUCCESS and sends nothing.
  const Outcome& ud = outcome(ErrorClass::REQ_UD_MESSAGE_TOO_LONG, QpType::UD);
  EXPECT_EQ(ud.requester_status, WcStatus::SUCCESS);
  EXPECT_EQ(ud.requester_state, StateChange::NONE);
}

TEST(ErrorSpot, FlushClasses) {
  // docs/spec-notes.md §6.5: every outstanding WQE completes with WR_FLUSH_ERR; WRs posted in ERR
  // too.
  for (QpType t : qp::kAllQpTypes) {
    const Outcome& m = outcome(ErrorClass::QP_MODIFIED_TO_ERR, t);
    EXPECT_EQ(m.requester_status, WcStatus::WR_FLUSH_ERR);
    EXPECT_EQ(m.receive_status, WcStatus::WR_FLUSH_ERR);
    EXPECT_EQ(m.requester_state, StateChange::ERR);
    const Outcome& p = outcome(ErrorClass::WR_POSTED_IN_ERR, t);
    EXPECT_EQ(p.requester_status, WcStatus::WR_FLUSH_ERR);
    EXPECT_EQ(p.requester_state, StateChange::NONE);
  }
}

TEST(ErrorSpot, DefaultProfileIsRxe) {
  for (const ErrorRow& r : kErrorTable)
    for (QpType t : qp::kAllQpTypes)
      EXPECT_EQ(&outcome(r.error, t), &r.get(t, ErrorProfile::RXE)) << r.name;
}

TEST(ErrorSpot, FlushScopeAndSrqRules) {
  EXPECT_EQ(flush_scope(StateChange::ERR, false), (FlushScope{true, true, false}));
  EXPECT_EQ(flush_scope(StateChange::ERR, true), (FlushScope{true, false, true}));
  EXPECT_EQ(flush_scope(StateChange::SQE, true), (FlushScope{true, false, false}));
  EXPECT_EQ(flush_scope(StateChange::NONE, false), FlushScope{});
  EXPECT_TRUE(raises_last_wqe_reached(ErrorProfile::IBA, true, true));
  EXPECT_FALSE(raises_last_wqe_reached(ErrorProfile::IBA, false, true));
  EXPECT_FALSE(raises_last_wqe_reached(ErrorProfile::RXE, true, true));
}

// ---- mappings -------------------------------------------------------------------------------

constexpr mem::AccessOutcome kFailures[] = {
    mem::AccessOutcome::INVALID_KEY_INDEX, mem::AccessOutcome::KEY_MISMATCH,
    mem::AccessOutcome::PD_MISMATCH,       mem::AccessOutcome::INVALID_STATE,
    mem::AccessOutcome::MW_QP_MISMATCH,    mem::AccessOutcome::ACCESS_DENIED,
    mem::AccessOutcome::LENGTH_OVERFLOW,   mem::AccessOutcome::OUT_OF_MW_BOUNDS,
    mem::AccessOutcome::OUT_OF_BOUNDS,     mem::AccessOutcome::UNALIGNED_ATOMIC};

TEST(ErrorMapping, AccessOutcomes) {
  constexpr mem::MemOp kRemote[] = {mem::MemOp::REMOTE_READ, mem::MemOp::REMOTE_WRITE,
                                    mem::MemOp::REMOTE_ATOMIC, mem::MemOp::ATOMIC_WRITE,
                                    mem::MemOp::FLUSH};
  for (mem::MemOp op : kRemote) {
    EXPECT_EQ(error_for_access(op, mem::AccessOutcome::OK, AccessSite::RESPONDER), std::nullopt);
    for (mem::AccessOutcome o : kFailures) {
      const ErrorClass want = o == mem::AccessOutcome::UNALIGNED_ATOMIC
                                  ? ErrorClass::RESP_MISALIGNED_ATOMIC
                                  : ErrorClass::RESP_RKEY_VIOLATION;
      EXPECT_EQ(error_for_access(op, o, AccessSite::RESPONDER), want)
          << mem::to_string(op) << " " << mem::to_string(o);
    }
  }
  for (mem::AccessOutcome o : kFailures) {
    EXPECT_EQ(error_for_access(mem::MemOp::LOCAL_READ, o), ErrorClass::REQ_LOCAL_PROTECTION);
    EXPECT_EQ(error_for_access(mem::MemOp::LOCAL_WRITE, o, AccessSite::REQUESTER),
              ErrorClass::REQ_LOCAL_SCATTER_PROTECTION);
    EXPECT_EQ(error_for_access(mem::MemOp::LOCAL_WRITE, o, AccessSite::RESPONDER),
              ErrorClass::RESP_RECV_WQE_PROTECTION);
  }
  EXPECT_EQ(error_for_access(mem::MemOp::LOCAL_READ, mem::AccessOutcome::OK), std::nullopt);
}

TEST(ErrorMapping, EverySyndrome) {
  for (unsigned v = 0; v < 256; ++v) {
    const auto s = static_cast<std::uint8_t>(v);
    const std::optional<ErrorClass> e = error_for_syndrome(s);
    if (v >= 0x80) {
      EXPECT_EQ(e, ErrorClass::REQ_BAD_RESPONSE) << v;
    } else if (v < 0x20) {
      EXPECT_EQ(e, std::nullopt) << v;
    } else if (v < 0x40) {
      EXPECT_EQ(e, ErrorClass::RESP_RNR) << v;
    } else if (v < 0x60) {
      EXPECT_EQ(e, ErrorClass::REQ_BAD_RESPONSE) << v;
    } else if (v >= 0x65) {
      EXPECT_EQ(e, ErrorClass::REQ_RESERVED_NAK) << v;
    }
  }
  EXPECT_EQ(error_for_syndrome(0x60), ErrorClass::RESP_PSN_SEQUENCE);
  EXPECT_EQ(error_for_syndrome(0x61), ErrorClass::REQ_REMOTE_INVALID_REQUEST);
  EXPECT_EQ(error_for_syndrome(0x62), ErrorClass::REQ_REMOTE_ACCESS);
  EXPECT_EQ(error_for_syndrome(0x63), ErrorClass::REQ_REMOTE_OPERATIONAL);
  EXPECT_EQ(error_for_syndrome(0x64), ErrorClass::REQ_REMOTE_INVALID_RD_REQUEST);
}

TEST(ErrorMapping, RequesterStatusPerSyndrome) {
  // docs/spec-notes.md §4.3 and §5.7, typed independently of the table.
  for (ErrorProfile p : kProfiles) {
    EXPECT_EQ(requester_status_for_syndrome(0x1F, p), std::nullopt);  // ACK
    EXPECT_EQ(requester_status_for_syndrome(0x32, p), std::nullopt);  // RNR NAK: retried
    EXPECT_EQ(requester_status_for_syndrome(0x60, p), std::nullopt);  // PSN seq: retried
    EXPECT_EQ(requester_status_for_syndrome(0x61, p), WcStatus::REM_INV_REQ_ERR);
    EXPECT_EQ(requester_status_for_syndrome(0x62, p), WcStatus::REM_ACCESS_ERR);
    EXPECT_EQ(requester_status_for_syndrome(0x63, p), WcStatus::REM_OP_ERR);
  }
  // §11.10: rxe maps 0x64 and unknown codes to REM_OP_ERR.
  EXPECT_EQ(requester_status_for_syndrome(0x64, ErrorProfile::RXE), WcStatus::REM_OP_ERR);
  EXPECT_EQ(requester_status_for_syndrome(0x64, ErrorProfile::IBA), WcStatus::REM_INV_RD_REQ_ERR);
  EXPECT_EQ(requester_status_for_syndrome(0x7F, ErrorProfile::RXE), WcStatus::REM_OP_ERR);
  EXPECT_EQ(requester_status_for_syndrome(0x7F, ErrorProfile::IBA), WcStatus::BAD_RESP_ERR);
  EXPECT_EQ(requester_status_for_syndrome(0x40, ErrorProfile::RXE), WcStatus::FATAL_ERR);
  EXPECT_EQ(requester_status_for_syndrome(0x40, ErrorProfile::IBA), WcStatus::BAD_RESP_ERR);
}

TEST(ErrorNames, EnumsHaveNames) {
  EXPECT_EQ(to_string(ErrorProfile::IBA), "IBA");
  EXPECT_EQ(to_string(ErrorProfile::RXE), "RXE");
  ErrorProfile p{};
  ASSERT_TRUE(error_profile_from_name("rxe", p));
  EXPECT_EQ(p, ErrorProfile::RXE);
  EXPECT_FALSE(error_profile_from_name("mlx5", p));
  EXPECT_EQ(to_string(AsyncEventType::QP_LAST_WQE_REACHED), "QP_LAST_WQE_REACHED");
  EXPECT_EQ(static_cast<int>(AsyncEventType::QP_LAST_WQE_REACHED), 16);  // ibv_event_type
  EXPECT_EQ(static_cast<int>(AsyncEventType::CQ_ERR), 0);
  EXPECT_EQ(to_string(AsyncEventType::NONE), "-");
  AsyncEventType e{};
  ASSERT_TRUE(async_event_from_name("SRQ_LIMIT_REACHED", e));
  EXPECT_EQ(e, AsyncEventType::SRQ_LIMIT_REACHED);
  EXPECT_EQ(event_target(AsyncEventType::SRQ_LIMIT_REACHED), EventTarget::SRQ);
  EXPECT_EQ(describe(outcome(ErrorClass::RESP_RKEY_VIOLATION, QpType::RC)),
            "NAK 0x62; requester REM_ACCESS_ERR, ERR, flush; receive REM_ACCESS_ERR; "
            "responder ERR, flush");
  EXPECT_EQ(describe(outcome(ErrorClass::RESP_RKEY_VIOLATION, QpType::UD)), "n/a");
}

}  // namespace
}  // namespace rocecert::errors
