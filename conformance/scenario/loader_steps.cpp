// The scenario loader: the step list, and the steps that modify QPs, post work requests and run.
#include <fmt/format.h>

#include <algorithm>

#include "loader_internal.h"

namespace rocecert::conformance::loader {

namespace {

constexpr std::string_view kOps[] = {"alloc_pd",   "reg_mr",    "alloc_mw",      "create_cq",
                                     "create_srq", "create_qp", "modify_qp",     "post_recv",
                                     "post_send",  "run",       "post_srq_recv", "arm_srq_limit",
                                     "expect",     "dereg_mr",  "inject"};

// WR fields beyond wr_id/opcode/send_flags, and the opcodes that use them.
enum WrField : std::uint32_t {
  kData = 1u << 0,        // sg_list, inline_data
  kRemote = 1u << 1,      // remote_addr, remote_offset, rkey
  kImm = 1u << 2,         // imm_data
  kInvalidate = 1u << 3,  // invalidate_rkey
  kCompareAdd = 1u << 4,  // compare_add
  kSwap = 1u << 5,        // swap
  kBind = 1u << 6,        // bind
  kFlush = 1u << 7,       // flush_type, flush_level
};

std::uint32_t wr_fields(tx::WrOpcode op) {
  using tx::WrOpcode;
  switch (op) {
    case WrOpcode::RDMA_WRITE:
      return kData | kRemote;
    case WrOpcode::RDMA_WRITE_WITH_IMM:
      return kData | kRemote | kImm;
    case WrOpcode::SEND:
      return kData;
    case WrOpcode::SEND_WITH_IMM:
      return kData | kImm;
    case WrOpcode::RDMA_READ:
      return kData | kRemote;
    case WrOpcode::ATOMIC_CMP_AND_SWP:
      return kData | kRemote | kCompareAdd | kSwap;
    case WrOpcode::ATOMIC_FETCH_AND_ADD:
      return kData | kRemote | kCompareAdd;
    case WrOpcode::LOCAL_INV:
      return kInvalidate;
    case WrOpcode::BIND_MW:
      return kBind;
    case WrOpcode::SEND_WITH_INV:
      return kData | kInvalidate;
    case WrOpcode::TSO:
    case WrOpcode::DRIVER1:
      return kData;
    case WrOpcode::FLUSH:
      return kRemote | kFlush;
    case WrOpcode::ATOMIC_WRITE:
      return kData | kRemote;
  }
  return 0;
}

std::uint32_t field_of_key(std::string_view key) {
  if (key == "sg_list" || key == "inline_data") return kData;
  if (key == "remote_addr" || key == "remote_offset" || key == "rkey") return kRemote;
  if (key == "imm_data") return kImm;
  if (key == "invalidate_rkey") return kInvalidate;
  if (key == "compare_add") return kCompareAdd;
  if (key == "swap") return kSwap;
  if (key == "bind") return kBind;
  if (key == "flush_type" || key == "flush_level") return kFlush;
  return 0;
}

}  // namespace

void Loader::step(const Node& n, std::size_t index) {
  if (!n->is_object())
    in_.fail(n, fmt::format("expected an object, got {}", json_input::type_name(*n)));
  const Node opn = in_.required(n, "op");
  const std::string op = in_.string(opn);
  if (std::find(std::begin(kOps), std::end(kOps), op) == std::end(kOps))
    in_.fail(opn, Reader::bad_name_message("op", op, {std::begin(kOps), std::end(kOps)}));
  Step s;
  s.path = n.path;
  s.op = op;
  if (auto d = in_.optional(n, "description")) s.description = in_.string(*d);
  if (op == "alloc_pd") {
    s.body = alloc_pd(n, index);
  } else if (op == "reg_mr") {
    s.body = reg_mr(n, index);
  } else if (op == "alloc_mw") {
    s.body = alloc_mw(n, index);
  } else if (op == "dereg_mr") {
    s.body = dereg_mr(n);
  } else if (op == "create_cq") {
    s.body = create_cq(n, index);
  } else if (op == "create_qp") {
    s.body = create_qp(n, index);
  } else if (op == "create_srq") {
    s.body = create_srq(n, index);
  } else if (op == "post_srq_recv") {
    s.body = post_srq_recv(n);
  } else if (op == "arm_srq_limit") {
    s.body = arm_srq_limit(n);
  } else if (op == "modify_qp") {
    s.body = modify_qp(n);
  } else if (op == "post_recv") {
    s.body = post_recv(n);
  } else if (op == "post_send") {
    s.body = post_send(n);
  } else if (op == "run") {
    s.body = run(n);
  } else if (op == "inject") {
    s.body = inject(n);
  } else {
    s.body = expect(n);
  }
  sc_.steps.push_back(std::move(s));
}

PostSrqRecvStep Loader::post_srq_recv(const Node& n) {
  in_.object(n, keys::kStepPostSrqRecv);
  PostSrqRecvStep s;
  s.srq = ref(in_.required(n, "srq"), {ObjectKind::SRQ});
  const Node wr = in_.required(n, "wr");
  in_.object(wr, keys::kSrqRecvWr);
  if (auto v = in_.optional(wr, "wr_id")) s.wr_id = in_.u64(*v);
  if (auto v = in_.optional(wr, "sg_list")) s.sg_list = sg_list(*v, s.srq);
  s.expect_error = expect_error(n, names::post_errors(), "post error");
  return s;
}

ArmSrqLimitStep Loader::arm_srq_limit(const Node& n) {
  in_.object(n, keys::kStepArmSrqLimit);
  ArmSrqLimitStep s;
  s.srq = ref(in_.required(n, "srq"), {ObjectKind::SRQ});
  s.limit = in_.u32(in_.required(n, "limit"));
  return s;
}

ModifyQpStep Loader::modify_qp(const Node& n) {
  in_.object(n, keys::kStepModifyQp);
  ModifyQpStep s;
  s.qp = ref(in_.required(n, "qp"), {ObjectKind::QP});
  const Node a = in_.required(n, "attr");
  in_.object(a, keys::kQpAttr);
  qp::QpAttr& attr = s.attr;
  qp::AttrMask& mask = s.mask;
  using qp::AttrBit;
  const auto u8 = [&](const Node& v) { return static_cast<std::uint8_t>(in_.integer(v, 0, 0xFF)); };
  if (auto v = in_.optional(a, "qp_state")) {
    attr.qp_state = in_.enumerated<qp::QpState>(*v, names::qp_states(), "QP state");
    mask |= AttrBit::STATE;
  }
  if (auto v = in_.optional(a, "cur_qp_state")) {
    attr.cur_qp_state = in_.enumerated<qp::QpState>(*v, names::qp_states(), "QP state");
    mask |= AttrBit::CUR_STATE;
  }
  if (auto v = in_.optional(a, "path_mtu")) {
    const auto bytes = static_cast<std::uint32_t>(in_.integer(*v, 256, 4096));
    if (!qp::path_mtu_from_bytes(bytes, attr.path_mtu))
      in_.fail(*v, fmt::format("{} is not an MTU (256, 512, 1024, 2048 or 4096)", bytes));
    mask |= AttrBit::PATH_MTU;
  }
  if (auto v = in_.optional(a, "qkey")) {
    attr.qkey = in_.u32(*v);
    mask |= AttrBit::QKEY;
  }
  if (auto v = in_.optional(a, "rq_psn")) {
    attr.rq_psn = in_.u32(*v);
    mask |= AttrBit::RQ_PSN;
  }
  if (auto v = in_.optional(a, "sq_psn")) {
    attr.sq_psn = in_.u32(*v);
    mask |= AttrBit::SQ_PSN;
  }
  if (auto v = in_.optional(a, "dest_qp_num")) {
    s.dest_qpn = qpn_ref(*v);
    attr.dest_qp_num = s.dest_qpn.value;
    mask |= AttrBit::DEST_QPN;
  }
  if (auto v = in_.optional(a, "qp_access_flags")) {
    attr.qp_access_flags = in_.flags<mem::Access>(*v, names::access_flags(), "access flag");
    mask |= AttrBit::ACCESS_FLAGS;
  }
  if (auto v = in_.optional(a, "pkey_index")) {
    attr.pkey_index = static_cast<std::uint16_t>(in_.integer(*v, 0, 0xFFFF));
    mask |= AttrBit::PKEY_INDEX;
  }
  if (auto v = in_.optional(a, "port_num")) {
    attr.port_num = u8(*v);
    mask |= AttrBit::PORT;
  }
  if (auto v = in_.optional(a, "ah_attr")) {
    attr.ah_attr = address_vector(*v);
    mask |= AttrBit::AV;
  }
  if (auto v = in_.optional(a, "timeout")) {
    attr.timeout = u8(*v);
    mask |= AttrBit::TIMEOUT;
  }
  if (auto v = in_.optional(a, "retry_cnt")) {
    attr.retry_cnt = u8(*v);
    mask |= AttrBit::RETRY_CNT;
  }
  if (auto v = in_.optional(a, "rnr_retry")) {
    attr.rnr_retry = u8(*v);
    mask |= AttrBit::RNR_RETRY;
  }
  if (auto v = in_.optional(a, "min_rnr_timer")) {
    attr.min_rnr_timer = u8(*v);
    mask |= AttrBit::MIN_RNR_TIMER;
  }
  if (auto v = in_.optional(a, "max_rd_atomic")) {
    attr.max_rd_atomic = u8(*v);
    mask |= AttrBit::MAX_QP_RD_ATOMIC;
  }
  if (auto v = in_.optional(a, "max_dest_rd_atomic")) {
    attr.max_dest_rd_atomic = u8(*v);
    mask |= AttrBit::MAX_DEST_RD_ATOMIC;
  }
  if (auto v = in_.optional(a, "path_mig_state")) {
    attr.path_mig_state =
        in_.enumerated<qp::PathMigState>(*v, names::path_mig_states(), "path migration state");
    mask |= AttrBit::PATH_MIG_STATE;
  }
  if (auto v = in_.optional(a, "en_sqd_async_notify")) {
    attr.en_sqd_async_notify = in_.boolean(*v);
    mask |= AttrBit::EN_SQD_ASYNC_NOTIFY;
  }
  if (auto v = in_.optional(a, "rate_limit")) {
    attr.rate_limit = in_.u32(*v);
    mask |= AttrBit::RATE_LIMIT;
  }
  if (auto m = in_.optional(n, "attr_mask")) {
    mask = qp::AttrMask::from_raw(in_.flags<qp::AttrBit>(*m, names::attr_bits(), "attribute"));
  }
  s.expect_error = expect_error(n, names::modify_errors(), "modify_qp error");
  return s;
}

// SGEs: "lkey" names an MR on the QP's adapter (then "addr" defaults to the MR's start plus
// "offset", and "length" to the rest of the MR), or is a number (then addr and length are
// required).
std::vector<SgeSpec> Loader::sg_list(const Node& n, ObjId qp) {
  std::vector<SgeSpec> out;
  for (const Node& e : in_.array(n)) {
    in_.object(e, keys::kSge);
    SgeSpec sge;
    const Node lkey = in_.required(e, "lkey");
    sge.lkey = key_ref(lkey, {ObjectKind::MR});
    in_.at_most_one(e, {"addr", "offset"});
    if (sge.lkey.object != kNoObj) {
      same_adapter(lkey, sge.lkey.object, qp);
      const NamedObject& mr = sc_.objects[sge.lkey.object];
      std::uint64_t offset = 0;
      if (auto o = in_.optional(e, "offset")) offset = in_.integer(*o, 0, mr.mr_length);
      sge.addr = mr.mr_iova + offset;
      if (auto a = in_.optional(e, "addr")) sge.addr = in_.u64(*a);
      if (auto l = in_.optional(e, "length")) {
        sge.length = in_.u32(*l);
      } else {
        const std::uint64_t rest = mr.mr_length - offset;
        if (in_.has(e, "addr") || rest > UINT32_MAX) in_.fail(e, "missing required key \"length\"");
        sge.length = static_cast<std::uint32_t>(rest);
      }
    } else {
      if (in_.has(e, "offset"))
        in_.fail(e.child("offset"), "\"offset\" needs an lkey that names an MR; use \"addr\"");
      sge.addr = in_.u64(in_.required(e, "addr"));
      sge.length = in_.u32(in_.required(e, "length"));
    }
    out.push_back(sge);
  }
  return out;
}

PostRecvStep Loader::post_recv(const Node& n) {
  in_.object(n, keys::kStepPostRecv);
  PostRecvStep s;
  s.qp = ref(in_.required(n, "qp"), {ObjectKind::QP});
  const Node wr = in_.required(n, "wr");
  in_.object(wr, keys::kRecvWr);
  if (auto v = in_.optional(wr, "wr_id")) s.wr_id = in_.u64(*v);
  if (auto v = in_.optional(wr, "sg_list")) s.sg_list = sg_list(*v, s.qp);
  s.expect_error = expect_error(n, names::post_errors(), "post error");
  return s;
}

PostSendStep Loader::post_send(const Node& n) {
  in_.object(n, keys::kStepPostSend);
  PostSendStep s;
  s.qp = ref(in_.required(n, "qp"), {ObjectKind::QP});
  const bool ud = sc_.objects[s.qp].qp_type == qp::QpType::UD;
  const Node wr = in_.required(n, "wr");
  in_.object(wr, keys::kSendWr);
  tx::SendWr& w = s.wr;
  w.opcode =
      in_.enumerated<tx::WrOpcode>(in_.required(wr, "opcode"), names::wr_opcodes(), "WR opcode");
  const std::string_view opname = tx::to_string(w.opcode);
  const std::uint32_t allowed = wr_fields(w.opcode);
  for (auto it = wr->begin(); it != wr->end(); ++it) {
    const std::uint32_t f = field_of_key(it.key());
    if (f != 0 && (allowed & f) == 0)
      in_.fail(wr.child(it.key()), fmt::format("\"{}\" is not used by {}", it.key(), opname));
    if ((it.key() == "ah" || it.key() == "remote_qpn" || it.key() == "remote_qkey") && !ud)
      in_.fail(wr.child(it.key()),
               fmt::format("\"{}\" is for UD QPs; \"{}\" is {}", it.key(), sc_.objects[s.qp].name,
                           qp::to_string(sc_.objects[s.qp].qp_type)));
  }
  if (auto v = in_.optional(wr, "wr_id")) w.wr_id = in_.u64(*v);
  if (auto v = in_.optional(wr, "send_flags"))
    w.send_flags = in_.flags<tx::SendFlag>(*v, names::send_flags(), "send flag");
  if (auto v = in_.optional(wr, "sg_list")) s.sg_list = sg_list(*v, s.qp);
  if (auto v = in_.optional(wr, "inline_data")) {
    if ((w.send_flags & tx::kSendInline) == 0)
      in_.fail(*v, "\"inline_data\" needs the INLINE send flag");
    if (in_.has(wr, "sg_list"))
      in_.fail(*v, "give either \"inline_data\" or \"sg_list\", not both");
    w.inline_data = in_.hex(*v);
  } else if ((w.send_flags & tx::kSendInline) != 0) {
    s.inline_from_sg = true;  // verbs copy the SGEs' bytes at post time
  }
  if (auto v = in_.optional(wr, "imm_data")) w.imm_data = in_.u32(*v);
  if (auto v = in_.optional(wr, "invalidate_rkey")) {
    s.invalidate_rkey = key_ref(*v, {ObjectKind::MR, ObjectKind::MW});
  } else if (allowed & kInvalidate) {
    in_.fail(wr, fmt::format("missing required key \"invalidate_rkey\" (for {})", opname));
  }
  if (allowed & kRemote) remote(wr, s, opname);
  if (allowed & kCompareAdd) w.compare_add = in_.u64(in_.required(wr, "compare_add"));
  if (allowed & kSwap) w.swap = in_.u64(in_.required(wr, "swap"));
  if (allowed & kBind) bind(in_.required(wr, "bind"), s);
  if (auto v = in_.optional(wr, "flush_type"))
    w.flush_type = static_cast<std::uint8_t>(
        in_.flags<std::uint8_t>(*v, names::flush_types(), "flush type") & 0xFFu);
  if (auto v = in_.optional(wr, "flush_level")) {
    if ((*v)->is_string() && !Reader::looks_numeric((*v)->get<std::string>())) {
      w.flush_level = in_.enumerated<std::uint8_t>(*v, names::flush_levels(), "flush level");
    } else {
      w.flush_level = static_cast<std::uint8_t>(in_.integer(*v, 0, 0xFF));
    }
  }
  if (ud) {
    s.ah = address_vector(in_.required(wr, "ah"));
    s.remote_qpn = qpn_ref(in_.required(wr, "remote_qpn"));
    w.remote_qpn = s.remote_qpn.value;
    w.remote_qkey = in_.u32(in_.required(wr, "remote_qkey"));
  }
  s.expect_error = expect_error(n, names::post_errors(), "post error");
  return s;
}

// remote_addr / remote_offset / rkey. An rkey naming an MR gives remote_addr a default: the
// MR's iova plus remote_offset.
void Loader::remote(const Node& wr, PostSendStep& s, std::string_view opname) {
  const Node rk = in_.required(wr, "rkey");
  s.rkey = key_ref(rk, {ObjectKind::MR, ObjectKind::MW});
  in_.at_most_one(wr, {"remote_addr", "remote_offset"});
  if (auto v = in_.optional(wr, "remote_addr")) {
    s.wr.remote_addr = in_.u64(*v);
    return;
  }
  if (s.rkey.object == kNoObj || sc_.objects[s.rkey.object].kind != ObjectKind::MR)
    in_.fail(wr, fmt::format("missing required key \"remote_addr\" (for {}; it has a default "
                             "only when \"rkey\" names an MR)",
                             opname));
  const NamedObject& mr = sc_.objects[s.rkey.object];
  std::uint64_t offset = 0;
  if (auto o = in_.optional(wr, "remote_offset")) offset = in_.integer(*o, 0, mr.mr_length);
  s.wr.remote_addr = mr.mr_iova + offset;
}

void Loader::bind(const Node& n, PostSendStep& s) {
  in_.object(n, keys::kBind);
  s.bind_mw = key_ref(in_.required(n, "mw"), {ObjectKind::MW});
  const Node mrn = in_.required(n, "mr");
  s.bind_mr = key_ref(mrn, {ObjectKind::MR});
  in_.at_most_one(n, {"addr", "offset"});
  if (s.bind_mr.object != kNoObj) {
    const NamedObject& mr = sc_.objects[s.bind_mr.object];
    same_adapter(mrn, s.bind_mr.object, s.qp);
    std::uint64_t offset = 0;
    if (auto o = in_.optional(n, "offset")) offset = in_.integer(*o, 0, mr.mr_length);
    s.wr.bind_addr = mr.mr_iova + offset;
    s.wr.bind_length = mr.mr_length - offset;
  } else if (in_.has(n, "offset")) {
    in_.fail(n.child("offset"), "\"offset\" needs \"mr\" to name an MR; use \"addr\"");
  }
  if (auto v = in_.optional(n, "addr")) s.wr.bind_addr = in_.u64(*v);
  if (auto v = in_.optional(n, "length")) {
    s.wr.bind_length = in_.u64(*v);
  } else if (s.bind_mr.object == kNoObj || in_.has(n, "addr")) {
    in_.fail(n, "missing required key \"length\"");
  }
  s.wr.bind_access =
      in_.flags<mem::Access>(in_.required(n, "access"), names::access_flags(), "access flag");
  if (auto v = in_.optional(n, "dut_rkey")) s.bind_dut_rkey = in_.u32(*v);
}

RunStep Loader::run(const Node& n) {
  in_.object(n, keys::kStepRun);
  in_.at_most_one(n, {"until_ns", "for_ns"});
  RunStep s;
  if (auto v = in_.optional(n, "poll")) s.poll = in_.boolean(*v);
  if (auto v = in_.optional(n, "until_ns")) s.until_ns = in_.integer(*v, 0, sim::kNever - 1);
  if (auto v = in_.optional(n, "for_ns")) s.for_ns = in_.integer(*v, 1, sim::kNever - 1);
  return s;
}

}  // namespace rocecert::conformance::loader
