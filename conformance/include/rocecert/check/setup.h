// `rocecert check --setup FILE`: what the device under test's responders hold — memory regions
// (rkey, range, rights, PD) and QPs (number, PD, QP access flags) — read from a scenario file
// (docs/scenario.md): its adapters give the hosts' addresses, its alloc_pd / reg_mr / create_qp
// / modify_qp steps the objects, and `dut_rkey` / `dut_qpn` the numbers the DUT gave them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rocecert::conformance {
struct Scenario;
}

namespace rocecert::check {

struct SetupMr {
  std::array<std::uint8_t, 16> host{};  // IPv4 in the first 4 bytes, as captures show it
  std::string name;                     // the scenario's name for it
  std::uint32_t rkey = 0;
  std::uint64_t iova = 0;
  std::uint64_t length = 0;
  std::uint32_t pd = 0;  // the scenario's PD object index
  bool remote_read = false, remote_write = false, remote_atomic = false;
  bool flush_global = false, flush_persistent = false;  // FLUSH placement types (IBA 1.5)
  // A memory window bound by a BIND_MW the setup gives with its dut_rkey (name: the window's):
  // its range and rights are the bind's; a type 2 window serves only the QP it was bound on.
  bool window = false;
  std::optional<std::string> bound_qp;  // type 2: that QP's name
};

struct SetupQp {
  std::array<std::uint8_t, 16> host{};
  std::string name;
  std::uint32_t qpn = 0;
  bool numbered = false;  // the step gives dut_qpn (else the QP is found by its dest_qpn only)
  std::uint32_t pd = 0;
  bool remote_read = false, remote_write = false, remote_atomic = false;  // qp_access_flags
  bool flush_global = false, flush_persistent = false;
  // The timing attributes and the initiator depth its modify_qp steps set (the last value
  // each), and its peer's QPN as the DUT numbers it (dest_qp_num: a number, or a QP of the
  // setup with its dut_qpn).
  std::optional<std::uint8_t> timeout, retry_cnt, rnr_retry, min_rnr_timer;
  std::optional<std::uint8_t> max_rd_atomic;       // initiator depth (read.rd_atomic_limit)
  std::optional<std::uint8_t> max_dest_rd_atomic;  // responder resources (the golden replay)
  std::optional<std::uint32_t> dest_qpn;
};

struct Setup {
  std::string file;
  // False when the MR table is not known (a setup made for a run of the golden model, whose
  // rkeys the scenario does not give): keys are then not judged against it, QP attributes are.
  bool keys_known = true;
  std::vector<SetupMr> mrs;
  std::vector<SetupQp> qps;
  // Hosts with memory windows (alloc_mw): their rkeys come from binds and are not listed, so an
  // rkey the setup does not know decides nothing there.
  std::vector<std::array<std::uint8_t, 16>> hosts_with_windows;

  const SetupQp* qp(const std::array<std::uint8_t, 16>& host, std::uint32_t qpn) const;
  // The QP of `host` connected to `dest_qpn` (its dest_qp_num), when exactly one is.
  const SetupQp* qp_to(const std::array<std::uint8_t, 16>& host, std::uint32_t dest_qpn) const;
  const SetupMr* mr(const std::array<std::uint8_t, 16>& host, std::uint32_t rkey) const;
  bool has_windows(const std::array<std::uint8_t, 16>& host) const;
};

// Reads a setup; a file that is not a valid scenario throws conformance::ScenarioError (file,
// JSON path, message), as `rocecert simulate` reports it.
Setup load_setup(const std::string& path);

// The setup a scenario describes (`file` names it in reports). `qpns`, when given, numbers QPs
// by name instead of their dut_qpn (the golden model's own numbers, when the scenario ran on it).
Setup make_setup(const conformance::Scenario& scenario, const std::string& file,
                 const std::map<std::string, std::uint32_t>* qpns = nullptr);

}  // namespace rocecert::check
