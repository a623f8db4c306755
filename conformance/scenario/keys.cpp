// The key lists of conformance/scenario/keys.h.
#include "keys.h"

#include <array>

namespace rocecert::conformance::keys {

namespace {

constexpr std::string_view kRootAllowed[] = {"$schema", "seed", "adapters", "links", "steps"};
constexpr std::string_view kRootRequired[] = {"adapters", "steps"};
constexpr std::string_view kAdapterAllowed[] = {"name",    "mac",        "ip",       "mtu",
                                                "profile", "qp_profile", "first_qpn"};
constexpr std::string_view kAdapterRequired[] = {"name", "mac", "ip"};
constexpr std::string_view kProfileAllowed[] = {"ackreq",
                                                "ack",
                                                "dcqcn",
                                                "sport",
                                                "fixed_sport",
                                                "ipv4_ttl",
                                                "ipv4_df",
                                                "pkey",
                                                "ack_syndrome_credits",
                                                "retry_cnt_7_is_infinite",
                                                "send_cnp",
                                                "cnp_interval_ns",
                                                "cnp_traffic_class",
                                                "error_profile",
                                                "arbitration"};
constexpr std::span<const std::string_view> kProfileRequired;
constexpr std::string_view kProfileAckreqAllowed[] = {"on_last_packet", "every_n_packets"};
constexpr std::span<const std::string_view> kProfileAckreqRequired;
constexpr std::string_view kProfileAckAllowed[] = {"mode", "max_packets", "max_delay_ns"};
constexpr std::span<const std::string_view> kProfileAckRequired;
constexpr std::string_view kProfileDcqcnAllowed[] = {"line_rate_gbps", "preset"};
constexpr std::span<const std::string_view> kProfileDcqcnRequired;
constexpr std::string_view kLinkAllowed[] = {"a", "b", "latency_ns", "gbps", "faults"};
constexpr std::string_view kLinkRequired[] = {"a", "b"};
constexpr std::string_view kFaultsAllowed[] = {"seed", "a_to_b", "b_to_a", "rules"};
constexpr std::span<const std::string_view> kFaultsRequired;
constexpr std::string_view kFaultRatesAllowed[] = {
    "drop",   "duplicate", "reorder",   "delay",    "corrupt",
    "ecn_ce", "delay_ns",  "jitter_ns", "overtake", "max_hold_ns"};
constexpr std::span<const std::string_view> kFaultRatesRequired;
constexpr std::string_view kFaultRuleAllowed[] = {"action",   "direction",  "match",    "nth",
                                                  "from",     "to",         "delay_ns", "jitter_ns",
                                                  "overtake", "max_hold_ns"};
constexpr std::string_view kFaultRuleRequired[] = {"action"};
constexpr std::string_view kFaultMatchAllowed[] = {"opcode", "class", "position",
                                                   "qp",     "psn",   "ackreq"};
constexpr std::span<const std::string_view> kFaultMatchRequired;
constexpr std::string_view kPieceAllowed[] = {"offset", "hex", "u64", "fill", "counter", "length"};
constexpr std::span<const std::string_view> kPieceRequired;
constexpr std::string_view kMemoryExpectAllowed[] = {"offset", "hex", "u64",     "fill", "counter",
                                                     "length", "mr",  "adapter", "addr"};
constexpr std::span<const std::string_view> kMemoryExpectRequired;
constexpr std::string_view kAddressVectorAllowed[] = {
    "peer", "dgid", "dmac", "sgid_index", "hop_limit", "traffic_class", "flow_label", "udp_sport"};
constexpr std::span<const std::string_view> kAddressVectorRequired;
constexpr std::string_view kSgeAllowed[] = {"lkey", "addr", "offset", "length"};
constexpr std::string_view kSgeRequired[] = {"lkey"};
constexpr std::string_view kQpAttrAllowed[] = {"qp_state",
                                               "cur_qp_state",
                                               "path_mtu",
                                               "qkey",
                                               "rq_psn",
                                               "sq_psn",
                                               "dest_qp_num",
                                               "qp_access_flags",
                                               "pkey_index",
                                               "port_num",
                                               "ah_attr",
                                               "timeout",
                                               "retry_cnt",
                                               "rnr_retry",
                                               "min_rnr_timer",
                                               "max_rd_atomic",
                                               "max_dest_rd_atomic",
                                               "path_mig_state",
                                               "en_sqd_async_notify",
                                               "rate_limit"};
constexpr std::span<const std::string_view> kQpAttrRequired;
constexpr std::string_view kQpCapAllowed[] = {"max_send_wr", "max_recv_wr", "max_send_sge",
                                              "max_recv_sge", "max_inline_data"};
constexpr std::span<const std::string_view> kQpCapRequired;
constexpr std::string_view kSendWrAllowed[] = {
    "wr_id",         "opcode",     "send_flags",      "sg_list",
    "inline_data",   "imm_data",   "invalidate_rkey", "remote_addr",
    "remote_offset", "rkey",       "compare_add",     "swap",
    "bind",          "flush_type", "flush_level",     "ah",
    "remote_qpn",    "remote_qkey"};
constexpr std::string_view kSendWrRequired[] = {"opcode"};
constexpr std::string_view kBindAllowed[] = {"mw",     "mr",     "addr",    "offset",
                                             "length", "access", "dut_rkey"};
constexpr std::string_view kBindRequired[] = {"mw", "mr", "access"};
constexpr std::string_view kRecvWrAllowed[] = {"wr_id", "sg_list"};
constexpr std::span<const std::string_view> kRecvWrRequired;
constexpr std::string_view kSrqRecvWrAllowed[] = {"wr_id", "sg_list"};
constexpr std::span<const std::string_view> kSrqRecvWrRequired;
constexpr std::string_view kCompletionAllowed[] = {"wr_id",    "status",   "opcode", "byte_len",
                                                   "imm_data", "wc_flags", "src_qp", "qp"};
constexpr std::string_view kCompletionRequired[] = {"wr_id", "status"};
constexpr std::string_view kFrameExpectAllowed[] = {
    "from", "opcode", "qp", "psn", "ackreq", "aeth", "msn", "payload_len", "dmalen", "optional"};
constexpr std::string_view kFrameExpectRequired[] = {"from", "opcode"};
constexpr std::string_view kAsyncEventAllowed[] = {"event", "qp", "cq", "srq"};
constexpr std::string_view kAsyncEventRequired[] = {"event"};
constexpr std::string_view kStepAllocPdAllowed[] = {"op", "as", "adapter"};
constexpr std::string_view kStepAllocPdRequired[] = {"op", "adapter", "as"};
constexpr std::string_view kStepRegMrAllowed[] = {
    "op", "as", "pd", "addr", "length", "access", "iova", "contents", "expect_error", "dut_rkey"};
constexpr std::string_view kStepRegMrRequired[] = {"op", "pd", "addr", "length", "access", "as"};
constexpr std::string_view kStepAllocMwAllowed[] = {"op", "as", "pd", "type", "expect_error"};
constexpr std::string_view kStepAllocMwRequired[] = {"op", "pd", "as"};
constexpr std::string_view kStepDeregMrAllowed[] = {"op", "mr", "expect_error"};
constexpr std::string_view kStepDeregMrRequired[] = {"op", "mr"};
constexpr std::string_view kStepCreateCqAllowed[] = {"op", "as", "adapter", "cqe"};
constexpr std::string_view kStepCreateCqRequired[] = {"op", "adapter", "as"};
constexpr std::string_view kStepCreateSrqAllowed[] = {"op", "as", "pd", "max_wr", "max_sge"};
constexpr std::string_view kStepCreateSrqRequired[] = {"op", "pd", "as"};
constexpr std::string_view kStepCreateQpAllowed[] = {"op",         "as",           "pd",     "type",
                                                     "send_cq",    "recv_cq",      "srq",    "cap",
                                                     "sq_sig_all", "expect_error", "dut_qpn"};
constexpr std::string_view kStepCreateQpRequired[] = {"op", "pd", "type", "send_cq", "as"};
constexpr std::string_view kStepModifyQpAllowed[] = {"op", "qp", "attr", "attr_mask",
                                                     "expect_error"};
constexpr std::string_view kStepModifyQpRequired[] = {"op", "qp", "attr"};
constexpr std::string_view kStepPostRecvAllowed[] = {"op", "qp", "wr", "expect_error"};
constexpr std::string_view kStepPostRecvRequired[] = {"op", "qp", "wr"};
constexpr std::string_view kStepPostSendAllowed[] = {"op", "qp", "wr", "expect_error"};
constexpr std::string_view kStepPostSendRequired[] = {"op", "qp", "wr"};
constexpr std::string_view kStepRunAllowed[] = {"op", "until_ns", "for_ns", "poll"};
constexpr std::string_view kStepInjectAllowed[] = {"op", "from", "qp", "to", "frame"};
constexpr std::string_view kStepInjectRequired[] = {"op", "from", "qp", "frame"};
constexpr std::string_view kInjectFrameAllowed[] = {
    "opcode",  "psn",      "ackreq",  "se",       "migreq",
    "pkey",    "tver",     "rkey",    "va",       "va_offset",
    "dmalen",  "swap_add", "compare", "syndrome", "msn",
    "orig",    "qkey",     "src_qp",  "imm_data", "invalidate_rkey",
    "payload", "src_ip",   "dst_ip",  "ecn",      "sport",
    "icrc",    "truncate"};
constexpr std::string_view kInjectFrameRequired[] = {"opcode", "psn"};
constexpr std::string_view kStepRunRequired[] = {"op"};
constexpr std::string_view kStepPostSrqRecvAllowed[] = {"op", "srq", "wr", "expect_error"};
constexpr std::string_view kStepPostSrqRecvRequired[] = {"op", "srq", "wr"};
constexpr std::string_view kStepArmSrqLimitAllowed[] = {"op", "srq", "limit"};
constexpr std::string_view kStepArmSrqLimitRequired[] = {"op", "srq", "limit"};
constexpr std::string_view kStepExpectAllowed[] = {"op",     "frames",   "completions",
                                                   "memory", "qp_state", "async_events"};
constexpr std::string_view kStepExpectRequired[] = {"op"};

}  // namespace

const ObjectKeys kRoot{"root", "", kRootAllowed, kRootRequired};
const ObjectKeys kAdapter{"adapter", "/$defs/adapter", kAdapterAllowed, kAdapterRequired};
const ObjectKeys kProfile{"profile", "/$defs/adapter/properties/profile", kProfileAllowed,
                          kProfileRequired};
const ObjectKeys kProfileAckreq{"profile.ackreq",
                                "/$defs/adapter/properties/profile/properties/ackreq",
                                kProfileAckreqAllowed, kProfileAckreqRequired};
const ObjectKeys kProfileAck{"profile.ack", "/$defs/adapter/properties/profile/properties/ack",
                             kProfileAckAllowed, kProfileAckRequired};
const ObjectKeys kProfileDcqcn{"profile.dcqcn",
                               "/$defs/adapter/properties/profile/properties/dcqcn",
                               kProfileDcqcnAllowed, kProfileDcqcnRequired};
const ObjectKeys kLink{"link", "/$defs/link", kLinkAllowed, kLinkRequired};
const ObjectKeys kFaults{"faults", "/$defs/faults", kFaultsAllowed, kFaultsRequired};
const ObjectKeys kFaultRates{"fault_rates", "/$defs/fault_rates", kFaultRatesAllowed,
                             kFaultRatesRequired};
const ObjectKeys kFaultRule{"fault_rule", "/$defs/fault_rule", kFaultRuleAllowed,
                            kFaultRuleRequired};
const ObjectKeys kFaultMatch{"fault_match", "/$defs/fault_match", kFaultMatchAllowed,
                             kFaultMatchRequired};
const ObjectKeys kPiece{"piece", "/$defs/piece", kPieceAllowed, kPieceRequired};
const ObjectKeys kMemoryExpect{"memory_expect", "/$defs/memory_expect", kMemoryExpectAllowed,
                               kMemoryExpectRequired};
const ObjectKeys kAddressVector{"av", "/$defs/av", kAddressVectorAllowed, kAddressVectorRequired};
const ObjectKeys kSge{"sge", "/$defs/sge", kSgeAllowed, kSgeRequired};
const ObjectKeys kQpAttr{"qp_attr", "/$defs/qp_attr", kQpAttrAllowed, kQpAttrRequired};
const ObjectKeys kQpCap{"create_qp.cap", "/$defs/step_create_qp/properties/cap", kQpCapAllowed,
                        kQpCapRequired};
const ObjectKeys kSendWr{"send_wr", "/$defs/send_wr", kSendWrAllowed, kSendWrRequired};
const ObjectKeys kBind{"bind", "/$defs/send_wr/properties/bind", kBindAllowed, kBindRequired};
const ObjectKeys kRecvWr{"post_recv.wr", "/$defs/step_post_recv/properties/wr", kRecvWrAllowed,
                         kRecvWrRequired};
const ObjectKeys kSrqRecvWr{"post_srq_recv.wr", "/$defs/step_post_srq_recv/properties/wr",
                            kSrqRecvWrAllowed, kSrqRecvWrRequired};
const ObjectKeys kCompletion{"completion", "/$defs/completion", kCompletionAllowed,
                             kCompletionRequired};
const ObjectKeys kFrameExpect{"frame_expect", "/$defs/frame_expect", kFrameExpectAllowed,
                              kFrameExpectRequired};
const ObjectKeys kAsyncEvent{"async_event_object", "/$defs/async_event_object", kAsyncEventAllowed,
                             kAsyncEventRequired};
const ObjectKeys kStepAllocPd{"step_alloc_pd", "/$defs/step_alloc_pd", kStepAllocPdAllowed,
                              kStepAllocPdRequired};
const ObjectKeys kStepRegMr{"step_reg_mr", "/$defs/step_reg_mr", kStepRegMrAllowed,
                            kStepRegMrRequired};
const ObjectKeys kStepAllocMw{"step_alloc_mw", "/$defs/step_alloc_mw", kStepAllocMwAllowed,
                              kStepAllocMwRequired};
const ObjectKeys kStepDeregMr{"step_dereg_mr", "/$defs/step_dereg_mr", kStepDeregMrAllowed,
                              kStepDeregMrRequired};
const ObjectKeys kStepCreateCq{"step_create_cq", "/$defs/step_create_cq", kStepCreateCqAllowed,
                               kStepCreateCqRequired};
const ObjectKeys kStepCreateSrq{"step_create_srq", "/$defs/step_create_srq", kStepCreateSrqAllowed,
                                kStepCreateSrqRequired};
const ObjectKeys kStepCreateQp{"step_create_qp", "/$defs/step_create_qp", kStepCreateQpAllowed,
                               kStepCreateQpRequired};
const ObjectKeys kStepModifyQp{"step_modify_qp", "/$defs/step_modify_qp", kStepModifyQpAllowed,
                               kStepModifyQpRequired};
const ObjectKeys kStepPostRecv{"step_post_recv", "/$defs/step_post_recv", kStepPostRecvAllowed,
                               kStepPostRecvRequired};
const ObjectKeys kStepPostSend{"step_post_send", "/$defs/step_post_send", kStepPostSendAllowed,
                               kStepPostSendRequired};
const ObjectKeys kStepRun{"step_run", "/$defs/step_run", kStepRunAllowed, kStepRunRequired};
const ObjectKeys kStepPostSrqRecv{"step_post_srq_recv", "/$defs/step_post_srq_recv",
                                  kStepPostSrqRecvAllowed, kStepPostSrqRecvRequired};
const ObjectKeys kStepArmSrqLimit{"step_arm_srq_limit", "/$defs/step_arm_srq_limit",
                                  kStepArmSrqLimitAllowed, kStepArmSrqLimitRequired};
const ObjectKeys kStepExpect{"step_expect", "/$defs/step_expect", kStepExpectAllowed,
                             kStepExpectRequired};
const ObjectKeys kStepInject{"step_inject", "/$defs/step_inject", kStepInjectAllowed,
                             kStepInjectRequired};
const ObjectKeys kInjectFrame{"inject_frame", "/$defs/inject_frame", kInjectFrameAllowed,
                              kInjectFrameRequired};

std::span<const ObjectKeys* const> all() {
  static constexpr std::array<const ObjectKeys*, 40> kAll = {
      &kRoot,          &kAdapter,         &kProfile,
      &kProfileAckreq, &kProfileAck,      &kProfileDcqcn,
      &kLink,          &kFaults,          &kFaultRates,
      &kFaultRule,     &kFaultMatch,      &kPiece,
      &kMemoryExpect,  &kAddressVector,   &kSge,
      &kQpAttr,        &kQpCap,           &kSendWr,
      &kBind,          &kRecvWr,          &kSrqRecvWr,
      &kCompletion,    &kFrameExpect,     &kAsyncEvent,
      &kStepAllocPd,   &kStepRegMr,       &kStepAllocMw,
      &kStepCreateCq,  &kStepCreateSrq,   &kStepCreateQp,
      &kStepModifyQp,  &kStepPostRecv,    &kStepPostSend,
      &kStepRun,       &kStepPostSrqRecv, &kStepArmSrqLimit,
      &kStepExpect,    &kStepDeregMr,     &kStepInject,
      &kInjectFrame};
  return kAll;
}

}  // namespace rocecert::conformance::keys
