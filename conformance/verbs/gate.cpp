// Capability gating (player.h, gate): whether a vector can run on the devices, decided from the
// vector alone and each device's ibv_query_device answer before anything is created, so that a
// device is never half set up for a vector it cannot finish. A step the vector expects to be
// refused (expect_error) tests the refusal, not a need: it is not counted.
#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "rocecert/verbs/player.h"

namespace rocecert::verbs {

namespace {

using conformance::ObjId;
using conformance::Scenario;

// The first reason found wins; later checks are skipped.
class Gatherer {
 public:
  Gatherer(const Scenario& sc, const std::map<std::string, DeviceCaps>& caps)
      : sc_(sc), caps_(caps) {}

  bool failed() const { return !reason_.empty(); }
  const std::string& reason() const { return reason_; }

  void fail(std::string reason) {
    if (reason_.empty()) reason_ = std::move(reason);
  }

  // The device of the adapter an object lives on (nullptr: none given, reported by the Player).
  const DeviceCaps* of(ObjId id) const {
    const std::string& name = sc_.adapters.at(sc_.object(id).adapter_index).config.name;
    const auto it = caps_.find(name);
    return it == caps_.end() ? nullptr : &it->second;
  }
  std::string who(ObjId id) const {
    return sc_.adapters.at(sc_.object(id).adapter_index).config.name;
  }

  // `need` > `have`: "A: 300 work requests per queue (max_qp_wr is 256)".
  void limit(ObjId id, std::uint64_t need, std::uint64_t have, std::string_view what,
             std::string_view field) {
    if (need > have) fail(fmt::format("{}: {} {} ({} is {})", who(id), need, what, field, have));
  }

