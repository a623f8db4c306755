// `rocecert check --events FILE`: what the DUT's test program logged while the capture was
// taken, as JSON lines (docs/check.md, "Events"): work completions, QP states and asynchronous
// events, each naming the host (its IP address, as the capture shows it) and the QP. The checker
// holds them against the wire: an error completion names the error the wire shows, a fatal NAK
// is completed with its status, and after a QP's first error its other work requests are
// flushed (rules events.*). Key events (an MR registered or deregistered, a memory window bound
// or invalidated) tell key.static where a host's rkey changed meaning.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/cq/wc.h"

namespace rocecert::check {

struct Event {
  enum class Kind : std::uint8_t { Wc, QpState, Async, Key };
  Kind kind = Kind::Wc;
  std::size_t line = 0;                 // 1-based, in the file
  std::array<std::uint8_t, 16> host{};  // IPv4 in the first 4 bytes, as captures show it
  std::uint8_t ip_version = 4;
  std::optional<std::uint32_t> qpn;  // required for wc and qp_state
  std::optional<std::int64_t> t_ns;  // when the program saw it (optional)
  // wc
  std::uint64_t wr_id = 0;
  cq::WcStatus status = cq::WcStatus::SUCCESS;
  std::optional<cq::WcOpcode> opcode;  // absent on error completions (ibv_poll_cq)
  // qp_state: the state's name ("ERR", ...); async: the event's name ("QP_FATAL", "CQ_ERR", ...);
  // key: the change ("register", "deregister", "reregister", "bind", "invalidate")
  std::string name;
  std::uint32_t rkey = 0;  // key: the rkey whose meaning changed, on `host` (the memory's owner)
};

struct Events {
  std::string file;
  std::vector<Event> events;
};

// A line that is not a valid event: the file, the line and the byte offset in the file.
class EventsError : public std::runtime_error {
 public:
  EventsError(std::string file, std::size_t line, std::size_t offset, const std::string& what);
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }
  std::size_t offset() const { return offset_; }

 private:
  std::string file_;
  std::size_t line_, offset_;
};

Events parse_events(std::string_view text, const std::string& source);
Events load_events(const std::string& path);  // EventsError also when the file cannot be read

}  // namespace rocecert::check
