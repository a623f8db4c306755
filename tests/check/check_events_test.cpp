// rocecert check --events: the DUT's own log held against the wire. The completion logs taken
// with the real captures (vectors/real/*.events.jsonl) agree with them; logs altered the way a
// broken driver or device would report (the wrong status for a NAK, a success after an error,
// an error the wire does not show, a fatal NAK never completed) fail the events rules; a broken
// log is refused with its file, line and byte offset.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "conversation.h"
#include "rocecert/check/events.h"

namespace rocecert::testing {
namespace {

using check::RuleId;
using check::Verdict;

const std::string& kDir = kRealDir;

// z3.arbitration decides the facts of events.flush and events.isolation together: on every log
// of these tests, it fails exactly when one of them does (docs/proofs.md).
check::Report agreed(check::Report r) {
  EXPECT_EQ(count(r, RuleId::Z3Arbitration) > 0,
            count(r, RuleId::EventsFlush) + count(r, RuleId::EventsIsolation) > 0)
      << "z3.arbitration and events.flush/events.isolation disagree: " << describe(r);
  return r;
}

check::Report check_with(const std::string& capture, const std::string& events_text) {
  check::Options o;
  o.profile = check::load_profile("rxe");
  o.events = std::make_shared<const check::Events>(check::parse_events(events_text, "log"));
  return agreed(check::check_files({kDir + capture + ".pcap"}, o));
}

// Replaces the first occurrence of `from` after the line containing `anchor`.
std::string replace_after(std::string text, const std::string& anchor, const std::string& from,
                          const std::string& to) {
  const std::size_t a = text.find(anchor);
  EXPECT_NE(a, std::string::npos) << anchor;
  const std::size_t f = text.find(from, a);
  EXPECT_NE(f, std::string::npos) << from;
  return text.replace(f, from.size(), to);
}

// A qp_state line of host 10.0.0.1.
std::string qp_state(std::uint32_t qpn, const char* state) {
  return "{\"event\": \"qp_state\", \"host\": \"10.0.0.1\", \"qpn\": " + std::to_string(qpn) +
         ", \"state\": \"" + state + "\"}\n";
}

TEST(CheckEvents, TheRealLogsAgreeWithTheirCaptures) {
  for (const char* name : {"multi_qp_errors", "cq_overflow"}) {
    SCOPED_TRACE(name);
    const check::Report r = check_with(name, read_text(kDir + name + ".events.jsonl"));
    EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
    EXPECT_GT(checked(r, RuleId::EventsWcStatus), 0u);
    EXPECT_GT(checked(r, RuleId::EventsFlush), 0u);
    EXPECT_GT(checked(r, RuleId::Z3Arbitration), 0u);
  }
}

TEST(CheckEvents, ANakCompletedWithAnotherStatusFails) {
  // QP2 (0x22) got NAK remote access error; its driver reports a remote operational error.
  const std::string log = replace_after(read_text(kDir + "multi_qp_errors.events.jsonl"),
                                        "\"wr_id\": 2100", "REM_ACCESS_ERR", "REM_OP_ERR");
  const check::Report r = check_with("multi_qp_errors", log);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
  EXPECT_EQ(count(r, RuleId::EventsWcStatus), 1u) << describe(r);
}

TEST(CheckEvents, ATimeoutWhereTheWireShowsAFatalNakIsTheNakLostAfterTheTap) {
  // The tap saw the NAK; the requester, which did not get it, timed out.
  const std::string log = replace_after(read_text(kDir + "multi_qp_errors.events.jsonl"),
                                        "\"wr_id\": 2100", "REM_ACCESS_ERR", "RETRY_EXC_ERR");
  const check::Report r = check_with("multi_qp_errors", log);
  EXPECT_EQ(count(r, RuleId::EventsWcStatus), 0u) << describe(r);
  bool noted = false;
  for (const check::Note& n : r.notes)
    noted = noted || n.message.find("taken as that NAK lost after the tap") != std::string::npos;
  EXPECT_TRUE(noted) << describe(r);
}

TEST(CheckEvents, ASuccessAfterTheErrorFails) {
  const std::string log = replace_after(read_text(kDir + "multi_qp_errors.events.jsonl"),
                                        "\"wr_id\": 2101", "WR_FLUSH_ERR", "SUCCESS");
  const check::Report r = check_with("multi_qp_errors", log);
  EXPECT_EQ(count(r, RuleId::EventsFlush), 1u) << describe(r);
  // Z3 names the minimal contradiction: QP2's success after its error (or a flush of it).
  ASSERT_EQ(count(r, RuleId::Z3Arbitration), 1u) << describe(r);
  for (const check::Violation& v : r.violations) {
    if (v.rule == RuleId::Z3Arbitration) {
      EXPECT_NE(v.message.find("QP 0x22: work request 2101 completed SUCCESS"), std::string::npos)
          << v.message;
    }
  }
}

TEST(CheckEvents, AnErrorTheWireDoesNotShowFails) {
  // QP1 (0x21) never resent anything: a retry-exceeded completion has no cause on the wire.
  const std::string log = replace_after(read_text(kDir + "multi_qp_errors.events.jsonl"),
                                        "\"wr_id\": 1100", "SUCCESS", "RETRY_EXC_ERR");
  const check::Report r = check_with("multi_qp_errors", log);
  EXPECT_EQ(count(r, RuleId::EventsWcStatus), 1u) << describe(r);
}

TEST(CheckEvents, AFatalNakNeverCompletedAsAnErrorFails) {
  std::string log = read_text(kDir + "multi_qp_errors.events.jsonl");
  log = replace_after(log, "\"wr_id\": 2100", "REM_ACCESS_ERR", "SUCCESS");
  log = replace_after(log, "\"wr_id\": 2101", "WR_FLUSH_ERR", "SUCCESS");
  const check::Report r = check_with("multi_qp_errors", log);
  EXPECT_EQ(count(r, RuleId::EventsWcStatus), 1u) << describe(r);
}

// Three WRITEs in flight; the responder NAKs the first (remote access error): three work
// requests complete in error, the first with its status, the two others flushed.
check::Report three_writes_naked(const std::string& log) {
  Conversation c;
  for (std::uint32_t psn = 100; psn < 103; ++psn) {
    wire::FrameSpec w = c.make(true, wire::Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, psn, 64);
    w.reth = {0x1000, 7, 64};
    c.send(w);
  }
  c.ack(100, 0, 0x62);
  check::Options o;
  o.profile = check::load_profile("rxe");
  o.events = std::make_shared<const check::Events>(check::parse_events(log, "log"));
  return agreed(c.check(o));
}

std::string wc(std::uint64_t wr_id, const char* status) {
  return "{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"qpn\": 17, \"wr_id\": " +
         std::to_string(wr_id) + ", \"status\": \"" + status + "\"}\n";
}

TEST(CheckEvents, EveryMessageAFatalNakFailsCompletesInError) {
  const check::Report ok =
      three_writes_naked(wc(1, "REM_ACCESS_ERR") + wc(2, "WR_FLUSH_ERR") + wc(3, "WR_FLUSH_ERR"));
  EXPECT_EQ(ok.verdict, Verdict::PASS) << describe(ok);
  EXPECT_EQ(checked(ok, RuleId::EventsFlushAll), 1u);
  // The driver dropped the last flush completion (libfabric issue #4756's class).
  const check::Report r = three_writes_naked(wc(1, "REM_ACCESS_ERR") + wc(2, "WR_FLUSH_ERR"));
  EXPECT_EQ(r.verdict, Verdict::FAIL);
  EXPECT_EQ(count(r, RuleId::EventsFlushAll), 1u) << describe(r);
  // A CQ that overflowed (CQ_ERR on the host) loses completions by design: not judged.
  const check::Report cq = three_writes_naked(wc(1, "REM_ACCESS_ERR") +
                                              "{\"event\": \"async\", \"host\": \"10.0.0.1\", "
                                              "\"type\": \"CQ_ERR\"}\n");
  EXPECT_EQ(checked(cq, RuleId::EventsFlushAll), 0u) << describe(cq);
}

TEST(CheckEvents, AQpFlushedByAnotherQpsErrorFails) {
  // QP1 (0x21) shares the CQs of QP2 and QP3, which failed; its driver flushes it too.
  const std::string base = read_text(kDir + "multi_qp_errors.events.jsonl");
  std::string log = base;
  for (const char* wr : {"\"wr_id\": 1102", "\"wr_id\": 1103", "\"wr_id\": 1104"})
    log = replace_after(log, wr, "\"status\": \"SUCCESS\"", "\"status\": \"WR_FLUSH_ERR\"");
  const check::Report r = check_with("multi_qp_errors", log);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
  EXPECT_EQ(count(r, RuleId::EventsIsolation), 1u) << describe(r);
  for (const check::Violation& v : r.violations) {
    if (v.rule == RuleId::Z3Arbitration) {
      EXPECT_NE(v.message.find("QP 0x21 has no error of its own"), std::string::npos) << v.message;
    }
  }
  // Logged as moved to ERR before its flushes: the program's doing, not judged.
  const std::string moved = qp_state(33, "ERR");
  const std::size_t at = log.find("\"wr_id\": 1102");
  log.insert(log.rfind('\n', at) + 1, moved);
  EXPECT_EQ(count(check_with("multi_qp_errors", log), RuleId::EventsIsolation), 0u);
}

TEST(CheckEvents, QpStatesWithoutACauseOrBackInServiceAreReported) {
  const std::string base = read_text(kDir + "multi_qp_errors.events.jsonl");
  // QP1 (0x21) never failed, yet is reported ERR; QP2 (0x22) failed, yet is reported RTS.
  const check::Report r =
      check_with("multi_qp_errors", base + qp_state(33, "ERR") + qp_state(34, "RTS"));
  EXPECT_EQ(count(r, RuleId::EventsQpState), 2u) << describe(r);
  EXPECT_EQ(r.verdict, Verdict::PASS) << "events.qp_state is advisory: " << describe(r);
  // Through RESET, the QP may come back.
  const check::Report back =
      check_with("multi_qp_errors", base + qp_state(34, "RESET") + qp_state(34, "RTS"));
  EXPECT_EQ(count(back, RuleId::EventsQpState), 0u) << describe(back);
}

TEST(CheckEvents, ABrokenLogIsLocated) {
  const std::pair<std::string, std::string> cases[] = {
      // The parser's own line number (always 1) and its exception name are left out.
      {"{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"qpn\": 1, \"status\": \"SUCCESS\"}\n{oops\n",
       "log: line 2 (byte offset 68): invalid JSON: parse error at column 2: syntax error"},
      {"{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"status\": \"SUCCESS\"}\n",
       "log: line 1 (byte offset 0): missing key \"qpn\""},
      {"\n{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"qpn\": 1, \"status\": \"FINE\"}\n",
       "log: line 2 (byte offset 1): \"status\" is not a work completion status"},
      {"{\"event\": \"wc\", \"host\": \"node-a\", \"qpn\": 1, \"status\": \"SUCCESS\"}\n",
       "log: line 1 (byte offset 0): \"host\" is not an IPv4 or IPv6 address"},
      {"{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"qpn\": 1, \"statsu\": \"SUCCESS\"}\n",
       "log: line 1 (byte offset 0): unknown key \"statsu\""},
      {"[1]\n", "log: line 1 (byte offset 0): expected a JSON object"},
      // Found by fuzz_events: a number beyond a double is not a parse error to nlohmann.
      {"{\"event\": \"wc\", \"t_ns\": 11E19000}\n", "log: line 1 (byte offset 0): invalid JSON"},
      {"{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"qpn\": 16777216, \"status\": \"SUCCESS\"}\n",
       "log: line 1 (byte offset 0): \"qpn\" must be an integer from 0 to 16777215"},
      {"{\"event\": \"qp_state\", \"host\": \"10.0.0.1\", \"qpn\": 1, \"state\": \"READY\"}\n",
       "log: line 1 (byte offset 0): \"state\" is not a QP state"},
      {"{\"event\": \"key\", \"host\": \"10.0.0.2\", \"change\": \"bind\"}\n",
       "log: line 1 (byte offset 0): missing key \"rkey\""},
      {"{\"event\": \"key\", \"host\": \"10.0.0.2\", \"rkey\": 7, \"change\": \"rebind\"}\n",
       "log: line 1 (byte offset 0): \"change\" must be \"register\", \"deregister\""},
      {"{\"event\": \"key\", \"host\": \"10.0.0.2\", \"rkey\": 4294967296, \"change\": \"bind\"}\n",
       "log: line 1 (byte offset 0): \"rkey\" must be an integer from 0 to 4294967295"},
      {"{\"event\": \"keys\", \"host\": \"10.0.0.2\"}\n",
       "log: line 1 (byte offset 0): \"event\" must be \"wc\", \"qp_state\", \"async\" or \"key\""},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    try {
      (void)check::parse_events(text, "log");
      ADD_FAILURE() << "accepted";
    } catch (const check::EventsError& e) {
      EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
    }
  }
  try {
    (void)check::load_events("/nonexistent/events.jsonl");
    ADD_FAILURE() << "opened";
  } catch (const check::EventsError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/events.jsonl: cannot open: No such file or directory");
  }
}

}  // namespace
}  // namespace rocecert::testing
