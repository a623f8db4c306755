// A device-under-test plugin: a shared object implementing the C ABI of rocecert/dut.h, loaded
// once and instantiated by the scenario runner for the adapter it plays (docs/dut.md).
#pragma once

#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "rocecert/dut.h"

namespace rocecert::conformance {

// An unusable plugin: the file does not load, a required function is missing, the ABI version
// differs, or the plugin refused to create a device. what() names the file.
class DutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DutPlugin {
 public:
  // The functions of rocecert/dut.h; optional ones may be null.
  struct Api {
    decltype(&rocecert_dut_abi_version) abi_version = nullptr;
    decltype(&rocecert_dut_create) create = nullptr;
    decltype(&rocecert_dut_destroy) destroy = nullptr;
    decltype(&rocecert_dut_receive) receive = nullptr;
    decltype(&rocecert_dut_advance) advance = nullptr;
    decltype(&rocecert_dut_next_event_ns) next_event_ns = nullptr;
    decltype(&rocecert_dut_capabilities) capabilities = nullptr;
    decltype(&rocecert_dut_mem_write) mem_write = nullptr;
    decltype(&rocecert_dut_mem_read) mem_read = nullptr;
    decltype(&rocecert_dut_alloc_pd) alloc_pd = nullptr;
    decltype(&rocecert_dut_reg_mr) reg_mr = nullptr;
    decltype(&rocecert_dut_dereg_mr) dereg_mr = nullptr;
    decltype(&rocecert_dut_alloc_mw) alloc_mw = nullptr;
    decltype(&rocecert_dut_mw_rkey) mw_rkey = nullptr;
    decltype(&rocecert_dut_create_cq) create_cq = nullptr;
    decltype(&rocecert_dut_create_srq) create_srq = nullptr;
    decltype(&rocecert_dut_create_qp) create_qp = nullptr;
    decltype(&rocecert_dut_modify_qp) modify_qp = nullptr;
    decltype(&rocecert_dut_query_qp_state) query_qp_state = nullptr;
    decltype(&rocecert_dut_post_send) post_send = nullptr;
    decltype(&rocecert_dut_post_recv) post_recv = nullptr;
    decltype(&rocecert_dut_post_srq_recv) post_srq_recv = nullptr;
    decltype(&rocecert_dut_arm_srq_limit) arm_srq_limit = nullptr;
    decltype(&rocecert_dut_poll_cq) poll_cq = nullptr;
    decltype(&rocecert_dut_poll_async_event) poll_async_event = nullptr;
  };

  // `spec`: "lib:PATH.so" or "lib:PATH.so,ARGS" (ARGS reach the plugin's config). Throws DutError.
  static std::unique_ptr<DutPlugin> load(const std::string& spec);
  ~DutPlugin();
  DutPlugin(const DutPlugin&) = delete;
  DutPlugin& operator=(const DutPlugin&) = delete;

  const std::string& path() const { return path_; }
  const std::string& args() const { return args_; }
  const Api& api() const { return api_; }
  // What rocecert_dut_capabilities lists (empty when the plugin does not export it: then every
  // capability is assumed and a vector fails rather than being skipped).
  const std::set<std::string>& capabilities() const { return caps_; }
  bool lists_capabilities() const { return api_.capabilities != nullptr; }

 private:
  DutPlugin() = default;
  void* handle_ = nullptr;
  std::string path_;
  std::string args_;
  Api api_;
  std::set<std::string> caps_;
};

}  // namespace rocecert::conformance
