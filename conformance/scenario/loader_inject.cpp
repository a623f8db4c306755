// The scenario loader: the "inject" step, a frame built field by field and put on the wire as if
// an adapter had sent it (docs/scenario.md, inject).
#include <fmt/format.h>

#include <algorithm>

#include "loader_internal.h"
#include "rocecert/qp/attr.h"
#include "rocecert/wire/headers.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::conformance::loader {

namespace {

// The frame keys that belong to one extended header: given for an opcode without that header,
// they are an error, as a work request field its opcode does not use is.
struct HeaderKeys {
  wire::Header header;
  std::initializer_list<std::string_view> keys;
};
const HeaderKeys kHeaderKeys[] = {
    {wire::Header::Reth, {"dmalen"}},  // "rkey", "va", "va_offset": the RETH or AtomicETH
    {wire::Header::AtomicEth, {"swap_add", "compare"}},
    {wire::Header::Aeth, {"syndrome", "msn"}},
    {wire::Header::AtomicAckEth, {"orig"}},
    {wire::Header::Deth, {"qkey", "src_qp"}},
    {wire::Header::ImmDt, {"imm_data"}},
    {wire::Header::Ieth, {"invalidate_rkey"}},
};

}  // namespace

InjectStep Loader::inject(const Node& n) {
  in_.object(n, keys::kStepInject);
  InjectStep s;
  const Node fromn = in_.required(n, "from");
  s.from = sc_.objects[ref(fromn, {ObjectKind::ADAPTER})].adapter_index;
  const Node qpn = in_.required(n, "qp");
  s.dest_qp = qpn_ref(qpn);
  if (s.dest_qp.qp != kNoObj) {
    s.to = sc_.objects[s.dest_qp.qp].adapter_index;
    if (in_.has(n, "to"))
      in_.fail(n.child("to"), "\"to\" goes with a QP number; a QP name says its adapter");
  } else {
    s.to = sc_.objects[ref(in_.required(n, "to"), {ObjectKind::ADAPTER})].adapter_index;
  }
  if (s.to == s.from)
    in_.fail(qpn, fmt::format("the frame goes from \"{}\" to itself; inject toward another "
                              "adapter",
                              sc_.adapters[s.from].config.name));
  s.link = sc_.links.size();
  for (std::size_t i = 0; i < sc_.links.size(); ++i) {
    const LinkSpec& l = sc_.links[i];
    if ((l.a == s.from && l.b == s.to) || (l.a == s.to && l.b == s.from)) s.link = i;
  }
  if (s.link == sc_.links.size())
    in_.fail(n, fmt::format("no link joins \"{}\" and \"{}\"", sc_.adapters[s.from].config.name,
                            sc_.adapters[s.to].config.name));

  const Node f = in_.required(n, "frame");
  in_.object(f, keys::kInjectFrame);
  wire::FrameSpec& w = s.spec;
  const Node opn = in_.required(f, "opcode");
  if (opn->is_string() && !Reader::looks_numeric(opn->get<std::string>())) {
    const std::string name = in_.string(opn);
    if (!wire::opcode_from_name(name, w.bth.opcode))
      in_.fail(opn, fmt::format("unknown opcode \"{}\" (the names `rocecert decode` prints, e.g. "
                                "RC_SEND_MIDDLE, or a number 0..0xff)",
                                name));
  } else {
    w.bth.opcode = static_cast<std::uint8_t>(in_.integer(opn, 0, 0xFF));
  }
  const wire::OpcodeInfo& op = wire::opcode_info(w.bth.opcode);
  const std::string opname =
      op.known ? std::string(op.name) : fmt::format("opcode {:#04x}", w.bth.opcode);
  for (const HeaderKeys& h : kHeaderKeys)
    for (const std::string_view k : h.keys)
      if (in_.has(f, k) && !op.has(h.header))
        in_.fail(f.child(k), fmt::format("\"{}\" belongs to the {}, which {} does not carry", k,
                                         wire::header_name(h.header), opname));

  // Addresses: the sender's and the receiver's, unless overridden (a misaddressed packet).
  const model::AdapterConfig& src = sc_.adapters[s.from].config;
  const model::AdapterConfig& dst = sc_.adapters[s.to].config;
  w.eth.src = src.mac;
  w.eth.dst = dst.mac;
  std::array<std::uint8_t, 16> sgid = src.gid, dgid = dst.gid;
  if (auto v = in_.optional(f, "src_ip")) sgid = gid(*v);
  if (auto v = in_.optional(f, "dst_ip")) dgid = gid(*v);
  if (qp::is_ipv4_mapped(sgid) != qp::is_ipv4_mapped(dgid))
    in_.fail(f, "the source and destination addresses must both be IPv4 or both IPv6");
  w.ip.version = qp::is_ipv4_mapped(sgid) ? 4 : 6;
  const std::size_t at = w.ip.version == 4 ? 12 : 0;
  std::copy(sgid.begin() + static_cast<std::ptrdiff_t>(at), sgid.end(), w.ip.src.begin());
  std::copy(dgid.begin() + static_cast<std::ptrdiff_t>(at), dgid.end(), w.ip.dst.begin());
  if (auto v = in_.optional(f, "ecn")) w.ip.ecn = static_cast<std::uint8_t>(in_.integer(*v, 0, 3));
  if (auto v = in_.optional(f, "sport"))
    w.udp.sport = static_cast<std::uint16_t>(in_.integer(*v, 0, 0xFFFF));

  // BTH.
  w.bth.psn = static_cast<std::uint32_t>(in_.integer(in_.required(f, "psn"), 0, wire::kMask24));
  if (auto v = in_.optional(f, "ackreq")) w.bth.ackreq = in_.boolean(*v);
  if (auto v = in_.optional(f, "se")) w.bth.se = in_.boolean(*v);
  if (auto v = in_.optional(f, "migreq")) w.bth.m = in_.boolean(*v);
  if (auto v = in_.optional(f, "pkey"))
    w.bth.pkey = static_cast<std::uint16_t>(in_.integer(*v, 0, 0xFFFF));
  if (auto v = in_.optional(f, "tver"))
    w.bth.tver = static_cast<std::uint8_t>(in_.integer(*v, 0, 15));

  // RETH and AtomicETH: the target. "rkey" names an MR or MW (its rkey at run time) or is a
  // number; "va_offset" counts from the MR's iova, "va" is absolute.
  const bool targets = op.has(wire::Header::Reth) || op.has(wire::Header::AtomicEth);
  if (!targets)
    for (const std::string_view k : {"rkey", "va", "va_offset"})
      if (in_.has(f, k))
        in_.fail(f.child(k), fmt::format("\"{}\" needs a RETH or an AtomicETH, which {} does not "
                                         "carry",
                                         k, opname));
  if (targets) {
    if (auto v = in_.optional(f, "rkey")) s.rkey = key_ref(*v, {ObjectKind::MR, ObjectKind::MW});
    in_.at_most_one(f, {"va", "va_offset"});
    std::uint64_t va = 0;
    if (auto v = in_.optional(f, "va")) va = in_.u64(*v);
    if (auto v = in_.optional(f, "va_offset")) {
      if (s.rkey.object == kNoObj || sc_.objects[s.rkey.object].kind != ObjectKind::MR)
        in_.fail(*v, "\"va_offset\" needs \"rkey\" to name an MR; use \"va\"");
      s.va_mr = s.rkey.object;
      va = in_.u64(*v);
    }
    w.reth.va = va;
    w.atomiceth.va = va;
  }
  if (auto v = in_.optional(f, "dmalen")) w.reth.dmalen = in_.u32(*v);
  if (auto v = in_.optional(f, "swap_add")) w.atomiceth.swap_add = in_.u64(*v);
  if (auto v = in_.optional(f, "compare")) w.atomiceth.compare = in_.u64(*v);
  if (auto v = in_.optional(f, "syndrome")) {
    if ((*v)->is_string() && !Reader::looks_numeric((*v)->get<std::string>())) {
      // The first syndrome with that name: ACK with no credit, RNR NAK with timer code 0, or the
      // NAK code itself.
      const std::string a = in_.string(*v);
      bool known = false;
      for (unsigned syn = 0; syn < 0x100 && !known; ++syn)
        if (wire::aeth_name(static_cast<std::uint8_t>(syn)) == a) {
          w.aeth.syndrome = static_cast<std::uint8_t>(syn);
          known = true;
        }
      if (!known)
        in_.fail(*v, fmt::format("unknown AETH \"{}\" (ACK, RNR_NAK, NAK_PSN_SEQUENCE_ERROR, "
                                 "NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS_ERROR, "
                                 "NAK_REMOTE_OPERATIONAL_ERROR, NAK_INVALID_RD_REQUEST, or a "
                                 "number 0..0xff)",
                                 a));
    } else {
      w.aeth.syndrome = static_cast<std::uint8_t>(in_.integer(*v, 0, 0xFF));
    }
  }
  if (auto v = in_.optional(f, "msn"))
    w.aeth.msn = static_cast<std::uint32_t>(in_.integer(*v, 0, wire::kMask24));
  if (auto v = in_.optional(f, "orig")) w.atomicacketh.orig = in_.u64(*v);
  if (auto v = in_.optional(f, "qkey")) w.deth.qkey = in_.u32(*v);
  if (auto v = in_.optional(f, "src_qp")) s.src_qp = qpn_ref(*v);
  if (auto v = in_.optional(f, "imm_data")) w.immdt.value = in_.u32(*v);
  if (auto v = in_.optional(f, "invalidate_rkey"))
    s.invalidate_rkey = key_ref(*v, {ObjectKind::MR, ObjectKind::MW});

  // Payload: a piece ("hex", "u64", "fill" or "counter" with "length"; "offset" leading zeros).
  if (auto v = in_.optional(f, "payload")) {
    if (!op.known || !op.has_payload()) in_.fail(*v, fmt::format("{} carries no payload", opname));
    const MemoryPiece p = piece(*v, std::nullopt, keys::kPiece);
    // Each term first: offset + size must not wrap (an offset near 2^64, found by the example's
    // Python port of this loader).
    if (p.offset > kMaxInjectPayload || p.bytes.size() > kMaxInjectPayload - p.offset)
      in_.fail(*v, fmt::format("a payload of {} bytes{} is above the limit of {}", p.bytes.size(),
                               p.offset > 0 ? fmt::format(" at offset {}", p.offset) : "",
                               kMaxInjectPayload));
    w.payload.assign(p.offset, 0);
    w.payload.insert(w.payload.end(), p.bytes.begin(), p.bytes.end());
  }
  if (auto v = in_.optional(f, "icrc")) {
    const std::string how = in_.string(*v);
    if (how != "bad") in_.fail(*v, fmt::format("\"icrc\" is \"bad\" (or absent), not \"{}\"", how));
    s.bad_icrc = true;
  }
  if (auto v = in_.optional(f, "truncate")) s.truncate = in_.integer(*v, 1, 0xFFFF);
  return s;
}

}  // namespace rocecert::conformance::loader
