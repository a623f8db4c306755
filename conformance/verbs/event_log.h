// The player's record of what the devices reported, as `rocecert check --events` reads it
// (docs/check.md, "Events"; rocecert/check/events.h): one JSON object per line, the adapter
// named by its host address and each QP by the device's own QP number.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/cq/wc.h"
#include "rocecert/errors/async_event.h"
#include "rocecert/qp/types.h"

namespace rocecert::verbs {

// "10.0.0.1" for an IPv4-mapped GID (::ffff:10.0.0.1), else the IPv6 text.
std::string host_of(const std::array<std::uint8_t, 16>& gid);

class EventLog {
 public:
  // A work completion as polled: its opcode only when it succeeded (ibv_poll_cq(3): the opcode
  // of an error completion is undefined).
  void wc(const std::string& host, std::uint64_t t_ns, const cq::Wc& wc);
  void qp_state(const std::string& host, std::uint64_t t_ns, std::uint32_t qpn, qp::QpState s);
  // `qpn` for an event affiliated with a QP.
  void async(const std::string& host, std::uint64_t t_ns, errors::AsyncEventType type,
             std::optional<std::uint32_t> qpn);
  // `change`: "register", "deregister", "bind", "invalidate" (the rkey's meaning on `host`).
  void key(const std::string& host, std::uint64_t t_ns, std::uint32_t rkey,
           std::string_view change);

  std::vector<std::string>& lines() { return lines_; }

 private:
  std::vector<std::string> lines_;
};

}  // namespace rocecert::verbs
