// docs/qp-state-machine.md from the transition table and the state rules
// (refmodel/include/rocecert/qp/transitions.h). Documentation, not runtime: only the docs tests
// link it.
#include "rocecert/docgen/qp_state_machine_doc.h"

#include <initializer_list>
#include <string>
#include <string_view>

#include "rocecert/qp/transitions.h"

namespace rocecert::qp {

namespace {

// Appends pieces one by one: chains of std::string operator+ trip a GCC 12 -Wrestrict false
// positive at -O3 (GCC PR 105329).
void append(std::string& out, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts) out.append(p);
}

// "PKEY_INDEX, PORT, ACCESS_FLAGS" as docs/spec-notes.md writes a set; an en dash for the empty
// set.
std::string mask_list(AttrMask m) {
  if (m.empty()) return "–";
  std::string out;
  for (AttrBit b : kAllAttrBits) {
    if (!m.has(b)) continue;
    if (!out.empty()) out += ", ";
    out += to_string(b);
  }
  return out;
}

std::string hex(std::uint32_t value) {
  constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int shift = 28; shift >= 0; shift -= 4) {
    const auto nibble = static_cast<std::size_t>((value >> shift) & 0xFu);
    if (out.empty() && nibble == 0 && shift != 0) continue;  // no leading zeros
    out += kDigits[nibble];
  }
  return "0x" + out;
}

void append_bits_table(std::string& out) {
  out += "| Bit | Value | Name |\n|---|---|---|\n";
  for (AttrBit b : kAllAttrBits) {
    const auto value = static_cast<std::uint32_t>(b);
    unsigned bit = 0;
    while ((value >> bit) != 1u) ++bit;
    append(out, {"| ", std::to_string(bit), " | ", hex(value), " | ", to_string(b), " |\n"});
  }
}

void append_transition_table(std::string& out) {
  out += "| From → To |";
  for (QpType t : kAllQpTypes) {
    append(out, {" ", to_string(t), " required | ", to_string(t), " optional |"});
  }
  out += "\n|---|";
  for (std::size_t i = 0; i < kQpTypeCount; ++i) out += "---|---|";
  out += "\n";
  for (QpState from : kAllQpStates) {
    for (QpState to : kAllQpStates) {
      bool any = false;
      for (QpType t : kAllQpTypes) any = any || transition_rule(t, from, to).valid;
      if (!any) continue;
      append(out, {"| ", to_string(from), " → ", to_string(to), " |"});
      for (QpType t : kAllQpTypes) {
        const TransitionRule r = transition_rule(t, from, to);
        if (!r.valid) {
          out += " illegal | illegal |";
        } else {
          append(out, {" ", mask_list(r.required), " | ", mask_list(r.optional), " |"});
        }
      }
      out += "\n";
    }
  }
}

void append_matrix(std::string& out) {
  out += "| from \\ to |";
  for (QpState to : kAllQpStates) append(out, {" ", to_string(to), " |"});
  out += "\n|---|";
  for (std::size_t i = 0; i < kQpStateCount; ++i) out += "---|";
  out += "\n";
  for (QpState from : kAllQpStates) {
    append(out, {"| **", to_string(from), "** |"});
    for (QpState to : kAllQpStates) {
      std::string cell;
      for (QpType t : kAllQpTypes) {
        if (!transition_rule(t, from, to).valid) continue;
        if (!cell.empty()) cell += ' ';
        cell += to_string(t);
      }
      append(out, {" ", cell.empty() ? std::string_view("–") : std::string_view(cell), " |"});
    }
    out += "\n";
  }
}

std::string_view to_string(QueueFlush f) {
  switch (f) {
    case QueueFlush::NONE:
      return "–";
    case QueueFlush::SEND_QUEUE:
      return "SQ";
    case QueueFlush::ALL:
      return "SQ, RQ";
  }
  return "?";
}

void append_state_rules(std::string& out) {
  out +=
      "| state | post_send | post_recv | flush on post | rq_processes | sq_processes | "
      "sq_starts_wqe | processes_responses | flush |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  auto yes = [](bool b) { return b ? std::string_view("yes") : std::string_view("–"); };
  for (const StateRules& r : kStateRules) {
    append(out, {"| **", to_string(r.state), "** | ", yes(r.post_send), " | ", yes(r.post_recv),
                 " | ", yes(r.flush_on_post), " | ", yes(r.rq_processes), " | ",
                 yes(r.sq_processes), " | ", yes(r.sq_starts_wqe), " | ",
                 yes(r.processes_responses), " | ", to_string(r.flush), " |\n"});
  }
}

}  // namespace

