#include "rocecert/trace/json_trace.h"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "rocecert/wire/decode.h"

namespace rocecert::trace {

std::string json_string(std::string_view s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x80 && c != '"' && c != '\\';
  });
  if (plain) {
    std::string out;
    out.reserve(s.size() + 2);
    out.push_back('"');
    out.append(s);
    out.push_back('"');
    return out;
  }
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {
// Free text (causes, reasons, outcomes, rules) goes through json_string(); enum names come from
// the model's fixed tables (identifiers) and are written as they are.
std::string_view dir_name(Direction d) {
  return d == Direction::TX ? "tx" : "rx";
}

// The frame as the reporting adapter decoded it, or decoded here when the event has no decode.
std::string frame_summary(wire::ByteSpan bytes, const wire::ParsedFrame* parsed) {
  wire::ParsedFrame local;
  if (parsed == nullptr) {
    local = wire::decode(bytes);
    parsed = &local;
  }
  const wire::ParsedFrame& p = *parsed;
  if (p.has_error) {
    return fmt::format(R"("len":{},"error":"{}")", bytes.size(), wire::to_string(p.error.code));
  }
  if (!p.has_bth) return fmt::format(R"("len":{},"roce":false)", bytes.size());
  std::string s = fmt::format(
      R"("len":{},"opcode":"{}","dqpn":{},"psn":{},"ackreq":{},"payload_len":{})", bytes.size(),
      p.op->name, p.bth.dqpn, p.bth.psn, p.bth.ackreq ? 1 : 0, p.payload_len);
  if (p.has(wire::Header::Reth)) s += fmt::format(R"(,"dmalen":{})", p.reth.dmalen);
  if (p.has(wire::Header::Aeth))
    s += fmt::format(R"(,"aeth":"{}","msn":{})", wire::aeth_name(p.aeth.syndrome), p.aeth.msn);
  s += fmt::format(R"(,"icrc_ok":{})", p.icrc_ok ? "true" : "false");
  return s;
}
}  // namespace

std::string to_json(const FrameEvent& e) {
  return fmt::format(R"({{"t":{},"ev":"frame","adapter":{},"dir":"{}",{}}})", e.t, e.adapter,
                     dir_name(e.dir), frame_summary(e.bytes, e.parsed));
}
std::string to_json(const QpTransitionEvent& e) {
  return fmt::format(
      R"({{"t":{},"ev":"qp_state","adapter":{},"qpn":{},"from":"{}","to":"{}","cause":{}}})", e.t,
      e.adapter, e.qpn, qp::to_string(e.from), qp::to_string(e.to), json_string(e.cause));
}
std::string to_json(const CqeEvent& e) {
  const cq::Wc& w = e.wc;
  return fmt::format(
      R"({{"t":{},"ev":"cqe","adapter":{},"cq":{},"wr_id":{},"status":"{}","opcode":"{}","byte_len":{},"qp_num":{},"src_qp":{},"wc_flags":{},"imm_data":{},"solicited":{}}})",
      e.t, e.adapter, e.cq, w.wr_id, cq::to_string(w.status), cq::to_string(w.opcode), w.byte_len,
      w.qp_num, w.src_qp, w.wc_flags, w.imm_data, e.solicited ? 1 : 0);
}
std::string to_json(const NakEvent& e) {
  return fmt::format(
      R"({{"t":{},"ev":"nak","adapter":{},"qpn":{},"psn":{},"syndrome":{},"reason":{}}})", e.t,
      e.adapter, e.qpn, e.psn, e.syndrome, json_string(e.reason));
}
std::string to_json(const RetryEvent& e) {
  return fmt::format(
      R"({{"t":{},"ev":"retry","adapter":{},"qpn":{},"kind":"{}","from_psn":{},"retries_left":{}}})",
      e.t, e.adapter, e.qpn, to_string(e.kind), e.from_psn, e.retries_left);
}
std::string to_json(const AccessDeniedEvent& e) {
  return fmt::format(
      R"({{"t":{},"ev":"access_denied","adapter":{},"qpn":{},"key":{},"va":{},"length":{},"outcome":{}}})",
      e.t, e.adapter, e.qpn, e.key, e.va, e.length, json_string(e.outcome));
}
std::string to_json(const AsyncEvent& e) {
  return fmt::format(R"({{"t":{},"ev":"async","adapter":{},"kind":"{}","object":{}}})", e.t,
                     e.adapter, errors::to_string(e.kind), e.object);
}
std::string to_json(const DropEvent& e) {
  const std::string cls =
      e.error_class.empty() ? std::string() : fmt::format(R"("class":"{}",)", e.error_class);
  return fmt::format(R"({{"t":{},"ev":"drop","adapter":{},"reason":{},{}{}}})", e.t, e.adapter,
                     json_string(e.reason), cls, frame_summary(e.bytes, e.parsed));
}

std::string to_json(const FaultEvent& e) {
  return fmt::format(R"({{"t":{},"ev":"fault","from_adapter":{},"action":{},"rule":{},{}}})", e.t,
                     e.from_adapter, json_string(e.action), json_string(e.rule),
                     frame_summary(e.bytes, nullptr));
}

std::string to_json(const RateEvent& e) {
  return fmt::format(
      R"({{"t":{},"ev":"rate","adapter":{},"qpn":{},"rate_gbps":{:.6f},"target_gbps":{:.6f},"alpha":{:.6f},"cause":{}}})",
      e.t, e.adapter, e.qpn, e.rate_gbps, e.target_gbps, e.alpha, json_string(e.cause));
}

JsonTraceWriter::~JsonTraceWriter() {
  std::fflush(out_);
}

void JsonTraceWriter::emit(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fputc('\n', out_);
}

void JsonTraceWriter::on_frame(const FrameEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_qp_transition(const QpTransitionEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_cqe(const CqeEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_nak(const NakEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_retry(const RetryEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_access_denied(const AccessDeniedEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_async_event(const AsyncEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_drop(const DropEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_fault(const FaultEvent& e) {
  emit(to_json(e));
}
void JsonTraceWriter::on_rate(const RateEvent& e) {
  emit(to_json(e));
}

}  // namespace rocecert::trace
