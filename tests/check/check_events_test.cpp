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

const std::string kDir = ROCECERT_SOURCE_DIR "/vectors/real/";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

check::Report check_with(const std::string& capture, const std::string& events_text) {
  check::Options o;
  o.profile = check::load_profile("rxe");
  o.events = std::make_shared<const check::Events>(check::parse_events(events_text, "log"));
  return check::check_files({kDir + capture + ".pcap"}, o);
}

std::uint64_t checked(const check::Report& r, RuleId id) {
  return r.rules[static_cast<std::size_t>(id)].checked;
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

TEST(CheckEvents, TheRealLogsAgreeWithTheirCaptures) {
  for (const char* name : {"multi_qp_errors", "cq_overflow"}) {
    SCOPED_TRACE(name);
    const check::Report r = check_with(name, read_text(kDir + name + ".events.jsonl"));
    EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
    EXPECT_GT(checked(r, RuleId::EventsWcStatus), 0u);
    EXPECT_GT(checked(r, RuleId::EventsFlush), 0u);
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

TEST(CheckEvents, ASuccessAfterTheErrorFails) {
  const std::string log = replace_after(read_text(kDir + "multi_qp_errors.events.jsonl"),
                                        "\"wr_id\": 2101", "WR_FLUSH_ERR", "SUCCESS");
  const check::Report r = check_with("multi_qp_errors", log);
  EXPECT_EQ(count(r, RuleId::EventsFlush), 1u) << describe(r);
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

TEST(CheckEvents, ABrokenLogIsLocated) {
  const std::pair<std::string, std::string> cases[] = {
      {"{\"event\": \"wc\", \"host\": \"10.0.0.1\", \"qpn\": 1, \"status\": \"SUCCESS\"}\n{oops\n",
       "log: line 2 (byte offset 68): invalid JSON"},
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
  EXPECT_THROW((void)check::load_events("/nonexistent/events.jsonl"), check::EventsError);
}

}  // namespace
}  // namespace rocecert::testing
