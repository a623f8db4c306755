// Two connected RC QPs (internal.h), the base of the errors and bugs areas.
#include <fmt/format.h>

#include "internal.h"

namespace rocecert::vectors::detail {

json pair_scenario(const Pair& p, const char* profile) {
  json sc;
  sc["seed"] = 1;
  const json prof = {{"error_profile", profile}};
  json prof_b = prof;
  prof_b.update(p.b_profile);
  sc["adapters"] = json::array({adapter("A", "02:00:00:00:00:01", "10.0.0.1", prof, p.mtu),
                                adapter("B", "02:00:00:00:00:02", "10.0.0.2", prof_b, p.mtu)});
  sc["links"] = json::array({{{"a", "A"}, {"b", "B"}, {"latency_ns", 1000}, {"gbps", 25}}});
  if (!p.faults.is_null()) sc["links"][0]["faults"] = p.faults;
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
                          {"access", a ? p.a_mr_access : p.b_mr_access},
                          {"contents", {{"counter", 0}}}}));
    steps.push_back(
        step({{"op", "create_cq"}, {"adapter", h}, {"as", cq}, {"cqe", a ? p.a_cqe : p.b_cqe}}));
    steps.push_back(
        step({{"op", "create_qp"}, {"pd", pd}, {"as", q}, {"type", "RC"}, {"send_cq", cq}}));
  }
  for (const auto& [q, peer, access, rd, sq, rq] :
       {std::tuple{"qpA", "qpB", json::array({"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}), 4,
                   p.a_sq_psn, p.b_sq_psn},
        std::tuple{"qpB", "qpA", p.b_qp_access, p.b_max_dest_rd_atomic, p.b_sq_psn,
                   (p.a_sq_psn - p.b_rq_psn_back) & 0xFFFFFFu}}) {
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
                            {"path_mtu", p.mtu},
                            {"dest_qp_num", peer},
                            {"rq_psn", rq},
                            {"ah_attr", {{"peer", peer}}},
                            {"max_dest_rd_atomic", rd},
                            {"min_rnr_timer", p.min_rnr_timer}}}}));
    steps.push_back(step({{"op", "modify_qp"},
                          {"qp", q},
                          {"attr",
                           {{"qp_state", "RTS"},
                            {"sq_psn", sq},
                            {"timeout", p.timeout},
                            {"retry_cnt", p.retry_cnt},
                            {"rnr_retry", p.rnr_retry},
                            {"max_rd_atomic", 4}}}}));
  }
  sc["steps"] = std::move(steps);
  return sc;
}

Generated pair_vector(Vector v, const Pair& p, const char* error_profile,
                      const std::function<void(json& steps)>& stimulus) {
  json sc = pair_scenario(p, error_profile);
  sc["description"] = v.objective;
  stimulus(sc["steps"]);
  sc["steps"].push_back(step({{"op", "run"}}));
  return record(std::move(v), std::move(sc));
}

json sge(const char* lkey, std::uint32_t length, std::uint32_t offset) {
  return json::array({{{"lkey", lkey}, {"offset", offset}, {"length", length}}});
}
json bad_sge(std::uint32_t length) {  // an lkey that was never registered
  return json::array({{{"lkey", 4660}, {"addr", "0x10000"}, {"length", length}}});
}
json post(const char* qp, json wr) {
  return step({{"op", "post_send"}, {"qp", qp}, {"wr", std::move(wr)}});
}
json bind_mw(const char* mw, const char* mr, std::uint64_t offset, std::uint64_t length,
             json access, std::uint64_t wr_id) {
  return {{"wr_id", wr_id},
          {"opcode", "BIND_MW"},
          {"send_flags", json::array({"SIGNALED"})},
          {"bind",
           {{"mw", mw},
            {"mr", mr},
            {"offset", offset},
            {"length", length},
            {"access", std::move(access)}}}};
}
json inject(const char* from, const char* qp, json frame) {
  return step({{"op", "inject"}, {"from", from}, {"qp", qp}, {"frame", std::move(frame)}});
}
json fill(std::uint32_t length, std::uint8_t byte) {
  return {{"fill", byte}, {"length", length}};
}
json recv(const char* qp, json sg, std::uint64_t wr_id) {
  return step({{"op", "post_recv"}, {"qp", qp}, {"wr", {{"wr_id", wr_id}, {"sg_list", sg}}}});
}
json wr(const char* opcode, json sg, std::uint64_t wr_id, bool signaled) {
  return {{"wr_id", wr_id},
          {"opcode", opcode},
          {"send_flags", signaled ? json::array({"SIGNALED"}) : json::array()},
          {"sg_list", std::move(sg)}};
}
json remote(json w, json rkey) {
  const bool named = rkey.is_string();
  w["rkey"] = std::move(rkey);
  if (named)
    w["remote_offset"] = 0;
  else
    w["remote_addr"] = "0x20000";  // B's buffer, under a key that does not exist
  return w;
}

}  // namespace rocecert::vectors::detail