 private:
  const Scenario& sc_;
  const std::map<std::string, DeviceCaps>& caps_;
  std::string reason_;
};

// A capability a vector declares (vectors/README.md), against a device. Empty: offered.
std::string lacks(const std::string& cap, const DeviceCaps& d) {
  if (cap == "RC") return d.rc ? "" : "RC QPs";
  if (cap == "UC") return d.uc ? "" : "UC QPs";
  if (cap == "UD") return d.ud ? "" : "UD QPs";
  if (cap == "ATOMIC") return d.atomic ? "" : "atomic operations (atomic_cap is IBV_ATOMIC_NONE)";
  if (cap == "MW")
    return d.mw_type1 || d.mw_type2 ? "" : "memory windows (no IBV_DEVICE_MEM_WINDOW flag)";
  if (cap == "SEND_WITH_INV")
    return d.mem_mgt_extensions ? "" : "SEND with invalidate (no IBV_DEVICE_MEM_MGT_EXTENSIONS)";
  if (cap == "FLUSH") return d.flush ? "" : "FLUSH";
  if (cap == "ATOMIC_WRITE") return d.atomic_write ? "" : "ATOMIC WRITE";
  // Sending CNPs is the device's congestion control, which verbs neither report nor switch on;
  // the vectors that need it also mark CE on their link, which the link fault check refuses.
  if (cap == "CNP") return "CNPs (congestion notification is not visible through verbs)";
  // Whether the device acknowledges every AckReq shows on the wire only, which the player does
  // not judge (rocecert check does, with the device's profile): no need here.
  if (cap == "ACK_EVERY_ACKREQ") return "";
  return fmt::format("the capability \"{}\", which the verbs DUT does not know", cap);
}

bool is_atomic(tx::WrOpcode op) {
  return op == tx::WrOpcode::ATOMIC_CMP_AND_SWP || op == tx::WrOpcode::ATOMIC_FETCH_AND_ADD;
}

}  // namespace

Gate gate(const vectors::Vector& v, const Scenario& sc,
          const std::map<std::string, DeviceCaps>& caps) {
  Gatherer g(sc, caps);
  // The capabilities the vector declares, on every adapter's device.
  for (const conformance::AdapterSpec& a : sc.adapters) {
    const auto it = caps.find(a.config.name);
    if (it == caps.end()) continue;
    for (const std::string& c : v.capabilities) {
      const std::string why = lacks(c, it->second);
      if (!why.empty()) g.fail(fmt::format("{}: {}", a.config.name, why));
    }
  }
  // What no verbs device can do: put forged frames on the wire, or have the link drop, reorder,
  // corrupt or mark them. A real link does none of this on request.
  for (const conformance::Step& s : sc.steps)
    if (std::holds_alternative<conformance::InjectStep>(s.body))
      g.fail(fmt::format("{}: inject puts forged frames on the wire, which verbs cannot send",
                         s.path));
  for (const conformance::LinkSpec& l : sc.links)
    if (!l.faults.empty())
      g.fail(
          fmt::format("{}: the link's faults (drops, reordering, CE marks, ...) cannot be "
                      "applied to a real link",
                      l.path));
  // The limits and features each step needs of its adapter's device.
  std::map<std::size_t, std::uint32_t> qps;  // per adapter index
  for (const conformance::Step& s : sc.steps) {
    if (g.failed()) break;
    std::visit(
        [&](const auto& b) {
          using T = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<T, conformance::RegMrStep>) {
            const DeviceCaps* d = g.of(b.mr);
            if (d == nullptr || b.expect_error) return;
            g.limit(b.mr, b.length, d->max_mr_size, "bytes in one MR", "max_mr_size");
          } else if constexpr (std::is_same_v<T, conformance::AllocMwStep>) {
            const DeviceCaps* d = g.of(b.mw);
            if (d == nullptr || b.expect_error) return;
            const bool has = b.type == mem::MwType::TYPE_1 ? d->mw_type1 : d->mw_type2;
            if (!has)
              g.fail(fmt::format("{}: memory windows of type {} (no IBV_DEVICE_MEM_WINDOW{} flag)",
                                 g.who(b.mw), b.type == mem::MwType::TYPE_1 ? 1 : 2,
                                 b.type == mem::MwType::TYPE_1 ? "" : "_TYPE_2A/2B"));
          } else if constexpr (std::is_same_v<T, conformance::CreateCqStep>) {
            if (const DeviceCaps* d = g.of(b.cq))
              g.limit(b.cq, b.cqe, d->max_cqe, "entries in one CQ", "max_cqe");
          } else if constexpr (std::is_same_v<T, conformance::CreateSrqStep>) {
            const DeviceCaps* d = g.of(b.srq);
            if (d == nullptr) return;
            if (d->max_srq == 0)
              g.fail(fmt::format("{}: shared receive queues (max_srq is 0)", g.who(b.srq)));
            g.limit(b.srq, b.max_wr, d->max_srq_wr, "work requests in one SRQ", "max_srq_wr");
            g.limit(b.srq, b.max_sge, d->max_srq_sge, "SGEs per SRQ receive", "max_srq_sge");
          } else if constexpr (std::is_same_v<T, conformance::CreateQpStep>) {
            const DeviceCaps* d = g.of(b.qp);
            if (d == nullptr || b.expect_error) return;
            const bool has = b.type == qp::QpType::RC   ? d->rc
                             : b.type == qp::QpType::UC ? d->uc
                                                        : d->ud;
            if (!has) g.fail(fmt::format("{}: {} QPs", g.who(b.qp), qp::to_string(b.type)));
            const std::uint32_t wr = std::max(b.caps.max_send_wr, b.caps.max_recv_wr);
            const std::uint32_t sge = std::max(b.caps.max_send_sge, b.caps.max_recv_sge);
            g.limit(b.qp, wr, d->max_qp_wr, "work requests per queue", "max_qp_wr");
            g.limit(b.qp, sge, d->max_sge, "SGEs per work request", "max_sge");
            g.limit(b.qp, ++qps[sc.object(b.qp).adapter_index], d->max_qp, "QPs", "max_qp");
          } else if constexpr (std::is_same_v<T, conformance::ModifyQpStep>) {
            const DeviceCaps* d = g.of(b.qp);
            if (d == nullptr || b.expect_error) return;
            using qp::AttrBit;
            if (b.mask.has(AttrBit::MAX_QP_RD_ATOMIC))
              g.limit(b.qp, b.attr.max_rd_atomic, d->max_qp_init_rd_atom,
                      "outstanding READs and atomics as initiator (max_rd_atomic)",
                      "max_qp_init_rd_atom");
            if (b.mask.has(AttrBit::MAX_DEST_RD_ATOMIC))
              g.limit(b.qp, b.attr.max_dest_rd_atomic, d->max_qp_rd_atom,
                      "responder resources (max_dest_rd_atomic)", "max_qp_rd_atom");
            // A path MTU above the port's active MTU cannot be sent on the port's link.
            if (b.mask.has(AttrBit::PATH_MTU))
              g.limit(b.qp, qp::mtu_bytes(b.attr.path_mtu), qp::mtu_bytes(d->active_mtu),
                      "bytes of path MTU", "the port's active MTU");
          } else if constexpr (std::is_same_v<T, conformance::PostSendStep>) {
            const DeviceCaps* d = g.of(b.qp);
            if (d == nullptr) return;
            // A UD message is one packet: the port's active MTU bounds it (IBA Vol. 1
            // §9.8.2). One that fits one of the device's and the vector's port MTU but not the
            // other has an outcome that depends on which, whatever the vector expects of it.
            if (sc.object(b.qp).qp_type == qp::QpType::UD) {
              std::uint64_t length = b.wr.inline_data.size();
              for (const conformance::SgeSpec& sge : b.sg_list) length += sge.length;
              const std::uint64_t vector_mtu =
                  sc.adapters.at(sc.object(b.qp).adapter_index).config.port_mtu;
              const std::uint64_t device_mtu = qp::mtu_bytes(d->active_mtu);
              if (length > std::min(vector_mtu, device_mtu) &&
                  length <= std::max(vector_mtu, device_mtu))
                g.fail(
                    fmt::format("{}: {}: a UD message of {} bytes, beyond one of the vector's "
                                "port MTU ({}) and the port's active MTU ({}) but not the "
                                "other",
                                g.who(b.qp), s.path, length, vector_mtu, device_mtu));
            }
            if (b.expect_error) return;
            const tx::WrOpcode op = b.wr.opcode;
            if (is_atomic(op) && !d->atomic)
              g.fail(fmt::format("{}: {}: atomic operations (atomic_cap is IBV_ATOMIC_NONE)",
                                 g.who(b.qp), s.path));
            if ((op == tx::WrOpcode::SEND_WITH_INV || op == tx::WrOpcode::LOCAL_INV) &&
                !d->mem_mgt_extensions)
              g.fail(fmt::format("{}: {}: {} (no IBV_DEVICE_MEM_MGT_EXTENSIONS)", g.who(b.qp),
                                 s.path, tx::to_string(op)));
            if (op == tx::WrOpcode::FLUSH && !d->flush)
              g.fail(fmt::format("{}: {}: FLUSH", g.who(b.qp), s.path));
            if (op == tx::WrOpcode::ATOMIC_WRITE && !d->atomic_write)
              g.fail(fmt::format("{}: {}: ATOMIC WRITE", g.who(b.qp), s.path));
            g.limit(b.qp, b.sg_list.size(), d->max_sge, "SGEs in one work request", "max_sge");
          }
        },
        s.body);
  }
  return g.failed() ? Gate{false, g.reason()} : Gate{};
}

}  // namespace rocecert::verbs
