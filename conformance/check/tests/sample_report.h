// A synthetic report that uses every field of report.h: two files, three connections (one with
// an unknown QPN), violations of an error rule, an advisory rule and a declared deviation, every
// kind of note, one note without a connection, and text that needs escaping in JSON and XML.
#pragma once

#include "rocecert/check/report.h"

namespace rocecert::check::testing {

inline Violation violation(RuleId r, std::uint32_t conn, std::uint64_t frame, std::string message) {
  Violation v;
  v.rule = r;
  v.connection = conn;
  v.frame = frame;
  v.message = std::move(message);
  return v;
}

inline Report sample_report() {
  Report r;
  r.profile = "rxe";
  r.max_capture_errors = 2;
  r.files = {"captures/a.pcap", "b <&> \"quoted\".pcapng"};
  r.frames = 5000000000ull;  // beyond 32 bits
  r.roce_frames = 4999999999ull;

  Connection c0;
  c0.id = 0;
  c0.transport = "RC";
  c0.a = {"10.0.0.1", 0x11};
  c0.b = {"10.0.0.2", 0x12};
  c0.frames = 120;
  c0.capture_errors = 1;
  c0.rules[static_cast<std::size_t>(RuleId::PsnSequence)] = {100, 2, 0};
  c0.rules[static_cast<std::size_t>(RuleId::ReadOpcode)] = {7, 0, 1};  // v3, declared
  c0.rules[static_cast<std::size_t>(RuleId::WireAckReq)] = {60, 1, 0};
  c0.rules[static_cast<std::size_t>(RuleId::WireIcrc)] = {120, 0, 0, 1};
  Connection c1;
  c1.id = 1;
  c1.transport = "UD";
  c1.a = {"fe80::1", std::nullopt};
  c1.b = {"fe80::2", 0xffffff};
  c1.frames = 3;
  c1.rules[static_cast<std::size_t>(RuleId::UdQkey)] = {3, 0, 0};
  Connection c2;
  c2.id = 2;
  c2.transport = "RC";
  c2.a = {"10.0.0.3", 0x20};
  c2.b = {"10.0.0.4", 0x21};
  c2.frames = 9;
  c2.rules[static_cast<std::size_t>(RuleId::ReadOpcode)] = {2, 0, 1};  // v5, declared
  r.connections = {c0, c1, c2};
  for (const Connection& c : r.connections)
    for (std::size_t i = 0; i < kRuleCount; ++i) {
      r.rules[i].checked += c.rules[i].checked;
      r.rules[i].violations += c.rules[i].violations;
      r.rules[i].deviations += c.rules[i].deviations;
    }

  Violation v1 = violation(RuleId::PsnSequence, 0, 57, "PSN 1235 after 1233: expected 1234");
  v1.cause = "skipped";
  v1.qpn = 0x12;
  v1.psn = 1235;
  v1.state.next_psn = 1234;
  v1.state.oldest_unacked = 1200;
  v1.state.outstanding = 34;
  v1.state.outstanding_reads = 1;
  v1.state.retries = 2;
  v1.state.rnr_naks = 1;
  v1.state.expected = "RC_SEND_ONLY with PSN 1234";
  Violation v2 = violation(RuleId::PsnSequence, 0, 58, "PSN 1236 after 1235 & <tab>\there");
  v2.cause = "skipped";
  v2.psn = 1236;
  v2.state.expected_psn = 0;
  v2.state.msn = 0xffffff;
  Violation v3 = violation(RuleId::ReadOpcode, 0, 70, "READ response MIDDLE where FIRST was due");
  v3.cause = "resumed_mid_read";
  v3.deviation = true;
  Violation v4 = violation(RuleId::WireAckReq, 0, 71, "AckReq set on an ACK");
  v4.cause = "response";
  Violation v5 = violation(RuleId::ReadOpcode, 2, 4, "READ response MIDDLE where FIRST was due");
  v5.cause = "resumed_mid_read";
  v5.deviation = true;
  v5.file = 1;
  Violation v6 = violation(RuleId::WireIcrc, 0, 72, "ICRC 0x1 carried, 0x2 computed");
  v6.cause = "mismatch";
  v6.explained = "corrupted on the link: frame 75 carries PSN 0x000010 again intact";
  Violation v7 = violation(RuleId::WireHeaders, kNoConnection, 80, "truncated extended headers");
  v7.cause = "truncated_headers";
  r.violations = {v1, v2, v3, v4, v5, v6, v7};

  r.notes = {
      {NoteKind::CaptureError, 0, 0, 30, "frame 30 assumed duplicated by the tap"},
      {NoteKind::Gap, 1, 0, 0, "the capture starts mid-connection"},
      {NoteKind::Truncated, 1, 0, 12, "frame cut to 64 bytes"},
      {NoteKind::OneDirection, std::nullopt, 1, 0, "no response seen from 10.0.0.9"},
      {NoteKind::Unpaired, std::nullopt, 1, 3, "requests to QP 0x33 never answered"},
      {NoteKind::Unsupported, std::nullopt, 1, 5, "XRC traffic is not modelled"},
      {NoteKind::Assumption, 2, 1, 0, "memory keys assumed static"},
      {NoteKind::Deviation, 2, 1, 4, "rxe: read.opcode resumed_mid_read"},
  };
  r.settle();
  return r;
}

}  // namespace rocecert::check::testing
