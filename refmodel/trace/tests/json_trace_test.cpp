#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "rocecert/trace/json_trace.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert;
using nlohmann::json;

TEST(JsonTrace, EveryEventIsOneParsableLineWithIntegers) {
  const auto frame =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_SEND_ONLY), {4, false, 10, 3}));
  trace::FrameEvent f{1000, 0, trace::Direction::TX, frame};
  json j = json::parse(trace::to_json(f));
  EXPECT_EQ(j["t"], 1000);
  EXPECT_EQ(j["ev"], "frame");
  EXPECT_EQ(j["opcode"], "RC_SEND_ONLY");
  EXPECT_EQ(j["payload_len"], 10);
  EXPECT_EQ(j["icrc_ok"], true);
  EXPECT_FALSE(j.contains("aeth"));
  // An ACK carries its AETH by name; a WRITE_FIRST its RETH DMA length.
  const auto nak =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE), {4, false, 0, 3}));
  j = json::parse(trace::to_json(trace::FrameEvent{1, 0, trace::Direction::TX, nak}));
  ASSERT_TRUE(j.contains("aeth"));
  EXPECT_TRUE(j["aeth"].is_string());
  EXPECT_TRUE(j["msn"].is_number_integer());
  const auto first = wire::encode(
      wire::sample_frame(wire::to_u8(wire::Opcode::RC_RDMA_WRITE_FIRST), {4, false, 16, 3}));
  j = json::parse(trace::to_json(trace::FrameEvent{1, 0, trace::Direction::TX, first}));
  EXPECT_TRUE(j["dmalen"].is_number_integer());
  json r = json::parse(trace::to_json(trace::RateEvent{3, 0, 0x11, 12.5, 25.0, 1.0, "cnp"}));
  EXPECT_EQ(r["ev"], "rate");
  EXPECT_DOUBLE_EQ(r["rate_gbps"].get<double>(), 12.5);

  trace::QpTransitionEvent q{5, 1, 0x11, qp::QpState::RTS, qp::QpState::ERR, "nak_remote_access"};
  j = json::parse(trace::to_json(q));
  EXPECT_EQ(j["from"], "RTS");
  EXPECT_EQ(j["to"], "ERR");

  trace::CqeEvent c{7, 1, 2, {}, true};
  c.wc.status = cq::WcStatus::REM_ACCESS_ERR;
  c.wc.wr_id = 42;
  j = json::parse(trace::to_json(c));
  EXPECT_EQ(j["status"], "REM_ACCESS_ERR");
  EXPECT_EQ(j["wr_id"], 42);

  for (const std::string& line :
       {trace::to_json(trace::NakEvent{1, 0, 2, 3, 0x62, "rkey"}),
        trace::to_json(trace::RetryEvent{1, 0, 2, trace::RetryKind::RNR_NAK, 9, 7}),
        trace::to_json(
            trace::AccessDeniedEvent{1, 0, 2, 0x1234, 0xFFFFFFFFFFFFFFFFull, 8, "out_of_bounds"}),
        trace::to_json(trace::AsyncEvent{1, 0, errors::AsyncEventType::CQ_ERR, 3}),
        trace::to_json(trace::DropEvent{1, 0, "icrc", frame, nullptr, "PKT_ICRC_ERROR"})}) {
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_TRUE(json::accept(line)) << line;
  }
  j = json::parse(
      trace::to_json(trace::AccessDeniedEvent{1, 0, 2, 0x1234, 0xFFFFFFFFFFFFFFFFull, 8, "x"}));
  EXPECT_EQ(j["va"].get<std::uint64_t>(), 0xFFFFFFFFFFFFFFFFull);
}

TEST(JsonTrace, ObserverListFansOutInOrder) {
  struct Count : trace::Observer {
    std::string* log;
    char tag;
    void on_nak(const trace::NakEvent&) override { log->push_back(tag); }
  };
  std::string log;
  Count a, b;
  a.log = b.log = &log;
  a.tag = 'a';
  b.tag = 'b';
  trace::ObserverList list;
  list.add(&a);
  list.add(&b);
  list.on_nak({});
  list.on_cqe({});  // default: ignored
  EXPECT_EQ(log, "ab");
}

TEST(JsonTrace, StringsAreEscaped) {
  // Free text reaches the trace from names and causes; whatever its bytes, every line stays one
  // valid JSON object and the string reads back unchanged (RFC 8259 §7 escapes).
  const std::string hostile = std::string("q\"uote \\back\nline\ttab\x01\x1f end") + '\0' + "nul";
  const auto frame =
      wire::encode(wire::sample_frame(wire::to_u8(wire::Opcode::RC_SEND_ONLY), {4, false, 10, 3}));
  const std::string_view h = hostile;
  struct Case {
    std::string line;
    const char* key;
  };
  const Case cases[] = {
      {trace::to_json(trace::QpTransitionEvent{5, 1, 0x11, qp::QpState::RTS, qp::QpState::ERR, h}),
       "cause"},
      {trace::to_json(trace::NakEvent{1, 0, 2, 3, 0x62, h}), "reason"},
      {trace::to_json(trace::AccessDeniedEvent{1, 0, 2, 0x1234, 0, 8, h}), "outcome"},
      {trace::to_json(trace::DropEvent{1, 0, h, frame, nullptr, {}}), "reason"},
      {trace::to_json(trace::FaultEvent{1, 0, h, "rule 0: drop nth=1", frame}), "action"},
      {trace::to_json(trace::FaultEvent{1, 0, "drop", h, frame}), "rule"},
      {trace::to_json(trace::RateEvent{3, 0, 0x11, 12.5, 25.0, 1.0, h}), "cause"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.line.find('\n'), std::string::npos) << c.line;
    ASSERT_TRUE(json::accept(c.line)) << c.line;
    EXPECT_EQ(json::parse(c.line)[c.key].get<std::string>(), hostile) << c.line;
  }
}

TEST(JsonTrace, OrdinaryLinesAreUnchanged) {
  // The escaping leaves ordinary text alone: the bytes of a line are fixed (docs/scenario.md).
  EXPECT_EQ(
      trace::to_json(trace::NakEvent{1, 0, 2, 3, 0x62, "rkey_mismatch"}),
      R"({"t":1,"ev":"nak","adapter":0,"qpn":2,"psn":3,"syndrome":98,"reason":"rkey_mismatch"})");
  EXPECT_EQ(
      trace::to_json(trace::RateEvent{3, 0, 0x11, 12.5, 25.0, 1.0, "cnp"}),
      R"({"t":3,"ev":"rate","adapter":0,"qpn":17,"rate_gbps":12.500000,"target_gbps":25.000000,"alpha":1.000000,"cause":"cnp"})");
}
