// The `bugs` area (vectors/README.md): regression vectors named after the bug classes seen in
// real NICs, drivers and FPGA engines that show at the verbs or completion level
// (docs/bug-classes.md). Each is the stimulus that exposed
// the bug and what a correct implementation shows for it, as the model does it (RXE profile).
#include <fmt/format.h>

#include <functional>
#include <string_view>

#include "internal.h"

namespace rocecert::vectors::detail {
namespace {

struct Bug {
  const char* slug;
  const char* objective;
  std::vector<std::string> clauses;
  Pair pair;
  std::function<void(json& steps)> stimulus;
  // The status it expects differs between the error profiles: one twin each (`-iba-00`,
  // `-rxe-00`), as in the errors area, so that a device judged against either has its vector.
  bool both_profiles = false;
};

std::vector<Bug> bugs() {
  Pair rnr0;
  rnr0.min_rnr_timer = 0;
  return {
      {"post-recv-in-reset",
       "post_recv on a QP in RESET is refused (rxe accepted it: rdma-core PR #1139); once the "
       "QP is in INIT it is taken",
       {"IBA Vol. 1 §10.3.1 (RESET: no work requests), §11.4.1.2 (Post Receive Request)",
        "docs/spec-notes.md §6.3"},
       Pair{},
       [](json& s) {
         s.push_back(step({{"op", "create_qp"},
                           {"pd", "pdB"},
                           {"as", "qpR"},
                           {"type", "RC"},
                           {"send_cq", "cqB"}}));
         json r = recv("qpR", sge("mrB", 64, 4096));
         r["expect_error"] = "INVALID_STATE";
         s.push_back(std::move(r));
         s.push_back(step({{"op", "modify_qp"},
                           {"qp", "qpR"},
                           {"attr",
                            {{"qp_state", "INIT"},
                             {"pkey_index", 0},
                             {"port_num", 1},
                             {"qp_access_flags", json::array({"REMOTE_WRITE"})}}}}));
         s.push_back(recv("qpR", sge("mrB", 64, 4096), 101));
       }},
      {"sq-flushed-in-err",
       "in ERR both queues are flushed, the send queue too (an X722 flushed only the receive "
       "queue: ceph issue #25447): three SENDs and three receives complete WR_FLUSH_ERR, in order",
       {"IBA Vol. 1 §10.7.3.1 (ERR: flush both work queues)", "docs/spec-notes.md §6.5"},
       Pair{},
       [](json& s) {
         for (std::uint64_t i = 0; i < 3; ++i)
           s.push_back(
               recv("qpA", sge("mrA", 64, static_cast<std::uint32_t>(4096 + 64 * i)), 200 + i));
         for (std::uint64_t i = 0; i < 3; ++i)
           s.push_back(post("qpA", wr("SEND", sge("mrA", 64), 1 + i)));
         s.push_back(step({{"op", "modify_qp"}, {"qp", "qpA"}, {"attr", {{"qp_state", "ERR"}}}}));
       }},
      {"flush-completions-not-dropped",
       "every flushed WR completes, unsignaled ones too (flush completions silently dropped: "
       "libfabric issue #4756)",
       {"IBA Vol. 1 §10.7.3.1, §11.4.2.1 (an error completion whatever the signaling)",
        "docs/spec-notes.md §5.6, §6.5"},
       Pair{},
       [](json& s) {
         for (std::uint64_t i = 0; i < 3; ++i)
           s.push_back(post("qpA", wr("SEND", sge("mrA", 64), 1 + i, i == 2)));
         s.push_back(step({{"op", "modify_qp"}, {"qp", "qpA"}, {"attr", {{"qp_state", "ERR"}}}}));
       }},
      {"invalid-lkey-error-completion",
       "an invalid lkey on an unsignaled SEND still completes in error (rxe produced none: Linux "
       "fix abe31d25facd)",
       {"IBA Vol. 1 §10.6 (local key check), §11.4.2.1", "docs/spec-notes.md §5.5, §5.7"},
       Pair{},
       [](json& s) { s.push_back(post("qpA", wr("SEND", bad_sge(64), 1, false))); },
       true},
      {"zero-length-read",
       "an RDMA READ of zero bytes is answered by one empty READ RESPONSE ONLY and completes "
       "(broken by an rdma-core change: PR #1268)",
       {"IBA Vol. 1 §9.4.3 (RDMA READ), §10.6 (zero-length accesses are not key-checked)",
        "docs/spec-notes.md §2.1, §7.3"},
       Pair{},
       [](json& s) { s.push_back(post("qpA", remote(wr("RDMA_READ", sge("mrA", 0))))); }},
      {"psn-not-kept-across-reconnect",
       "after RESET and a new RTS with another sq_psn, the requester sends from the new PSN (an "
       "engine kept the old one: slaclab/rogue PR #1268)",
       {"IBA Vol. 1 §10.3.1 (RESET clears the QP), §11.2.5.2 (sq_psn)",
        "docs/spec-notes.md §3.2, §6.4"},
       Pair{},
       [](json& s) {
         s.push_back(recv("qpB", sge("mrB", 64, 4096)));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
         s.push_back(step({{"op", "run"}}));
         for (const auto& [q, peer, psn] :
              {std::tuple{"qpA", "qpB", 5000}, std::tuple{"qpB", "qpA", 9000}}) {
           const json steps[] = {
               {{"qp_state", "RESET"}},
               {{"qp_state", "INIT"},
                {"pkey_index", 0},
                {"port_num", 1},
                {"qp_access_flags", json::array({"REMOTE_WRITE", "REMOTE_READ"})}},
               {{"qp_state", "RTR"},
                {"path_mtu", 1024},
                {"dest_qp_num", peer},
                {"rq_psn", psn == 5000 ? 9000 : 5000},
                {"ah_attr", {{"peer", peer}}},
                {"max_dest_rd_atomic", 4},
                {"min_rnr_timer", 12}},
               {{"qp_state", "RTS"},
                {"sq_psn", psn},
                {"timeout", 14},
                {"retry_cnt", 7},
                {"rnr_retry", 7},
                {"max_rd_atomic", 4}}};
           for (const json& attr : steps)
             s.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", attr}}));
         }
         s.push_back(recv("qpB", sge("mrB", 64, 4096), 101));
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64), 2)));
       }},
      {"stale-rkey-after-dereg",
       "after ibv_dereg_mr the MR's rkey is refused: a WRITE that carries it gets a remote access "
       "NAK and writes nothing (a stale rkey reused after deregistration made requests execute "
       "twice: ydb-platform/nbs issue #5729)",
       {"IBA Vol. 1 §10.6.7.2 (deregistration invalidates the MR's keys), §9.7.5.2.4 (NAK: "
        "remote access error)",
        "docs/spec-notes.md §7.1, §7.3"},
       Pair{},
       [](json& s) {
         s.push_back(post("qpA", remote(wr("RDMA_WRITE", sge("mrA", 64)))));
         s.push_back(step({{"op", "run"}}));
         s.push_back(step({{"op", "dereg_mr"}, {"mr", "mrB"}}));
         s.push_back(post("qpA", remote(wr("RDMA_WRITE", sge("mrA", 64, 64), 2))));
         s.push_back(step({{"op", "run"}}));
         // B's first 64 bytes still hold the first WRITE (A's bytes 0-63), not the second's.
         s.push_back(step(
             {{"op", "expect"},
              {"memory",
               json::array({{{"mr", "mrB"}, {"offset", 0}, {"counter", 0}, {"length", 64}}})}}));
       }},
      {"min-rnr-timer-zero",
       "min_rnr_timer 0 is 655.36 ms, not zero (an engine retried at once and collapsed: "
       "NVIDIA/daqiri issue #138): one RNR NAK, one retry 655 ms later, not a storm",
       {"IBA Vol. 1 §9.7.5.2.8 (RNR NAK timer field, table 45: 0 = 655.36 ms)",
        "docs/spec-notes.md §4.2"},
       rnr0,
       [](json& s) {
         s.push_back(post("qpA", wr("SEND", sge("mrA", 64))));
         s.push_back(step({{"op", "run"}, {"for_ns", 1'000'000}}));
         s.push_back(recv("qpB", sge("mrB", 64, 4096)));
       }},
  };
}

}  // namespace

std::vector<Generated> bug_vectors() {
  std::vector<Generated> out;
  for (const Bug& b : bugs()) {
    for (const char* profile : {"IBA", "RXE"}) {
      if (!b.both_profiles && std::string_view(profile) != "RXE") continue;
      Vector v;
      v.id = b.both_profiles ? fmt::format("bugs/{}-{}-00", b.slug, lower(profile))
                             : fmt::format("bugs/{}-00", b.slug);
      v.objective = b.both_profiles ? fmt::format("{}, error profile {}", b.objective, profile)
                                    : std::string(b.objective);
      v.clauses = b.clauses;
      v.capabilities = {"RC"};
      out.push_back(pair_vector(std::move(v), b.pair, profile, b.stimulus));
    }
  }
  return out;
}

}  // namespace rocecert::vectors::detail
