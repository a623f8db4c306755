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

// What differs from the plain connected pair.
struct Pair {
  json b_qp_access = json::array({"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"});
  int b_max_dest_rd_atomic = 4;
  json a_mr_access = json::array({"LOCAL_WRITE"});
};

// Two RC QPs on one cable, A's and B's, in RTS, under `profile` on both adapters.
json pair_scenario(const Pair& p, const char* profile) {
  json sc;
  sc["seed"] = 1;
  const json prof = {{"error_profile", profile}};
  sc["adapters"] = json::array({adapter("A", "02:00:00:00:00:01", "10.0.0.1", prof),
                                adapter("B", "02:00:00:00:00:02", "10.0.0.2", prof)});
  sc["links"] = json::array({{{"a", "A"}, {"b", "B"}, {"latency_ns", 1000}, {"gbps", 25}}});
  json steps = json::array();
  for (const char* h : {"A", "B"}) {
    const bool a = h[0] == 'A';
    const std::string pd = fmt::format("pd{}", h), mr = fmt::format("mr{}", h),
                      cq = fmt::format("cq{}", h), q = fmt::format("qp{}", h);
    steps.push_back(step({{"op", "alloc_pd"}, {"adapter", h}, {"as", pd}}));
    steps.push_back(step({{"op", "reg_mr"},
                          {"pd", pd},
                          {"as", mr},
                          {"addr", a ? "0x10000" : "0x20000"},
                          {"length", 0x4000},
                          {"access", a ? p.a_mr_access
                                       : json::array({"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ",
                                                      "REMOTE_ATOMIC"})},
                          {"contents", {{"counter", 0}}}}));
    steps.push_back(step({{"op", "create_cq"}, {"adapter", h}, {"as", cq}, {"cqe", 16}}));
    steps.push_back(
        step({{"op", "create_qp"}, {"pd", pd}, {"as", q}, {"type", "RC"}, {"send_cq", cq}}));
  }
  for (const auto& [q, peer, access, rd] :
       {std::tuple{"qpA", "qpB", json::array({"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}), 4},
        std::tuple{"qpB", "qpA", p.b_qp_access, p.b_max_dest_rd_atomic}}) {
    steps.push_back(step({{"op", "modify_qp"},
                          {"qp", q},
                          {"attr",
                           {{"qp_state", "INIT"},
                            {"pkey_index", 0},
                            {"port_num", 1},
                            {"qp_access_flags", access}}}}));
    steps.push_back(step({{"op", "modify_qp"},
                          {"qp", q},
                          {"attr",
                           {{"qp_state", "RTR"},
                            {"path_mtu", 1024},
                            {"dest_qp_num", peer},
                            {"rq_psn", 0},
                            {"ah_attr", {{"peer", peer}}},
                            {"max_dest_rd_atomic", rd},
                            {"min_rnr_timer", 12}}}}));
    steps.push_back(step({{"op", "modify_qp"},
                          {"qp", q},
                          {"attr",
                           {{"qp_state", "RTS"},
                            {"sq_psn", 0},
                            {"timeout", 14},
                            {"retry_cnt", 7},
                            {"rnr_retry", 7},
                            {"max_rd_atomic", 4}}}}));
  }
  sc["steps"] = std::move(steps);
  return sc;
}

json sge(const char* lkey, std::uint32_t length, std::uint32_t offset = 0) {
  return json::array({{{"lkey", lkey}, {"offset", offset}, {"length", length}}});
}
json bad_sge(std::uint32_t length) {  // an lkey that was never registered
  return json::array({{{"lkey", 4660}, {"addr", "0x10000"}, {"length", length}}});
}
json post(const char* qp, json wr) {
  return step({{"op", "post_send"}, {"qp", qp}, {"wr", std::move(wr)}});
}
json recv(const char* qp, json sg) {
  return step({{"op", "post_recv"}, {"qp", qp}, {"wr", {{"wr_id", 100}, {"sg_list", sg}}}});
}
json wr(const char* opcode, json sg) {
  return {{"wr_id", 1},
          {"opcode", opcode},
          {"send_flags", json::array({"SIGNALED"})},
          {"sg_list", std::move(sg)}};
}
json remote(json w, json rkey = "mrB") {
  const bool named = rkey.is_string();
  w["rkey"] = std::move(rkey);
  if (named)
    w["remote_offset"] = 0;
  else
    w["remote_addr"] = "0x20000";  // B's buffer, under a key that does not exist
  return w;
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
         s.push_back(post("qpA", {{"wr_id", 1},
                                  {"opcode", "BIND_MW"},
                                  {"send_flags", json::array({"SIGNALED"})},
                                  {"bind",
                                   {{"mw", "mwA"},
                                    {"mr", "mrA"},
                                    {"offset", 0},
                                    {"length", 4096},
                                    {"access", json::array({"REMOTE_WRITE"})}}}}));
       }},
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

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<Generated> error_vectors() {
  std::vector<Generated> out;
  for (const Recipe& r : recipes()) {
    const errors::ErrorRow& row = errors::error_row(r.error);
    for (const char* profile : {"IBA", "RXE"}) {
      Vector v;
      v.id = fmt::format("errors/rc-{}-{}-00", r.slug, lower(profile));
      v.objective =
          fmt::format("{} ({}, error profile {}): {}", row.name, r.what, profile, row.summary);
      v.clauses = {std::string(row.reference)};
      v.capabilities = r.capabilities;
      v.errors = {fmt::format("{} {}", row.name, profile)};
      json sc = pair_scenario(r.pair, profile);
      sc["description"] = v.objective;
      r.stimulus(sc["steps"]);
      sc["steps"].push_back(step({{"op", "run"}}));
      out.push_back(record(std::move(v), std::move(sc)));
    }
  }
  return out;
}

}  // namespace rocecert::vectors::detail
