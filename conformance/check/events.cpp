// --events: the JSON-lines log of a DUT's test program (events.h; docs/check.md, "Events").
#include "rocecert/check/events.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "json_in.h"
#include "rocecert/qp/types.h"

namespace rocecert::check {

EventsError::EventsError(std::string file, std::size_t line, std::size_t offset,
                         const std::string& what)
    : std::runtime_error(
          line == 0 ? fmt::format("{}: {}", file, what)  // the file as a whole
                    : fmt::format("{}: line {} (byte offset {}): {}", file, line, offset, what)),
      file_(std::move(file)),
      line_(line),
      offset_(offset) {}

namespace {

using nlohmann::json;

constexpr std::string_view kKeys[] = {"event",  "host",     "qpn",   "t_ns", "wr_id", "status",
                                      "opcode", "byte_len", "state", "type", "rkey",  "change"};
constexpr std::string_view kKeyChanges[] = {"register", "deregister", "reregister", "bind",
                                            "invalidate"};

// The QP states as the model names them (qp::to_string), the names ibv_qp_state uses.
bool known_state(const std::string& name) {
  return std::any_of(qp::kAllQpStates.begin(), qp::kAllQpStates.end(),
                     [&](qp::QpState st) { return qp::to_string(st) == name; });
}

}  // namespace

Events parse_events(std::string_view text, const std::string& source) {
  Events out;
  out.file = source;
  std::size_t offset = 0, line = 0;
  while (offset < text.size()) {
    ++line;
    std::size_t end = text.find('\n', offset);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view raw = text.substr(offset, end - offset);
    const std::size_t at = offset;
    offset = end + 1;
    if (raw.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // blank line
    auto fail = [&](const std::string& what) -> EventsError {
      return EventsError(source, line, at, what);
    };
    json j;
    try {
      j = json::parse(raw);
    } catch (const json::parse_error& e) {
      // The parser sees one line: its "at line 1, column N" becomes "at column N" of this one.
      std::string what = json_in::printable(e.what());
      if (const std::size_t l = what.find("at line 1, column "); l != std::string::npos)
        what.replace(l, 18, "at column ");
      throw EventsError(source, line, at + std::min(raw.size(), e.byte > 0 ? e.byte - 1 : 0),
                        "invalid JSON: " + what);
    } catch (const json::exception& e) {  // a number out of range, ...
      throw EventsError(source, line, at, "invalid JSON: " + json_in::printable(e.what()));
    }
    if (!j.is_object()) throw fail("expected a JSON object");
    for (const auto& [k, v] : j.items()) {
      bool known = false;
      for (std::string_view n : kKeys) known = known || n == k;
      if (!known) throw fail("unknown key \"" + k + "\"");
    }
    auto string_of = [&](const char* key) -> std::string {
      const auto it = j.find(key);
      if (it == j.end()) throw fail(std::string("missing key \"") + key + "\"");
      if (!it->is_string()) throw fail(std::string("\"") + key + "\" must be a string");
      return it->get<std::string>();
    };
    auto uint_of = [&](const char* key, std::uint64_t max) -> std::optional<std::uint64_t> {
      const auto it = j.find(key);
      if (it == j.end()) return std::nullopt;
      if (!it->is_number_unsigned() || it->get<std::uint64_t>() > max)
        throw fail(fmt::format("\"{}\" must be an integer from 0 to {}", key, max));
      return it->get<std::uint64_t>();
    };
    Event e;
    e.line = line;
    const std::string kind = string_of("event");
    if (kind == "wc")
      e.kind = Event::Kind::Wc;
    else if (kind == "qp_state")
      e.kind = Event::Kind::QpState;
    else if (kind == "async")
      e.kind = Event::Kind::Async;
    else if (kind == "key")
      e.kind = Event::Kind::Key;
    else
      throw fail("\"event\" must be \"wc\", \"qp_state\", \"async\" or \"key\", not \"" + kind +
                 "\"");
    const std::string host = string_of("host");
    if (inet_pton(AF_INET, host.c_str(), e.host.data()) == 1) {
      e.ip_version = 4;
    } else if (inet_pton(AF_INET6, host.c_str(), e.host.data()) == 1) {
      e.ip_version = 6;
    } else {
      throw fail("\"host\" is not an IPv4 or IPv6 address: \"" + host + "\"");
    }
    if (const auto q = uint_of("qpn", 0xFFFFFF)) e.qpn = static_cast<std::uint32_t>(*q);
    if (const auto t = uint_of("t_ns", std::uint64_t{1} << 62))
      e.t_ns = static_cast<std::int64_t>(*t);
    switch (e.kind) {
      case Event::Kind::Wc: {
        if (!e.qpn) throw fail("missing key \"qpn\"");
        e.wr_id = uint_of("wr_id", ~std::uint64_t{0}).value_or(0);
        const std::string s = string_of("status");
        if (!cq::wc_status_from_name(s, e.status))
          throw fail(
              "\"status\" is not a work completion status (SUCCESS, REM_ACCESS_ERR, "
              "WR_FLUSH_ERR, ...): \"" +
              s + "\"");
        if (j.contains("opcode")) {
          cq::WcOpcode op{};
          const std::string o = string_of("opcode");
          if (!cq::wc_opcode_from_name(o, op))
            throw fail(
                "\"opcode\" is not a work completion opcode (SEND, RDMA_WRITE, RECV, "
                "...): \"" +
                o + "\"");
          e.opcode = op;
        }
        (void)uint_of("byte_len", 0xFFFFFFFF);
        break;
      }
      case Event::Kind::QpState:
        if (!e.qpn) throw fail("missing key \"qpn\"");
        e.name = string_of("state");
        if (!known_state(e.name))
          throw fail("\"state\" is not a QP state (RESET, INIT, RTR, RTS, SQD, SQE, ERR): \"" +
                     e.name + "\"");
        break;
      case Event::Kind::Async:
        e.name = string_of("type");
        break;
      case Event::Kind::Key: {
        const auto rkey = uint_of("rkey", 0xFFFFFFFF);
        if (!rkey) throw fail("missing key \"rkey\"");
        e.rkey = static_cast<std::uint32_t>(*rkey);
        e.name = string_of("change");
        if (std::find(std::begin(kKeyChanges), std::end(kKeyChanges), e.name) ==
            std::end(kKeyChanges))
          throw fail(
              "\"change\" must be \"register\", \"deregister\", \"reregister\", \"bind\" or "
              "\"invalidate\", not \"" +
              e.name + "\"");
        break;
      }
    }
    out.events.push_back(std::move(e));
  }
  return out;
}

Events load_events(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw EventsError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return parse_events(s.str(), path);
}

}  // namespace rocecert::check