std::string render_qp_state_machine_doc() {
  std::string out;
  out +=
      "# QP state machine\n"
      "\n"
      "<!-- Generated from kTransitionRows (refmodel/include/rocecert/qp/transitions.h) by\n"
      "     render_qp_state_machine_doc() (refmodel/docgen/qp_state_machine_doc.cpp). Do not edit "
      "by hand:\n"
      "     the qp_tests case QpDocs.CommittedDocMatchesTable fails when this file differs.\n"
      "     Regenerate: ROCECERT_UPDATE_DOCS=1 <build>/refmodel/qp/tests/qp_tests \\\n"
      "       --gtest_filter='QpDocs.*' -->\n"
      "\n"
      "The legal `modify_qp` transitions of an RC, UC or UD queue pair and the attribute mask\n"
      "each one requires or allows (docs/spec-notes.md §6.2; Linux "
      "`drivers/infiniband/core/verbs.c`\n`qp_state_table`; rdma-core `ibv_modify_qp(3)`). The "
      "model checks every request with\n`rocecert::qp::check_modify()` against this table; "
      "`proofs/` reads the same table\nthrough `transition_rule()` / `transition_entries()`.\n"
      "\n"
      "States (`enum ibv_qp_state`): RESET 0, INIT 1, RTR 2, RTS 3, SQD 4, SQE 5, ERR 6.\n"
      "\n"
      "## Legality rule\n"
      "\n"
      "A request (mask, `qp_state`, `cur_qp_state`) on a QP of type T in state S is accepted\n"
      "only if, in this order:\n"
      "\n"
      "1. `qp_state` (if STATE is in the mask) and `cur_qp_state` (if CUR_STATE is) are states\n"
      "   0..6 (`INVALID_STATE_VALUE`);\n"
      "2. CUR_STATE is given only when S is RTR, RTS, SQD or SQE (`CUR_STATE_NOT_ALLOWED`), and\n"
      "   then `cur_qp_state` equals S (`CUR_STATE_MISMATCH`; see the profile switches);\n"
      "3. next = `qp_state` if STATE is in the mask, else S; the cell [T][S][next] is valid\n"
      "   (`ILLEGAL_TRANSITION`);\n"
      "4. the mask contains every required bit of the cell (`MISSING_REQUIRED_ATTR`, naming\n"
      "   the missing bits);\n"
      "5. the mask contains nothing outside required ∪ optional ∪ STATE (`UNEXPECTED_ATTR`,\n"
      "   naming the extra bits);\n"
      "6. a QP in SQD whose send queue is still draining may only go to ERR (`SQ_DRAINING`,\n"
      "   docs/spec-notes.md §6.6).\n"
      "\n"
      "Then the attribute values are checked (`validate_attr_values()`), and only if all of it\n"
      "passes are the attributes and the state applied: a refused request changes nothing.\n"
      "\n"
      "## Legal transitions and attributes\n"
      "\n"
      "Pairs not listed are illegal for every type (RTR → RTR, RTS → INIT, RESET → ERR, ...).\n"
      "STATE is always allowed in addition to the sets shown. ALT_PATH passes this table where\n"
      "it is optional but is then refused by the value checks (`ALT_PATH_NOT_SUPPORTED`): Linux\n"
      "bans alternate paths on RoCE ports.\n"
      "\n";
  append_transition_table(out);
  out +=
      "\n"
      "## Transition matrix\n"
      "\n"
      "The QP types for which each (from, to) cell is valid.\n"
      "\n";
  append_matrix(out);
  out +=
      "\n"
      "## What each state allows\n"
      "\n"
      "`kStateRules` (`rocecert::qp::state_rules()`), beside the transition table: the one place\n"
      "the model's post_send / post_recv checks, frame admission, responder, requester,\n"
      "retransmission timers and flush ask what a state allows (IBA Vol. 1 §10.3.1; rxe\n"
      "`rxe_verbs.c`, `rxe_recv.c`, `rxe_req.c`, `rxe_comp.c`). The rules are the same for RC, UC\n"
      "and UD.\n"
      "\n"
      "- *post_send*, *post_recv*: the verb is accepted (else `INVALID_STATE`, EINVAL);\n"
      "- *flush on post*: a WR posted in this state completes at once with `WR_FLUSH_ERR`;\n"
      "- *rq_processes*: request packets are accepted and executed, and ACKs are sent;\n"
      "- *sq_processes*: the requester sends the packets of WQEs it has started;\n"
      "- *sq_starts_wqe*: the requester starts new WQEs (SQD and SQE only finish what is in\n"
      "  flight);\n"
      "- *processes_responses*: ACKs, NAKs, READ responses and atomic ACKs are processed, and\n"
      "  the retransmission and RNR timers resend;\n"
      "- *flush*: the queues whose WQEs complete with `WR_FLUSH_ERR` when the QP flushes.\n"
      "\n";
  append_state_rules(out);
  out +=
      "\n"
      "## Profile switches (`QpProfile`)\n"
      "\n"
      "- `reset_to_err_allowed` (default false): v4.x-era kernels marked RESET → ERR valid,\n"
      "  with no attributes (docs/spec-notes.md §11.13). Current kernels do not.\n"
      "- `cur_state_selects_row` (default false): rxe and mlx use `cur_qp_state` as the row of\n"
      "  the table instead of comparing it with the QP's state.\n"
      "- `sqd_drain_only_to_err` (default true): rule 6 above (rxe). rxe applies it only when\n"
      "  STATE is in the mask.\n"
      "\n"
      "## Attribute mask bits (`enum ibv_qp_attr_mask`)\n"
      "\n";
  append_bits_table(out);
  return out;
}

}  // namespace rocecert::qp
