// The scenario loader: the steps that create PDs, MRs (with their contents), MWs, CQs, QPs and
// SRQs.
#include <fmt/format.h>

#include <algorithm>

#include "loader_internal.h"

namespace rocecert::conformance::loader {

AllocPdStep Loader::alloc_pd(const Node& n, std::size_t index) {
  in_.object(n, keys::kStepAllocPd);
  const ObjId a = ref(in_.required(n, "adapter"), {ObjectKind::ADAPTER});
  AllocPdStep s;
  s.pd = declare(in_.required(n, "as"), ObjectKind::PD, sc_.objects[a].adapter_index, index);
  return s;
}

RegMrStep Loader::reg_mr(const Node& n, std::size_t index) {
  in_.object(n, keys::kStepRegMr);
  RegMrStep s;
  s.pd = ref(in_.required(n, "pd"), {ObjectKind::PD});
  s.addr = in_.u64(in_.required(n, "addr"));
  s.length = in_.u64(in_.required(n, "length"));
  s.access = mem::access_from_u32(
      in_.flags<mem::Access>(in_.required(n, "access"), names::access_flags(), "access flag"));
  if (auto v = in_.optional(n, "iova")) s.iova = in_.u64(*v);
  if (auto c = in_.optional(n, "contents")) s.contents = contents(*c, s.length);
  if (auto v = in_.optional(n, "dut_rkey")) s.dut_rkey = in_.u32(*v);
  s.expect_error = expect_error(n, names::mem_errors(), "MR error");
  s.mr = declare(in_.required(n, "as"), ObjectKind::MR, sc_.objects[s.pd].adapter_index, index);
  NamedObject& o = sc_.objects[s.mr];
  o.mr_addr = s.addr;
  o.mr_iova = mem::contains(s.access, mem::Access::ZERO_BASED) ? 0 : s.iova.value_or(s.addr);
  o.mr_length = s.length;
  return s;
}

// "contents" of an MR: one piece or an array of pieces, written in order.
std::vector<MemoryPiece> Loader::contents(const Node& n, std::uint64_t mr_length) {
  std::vector<MemoryPiece> out;
  if (n->is_array()) {
    for (const Node& p : in_.array(n, 1)) out.push_back(piece(p, mr_length, keys::kPiece));
  } else {
    out.push_back(piece(n, mr_length, keys::kPiece));
  }
  return out;
}

// Bytes at an offset: {"offset"?, one of "hex" | "u64" | "fill" | "counter", "length"?}.
// "u64" is one little-endian 64-bit word or an array of them; "fill" repeats a byte and
// "counter" counts up from a byte (mod 256), over "length" bytes (default: to the end of the
// region, when there is one). `key_list` gives the keys: the piece's, and those the caller reads
// itself.
MemoryPiece Loader::piece(const Node& n, std::optional<std::uint64_t> region_length,
                          const keys::ObjectKeys& key_list) {
  if (!n->is_object())
    in_.fail(n, fmt::format("expected an object, got {}", json_input::type_name(*n)));
  object_keys(n, key_list.allowed);
  MemoryPiece p;
  const std::uint64_t limit = region_length.value_or(UINT64_MAX);
  if (auto o = in_.optional(n, "offset")) p.offset = in_.integer(*o, 0, limit);
  const std::string_view kind = in_.one_of(n, {"hex", "u64", "fill", "counter"});
  const Node v = n.child(kind);
  const bool pattern = kind == "fill" || kind == "counter";
  if (!pattern && in_.has(n, "length"))
    in_.fail(n.child("length"),
             fmt::format("\"length\" goes with \"fill\" or \"counter\", not \"{}\"", kind));
  if (kind == "hex") {
    p.bytes = in_.hex(v);
    if (p.bytes.empty()) in_.fail(v, "expected at least one byte");
  } else if (kind == "u64") {
    std::vector<Node> words;
    if (v->is_array()) {
      words = in_.array(v, 1);
    } else {
      words.push_back(v);
    }
    for (const Node& w : words) {
      const std::uint64_t x = in_.u64(w);
      for (unsigned i = 0; i < 8; ++i) p.bytes.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
    }
  } else {
    const auto start = static_cast<std::uint8_t>(in_.integer(v, 0, 0xFF));
    std::uint64_t length = 0;
    if (auto l = in_.optional(n, "length")) {
      length = in_.integer(*l, 1, kMaxContents);
    } else if (region_length) {
      length = *region_length - p.offset;
      if (length > kMaxContents)
        in_.fail(n, fmt::format("{} bytes to the end of the region is above the limit of {}; "
                                "give \"length\"",
                                length, kMaxContents));
    } else {
      in_.fail(n, fmt::format("missing required key \"length\" (for \"{}\")", kind));
    }
    p.bytes.resize(static_cast<std::size_t>(length));
    for (std::size_t i = 0; i < p.bytes.size(); ++i)
      p.bytes[i] = kind == "fill" ? start : static_cast<std::uint8_t>(start + i);
  }
  if (region_length && p.bytes.size() > *region_length - p.offset)
    in_.fail(n, fmt::format("{} bytes at offset {} run past the end of the MR ({} bytes)",
                            p.bytes.size(), p.offset, *region_length));
  return p;
}

void Loader::object_keys(const Node& n, std::span<const std::string_view> keys) {
  // Reader::object's check, with the shorter message pieces have always given.
  const std::vector<std::string_view> names(keys.begin(), keys.end());
  for (auto it = n->begin(); it != n->end(); ++it) {
    if (it.key() == "description" || std::find(keys.begin(), keys.end(), it.key()) != keys.end())
      continue;
    const std::string_view close = json_input::suggest(it.key(), names);
    in_.fail(json_input::join_path(n.path, it.key()),
             close.empty()
                 ? fmt::format("unknown key \"{}\"", it.key())
                 : fmt::format("unknown key \"{}\" (did you mean \"{}\"?)", it.key(), close));
  }
  if (auto d = in_.optional(n, "description")) (void)in_.string(*d);
}

AllocMwStep Loader::alloc_mw(const Node& n, std::size_t index) {
  in_.object(n, keys::kStepAllocMw);
  AllocMwStep s;
  s.pd = ref(in_.required(n, "pd"), {ObjectKind::PD});
  if (auto t = in_.optional(n, "type"))
    s.type = in_.integer(*t, 1, 2) == 1 ? mem::MwType::TYPE_1 : mem::MwType::TYPE_2;
  s.expect_error = expect_error(n, names::mem_errors(), "MW error");
  s.mw = declare(in_.required(n, "as"), ObjectKind::MW, sc_.objects[s.pd].adapter_index, index);
  return s;
}

DeregMrStep Loader::dereg_mr(const Node& n) {
  in_.object(n, keys::kStepDeregMr);
  DeregMrStep s;
  s.mr = ref(in_.required(n, "mr"), {ObjectKind::MR});
  s.expect_error = expect_error(n, names::mem_errors(), "MR error");
  return s;
}

CreateCqStep Loader::create_cq(const Node& n, std::size_t index) {
  in_.object(n, keys::kStepCreateCq);
  const ObjId a = ref(in_.required(n, "adapter"), {ObjectKind::ADAPTER});
  CreateCqStep s;
  if (auto v = in_.optional(n, "cqe"))
    s.cqe = static_cast<std::uint32_t>(in_.integer(*v, 1, 1u << 20));
  s.cq = declare(in_.required(n, "as"), ObjectKind::CQ, sc_.objects[a].adapter_index, index);
  return s;
}

CreateQpStep Loader::create_qp(const Node& n, std::size_t index) {
  in_.object(n, keys::kStepCreateQp);
  CreateQpStep s;
  s.pd = ref(in_.required(n, "pd"), {ObjectKind::PD});
  s.type = in_.enumerated<qp::QpType>(in_.required(n, "type"), names::qp_types(), "QP type");
  const Node scq = in_.required(n, "send_cq");
  s.send_cq = ref(scq, {ObjectKind::CQ});
  same_adapter(scq, s.send_cq, s.pd);
  s.recv_cq = s.send_cq;
  if (auto r = in_.optional(n, "recv_cq")) {
    s.recv_cq = ref(*r, {ObjectKind::CQ});
    same_adapter(*r, s.recv_cq, s.pd);
  }
  s.caps = qp::QpCaps{64, 64, 4, 4, 64};
  if (auto c = in_.optional(n, "cap")) {
    in_.object(*c, keys::kQpCap);
    if (auto v = in_.optional(*c, "max_send_wr")) s.caps.max_send_wr = in_.u32(*v);
    if (auto v = in_.optional(*c, "max_recv_wr")) s.caps.max_recv_wr = in_.u32(*v);
    if (auto v = in_.optional(*c, "max_send_sge")) s.caps.max_send_sge = in_.u32(*v);
    if (auto v = in_.optional(*c, "max_recv_sge")) s.caps.max_recv_sge = in_.u32(*v);
    if (auto v = in_.optional(*c, "max_inline_data")) s.caps.max_inline_data = in_.u32(*v);
  }
  if (auto v = in_.optional(n, "srq")) {
    s.srq = ref(*v, {ObjectKind::SRQ});
    same_adapter(*v, s.srq, s.pd);
  }
  if (auto v = in_.optional(n, "dut_qpn")) {
    s.dut_qpn = in_.u32(*v);
    if (*s.dut_qpn > 0xFFFFFF) in_.fail(*v, "a QP number has 24 bits");
  }
  if (auto v = in_.optional(n, "sq_sig_all")) s.sq_sig_all = in_.boolean(*v);
  s.expect_error = expect_error(n, names::modify_errors(), "QP error");
  s.qp = declare(in_.required(n, "as"), ObjectKind::QP, sc_.objects[s.pd].adapter_index, index);
  sc_.objects[s.qp].qp_type = s.type;
  return s;
}

CreateSrqStep Loader::create_srq(const Node& n, std::size_t index) {
  in_.object(n, keys::kStepCreateSrq);
  CreateSrqStep s;
  const ObjId pd = ref(in_.required(n, "pd"), {ObjectKind::PD});
  if (auto v = in_.optional(n, "max_wr"))
    s.max_wr = static_cast<std::uint32_t>(in_.integer(*v, 1, UINT32_MAX));
  if (auto v = in_.optional(n, "max_sge")) s.max_sge = in_.u32(*v);
  s.srq = declare(in_.required(n, "as"), ObjectKind::SRQ, sc_.objects[pd].adapter_index, index);
  return s;
}

}  // namespace rocecert::conformance::loader
