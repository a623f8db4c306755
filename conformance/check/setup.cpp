#include "rocecert/check/setup.h"

#include <variant>

#include "rocecert/conformance/scenario.h"
#include "rocecert/mem/keys.h"

namespace rocecert::check {
namespace {

// A GID as the capture shows the address: IPv4-mapped (::ffff:a.b.c.d) to a.b.c.d.
std::array<std::uint8_t, 16> host_of(const std::array<std::uint8_t, 16>& gid) {
  bool mapped = gid[10] == 0xFF && gid[11] == 0xFF;
  for (std::size_t i = 0; i < 10; ++i) mapped = mapped && gid[i] == 0;
  if (!mapped) return gid;
  std::array<std::uint8_t, 16> out{};
  for (std::size_t i = 0; i < 4; ++i) out[i] = gid[12 + i];
  return out;
}

}  // namespace

const SetupQp* Setup::qp(const std::array<std::uint8_t, 16>& host, std::uint32_t qpn) const {
  for (const SetupQp& q : qps)
    if (q.host == host && q.qpn == qpn) return &q;
  return nullptr;
}

const SetupMr* Setup::mr(const std::array<std::uint8_t, 16>& host, std::uint32_t rkey) const {
  for (const SetupMr& m : mrs)
    if (m.host == host && m.rkey == rkey) return &m;
  return nullptr;
}

bool Setup::has_windows(const std::array<std::uint8_t, 16>& host) const {
  for (const auto& h : hosts_with_windows)
    if (h == host) return true;
  return false;
}

Setup load_setup(const std::string& path) {
  const conformance::Scenario sc = conformance::load_scenario_file(path);
  Setup out;
  out.file = path;
  auto host = [&](conformance::ObjId obj) {
    return host_of(sc.adapters.at(sc.object(obj).adapter_index).config.gid);
  };
  for (const conformance::Step& step : sc.steps) {
    if (const auto* m = std::get_if<conformance::RegMrStep>(&step.body); m && m->dut_rkey) {
      SetupMr x;
      x.host = host(m->mr);
      x.name = sc.object(m->mr).name;
      x.rkey = *m->dut_rkey;
      x.iova = sc.object(m->mr).mr_iova;
      x.length = m->length;
      x.pd = static_cast<std::uint32_t>(m->pd);
      x.remote_read = mem::contains(m->access, mem::Access::REMOTE_READ);
      x.remote_write = mem::contains(m->access, mem::Access::REMOTE_WRITE);
      x.remote_atomic = mem::contains(m->access, mem::Access::REMOTE_ATOMIC);
      out.mrs.push_back(std::move(x));
    } else if (const auto* q = std::get_if<conformance::CreateQpStep>(&step.body);
               q && q->dut_qpn) {
      SetupQp x;
      x.host = host(q->qp);
      x.name = sc.object(q->qp).name;
      x.qpn = *q->dut_qpn;
      x.pd = static_cast<std::uint32_t>(q->pd);
      out.qps.push_back(std::move(x));
    } else if (const auto* w = std::get_if<conformance::AllocMwStep>(&step.body)) {
      out.hosts_with_windows.push_back(host(w->pd));
    } else if (const auto* mq = std::get_if<conformance::ModifyQpStep>(&step.body);
               mq && mq->mask.has(qp::AttrBit::ACCESS_FLAGS)) {
      // The QP-level gate (IBA Vol. 1 chapter 9; docs/spec-notes.md §4.4 CHK_OP_VALID).
      for (SetupQp& x : out.qps)
        if (x.name == sc.object(mq->qp).name) {
          const auto a = mem::access_from_u32(mq->attr.qp_access_flags);
          x.remote_read = mem::contains(a, mem::Access::REMOTE_READ);
          x.remote_write = mem::contains(a, mem::Access::REMOTE_WRITE);
          x.remote_atomic = mem::contains(a, mem::Access::REMOTE_ATOMIC);
        }
    }
  }
  return out;
}

}  // namespace rocecert::check
