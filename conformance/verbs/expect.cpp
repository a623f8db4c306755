// The expect step's comparisons for the verbs DUT (expect.h), as the scenario runner makes them
// for the model and plugins (conformance/scenario/runner.cpp), with the devices' numbers.
#include "expect.h"

#include <fmt/format.h>

#include <optional>
#include <variant>

namespace rocecert::verbs {

namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

std::string hex(const std::vector<std::uint8_t>& b, std::size_t from) {
  std::string s;
  for (std::size_t i = from; i < b.size() && i < from + 16; ++i) s += fmt::format("{:02x}", b[i]);
  if (b.size() > from + 16) s += "...";
  return s;
}

// The wc_flags bits a completion of this QP type carries meaning in (ibv_poll_cq(3)): GRH is
// valid only for UD QPs (a RoCE packet always has a network header, and a device may flag it
// on any QP: rxe does on RC and UC); IP_CSUM_OK only for UD and raw packet QPs on Ethernet;
// WITH_IMM and WITH_INV on every type that carries them. Bits without meaning are not judged.
std::uint32_t meaningful_wc_flags(qp::QpType type) {
  std::uint32_t bits = cq::kWcWithImm | cq::kWcWithInv;
  if (type == qp::QpType::UD) bits |= cq::kWcGrh | cq::kWcIpCsumOk;
  return bits;
}

// The type of the QP a completion belongs to: the one the expectation names, else the one
// with the completion's QPN; UD when unknown (every bit then counts).
qp::QpType type_of(const conformance::CompletionExpect& x, const cq::Wc& w,
                   const conformance::Scenario& sc, const NumberOf& number) {
  if (x.qp != conformance::kNoObj) return sc.object(x.qp).qp_type;
  for (std::size_t i = 0; i < sc.objects.size(); ++i) {
    const conformance::NamedObject& o = sc.objects[i];
    if (o.kind != conformance::ObjectKind::QP) continue;
    const std::optional<std::uint32_t> n = number(static_cast<conformance::ObjId>(i));
    if (n && *n == w.qp_num) return o.qp_type;
  }
  return qp::QpType::UD;
}

// The work queue a vector posted a work request to, by (QP, wr_id): completions of one queue
// come in the order it was posted, but the queues sharing a CQ interleave as the device runs
// them (IBA Vol. 1 §10.8, completion queues: order is kept per work queue only).
enum class Queue : std::uint8_t { SEND, RECV, UNKNOWN };
Queue queue_of(const conformance::Scenario& sc, conformance::ObjId qp, std::uint64_t wr_id) {
  if (qp == conformance::kNoObj) return Queue::UNKNOWN;
  for (const conformance::Step& s : sc.steps) {
    if (const auto* x = std::get_if<conformance::PostSendStep>(&s.body);
        x && x->qp == qp && x->wr.wr_id == wr_id)
      return Queue::SEND;
    if (const auto* x = std::get_if<conformance::PostRecvStep>(&s.body);
        x && x->qp == qp && x->wr_id == wr_id)
      return Queue::RECV;
  }
  return Queue::UNKNOWN;  // a shared receive queue's, or a literal: no order to keep
}

}  // namespace

