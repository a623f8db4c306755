// The event log's lines, one kind each, read back by rocecert check's own parser.
#include "event_log.h"

#include <gtest/gtest.h>

#include "rocecert/check/events.h"

namespace rocecert::verbs {
namespace {

std::string text(EventLog& log) {
  std::string out;
  for (const std::string& l : log.lines()) out += l + "\n";
  return out;
}

TEST(VerbsEventLog, HostOfAGidIsItsAddress) {
  std::array<std::uint8_t, 16> v4{};
  v4[10] = v4[11] = 0xFF;
  v4[12] = 10;
  v4[15] = 2;
  EXPECT_EQ(host_of(v4), "10.0.0.2");
  std::array<std::uint8_t, 16> v6{};
  v6[0] = 0xFE;
  v6[1] = 0x80;
  v6[15] = 1;
  EXPECT_EQ(host_of(v6), "fe80::1");
}

TEST(VerbsEventLog, EveryKindParsesAsCheckReadsIt) {
  EventLog log;
  cq::Wc ok;
  ok.wr_id = 7;
  ok.qp_num = 0x123;
  ok.opcode = cq::WcOpcode::RDMA_READ;
  ok.byte_len = 16;
  log.wc("10.0.0.1", 5, ok);
  cq::Wc bad = ok;
  bad.status = cq::WcStatus::WR_FLUSH_ERR;
  log.wc("10.0.0.1", 6, bad);
  log.qp_state("10.0.0.1", 7, 0x123, qp::QpState::ERR);
  log.async("10.0.0.2", 8, errors::AsyncEventType::QP_FATAL, 0x456);
  log.key("10.0.0.2", 9, 0xABCD, "deregister");
  EXPECT_EQ(log.lines()[0],
            R"({"event":"wc","t_ns":5,"host":"10.0.0.1","qpn":291,"wr_id":7,"opcode":"RDMA_READ",)"
            R"("status":"SUCCESS","byte_len":16})");
  const check::Events ev = check::parse_events(text(log), "log.jsonl");
  ASSERT_EQ(ev.events.size(), 5u);
  EXPECT_EQ(ev.events[0].opcode, cq::WcOpcode::RDMA_READ);
  EXPECT_EQ(ev.events[1].status, cq::WcStatus::WR_FLUSH_ERR);
  EXPECT_FALSE(ev.events[1].opcode.has_value());  // undefined on an error completion
  EXPECT_EQ(ev.events[2].name, "ERR");
  EXPECT_EQ(ev.events[2].qpn, 0x123u);
  EXPECT_EQ(ev.events[3].name, "QP_FATAL");
  EXPECT_EQ(ev.events[3].qpn, 0x456u);
  EXPECT_EQ(ev.events[4].rkey, 0xABCDu);
  EXPECT_EQ(ev.events[4].name, "deregister");
  EXPECT_EQ(ev.events[4].t_ns, 9);
}

}  // namespace
}  // namespace rocecert::verbs
