// The device the scenario runner drives for one adapter of a scenario: the golden model's
// Adapter, or a device-under-test plugin loaded through the C ABI (rocecert/dut.h, docs/dut.md).
// The runner talks to every adapter through this seam only; what differs (where completions
// and asynchronous events come from, how exactly errors can be compared) is said here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rocecert/cq/wc.h"
#include "rocecert/errors/async_event.h"
#include "rocecert/mem/mem_table.h"
#include "rocecert/model/adapter.h"
#include "rocecert/model/simulation.h"
#include "rocecert/qp/qp_table.h"
#include "rocecert/tx/work_request.h"

namespace rocecert::conformance {

class DutPlugin;

// A step needs something the device does not offer (a function its plugin does not export):
// the run stops and the vector is UNSUPPORTED, not FAIL.
class DeviceUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Device {
 public:
  virtual ~Device() = default;

  // True when verbs errors are the model's own codes; false when they are errno values only
  // (a plugin), which the runner then compares as errno.
  virtual bool exact_errors() const = 0;
  // The errno of the last verb, when !exact_errors().
  virtual int last_errno() const { return 0; }

  virtual mem::Result<mem::Pd> alloc_pd() = 0;
  virtual bool write_memory(std::uint64_t addr, const std::vector<std::uint8_t>& bytes) = 0;
  // Fewer bytes than asked when the range wraps past 2^64.
  virtual std::vector<std::uint8_t> read_memory(std::uint64_t addr, std::size_t len) = 0;
  virtual mem::Result<mem::MrKeys> reg_mr(const mem::MrRegistration& reg) = 0;
  virtual mem::MemErrc dereg_mr(const mem::MrKeys& mr) = 0;
  virtual mem::Result<mem::MwKeys> alloc_mw(mem::Pd pd, mem::MwType type) = 0;
  // The window's current rkey (a bind gives it a new one).
  virtual std::uint32_t mw_rkey(const mem::MwKeys& mw) = 0;
  virtual qp::CqId create_cq(std::uint32_t cqe) = 0;
  virtual qp::CreateResult create_qp(const qp::CreateQpParams& params) = 0;
  virtual qp::SrqId create_srq(std::uint32_t max_wr, std::uint32_t max_sge) = 0;
  virtual model::PostError post_srq_recv(qp::SrqId srq, const model::RecvWr& wr) = 0;
  virtual bool arm_srq_limit(qp::SrqId srq, std::uint32_t limit) = 0;
  virtual qp::ModifyResult modify_qp(qp::Qpn qpn, const qp::QpAttr& attr, qp::AttrMask mask) = 0;
  virtual model::PostError post_recv(qp::Qpn qpn, const model::RecvWr& wr) = 0;
  // `ah`: UD, the destination of this work request.
  virtual model::PostError post_send(qp::Qpn qpn, tx::SendWr wr,
                                     const std::optional<qp::AddressVector>& ah) = 0;
  virtual std::vector<cq::Wc> poll_cq(qp::CqId cq, std::size_t max) = 0;
  // nullopt: no such QP.
  virtual std::optional<qp::QpState> qp_state(qp::Qpn qpn) = 0;
  // Asynchronous events raised since the last call that the simulation's observer did not see
  // (a plugin's): (type, element).
  virtual std::vector<std::pair<errors::AsyncEventType, std::uint32_t>> take_async_events() {
    return {};
  }
  // Differences found since the last call, for the step that caused them (wire-only: a verb the
  // device answered otherwise than the model).
  virtual std::vector<std::string> take_differences() { return {}; }
};

// The golden model's adapter.
std::unique_ptr<Device> make_model_device(model::Adapter& adapter);

// A plugin instance standing behind `port` (a model Adapter the simulation made for the
// scenario's adapter, which only lends the link end its identity): frames the link brings to
// `port` go to the plugin, frames the plugin emits leave as `port` (reported to `observer` as
// the port's TX frames). Throws DutError when the plugin refuses to create the device.
std::unique_ptr<Device> make_plugin_device(const DutPlugin& plugin, const std::string& adapter_json,
                                           model::Adapter& port, sim::EventQueue& events,
                                           trace::Observer& observer);
// Joins a plugin device to the link its port is an end of (call once the link exists).
void attach_plugin_device(Device& device, model::Link& link);

// Wire-only (rocecert/dut.h): `adapter` plays the vector as the model does and answers the
// runner; a plugin instance gets the same verbs with the model's keys and QP numbers imposed and,
// once listen_wire_only_device joins it to the link, every frame that reaches the adapter. What
// it emits is appended to `sent`; verbs it answers otherwise than the model are differences.
std::unique_ptr<Device> make_wire_only_device(const DutPlugin& plugin,
                                              const std::string& adapter_json,
                                              model::Adapter& adapter, sim::EventQueue& events,
                                              trace::Observer& observer,
                                              std::vector<std::vector<std::uint8_t>>& sent);
void listen_wire_only_device(Device& device, model::Link& link);

// An errno value as verbs failures are reported: "success", "EINVAL", or "errno N".
std::string errno_name(int e);

}  // namespace rocecert::conformance
