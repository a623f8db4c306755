// The expect step's comparisons for the verbs DUT (expect.h), as the scenario runner makes them
// for the model and plugins (conformance/scenario/runner.cpp), with the devices' numbers.
#include "expect.h"

#include <fmt/format.h>

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

}  // namespace

std::vector<std::string> compare_completions(const conformance::CqExpect& e,
                                             const std::vector<cq::Wc>& got,
                                             const conformance::Scenario& sc,
                                             const NumberOf& number) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < e.completions.size(); ++i) {
    const conformance::CompletionExpect& x = e.completions[i];
    if (i >= got.size()) {
      out.push_back(fmt::format("{}: missing: CQ \"{}\" had {} completion{}", x.path,
                                sc.object(e.cq).name, got.size(), got.size() == 1 ? "" : "s"));
      continue;
    }
    const cq::Wc& w = got[i];
    std::vector<std::string> d;
    const auto diff = [&](std::string_view field, const std::string& want,
                          const std::string& have) {
      if (want != have) d.push_back(fmt::format("{}: expected {}, got {}", field, want, have));
    };
    diff("wr_id", std::to_string(x.wr_id), std::to_string(w.wr_id));
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
  for (std::size_t i = e.completions.size(); i < got.size(); ++i)
    out.push_back(fmt::format("{}: unexpected completion #{}: wr_id {} {} on QP {:#x}", e.path, i,
                              got[i].wr_id, cq::to_string(got[i].status), got[i].qp_num));
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
