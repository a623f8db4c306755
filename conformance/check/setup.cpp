#include "rocecert/check/setup.h"

#include <map>
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

// The remote rights an MR's or a window's access flags grant.
void set_remote_rights(SetupMr& x, mem::Access access) {
  x.remote_read = mem::contains(access, mem::Access::REMOTE_READ);
  x.remote_write = mem::contains(access, mem::Access::REMOTE_WRITE);
  x.remote_atomic = mem::contains(access, mem::Access::REMOTE_ATOMIC);
  x.flush_global = mem::contains(access, mem::Access::FLUSH_GLOBAL);
  x.flush_persistent = mem::contains(access, mem::Access::FLUSH_PERSISTENT);
}

}  // namespace

const SetupQp* Setup::qp(const std::array<std::uint8_t, 16>& host, std::uint32_t qpn) const {
  for (const SetupQp& q : qps)
    if (q.numbered && q.host == host && q.qpn == qpn) return &q;
  return nullptr;
}

const SetupQp* Setup::qp_to(const std::array<std::uint8_t, 16>& host,
                            std::uint32_t dest_qpn) const {
  const SetupQp* found = nullptr;
  for (const SetupQp& q : qps)
    if (q.host == host && q.dest_qpn == dest_qpn) {
      if (found != nullptr) return nullptr;
      found = &q;
    }
  return found;
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
  return make_setup(conformance::load_scenario_file(path), path);
}

Setup make_setup(const conformance::Scenario& sc, const std::string& file,
                 const std::map<std::string, std::uint32_t>* qpns) {
  Setup out;
  out.file = file;
  out.keys_known = qpns == nullptr;
  std::vector<std::pair<std::ptrdiff_t, std::string>> dest_names;  // QP index, peer's name
  std::map<conformance::ObjId, conformance::AllocMwStep> windows;  // by the window's object
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
      set_remote_rights(x, m->access);
      out.mrs.push_back(std::move(x));
    } else if (const auto* q = std::get_if<conformance::CreateQpStep>(&step.body)) {
      SetupQp x;
      x.host = host(q->qp);
      x.name = sc.object(q->qp).name;
      x.numbered = q->dut_qpn.has_value();
      x.qpn = q->dut_qpn.value_or(0);
      if (qpns != nullptr) {
        const auto n = qpns->find(x.name);
        x.numbered = n != qpns->end();
        x.qpn = x.numbered ? n->second : 0;
      }
      x.pd = static_cast<std::uint32_t>(q->pd);
      out.qps.push_back(std::move(x));
    } else if (const auto* w = std::get_if<conformance::AllocMwStep>(&step.body)) {
      out.hosts_with_windows.push_back(host(w->pd));
      windows.emplace(w->mw, *w);
    } else if (const auto* b = std::get_if<conformance::PostSendStep>(&step.body);
               b && b->wr.opcode == tx::WrOpcode::BIND_MW && b->bind_dut_rkey) {
      // A window the DUT bound, with the rkey it gave it: it grants its own range and rights,
      // and a type 2 window serves only the QP that bound it (IBA Vol. 1 chapter 10, memory
      // windows, C10-72..C10-75; docs/spec-notes.md §7.3, §7.4).
      const auto mw = windows.find(b->bind_mw.object);
      if (mw == windows.end()) continue;  // a literal window number: not the setup's
      SetupMr x;
      x.host = host(mw->second.pd);
      x.name = sc.object(mw->first).name;
      x.rkey = *b->bind_dut_rkey;
      x.iova = b->wr.bind_addr;
      x.length = b->wr.bind_length;
      x.pd = static_cast<std::uint32_t>(mw->second.pd);
      set_remote_rights(x, mem::access_from_u32(b->wr.bind_access));
      x.window = true;
      if (mw->second.type == mem::MwType::TYPE_2) x.bound_qp = sc.object(b->qp).name;
      out.mrs.push_back(std::move(x));
    } else if (const auto* mq = std::get_if<conformance::ModifyQpStep>(&step.body)) {
      for (SetupQp& x : out.qps) {
        if (x.name != sc.object(mq->qp).name) continue;
        const qp::AttrMask mask = mq->mask;
        if (mask.has(qp::AttrBit::ACCESS_FLAGS)) {
          // The QP-level gate (IBA Vol. 1 chapter 9; docs/spec-notes.md §4.4 CHK_OP_VALID).
          const auto a = mem::access_from_u32(mq->attr.qp_access_flags);
          x.remote_read = mem::contains(a, mem::Access::REMOTE_READ);
          x.remote_write = mem::contains(a, mem::Access::REMOTE_WRITE);
          x.remote_atomic = mem::contains(a, mem::Access::REMOTE_ATOMIC);
          x.flush_global = mem::contains(a, mem::Access::FLUSH_GLOBAL);
          x.flush_persistent = mem::contains(a, mem::Access::FLUSH_PERSISTENT);
        }
        // The requester's and responder's timing (IBA Vol. 1 §9.7.6, §9.7.5.2.8; psn.timeout,
        // psn.retry_count, psn.rnr_retry_count, ack.rnr_timer).
        if (mask.has(qp::AttrBit::TIMEOUT)) x.timeout = mq->attr.timeout;
        if (mask.has(qp::AttrBit::RETRY_CNT)) x.retry_cnt = mq->attr.retry_cnt;
        if (mask.has(qp::AttrBit::RNR_RETRY)) x.rnr_retry = mq->attr.rnr_retry;
        if (mask.has(qp::AttrBit::MIN_RNR_TIMER)) x.min_rnr_timer = mq->attr.min_rnr_timer;
        // The initiator depth (IBA Vol. 1 §11.2.4.2; read.rd_atomic_limit).
        if (mask.has(qp::AttrBit::MAX_QP_RD_ATOMIC)) x.max_rd_atomic = mq->attr.max_rd_atomic;
        if (mask.has(qp::AttrBit::MAX_DEST_RD_ATOMIC))
          x.max_dest_rd_atomic = mq->attr.max_dest_rd_atomic;
        if (mask.has(qp::AttrBit::DEST_QPN)) {
          if (mq->dest_qpn.qp == conformance::kNoObj) {
            x.dest_qpn = mq->dest_qpn.value;
          } else {
            // A QP of the setup: the DUT's number for it, once its create_qp step is read.
            dest_names.emplace_back(&x - out.qps.data(), sc.object(mq->dest_qpn.qp).name);
          }
        }
      }
    }
  }
  for (const auto& [i, name] : dest_names)
    for (const SetupQp& q : out.qps)
      if (q.name == name && q.numbered) out.qps[static_cast<std::size_t>(i)].dest_qpn = q.qpn;
  return out;
}

}  // namespace rocecert::check
