// The event log's lines (event_log.h), with the keys in the order docs/check.md shows them.
#include "event_log.h"

#include <arpa/inet.h>

#include <nlohmann/json.hpp>

#include "rocecert/qp/attr.h"

namespace rocecert::verbs {

namespace {

// check::parse_events takes t_ns up to 2^62.
constexpr std::uint64_t kMaxTime = std::uint64_t{1} << 62;

nlohmann::ordered_json head(std::string_view event, const std::string& host, std::uint64_t t_ns) {
  nlohmann::ordered_json j;
  j["event"] = event;
  j["t_ns"] = std::min(t_ns, kMaxTime);
  j["host"] = host;
  return j;
}

}  // namespace

std::string host_of(const std::array<std::uint8_t, 16>& gid) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (qp::is_ipv4_mapped(gid)) {
    inet_ntop(AF_INET, gid.data() + 12, text, sizeof text);
  } else {
    inet_ntop(AF_INET6, gid.data(), text, sizeof text);
  }
  return text;
}

void EventLog::wc(const std::string& host, std::uint64_t t_ns, const cq::Wc& wc) {
  nlohmann::ordered_json j = head("wc", host, t_ns);
  j["qpn"] = wc.qp_num & 0xFFFFFFu;
  j["wr_id"] = wc.wr_id;
  if (wc.status == cq::WcStatus::SUCCESS) j["opcode"] = cq::to_string(wc.opcode);
  j["status"] = cq::to_string(wc.status);
  j["byte_len"] = wc.byte_len;
  lines_.push_back(j.dump());
}

void EventLog::qp_state(const std::string& host, std::uint64_t t_ns, std::uint32_t qpn,
                        qp::QpState s) {
  nlohmann::ordered_json j = head("qp_state", host, t_ns);
  j["qpn"] = qpn & 0xFFFFFFu;
  j["state"] = qp::to_string(s);
  lines_.push_back(j.dump());
}

void EventLog::async(const std::string& host, std::uint64_t t_ns, errors::AsyncEventType type,
                     std::optional<std::uint32_t> qpn) {
  nlohmann::ordered_json j = head("async", host, t_ns);
  if (qpn) j["qpn"] = *qpn & 0xFFFFFFu;
  j["type"] = errors::to_string(type);
  lines_.push_back(j.dump());
}

void EventLog::key(const std::string& host, std::uint64_t t_ns, std::uint32_t rkey,
                   std::string_view change) {
  nlohmann::ordered_json j = head("key", host, t_ns);
  j["rkey"] = rkey;
  j["change"] = change;
  lines_.push_back(j.dump());
}

}  // namespace rocecert::verbs
