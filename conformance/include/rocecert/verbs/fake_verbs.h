// A Verbs without a device, for the player's tests: deterministic handles, QP numbers and keys,
// every call recorded, completions produced on the spot or scripted, refusals on request, and a
// clock that moves only when paused. It judges nothing (no QP state machine, no access checks):
// it answers what the test says.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rocecert/verbs/verbs.h"

namespace rocecert::verbs {

class FakeVerbs final : public Verbs {
 public:
  struct Options {
    DeviceCaps caps;
    PortInfo port;
    std::uint32_t first_qpn = 0x100;  // QPs are numbered from here, one by one
    std::uint32_t key_base = 0x1000;  // MR n gets lkey key_base + 2n, rkey key_base + 2n + 1
    std::uint64_t memory_base = 0x7f0000000000;  // host memory is handed out from here
    // A signaled send work request completes at once with SUCCESS (its opcode's completion
    // opcode, its SGEs' length), unless `statuses` scripts another status for its wr_id.
    bool complete_sends = true;
    // A CQ gets this many entries more than asked (rxe rounds up).
    std::uint32_t cq_extra = 0;
  };

  struct PostedSend {
    std::uint32_t qpn = 0;
    tx::SendWr wr;
    std::vector<Sge> sges;
    std::optional<qp::AddressVector> ah;
  };
  struct PostedRecv {
    std::uint32_t qpn_or_srq = 0;
    bool srq = false;
    std::uint64_t wr_id = 0;
    std::vector<Sge> sges;
  };
  struct Modify {
    std::uint32_t qpn = 0;
    qp::QpAttr attr;
    qp::AttrMask mask;
  };
  struct Region {
    std::uint32_t pd = 0;
    std::uint64_t addr = 0, length = 0, iova = 0;
    mem::Access access = mem::Access::NONE;
    std::uint32_t lkey = 0, rkey = 0;
    bool registered = true;
  };

  explicit FakeVerbs(Options o);

  // --- what the test scripts ---
  // The next call of `verb` ("alloc_pd", "reg_mr", "create_qp", "modify_qp", "post_send", ...)
  // fails with `err`.
  void refuse(const std::string& verb, int err) { refusals_[verb] = err; }
  // The completion of send work request `wr_id` has this status (and its QP goes to ERR).
  void script_status(std::uint64_t wr_id, cq::WcStatus s) { statuses_[wr_id] = s; }
  // A completion queued on CQ `cq` as if the device had produced it.
  void push_wc(std::uint32_t cq, const cq::Wc& wc) { cqs_[cq].push_back(wc); }
  void push_async(AsyncEvent e) { async_.push_back(e); }

  // --- what the test reads ---
  std::vector<std::string> calls;          // the verbs called, by name, in order
  std::vector<std::uint64_t> allocations;  // the lengths alloc_memory was asked for
  std::vector<PostedSend> sends;
  std::vector<PostedRecv> recvs;
  std::vector<Modify> modifies;
  std::map<std::uint32_t, Region> regions;  // by handle
  std::map<std::uint32_t, QpInit> qps;      // by QPN
  std::map<std::uint32_t, qp::QpState> states;

  // --- Verbs ---
  DeviceCaps query_device() override { return o_.caps; }
  PortInfo port() override { return o_.port; }
  std::uint64_t now_ns() override { return now_; }
  void pause(std::uint64_t ns) override { now_ += ns; }
  std::uint64_t alloc_memory(std::uint64_t length) override;
  void write_memory(std::uint64_t addr, std::span<const std::uint8_t> bytes) override;
  std::vector<std::uint8_t> read_memory(std::uint64_t addr, std::size_t length) override;
  Made alloc_pd() override;
  MadeMr reg_mr(std::uint32_t pd, std::uint64_t addr, std::uint64_t length, mem::Access access,
                std::optional<std::uint64_t> iova) override;
  int dereg_mr(std::uint32_t mr) override;
  MadeMw alloc_mw(std::uint32_t pd, mem::MwType type) override;
  std::uint32_t mw_rkey(std::uint32_t mw) override;
  Made create_cq(std::uint32_t cqe) override;
  std::uint32_t cq_size(std::uint32_t cq) override;
  Made create_srq(std::uint32_t pd, std::uint32_t max_wr, std::uint32_t max_sge) override;
  Made create_qp(const QpInit& init) override;
  int modify_qp(std::uint32_t qpn, const qp::QpAttr& attr, qp::AttrMask mask) override;
  std::optional<qp::QpState> query_qp_state(std::uint32_t qpn) override;
  int post_send(std::uint32_t qpn, const tx::SendWr& wr, std::span<const Sge> sges,
                const std::optional<qp::AddressVector>& ah) override;
  int post_recv(std::uint32_t qpn, std::uint64_t wr_id, std::span<const Sge> sges) override;
  int post_srq_recv(std::uint32_t srq, std::uint64_t wr_id, std::span<const Sge> sges) override;
  int arm_srq_limit(std::uint32_t srq, std::uint32_t limit) override;
  int poll_cq(std::uint32_t cq, std::size_t max, std::vector<cq::Wc>& out) override;
  std::optional<AsyncEvent> get_async_event() override;

 private:
  int refused(const std::string& verb);

  Options o_;
  std::uint64_t now_ = 1'000'000'000;
  std::uint32_t next_handle_ = 1;
  std::uint32_t next_qpn_ = 0;
  std::uint32_t next_key_ = 0;
  std::uint64_t next_memory_ = 0;
  std::map<std::string, int> refusals_;
  std::map<std::uint64_t, cq::WcStatus> statuses_;
  std::map<std::uint32_t, std::vector<cq::Wc>> cqs_;
  std::map<std::uint32_t, std::uint32_t> cq_sizes_;
  std::vector<AsyncEvent> async_;
  std::map<std::uint32_t, std::uint32_t> mw_rkeys_;
  std::map<std::uint64_t, std::vector<std::uint8_t>> memory_;  // written pieces, by address
};

}  // namespace rocecert::verbs