std::vector<std::string> compare_completions(const conformance::CqExpect& e,
                                             const std::vector<cq::Wc>& got,
                                             const conformance::Scenario& sc,
                                             const NumberOf& number) {
  std::vector<std::string> out;
  // Each expected completion is the device's first one not yet taken with its wr_id (and QP,
  // when the vector names it); the order is then held within each work queue only.
  std::vector<bool> taken(got.size(), false);
  std::vector<std::optional<std::size_t>> match(e.completions.size());
  for (std::size_t i = 0; i < e.completions.size(); ++i) {
    const conformance::CompletionExpect& x = e.completions[i];
    const std::optional<std::uint32_t> qpn =
        x.qp == conformance::kNoObj ? std::nullopt : number(x.qp);
    for (std::size_t j = 0; j < got.size() && !match[i]; ++j)
      if (!taken[j] && got[j].wr_id == x.wr_id && (!qpn || *qpn == got[j].qp_num)) {
        taken[j] = true;
        match[i] = j;
      }
  }
  for (std::size_t i = 0; i < e.completions.size(); ++i) {
    const conformance::CompletionExpect& x = e.completions[i];
    const Queue q = queue_of(sc, x.qp, x.wr_id);
    if (!match[i] || q == Queue::UNKNOWN) continue;
    for (std::size_t k = i + 1; k < e.completions.size(); ++k) {
      const conformance::CompletionExpect& y = e.completions[k];
      if (!match[k] || y.qp != x.qp || queue_of(sc, y.qp, y.wr_id) != q || *match[k] > *match[i])
        continue;
      out.push_back(
          fmt::format("{}: wr_id {} completed before wr_id {} of the same {} queue "
                      "(#{} and #{} on CQ \"{}\")",
                      y.path, y.wr_id, x.wr_id, q == Queue::SEND ? "send" : "receive", *match[k],
                      *match[i], sc.object(e.cq).name));
    }
  }
  for (std::size_t i = 0; i < e.completions.size(); ++i) {
    const conformance::CompletionExpect& x = e.completions[i];
    if (!match[i]) {
      out.push_back(fmt::format(
          "{}: missing: no completion of wr_id {} (CQ \"{}\" had {} "
          "completion{})",
          x.path, x.wr_id, sc.object(e.cq).name, got.size(), got.size() == 1 ? "" : "s"));
      continue;
    }
    const cq::Wc& w = got[*match[i]];
    std::vector<std::string> d;
    const auto diff = [&](std::string_view field, const std::string& want,
                          const std::string& have) {
      if (want != have) d.push_back(fmt::format("{}: expected {}, got {}", field, want, have));
    };
    diff("status", std::string(cq::to_string(x.status)), std::string(cq::to_string(w.status)));
    // The opcode of an error completion is undefined (ibv_poll_cq(3)).
    if (x.opcode && w.status == cq::WcStatus::SUCCESS)
      diff("opcode", std::string(cq::to_string(*x.opcode)), std::string(cq::to_string(w.opcode)));
    if (x.byte_len) diff("byte_len", std::to_string(*x.byte_len), std::to_string(w.byte_len));
    if (x.imm_data)
      diff("imm_data", fmt::format("{:#x}", *x.imm_data), fmt::format("{:#x}", w.imm_data));
    if (x.wc_flags) {
      const std::uint32_t bits = meaningful_wc_flags(type_of(x, w, sc, number));
      if ((*x.wc_flags & bits) != (w.wc_flags & bits))
        d.push_back(fmt::format("wc_flags: expected {:#x}, got {:#x}", *x.wc_flags, w.wc_flags));
    }
    if (x.src_qp) {
      const std::optional<std::uint32_t> want =
          x.src_qp->qp == conformance::kNoObj ? x.src_qp->value : number(x.src_qp->qp);
      if (want) diff("src_qp", fmt::format("{:#x}", *want), fmt::format("{:#x}", w.src_qp));
    }
    if (x.qp != conformance::kNoObj)
      if (const std::optional<std::uint32_t> want = number(x.qp); want && *want != w.qp_num)
        d.push_back(fmt::format("qp: expected {} ({:#x}), got {:#x}", sc.object(x.qp).name, *want,
                                w.qp_num));
    if (!d.empty()) out.push_back(fmt::format("{}: {}", x.path, joined(d)));
  }
  for (std::size_t j = 0; j < got.size(); ++j)
    if (!taken[j])
      out.push_back(fmt::format("{}: unexpected completion #{}: wr_id {} {} on QP {:#x}", e.path, j,
                                got[j].wr_id, cq::to_string(got[j].status), got[j].qp_num));
  return out;
}

std::vector<std::string> compare_async_events(const conformance::AsyncExpect& e,
                                              const std::vector<AsyncEvent>& got,
                                              const conformance::Scenario& sc,
                                              const NumberOf& number) {
  std::vector<std::string> out;
  const std::string& adapter = sc.adapters.at(e.adapter).config.name;
  for (std::size_t i = 0; i < e.events.size(); ++i) {
    const conformance::AsyncEventExpect& x = e.events[i];
    if (i >= got.size()) {
      out.push_back(fmt::format("{}: missing: adapter \"{}\" raised {} asynchronous event{}",
                                x.path, adapter, got.size(), got.size() == 1 ? "" : "s"));
      continue;
    }
    std::vector<std::string> d;
    if (errors::to_string(got[i].type) != x.kind)
      d.push_back(
          fmt::format("event: expected {}, got {}", x.kind, errors::to_string(got[i].type)));
    if (x.element != conformance::kNoObj)
      if (const std::optional<std::uint32_t> want = number(x.element);
          want && *want != got[i].element)
        d.push_back(fmt::format("element: expected {} ({:#x}), got {:#x}",
                                sc.object(x.element).name, *want, got[i].element));
    if (!d.empty()) out.push_back(fmt::format("{}: {}", x.path, joined(d)));
  }
  for (std::size_t i = e.events.size(); i < got.size(); ++i)
    out.push_back(fmt::format("{}: unexpected asynchronous event #{}: {} ({:#x})", e.path, i,
                              errors::to_string(got[i].type), got[i].element));
  return out;
}

std::string compare_memory(const conformance::MemoryExpect& m,
                           const std::vector<std::uint8_t>& have) {
  if (have == m.bytes) return {};
  if (have.size() != m.bytes.size())
    return fmt::format("{}: {} bytes read back, {} expected", m.path, have.size(), m.bytes.size());
  std::size_t first = 0;
  while (have[first] == m.bytes[first]) ++first;
  return fmt::format("{}: bytes differ from offset {} (address {:#x}): expected {}, got {}", m.path,
                     first, m.addr + first, hex(m.bytes, first), hex(have, first));
}

}  // namespace rocecert::verbs
