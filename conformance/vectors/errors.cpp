// The `errors` area (vectors/README.md): classes of the errors table
// (refmodel/include/rocecert/errors/error_classes.def) that two connected RC QPs can be made to
// meet from the verbs alone, each under both error profiles (`IBA`, `RXE`): the NAK on the wire,
// the completions on both sides and the QP states are what the model does, and the model follows
// the table (its tests hold it to it). The clauses are the table's own reference.
#include <fmt/format.h>

#include <functional>

#include "internal.h"
#include "rocecert/errors/error_table.h"

namespace rocecert::vectors::detail {
namespace {

constexpr const char* kQkey = "0x11111111";

// A UD QP on each side (udqpA, udqpB, Q_Key kQkey) beside the RC pair, a receive on B, and one
// UD SEND of `length` bytes from A to `dest` (a QP name, or a number as "0x...") with Q_Key
// `qkey`.
void ud_send(json& s, std::uint32_t length, const char* dest, const char* qkey) {
  for (const char* h : {"A", "B"}) {
    const std::string q = fmt::format("udqp{}", h);
    s.push_back(step({{"op", "create_qp"},
                      {"pd", fmt::format("pd{}", h)},
                      {"as", q},
                      {"type", "UD"},
                      {"send_cq", fmt::format("cq{}", h)}}));
    s.push_back(step(
        {{"op", "modify_qp"},
         {"qp", q},
         {"attr", {{"qp_state", "INIT"}, {"pkey_index", 0}, {"port_num", 1}, {"qkey", kQkey}}}}));
    s.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", {{"qp_state", "RTR"}}}}));
    s.push_back(
        step({{"op", "modify_qp"}, {"qp", q}, {"attr", {{"qp_state", "RTS"}, {"sq_psn", 300}}}}));
  }
  s.push_back(recv("udqpB", sge("mrB", length + 40, 4096)));
  json w = wr("SEND", sge("mrA", length));
  w["ah"] = {{"peer", "B"}};
  w["remote_qpn"] = dest;
  w["remote_qkey"] = qkey;
  s.push_back(post("udqpA", std::move(w)));
}

struct Recipe {
  errors::ErrorClass error;
  const char* slug;
  const char* what;  // the stimulus, for the objective
  std::vector<std::string> capabilities;
  Pair pair;
  std::function<void(json& steps)> stimulus;
};

std::vector<Recipe> recipes() {
  using E = errors::ErrorClass;
  Pair no_read;
  no_read.b_qp_access = json::array({"REMOTE_WRITE"});
  Pair no_resources;
  no_resources.b_max_dest_rd_atomic = 0;
  Pair no_bind;  // A's MR lacks MW_BIND
  Pair small_send_cq;
  small_send_cq.a_cqe = 1;
  Pair small_recv_cq;
  small_recv_cq.b_cqe = 1;
  small_recv_cq.retry_cnt = 1;  // where the responder's QP fails, A gives up soon
  small_recv_cq.timeout = 8;
  Pair few_retries;  // retry_cnt 7 means "forever" in the RXE profile
  few_retries.retry_cnt = 1;
  few_retries.timeout = 8;  // 4.096 us * 2^8 = 1 ms
  Pair no_rnr_retry;
  no_rnr_retry.rnr_retry = 0;
  Pair one_loss;  // the first middle packet of a SEND lost on the way to B
  one_loss.faults = {{"rules", json::array({{{"action", "drop"},
                                             {"direction", "a_to_b"},
                                             {"match", {{"opcode", "RC_SEND_MIDDLE"}}},
                                             {"nth", 1}}})}};
  Pair no_local_write;
  no_local_write.a_mr_access = json::array();
  Pair other_pkey;  // B's port has another partition: A's packets are not for it
  other_pkey.b_profile = {{"pkey", 0x8001}};
  other_pkey.retry_cnt = 1;
  other_pkey.timeout = 8;
  Pair one_corrupted;  // one bit of A's first packet flipped on the way: only the ICRC sees it
  one_corrupted.faults = {
      {"rules", json::array({{{"action", "corrupt"}, {"direction", "a_to_b"}, {"nth", 1}}})}};
  one_corrupted.timeout = 8;
  // The requester-side stimuli answer a request of A's in place of B: B's own answer is lost on
  // the way (`lost` names its class), and the forged one arrives 20 us later, long before A's
  // ACK timeout (timeout 14: 67 ms).
  const auto answer_lost = [](const char* lost) {
    Pair p;
    p.faults = {{"rules", json::array({{{"action", "drop"},
                                        {"direction", "b_to_a"},
                                        {"match", {{"class", lost}}},
                                        {"nth", 1}}})}};
    return p;
  };
  const auto forged_answer = [](const char* wr_opcode, json frame) {
    return [wr_opcode, frame](json& s) {
      if (std::string_view(wr_opcode) == "SEND") {
        s.push_back(recv("qpB", sge("mrB", 64, 4096)));
        s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
      } else {
        s.push_back(post("qpA", remote(wr(wr_opcode, sge("mrA", 64)))));
      }
      s.push_back(step({{"op", "run"}, {"for_ns", 20000}}));
      s.push_back(inject("B", "qpA", frame));
    };
  };
  // A stimulus that B must drop, then a SEND of A's that B must still take.
  const auto dropped_then_send = [](json frame) {
    return [frame](json& s) {
      s.push_back(recv("qpB", sge("mrB", 64, 4096)));
      s.push_back(inject("A", "qpB", frame));
      s.push_back(step({{"op", "run"}}));
      s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
    };
  };
  // Two receives on B, two signaled SENDs from A: two completions on each side.
  const auto two_sends = [](json& s) {
    for (std::uint64_t i = 0; i < 2; ++i)
      s.push_back(recv("qpB", sge("mrB", 64, static_cast<std::uint32_t>(4096 + 64 * i)), 100 + i));
    for (std::uint64_t i = 0; i < 2; ++i)
      s.push_back(post("qpA", wr("SEND", sge("mrA", 64), 1 + i)));
  };
  return {
      {E::RESP_QP_ACCESS,
       "resp-qp-access",
       "a READ to a QP without REMOTE_READ",
       {"RC"},
       no_read,
       [](json& s) { s.push_back(post("qpA", remote(wr("RDMA_READ", sge("mrA", 64))))); }},
      {E::RESP_NO_RESOURCES_RD_ATOMIC,
       "resp-no-resources-rd-atomic",
       "a READ to a QP whose max_dest_rd_atomic is 0",
       {"RC"},
       no_resources,
       [](json& s) { s.push_back(post("qpA", remote(wr("RDMA_READ", sge("mrA", 64))))); }},
      {E::RESP_RECV_BUFFER_TOO_SMALL,
       "resp-recv-buffer-too-small",
       "a 64-byte SEND into a 32-byte receive",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 32, 4096)));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
       }},
      {E::RESP_RECV_WQE_PROTECTION,
       "resp-recv-wqe-protection",
       "a SEND into a receive whose lkey was never registered",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", bad_sge(256)));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
       }},
      {E::RESP_RKEY_VIOLATION,
       "resp-rkey-violation",
       "a WRITE with an rkey that does not exist",
       {"RC"},
       Pair{},
       [](json& s) { s.push_back(post("qpA", remote(wr("RDMA_WRITE", sge("mrA", 64)), 4660))); }},
      {E::RESP_RKEY_VIOLATION,
       "resp-rkey-violation-with-imm",
       "a WRITE WITH IMMEDIATE (it takes a receive) with an rkey that does not exist",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 256, 4096)));
         json w = remote(wr("RDMA_WRITE_WITH_IMM", sge("mrA", 64)), 4660);
         w["imm_data"] = "0x12345678";
         s.push_back(post("qpA", std::move(w)));
       }},
      {E::RESP_INVALIDATE_FAILED,
       "resp-invalidate-failed",
       "a SEND WITH INVALIDATE of an MR (not remotely invalidatable)",
       {"RC", "SEND_WITH_INV"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 256, 4096)));
         json w = wr("SEND_WITH_INV", sge("mrA", 64));
         w["invalidate_rkey"] = "mrB";
         s.push_back(post("qpA", std::move(w)));
       }},
      {E::REQ_LOCAL_PROTECTION,
       "req-local-protection",
       "a SEND whose lkey was never registered",
       {"RC"},
       Pair{},
       [](json& s) { s.push_back(post("qpA", wr("SEND", bad_sge(64)))); }},
      {E::REQ_MW_BIND,
       "req-mw-bind",
       "a BIND_MW on an MR registered without MW_BIND",
       {"RC", "MW"},
       no_bind,
       [](json& s) {
         s.push_back(step({{"op", "alloc_mw"}, {"pd", "pdA"}, {"as", "mwA"}, {"type", 2}}));
         s.push_back(post("qpA", bind_mw("mwA", "mrA", 0, 4096, json::array({"REMOTE_WRITE"}), 1)));
       }},
      {E::CQ_OVERFLOW_SEND,
       "cq-overflow-send",
       "two signaled SENDs completing into a send CQ of one entry, never polled",
       {"RC"},
       small_send_cq,
       two_sends},
      {E::CQ_OVERFLOW,
       "cq-overflow",
       "two SENDs completing receives into a CQ of one entry, never polled",
       {"RC"},
       small_recv_cq,
       two_sends},
      {E::REQ_RETRY_EXCEEDED,
       "req-retry-exceeded",
       "a SEND to a peer QP in ERR, which drops it, with retry_cnt 1",
       {"RC"},
       few_retries,
       [](json& s) {
         s.push_back(step({{"op", "modify_qp"}, {"qp", "qpB"}, {"attr", {{"qp_state", "ERR"}}}}));
         s.push_back(step({{"op", "run"}}));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
       }},
      {E::REQ_RNR_RETRY_EXCEEDED,
       "req-rnr-retry-exceeded",
       "a SEND to a QP with no receive posted, with rnr_retry 0 (one RNR NAK ends it)",
       {"RC"},
       no_rnr_retry,
       [](json& s) { s.push_back(post("qpA", wr("SEND", sge("mrA", 64)))); }},
      {E::RESP_PSN_SEQUENCE,
       "resp-psn-sequence",
       "a three-packet SEND whose middle packet is lost: a PSN sequence NAK, then go-back-N",
       {"RC"},
       one_loss,
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 3072, 4096)));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 3072))));
       }},
      {E::REQ_LOCAL_SCATTER_PROTECTION,
       "req-local-scatter-protection",
       "a READ into a local MR registered without LOCAL_WRITE",
       {"RC"},
       no_local_write,
       [](json& s) { s.push_back(post("qpA", remote(wr("RDMA_READ", sge("mrA", 64))))); }},
      {E::REQ_LOCAL_QP_OPERATION,
       "req-local-qp-operation",
       "a LOCAL_INV of a key that names no MR",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(post("qpA", {{"wr_id", 1},
                                  {"opcode", "LOCAL_INV"},
                                  {"send_flags", json::array({"SIGNALED"})},
                                  {"invalidate_rkey", 4660}}));
       }},
      {E::REQ_UD_MESSAGE_TOO_LONG,
       "req-ud-message-too-long",
       "a UD SEND of 2048 bytes on a path MTU of 1024: nothing is sent, the WR succeeds",
       {"UD"},
       Pair{},
       [](json& s) { ud_send(s, 2048, "udqpB", kQkey); }},
      {E::PKT_QKEY_VIOLATION,
       "pkt-qkey-violation",
       "a UD SEND with a Q_Key other than the receiving QP's: dropped without an answer",
       {"UD"},
       Pair{},
       [](json& s) { ud_send(s, 64, "udqpB", "0x22222222"); }},
      {E::PKT_INVALID_DEST_QP,
       "pkt-invalid-dest-qp",
       "a UD SEND to a QP number that B does not have: dropped without an answer",
       {"UD"},
       Pair{},
       [](json& s) { ud_send(s, 64, "0x123456", kQkey); }},
      {E::PKT_PKEY_VIOLATION,
       "pkt-pkey-violation",
       "a SEND to a port of another partition (P_Key 0x8001), with retry_cnt 1: dropped, never "
       "answered, the requester gives up",
       {"RC"},
       other_pkey,
       [](json& s) { s.push_back(post("qpA", wr("SEND", sge("mrA", 64)))); }},
      {E::PKT_ICRC_ERROR,
       "pkt-icrc-error",
       "a SEND whose first copy has one bit flipped on the link: dropped for its ICRC, resent on "
       "the ACK timeout, then taken",
       {"RC"},
       one_corrupted,
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 64, 4096)));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
       }},
      // --- stimuli a conforming peer never sends: inject steps -----------------------------------
      {E::RESP_OPCODE_SEQUENCE,
       "resp-opcode-sequence",
       "an injected SEND MIDDLE with no message begun",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 2048, 4096)));
         s.push_back(inject("A", "qpB",
                            {{"opcode", "RC_SEND_MIDDLE"}, {"psn", 0}, {"payload", fill(1024)}}));
       }},
      {E::RESP_LENGTH,
       "resp-length",
       "an injected SEND FIRST of 100 bytes on a path MTU of 1024",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 2048, 4096)));
         s.push_back(
             inject("A", "qpB", {{"opcode", "RC_SEND_FIRST"}, {"psn", 0}, {"payload", fill(100)}}));
       }},
      {E::RESP_WRITE_LENGTH,
       "resp-write-length",
       "an injected RDMA WRITE ONLY whose RETH asks for 64 bytes and which carries 32",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(inject("A", "qpB",
                            {{"opcode", "RC_RDMA_WRITE_ONLY"},
                             {"psn", 0},
                             {"ackreq", true},
                             {"rkey", "mrB"},
                             {"va_offset", 0},
                             {"dmalen", 64},
                             {"payload", fill(32)}}));
       }},
      {E::RESP_MISALIGNED_ATOMIC,
       "resp-misaligned-atomic",
       "an injected FETCH_ADD at an address 4 bytes past 8-byte alignment (post_send refuses it "
       "before the wire)",
       {"RC", "ATOMIC"},
       Pair{},
       [](json& s) {
         s.push_back(inject("A", "qpB",
                            {{"opcode", "RC_FETCH_ADD"},
                             {"psn", 0},
                             {"ackreq", true},
                             {"rkey", "mrB"},
                             {"va_offset", 4},
                             {"swap_add", 1}}));
       }},
      {E::RESP_DUPLICATE_UNAVAILABLE,
       "resp-duplicate-unavailable",
       "after a SEND at PSN 0, an injected READ request at PSN 0: a duplicate that no responder "
       "resource holds, dropped",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 64, 4096)));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
         s.push_back(step({{"op", "run"}}));
         s.push_back(inject("A", "qpB",
                            {{"opcode", "RC_RDMA_READ_REQUEST"},
                             {"psn", 0},
                             {"ackreq", true},
                             {"rkey", "mrB"},
                             {"va_offset", 0},
                             {"dmalen", 64}}));
       }},
      {E::PKT_MALFORMED,
       "pkt-malformed",
       "an injected SEND ONLY with TVer 1: dropped; A's own SEND is then taken",
       {"RC"},
       Pair{},
       dropped_then_send(
           {{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"tver", 1}, {"payload", fill(64)}})},
      {E::PKT_ADDRESS_MISMATCH,
       "pkt-address-mismatch",
       "an injected SEND ONLY from an address other than the connected peer's: dropped; A's own "
       "SEND is then taken",
       {"RC"},
       Pair{},
       dropped_then_send({{"opcode", "RC_SEND_ONLY"},
                          {"psn", 0},
                          {"src_ip", "10.0.0.99"},
                          {"payload", fill(64)}})},
      {E::REQ_BAD_RESPONSE,
       "req-bad-response",
       "B's ACK of a SEND lost, then a READ RESPONSE ONLY for that SEND's PSN injected",
       {"RC"},
       answer_lost("ack"),
       forged_answer("SEND", {{"opcode", "RC_RDMA_READ_RESPONSE_ONLY"},
                              {"psn", 0},
                              {"syndrome", 0x1F},
                              {"msn", 1},
                              {"payload", fill(64)}})},
      {E::REQ_RESERVED_NAK,
       "req-reserved-nak",
       "B's ACK of a SEND lost, then a NAK with the reserved code 5 injected",
       {"RC"},
       answer_lost("ack"),
       forged_answer("SEND", {{"opcode", "RC_ACKNOWLEDGE"}, {"psn", 0}, {"syndrome", 0x65}})},
      {E::REQ_REMOTE_INVALID_RD_REQUEST,
       "req-remote-invalid-rd-request",
       "B's ACK of a SEND lost, then a NAK Invalid RD Request injected",
       {"RC"},
       answer_lost("ack"),
       forged_answer(
           "SEND",
           {{"opcode", "RC_ACKNOWLEDGE"}, {"psn", 0}, {"syndrome", "NAK_INVALID_RD_REQUEST"}})},
      {E::REQ_LOCAL_LENGTH,
       "req-local-length",
       "B's response to a 64-byte READ lost, then a READ RESPONSE ONLY of 128 bytes injected",
       {"RC"},
       answer_lost("read_response"),
       forged_answer("RDMA_READ", {{"opcode", "RC_RDMA_READ_RESPONSE_ONLY"},
                                   {"psn", 0},
                                   {"syndrome", 0x1F},
                                   {"msn", 1},
                                   {"payload", fill(128)}})},
      {E::QP_MODIFIED_TO_ERR,
       "qp-modified-to-err",
       "send and receive WRs posted, then both QPs moved to ERR before they run",
       {"RC"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 256, 4096)));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
         for (const char* q : {"qpA", "qpB"})
           s.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", {{"qp_state", "ERR"}}}}));
       }},
      {E::WR_POSTED_IN_ERR,
       "wr-posted-in-err",
       "a SEND and a receive posted to QPs in ERR",
       {"RC"},
       Pair{},
       [](json& s) {
         for (const char* q : {"qpA", "qpB"})
           s.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", {{"qp_state", "ERR"}}}}));
         s.push_back(step({{"op", "run"}}));
         s.push_back(recv("qpB", sge("mrB", 256, 4096)));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
       }},
  };
}

}  // namespace

std::vector<Generated> error_vectors() {
  std::vector<Generated> out;
  for (const Recipe& r : recipes()) {
    const errors::ErrorRow& row = errors::error_row(r.error);
    for (const char* profile : {"IBA", "RXE"}) {
      Vector v;
      v.id =
          fmt::format("errors/{}-{}-{}-00", lower(r.capabilities.front()), r.slug, lower(profile));
      v.objective =
          fmt::format("{} ({}, error profile {}): {}", row.name, r.what, profile, row.summary);
      v.clauses = {std::string(row.reference)};
      v.capabilities = r.capabilities;
      v.errors = {fmt::format("{} {}", row.name, profile)};
      out.push_back(pair_vector(std::move(v), r.pair, profile, r.stimulus));
    }
  }
  return out;
}

}  // namespace rocecert::vectors::detail
