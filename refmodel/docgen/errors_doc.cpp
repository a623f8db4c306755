// docs/errors.md from the errors table (refmodel/include/rocecert/errors/error_classes.def), and
// the one-line description of an outcome that tests print. Documentation, not runtime: only the
// docs tests and the error-class tests link it.
#include "rocecert/docgen/errors_doc.h"

#include <cstdio>
#include <string>

#include "rocecert/errors/error_table.h"
#include "rocecert/wire/headers.h"

namespace rocecert::errors {

namespace {

std::string hex2(std::uint8_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(v));
  return buf;
}

// "0x65-0x7F": the NAK syndromes with a reserved code.
std::string reserved_nak_range() {
  const auto first = static_cast<std::uint8_t>(wire::kAethTypeNak | wire::kFirstReservedNakCode);
  const auto last = static_cast<std::uint8_t>(wire::kAethTypeNak | wire::kAethValueMask);
  return hex2(first) + "-" + hex2(last);
}

// "0x20-0x3F": every syndrome of one AETH type.
std::string aeth_type_range(std::uint8_t type) {
  return hex2(type) + "-" + hex2(static_cast<std::uint8_t>(type | wire::kAethValueMask));
}

std::string response_text(const Outcome& o) {
  switch (o.response) {
    case Response::NONE:
      return "no response";
    case Response::SILENT_DROP:
      return "silent drop";
    case Response::ACK:
      return "ACK";
    case Response::NAK:
      return "NAK " + hex2(o.nak_code);
    case Response::RNR_NAK:
      return "RNR NAK " + hex2(wire::kAethTypeRnrNak) + "|timer";
    case Response::RESERVED_NAK:
      return "NAK " + reserved_nak_range();
  }
  return "?";
}

std::string requester_text(const Outcome& o) {
  switch (o.requester) {
    case RequesterEffect::NONE:
      return "–";
    case RequesterEffect::COMPLETES:
      return o.requester_status ? std::string(cq::to_string(*o.requester_status)) : "?";
    case RequesterEffect::RETRIES:
      return "retries, then " +
             std::string(o.when_retries_exhausted ? to_string(*o.when_retries_exhausted) : "?");
    case RequesterEffect::LOST:
      return "completion lost";
  }
  return "?";
}

std::string state_text(StateChange s, Flush f) {
  std::string out = s == StateChange::NONE ? "–" : std::string(to_string(s));
  switch (f) {
    case Flush::NONE:
      break;
    case Flush::SEND_QUEUE:
      out += ", flush SQ";
      break;
    case Flush::ALL:
      out += ", flush";
      break;
  }
  return out;
}

std::string events_text(const Outcome& o) {
  if (!o.has_events()) return "–";
  std::string out(to_string(o.events[0]));
  if (o.events[1] != AsyncEventType::NONE) out += ", " + std::string(to_string(o.events[1]));
  return out;
}

// The Markdown anchor of a "### NAME" heading: lower case.
std::string anchor(std::string_view name) {
  std::string out;
  for (char c : name) out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

// A cell of a Markdown table: '|' would split it.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

void append_row(std::string& out, std::string_view type, std::string_view profile,
                const Outcome& o) {
  out += "| ";
  out += type;
  out += " | ";
  out += profile;
  if (!o.applies) {
    out += " | n/a | | | | | | ";
    out += cell(o.note);
    out += " |\n";
    return;
  }
  out += " | " + cell(response_text(o));
  out += " | " + requester_text(o);
  out += " | " + (o.receive_status ? std::string(cq::to_string(*o.receive_status)) : "–");
  out += " | " + state_text(o.requester_state, o.requester_flush);
  out += " | " + state_text(o.responder_state, o.responder_flush);
  out += " | " + events_text(o);
  out += " | " + cell(o.note) + " |\n";
}

void append_syndrome_row(std::string& out, std::string_view label, std::uint8_t syndrome) {
  const std::optional<ErrorClass> e = error_for_syndrome(syndrome);
  out += "| ";
  out += label;
  out += " | ";
  out += e ? std::string(to_string(*e)) : std::string("– (ACK)");
  for (ErrorProfile p : {ErrorProfile::IBA, ErrorProfile::RXE}) {
    const std::optional<cq::WcStatus> s = requester_status_for_syndrome(syndrome, p);
    out += " | ";
    if (s)
      out += cq::to_string(*s);
    else
      out += e ? "– (retried)" : "– (progress)";
  }
  out += " |\n";
}

}  // namespace

std::string describe(const Outcome& o) {
  if (!o.applies) return "n/a";
  std::string out = response_text(o);
  if (o.requester != RequesterEffect::NONE || o.requester_state != StateChange::NONE) {
    out += "; requester " + requester_text(o);
    if (o.requester_state != StateChange::NONE)
      out += ", " + state_text(o.requester_state, o.requester_flush);
  }
  if (o.receive_status) out += "; receive " + std::string(cq::to_string(*o.receive_status));
  if (o.responder_state != StateChange::NONE)
    out += "; responder " + state_text(o.responder_state, o.responder_flush);
  if (o.has_events()) out += "; events " + events_text(o);
  return out;
}

std::string render_errors_doc() {
  std::string out;
  out +=
      "# Error table\n"
      "\n"
      "<!-- Generated from refmodel/include/rocecert/errors/error_classes.def (kErrorTable) by\n"
      "     render_errors_doc() (refmodel/docgen/errors_doc.cpp). Do not edit by hand: the\n"
      "     errors_tests case ErrorDocs.CommittedDocMatchesTable fails when this file differs.\n"
      "     Regenerate: ROCECERT_UPDATE_DOCS=1 <build>/refmodel/errors/tests/errors_tests \\\n"
      "       --gtest_filter='ErrorDocs.*' -->\n"
      "\n"
      "Every error class the golden model can meet, and what it does on an RC, UC and UD queue\n"
      "pair: what the responder puts on the wire, how the requester's work request completes,\n"
      "how a consumed receive WQE completes, the state change (and flush) of each side, and the\n"
      "affiliated asynchronous events. One row per class in `error_classes.def`; the model\n"
      "looks cells up with `rocecert::errors::outcome(class, qp_type, profile)`. Sources:\n"
      "docs/spec-notes.md §4.3, §4.4, §5.5, §5.7, §6.5, §6.6, §7, §9, §11 (each section names\n"
      "its IBTA clauses); the rxe captures (`vectors/real/README.md`). How simultaneous errors\n"
      "are ordered: "
      "[error-arbitration.md](error-arbitration.md).\n"
      "\n"
      "## Profiles\n"
      "\n"
      "Where the sources disagree (docs/spec-notes.md §11) a cell carries two outcomes and an\n"
      "`ErrorProfile` selects one:\n"
      "\n"
      "- **RXE** (default): Linux Soft-RoCE 6.1 as captured. rxe raises no QP asynchronous\n"
      "  event at all (captures `multi_qp_errors`: \"No async events\"), only `CQ_ERR` when a\n"
      "  completion does not fit its CQ; it has no SQE state (docs/spec-notes.md §6.6).\n"
      "- **IBA**: the spec and the IB convention the notes name. An error that cannot be\n"
      "  reported in a completion is reported as an affiliated asynchronous error on the QP\n"
      "  that detected it (`QP_REQ_ERR` for an invalid request, `QP_ACCESS_ERR` for an access\n"
      "  violation, `QP_FATAL` for a local catastrophic error, `CQ_ERR` on the CQ); the event\n"
      "  column gives it, and it applies when no receive WQE carries the error. UC/UD send\n"
      "  errors take the QP to SQE. A QP on an SRQ that enters ERR also raises\n"
      "  `QP_LAST_WQE_REACHED`, and a CQ error is permanent.\n"
      "\n"
      "The IBTA text is not reproduced (docs/spec-notes.md); clause numbers appear only where a\n"
      "public source quotes them, and a cell inferred without a source says so in its note.\n"
      "\n"
      "## Reading a class\n"
      "\n"
      "- *responder sends*: `NAK 0x6N` (syndrome, docs/spec-notes.md §4.1), `RNR NAK 0x20|timer` "
      "(the\n  responder's `min_rnr_timer`), `silent drop` (the packet, for UC the whole "
      "message),\n  `ACK` (still acknowledged), `no response`.\n"
      "- *requester WQE*: its completion status; `retries, then X` when it is retried and X is\n"
      "  reached if the retries run out; `completion lost` when its CQ is full.\n"
      "- *receive WQE*: the status of the responder's receive WQE when the message consumed\n"
      "  one (SEND, WRITE_WITH_IMM).\n"
      "- *requester QP*, *responder QP*: the state change; `flush` = every remaining WQE\n"
      "  completes with WR_FLUSH_ERR (send queue, then receive queue; an SRQ is not flushed),\n"
      "  `flush SQ` = the send queue only. For classes without a message (verbs, local\n"
      "  requester errors, a full send CQ) the requester is the QP concerned and the\n"
      "  responder its peer.\n"
      "- *events*: affiliated asynchronous events (`ibv_event_type` names) on the QP that\n"
      "  detected the error (`CQ_ERR`: on the CQ).\n"
      "- *profile*: `both` when IBA and RXE agree.\n"
      "\n"
      "## Classes by precedence tier\n"
      "\n"
      "The tier orders simultaneous errors ([error-arbitration.md](error-arbitration.md));\n"
      "within a tier, the row order below is the order in which the checks run.\n"
      "\n"
      "| tier | class | detected by | when |\n"
      "|---|---|---|---|\n";
  for (const ErrorRow& r : kErrorTable) {
    out += "| " + std::string(to_string(r.tier)) + " | [`" + std::string(r.name) + "`](#" +
           anchor(r.name) + ") | " + std::string(to_string(r.detector)) + " | " + cell(r.summary) +
           " |\n";
  }

  out +=
      "\n"
      "## Where IBA and RXE differ\n"
      "\n"
      "| class | why (docs/spec-notes.md §11 and the rows below) |\n"
      "|---|---|\n";
  for (const ErrorRow& r : kErrorTable) {
    if (!r.diverges()) continue;
    out += "| `" + std::string(r.name) + "` | " + cell(r.divergence) + " |\n";
  }

  out += "\n## Classes\n";
  for (const ErrorRow& r : kErrorTable) {
    out += "\n### " + std::string(r.name) + "\n\n";
    std::string summary(r.summary);
    if (!summary.empty() && summary[0] >= 'a' && summary[0] <= 'z')
      summary[0] = static_cast<char>(summary[0] - 'a' + 'A');
    out += summary + ".\n\n";
    out += "Tier " + std::string(to_string(r.tier)) + ", detected by the " +
           std::string(to_string(r.detector)) + ". Reference: " + std::string(r.reference) + ".\n";
    if (!r.divergence.empty()) out += "\nIBA vs RXE: " + std::string(r.divergence) + ".\n";
    out +=
        "\n"
        "| type | profile | responder sends | requester WQE | receive WQE | requester QP | "
        "responder QP | events | note |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
    for (qp::QpType t : qp::kAllQpTypes) {
      const ProfileOutcomes& c = r.by_type[qp::qp_type_index(t)];
      if (!c.diverges() && c.iba.note == c.rxe.note) {
        append_row(out, qp::to_string(t), "both", c.rxe);
      } else {
        append_row(out, qp::to_string(t), "IBA", c.iba);
        append_row(out, qp::to_string(t), "RXE", c.rxe);
      }
    }
  }

  out +=
      "\n"
      "## From a failed access check to a class\n"
      "\n"
      "`error_for_access(op, outcome, site)` maps a `mem::AccessOutcome` other than OK\n"
      "(IBTA Vol. 1 §10.6; docs/spec-notes.md §7.3, §7.6):\n"
      "\n"
      "| operation | checked at | any failure but UNALIGNED_ATOMIC | UNALIGNED_ATOMIC |\n"
      "|---|---|---|---|\n";
  constexpr mem::MemOp kOps[] = {mem::MemOp::LOCAL_READ,    mem::MemOp::LOCAL_WRITE,
                                 mem::MemOp::REMOTE_READ,   mem::MemOp::REMOTE_WRITE,
                                 mem::MemOp::REMOTE_ATOMIC, mem::MemOp::ATOMIC_WRITE,
                                 mem::MemOp::FLUSH};
  for (mem::MemOp op : kOps) {
    for (AccessSite site : {AccessSite::REQUESTER, AccessSite::RESPONDER}) {
      // Local operations are checked where the lkey is: gather at the requester only.
      if (op == mem::MemOp::LOCAL_READ && site == AccessSite::RESPONDER) continue;
      if (!mem::is_local(op) && site == AccessSite::REQUESTER) continue;
      const auto any = error_for_access(op, mem::AccessOutcome::KEY_MISMATCH, site);
      const auto unaligned = error_for_access(op, mem::AccessOutcome::UNALIGNED_ATOMIC, site);
      out += "| " + std::string(mem::to_string(op)) + " | " +
             (site == AccessSite::REQUESTER ? "requester" : "responder") + " | " +
             std::string(any ? to_string(*any) : "-") + " | " +
             std::string(unaligned ? to_string(*unaligned) : "-") + " |\n";
    }
  }

  out +=
      "\n"
      "## From a received AETH syndrome to the requester's status\n"
      "\n"
      "`error_for_syndrome()` and `requester_status_for_syndrome()` (docs/spec-notes.md §4.1, "
      "§4.3):\n\n"
      "| syndrome | class | IBA | RXE |\n"
      "|---|---|---|---|\n";
  append_syndrome_row(out, aeth_type_range(wire::kAethTypeAck) + " (ACK)",
                      wire::ack_syndrome(wire::kAethValueMask));
  append_syndrome_row(out, aeth_type_range(wire::kAethTypeRnrNak) + " (RNR NAK)",
                      wire::rnr_nak_syndrome(18));
  append_syndrome_row(out, aeth_type_range(wire::kAethTypeReserved) + " (reserved type)",
                      wire::kAethTypeReserved);
  for (wire::NakCode code : wire::kAllNakCodes) {
    const std::uint8_t syndrome = wire::nak_syndrome(code);
    append_syndrome_row(out, hex2(syndrome), syndrome);
  }
  append_syndrome_row(out, reserved_nak_range(),
                      static_cast<std::uint8_t>(wire::kAethTypeNak | wire::kFirstReservedNakCode));
  append_syndrome_row(out, hex2(wire::kAethReservedBit) + "-0xFF (bit 7 set)",
                      wire::kAethReservedBit);
  return out;
}

}  // namespace rocecert::errors
