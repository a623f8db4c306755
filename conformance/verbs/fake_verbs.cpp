// The scripted Verbs of the tests (fake_verbs.h).
#include "rocecert/verbs/fake_verbs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

namespace rocecert::verbs {

FakeVerbs::FakeVerbs(Options o)
    : o_(std::move(o)),
      next_qpn_(o_.first_qpn),
      next_key_(o_.key_base),
      next_memory_(o_.memory_base) {}

int FakeVerbs::refused(const std::string& verb) {
  calls.push_back(verb);
  const auto it = refusals_.find(verb);
  if (it == refusals_.end()) return 0;
  const int e = it->second;
  refusals_.erase(it);
  return e;
}

std::uint64_t FakeVerbs::alloc_memory(std::uint64_t length) {
  // Nothing is reserved: bytes are kept only where written. 4 KiB apart, as pages would be.
  allocations.push_back(length);
  const std::uint64_t at = next_memory_;
  next_memory_ += (length + 0xFFFu) & ~std::uint64_t{0xFFF};
  next_memory_ += 0x1000;
  return at;
}

void FakeVerbs::write_memory(std::uint64_t addr, std::span<const std::uint8_t> bytes) {
  memory_[addr] = std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

std::vector<std::uint8_t> FakeVerbs::read_memory(std::uint64_t addr, std::size_t length) {
  std::vector<std::uint8_t> out(length, 0);
  for (const auto& [at, bytes] : memory_)
    for (std::size_t i = 0; i < bytes.size(); ++i)
      if (at + i >= addr && at + i - addr < length) out[at + i - addr] = bytes[i];
  return out;
}

Made FakeVerbs::alloc_pd() {
  if (const int e = refused("alloc_pd")) return {e, 0};
  return {0, next_handle_++};
}

MadeMr FakeVerbs::reg_mr(std::uint32_t pd, std::uint64_t addr, std::uint64_t length,
                         mem::Access access, std::optional<std::uint64_t> iova) {
  if (const int e = refused("reg_mr")) return {e, 0, 0, 0, 0};
  Region r;
  r.pd = pd;
  r.addr = addr;
  r.length = length;
  r.iova = iova.value_or(addr);
  r.access = access;
  r.lkey = next_key_++;
  r.rkey = next_key_++;
  const std::uint32_t h = next_handle_++;
  regions[h] = r;
  return {0, h, r.lkey, r.rkey, r.iova};
}

int FakeVerbs::dereg_mr(std::uint32_t mr) {
  if (const int e = refused("dereg_mr")) return e;
  const auto it = regions.find(mr);
  if (it == regions.end() || !it->second.registered) return EINVAL;
  it->second.registered = false;
  return 0;
}

MadeMw FakeVerbs::alloc_mw(std::uint32_t, mem::MwType) {
  if (const int e = refused("alloc_mw")) return {e, 0, 0};
  const std::uint32_t h = next_handle_++;
  // The low byte is the key part a bind changes (ibv_inc_rkey).
  mw_rkeys_[h] = (next_key_++ << 8) | 0x01u;
  return {0, h, mw_rkeys_[h]};
}

std::uint32_t FakeVerbs::mw_rkey(std::uint32_t mw) {
  return mw_rkeys_[mw];
}

Made FakeVerbs::create_cq(std::uint32_t cqe) {
  if (const int e = refused("create_cq")) return {e, 0};
  const std::uint32_t h = next_handle_++;
  cqs_[h];
  cq_sizes_[h] = cqe + o_.cq_extra;
  return {0, h};
}

std::uint32_t FakeVerbs::cq_size(std::uint32_t cq) {
  return cq_sizes_[cq];
}

Made FakeVerbs::create_srq(std::uint32_t, std::uint32_t, std::uint32_t) {
  if (const int e = refused("create_srq")) return {e, 0};
  return {0, next_handle_++};
}

Made FakeVerbs::create_qp(const QpInit& init) {
  if (const int e = refused("create_qp")) return {e, 0};
  const std::uint32_t qpn = next_qpn_++;
  qps[qpn] = init;
  states[qpn] = qp::QpState::RESET;
  return {0, qpn};
}

int FakeVerbs::modify_qp(std::uint32_t qpn, const qp::QpAttr& attr, qp::AttrMask mask) {
  if (const int e = refused("modify_qp")) return e;
  if (qps.find(qpn) == qps.end()) return EINVAL;
  modifies.push_back({qpn, attr, mask});
  if (mask.has(qp::AttrBit::STATE)) states[qpn] = attr.qp_state;
  return 0;
}

std::optional<qp::QpState> FakeVerbs::query_qp_state(std::uint32_t qpn) {
  calls.push_back("query_qp_state");
  const auto it = states.find(qpn);
  if (it == states.end()) return std::nullopt;
  return it->second;
}

int FakeVerbs::post_send(std::uint32_t qpn, const tx::SendWr& wr, std::span<const Sge> sges,
                         const std::optional<qp::AddressVector>& ah) {
  if (const int e = refused("post_send")) return e;
  const auto q = qps.find(qpn);
  if (q == qps.end()) return EINVAL;
  sends.push_back({qpn, wr, {sges.begin(), sges.end()}, ah});
  if (wr.opcode == tx::WrOpcode::BIND_MW) {
    // A bind gives the window the next key byte (ibv_inc_rkey).
    std::uint32_t& k = mw_rkeys_[wr.bind_mw_handle];
    k = (k & ~0xFFu) | ((k + 1) & 0xFFu);
  }
  const bool signaled = q->second.sq_sig_all || (wr.send_flags & tx::kSendSignaled) != 0;
  const auto scripted = statuses_.find(wr.wr_id);
  if (!o_.complete_sends || (!signaled && scripted == statuses_.end())) return 0;
  cq::Wc wc;
  wc.wr_id = wr.wr_id;
  wc.qp_num = qpn;
  wc.status = scripted != statuses_.end() ? scripted->second : cq::WcStatus::SUCCESS;
  if (const auto op = cq::send_wc_opcode(wr.opcode)) wc.opcode = *op;
  for (const Sge& s : sges) wc.byte_len += s.length;
  if (wc.status != cq::WcStatus::SUCCESS) states[qpn] = qp::QpState::ERR;
  cqs_[q->second.send_cq].push_back(wc);
  return 0;
}

int FakeVerbs::post_recv(std::uint32_t qpn, std::uint64_t wr_id, std::span<const Sge> sges) {
  if (const int e = refused("post_recv")) return e;
  if (qps.find(qpn) == qps.end()) return EINVAL;
  recvs.push_back({qpn, false, wr_id, {sges.begin(), sges.end()}});
  return 0;
}

int FakeVerbs::post_srq_recv(std::uint32_t srq, std::uint64_t wr_id, std::span<const Sge> sges) {
  if (const int e = refused("post_srq_recv")) return e;
  recvs.push_back({srq, true, wr_id, {sges.begin(), sges.end()}});
  return 0;
}

int FakeVerbs::arm_srq_limit(std::uint32_t, std::uint32_t) {
  return refused("arm_srq_limit");
}

int FakeVerbs::poll_cq(std::uint32_t cq, std::size_t max, std::vector<cq::Wc>& out) {
  const auto it = cqs_.find(cq);
  if (it == cqs_.end()) return -EINVAL;
  const std::size_t n = std::min(max, it->second.size());
  out.insert(out.end(), it->second.begin(), it->second.begin() + static_cast<std::ptrdiff_t>(n));
  it->second.erase(it->second.begin(), it->second.begin() + static_cast<std::ptrdiff_t>(n));
  return static_cast<int>(n);
}

std::optional<AsyncEvent> FakeVerbs::get_async_event() {
  if (async_.empty()) return std::nullopt;
  const AsyncEvent e = async_.front();
  async_.erase(async_.begin());
  return e;
}

}  // namespace rocecert::verbs
