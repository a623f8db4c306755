// The scenario loader: "expect" steps (frames, completions, memory, QP states, events).
#include <fmt/format.h>

#include <algorithm>

#include "loader_internal.h"

namespace rocecert::conformance::loader {

ExpectStep Loader::expect(const Node& n) {
  in_.object(n, keys::kStepExpect);
  ExpectStep s;
  if (!in_.has(n, "frames") && !in_.has(n, "completions") && !in_.has(n, "memory") &&
      !in_.has(n, "qp_state") && !in_.has(n, "async_events"))
    in_.fail(n, "needs at least one of: frames, completions, memory, qp_state, async_events");
  if (auto f = in_.optional(n, "frames")) {
    FramesExpect e;
    e.path = f->path;
    for (const Node& x : in_.array(*f)) e.frames.push_back(frame(x));
    s.frames = std::move(e);
  }
  if (auto c = in_.optional(n, "completions")) {
    if (!(*c)->is_object())
      in_.fail(*c, fmt::format("expected an object {{CQ name: [completions]}}, got {}",
                               json_input::type_name(**c)));
    for (auto it = (*c)->begin(); it != (*c)->end(); ++it) {
      CqExpect e;
      const Node list = c->child(it.key());
      e.path = list.path;
      const json_input::json name_value = it.key();
      e.cq = ref(Node{&name_value, list.path}, {ObjectKind::CQ});
      for (const Node& w : in_.array(list)) e.completions.push_back(completion(w));
      s.completions.push_back(std::move(e));
    }
  }
  if (auto m = in_.optional(n, "memory")) {
    for (const Node& e : in_.array(*m, 1)) s.memory.push_back(memory(e));
  }
  if (auto q = in_.optional(n, "qp_state")) {
    if (!(*q)->is_object())
      in_.fail(*q, fmt::format("expected an object {{QP name: state}}, got {}",
                               json_input::type_name(**q)));
    for (auto it = (*q)->begin(); it != (*q)->end(); ++it) {
      QpStateExpect e;
      const Node v = q->child(it.key());
      e.path = v.path;
      const json_input::json name_value = it.key();
      e.qp = ref(Node{&name_value, v.path}, {ObjectKind::QP});
      e.state = in_.enumerated<qp::QpState>(v, names::qp_states(), "QP state");
      s.qp_states.push_back(e);
    }
  }
  if (auto a = in_.optional(n, "async_events")) {
    if (!(*a)->is_object())
      in_.fail(*a, fmt::format("expected an object {{adapter name: [events]}}, got {}",
                               json_input::type_name(**a)));
    for (auto it = (*a)->begin(); it != (*a)->end(); ++it) {
      AsyncExpect e;
      const Node list = a->child(it.key());
      e.path = list.path;
      const json_input::json name_value = it.key();
      const ObjId adapter = ref(Node{&name_value, list.path}, {ObjectKind::ADAPTER});
      e.adapter = sc_.objects[adapter].adapter_index;
      for (const Node& ev : in_.array(list)) e.events.push_back(async_event(ev, adapter));
      s.async_events.push_back(std::move(e));
    }
  }
  return s;
}

// "SRQ_LIMIT_REACHED", or {"event": "SRQ_LIMIT_REACHED", "srq": "srqB"}: the element key is
// the one the event's kind names (qp, cq or srq), on the adapter the list is for.
AsyncEventExpect Loader::async_event(const Node& n, ObjId adapter) {
  AsyncEventExpect e;
  e.path = n.path;
  if (n->is_string()) {
    const auto kind =
        in_.enumerated<errors::AsyncEventType>(n, names::async_events(), "asynchronous event");
    e.kind = names::name_of(names::async_events(), kind);
    return e;
  }
  in_.object(n, keys::kAsyncEvent);
  const Node kn = in_.required(n, "event");
  const auto kind =
      in_.enumerated<errors::AsyncEventType>(kn, names::async_events(), "asynchronous event");
  e.kind = names::name_of(names::async_events(), kind);
  std::string_view want;
  ObjectKind want_kind = ObjectKind::QP;
  switch (errors::event_target(kind)) {
    case errors::EventTarget::QP:
      want = "qp";
      break;
    case errors::EventTarget::CQ:
      want = "cq";
      want_kind = ObjectKind::CQ;
      break;
    case errors::EventTarget::SRQ:
      want = "srq";
      want_kind = ObjectKind::SRQ;
      break;
    case errors::EventTarget::NONE:
    case errors::EventTarget::WQ:
    case errors::EventTarget::PORT:
    case errors::EventTarget::DEVICE:
      break;
  }
  for (std::string_view key : {"qp", "cq", "srq"}) {
    if (!in_.has(n, key) || key == want) continue;
    in_.fail(n.child(key),
             want.empty() ? fmt::format("{} names no QP, CQ or SRQ", e.kind)
                          : fmt::format("{} names {}; give \"{}\"", e.kind, an(want_kind), want));
  }
  if (!want.empty()) {
    if (auto v = in_.optional(n, want)) {
      e.element = ref(*v, {want_kind});
      const NamedObject& o = sc_.objects[e.element];
      if (o.adapter_index != sc_.objects[adapter].adapter_index)
        in_.fail(*v, fmt::format("{} \"{}\" is on adapter \"{}\", not \"{}\"", to_string(o.kind),
                                 o.name, adapter_name(o), sc_.objects[adapter].name));
    }
  }
  return e;
}

FrameExpect Loader::frame(const Node& n) {
  in_.object(n, keys::kFrameExpect);
  FrameExpect f;
  f.path = n.path;
  f.from = sc_.objects[ref(in_.required(n, "from"), {ObjectKind::ADAPTER})].adapter_index;
  const Node op = in_.required(n, "opcode");
  const std::string name = in_.string(op);
  if (!wire::opcode_from_name(name, f.opcode))
    in_.fail(op, fmt::format("unknown opcode \"{}\" (the names `rocecert decode` prints, e.g. "
                             "RC_RDMA_WRITE_FIRST, RC_ACKNOWLEDGE)",
                             name));
  if (auto v = in_.optional(n, "qp")) f.qp = ref(*v, {ObjectKind::QP});
  if (auto v = in_.optional(n, "psn"))
    f.psn = static_cast<std::uint32_t>(in_.integer(*v, 0, 0xFFFFFF));
  if (auto v = in_.optional(n, "ackreq")) f.ackreq = in_.boolean(*v);
  if (auto v = in_.optional(n, "aeth")) {
    const std::string a = in_.string(*v);
    bool known = false;
    for (unsigned syndrome = 0; syndrome < 0x100 && !known; ++syndrome)
      known = wire::aeth_name(static_cast<std::uint8_t>(syndrome)) == a;
    if (!known)
      in_.fail(*v, fmt::format("unknown AETH \"{}\" (ACK, RNR_NAK, NAK_PSN_SEQUENCE_ERROR, "
                               "NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS_ERROR, "
                               "NAK_REMOTE_OPERATIONAL_ERROR, NAK_INVALID_RD_REQUEST)",
                               a));
    f.aeth = a;
  }
  if (auto v = in_.optional(n, "msn"))
    f.msn = static_cast<std::uint32_t>(in_.integer(*v, 0, 0xFFFFFF));
  if (auto v = in_.optional(n, "payload_len")) f.payload_len = in_.u32(*v);
  if (auto v = in_.optional(n, "dmalen")) f.dmalen = in_.u32(*v);
  if (auto v = in_.optional(n, "optional")) f.optional = in_.boolean(*v);
  return f;
}

CompletionExpect Loader::completion(const Node& n) {
  in_.object(n, keys::kCompletion);
  CompletionExpect c;
  c.path = n.path;
  c.wr_id = in_.u64(in_.required(n, "wr_id"));
  c.status =
      in_.enumerated<cq::WcStatus>(in_.required(n, "status"), names::wc_statuses(), "WC status");
  if (auto v = in_.optional(n, "opcode"))
    c.opcode = in_.enumerated<cq::WcOpcode>(*v, names::wc_opcodes(), "WC opcode");
  if (auto v = in_.optional(n, "byte_len")) c.byte_len = in_.u32(*v);
  if (auto v = in_.optional(n, "imm_data")) c.imm_data = in_.u32(*v);
  if (auto v = in_.optional(n, "wc_flags"))
    c.wc_flags = in_.flags<cq::WcFlag>(*v, names::wc_flags(), "WC flag");
  if (auto v = in_.optional(n, "src_qp")) c.src_qp = qpn_ref(*v);
  if (auto v = in_.optional(n, "qp")) c.qp = ref(*v, {ObjectKind::QP});
  return c;
}

MemoryExpect Loader::memory(const Node& n) {
  MemoryExpect m;
  m.path = n.path;
  if (!n->is_object())
    in_.fail(n, fmt::format("expected an object, got {}", json_input::type_name(*n)));
  const std::string_view where = in_.one_of(n, {"mr", "adapter"});
  if (where == "mr") {
    const ObjId id = ref(n.child("mr"), {ObjectKind::MR});
    const NamedObject& mr = sc_.objects[id];
    if (in_.has(n, "addr"))
      in_.fail(n.child("addr"), "with \"mr\", give \"offset\" (from the MR's start), not \"addr\"");
    const MemoryPiece p = piece(n, mr.mr_length, keys::kMemoryExpect);
    m.adapter = mr.adapter_index;
    m.addr = mr.mr_addr + p.offset;  // host memory: the MR's host address, not its iova
    m.bytes = p.bytes;
  } else {
    m.adapter = sc_.objects[ref(n.child("adapter"), {ObjectKind::ADAPTER})].adapter_index;
    if (in_.has(n, "offset"))
      in_.fail(n.child("offset"), "with \"adapter\", give \"addr\", not \"offset\"");
    const MemoryPiece p = piece(n, std::nullopt, keys::kMemoryExpect);
    m.addr = in_.u64(in_.required(n, "addr"));
    m.bytes = p.bytes;
  }
  return m;
}

}  // namespace rocecert::conformance::loader
