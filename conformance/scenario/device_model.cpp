// The golden model's adapter as the runner's Device: every call goes straight to the Adapter;
// completions' times and asynchronous events reach the runner through the simulation's observer.
#include "device.h"

#include <fmt/format.h>

#include <cstring>

namespace rocecert::conformance {

namespace {

class ModelDevice final : public Device {
 public:
  explicit ModelDevice(model::Adapter& a) : a_(a) {}

  bool exact_errors() const override { return true; }
  mem::Result<mem::Pd> alloc_pd() override { return a_.alloc_pd(); }
  bool write_memory(std::uint64_t addr, const std::vector<std::uint8_t>& bytes) override {
    return a_.memory().write(addr, bytes);
  }
  std::vector<std::uint8_t> read_memory(std::uint64_t addr, std::size_t len) override {
    return a_.memory().read_bytes(addr, len);
  }
  mem::Result<mem::MrKeys> reg_mr(const mem::MrRegistration& reg) override {
    return a_.reg_mr(reg);
  }
  mem::MemErrc dereg_mr(const mem::MrKeys& mr) override { return a_.mem_table().dereg_mr(mr.id); }
  mem::Result<mem::MwKeys> alloc_mw(mem::Pd pd, mem::MwType type) override {
    return a_.mem_table().alloc_mw(pd, type);
  }
  std::uint32_t mw_rkey(const mem::MwKeys& mw) override {
    const mem::MemoryWindow* w = a_.mem_table().find_mw(mw.id);
    return w != nullptr ? w->rkey.value() : mw.rkey.value();
  }
  qp::CqId create_cq(std::uint32_t cqe) override { return a_.create_cq(cqe); }
  qp::CreateResult create_qp(const qp::CreateQpParams& p) override { return a_.create_qp(p); }
  qp::SrqId create_srq(std::uint32_t max_wr, std::uint32_t max_sge) override {
    return a_.create_srq(max_wr, max_sge);
  }
  model::PostError post_srq_recv(qp::SrqId srq, const model::RecvWr& wr) override {
    return a_.post_srq_recv(srq, wr);
  }
  bool arm_srq_limit(qp::SrqId srq, std::uint32_t limit) override {
    return a_.arm_srq_limit(srq, limit);
  }
  qp::ModifyResult modify_qp(qp::Qpn qpn, const qp::QpAttr& attr, qp::AttrMask mask) override {
    return a_.modify_qp(qpn, attr, mask);
  }
  model::PostError post_recv(qp::Qpn qpn, const model::RecvWr& wr) override {
    return a_.post_recv(qpn, wr);
  }
  model::PostError post_send(qp::Qpn qpn, tx::SendWr wr,
                             const std::optional<qp::AddressVector>& ah) override {
    if (ah) wr.ah = a_.create_ah(*ah);  // one address handle per UD work request
    return a_.post_send(qpn, wr);
  }
  std::vector<cq::Wc> poll_cq(qp::CqId cq, std::size_t max) override { return a_.poll_cq(cq, max); }
  std::optional<qp::QpState> qp_state(qp::Qpn qpn) override {
    const qp::QpContext* ctx = a_.qps().find(qpn);
    if (ctx == nullptr) return std::nullopt;
    return ctx->state();
  }

 private:
  model::Adapter& a_;
};

}  // namespace

std::unique_ptr<Device> make_model_device(model::Adapter& adapter) {
  return std::make_unique<ModelDevice>(adapter);
}

std::string errno_name(int e) {
  if (e == 0) return "success";
  const char* n = strerrorname_np(e);
  return n != nullptr ? std::string(n) : fmt::format("errno {}", e);
}

}  // namespace rocecert::conformance
