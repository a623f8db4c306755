// What the generator's files share inside rocecert_vectors (vectors.h).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rocecert/qp/types.h"
#include "rocecert/vectors/vectors.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::vectors::detail {

using json = nlohmann::ordered_json;

inline constexpr const char* kQkey = "0x11111111";

std::string transport_name(wire::Transport t);
// ASCII lower case, for ids ("IBA" -> "iba").
std::string lower(std::string_view s);
json adapter(const char* name, const char* mac, const char* ip, const json& profile,
             std::uint32_t mtu = 1024);
json step(std::initializer_list<std::pair<const std::string, json>> fields);

// Runs `scenario` on the model, appends an expect step with what it did (frames, completions,
// QP states) and runs the result again, where it must pass; throws VectorError otherwise.
// Fills v.opcodes and v.scenario.
Generated record(Vector v, json scenario);

// Two RC QPs on one cable, A's and B's, in RTS (pair.cpp), and what differs from the plain pair.
struct Pair {
  json b_qp_access = json::array({"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"});
  int b_max_dest_rd_atomic = 4;
  int min_rnr_timer = 12;
  json a_mr_access = json::array({"LOCAL_WRITE"});
  json b_mr_access = json::array({"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"});
  std::uint32_t mtu = 1024;  // the ports' MTU and the QPs' path MTU
  std::uint32_t a_sq_psn = 0, b_sq_psn = 0;
  std::uint32_t b_rq_psn_back = 0;                 // B expects A's first PSN minus this (mod 2^24)
  std::uint32_t a_cqe = 16, b_cqe = 16;            // each side's one CQ (send and receive)
  int timeout = 14, retry_cnt = 7, rnr_retry = 7;  // both QPs' RTS attributes
  json faults;                                     // the link's fault plan; null: none
  json b_profile = json::object();                 // more of B's profile (docs/scenario.md)
};
json pair_scenario(const Pair& p, const char* error_profile);
// A vector on the pair: its setup, `stimulus`, a run to the end, recorded (record()); the
// scenario's description is the vector's objective.
Generated pair_vector(Vector v, const Pair& p, const char* error_profile,
                      const std::function<void(json& steps)>& stimulus);
// Steps and work requests for it: SGEs of A's or B's MR (or an lkey never registered), a
// post_send, a post_recv (wr_id 100), a work request, its remote half (an MR name or a number).
json sge(const char* lkey, std::uint32_t length, std::uint32_t offset = 0);
json bad_sge(std::uint32_t length);
json post(const char* qp, json wr);
json recv(const char* qp, json sg, std::uint64_t wr_id = 100);
json wr(const char* opcode, json sg, std::uint64_t wr_id = 1, bool signaled = true);
json remote(json w, json rkey = "mrB");
// A signaled BIND_MW work request: window `mw` over `length` bytes of `mr` from `offset`.
json bind_mw(const char* mw, const char* mr, std::uint64_t offset, std::uint64_t length,
             json access, std::uint64_t wr_id);
// An inject step (docs/scenario.md): `frame` put on the wire as if `from` had sent it to `qp`.
json inject(const char* from, const char* qp, json frame);
// A payload piece of `length` bytes of `fill`.
json fill(std::uint32_t length, std::uint8_t byte = 0x5A);

// The areas (opcodes.cpp, transitions.cpp, errors.cpp, bugs.cpp, boundary.cpp, reliability.cpp).
std::vector<Generated> opcode_vectors();
std::vector<Generated> transition_vectors();
std::vector<Generated> error_vectors();
std::vector<Generated> bug_vectors();
std::vector<Generated> boundary_vectors();
// From the scenario files in `scenarios_dir` (vectors/scenarios); none when it is empty.
std::vector<Generated> reliability_vectors(const std::string& scenarios_dir);

// Why a cell has no vector (coverage); empty when it should have one.
std::string no_vector_reason(const wire::OpcodeInfo& op);
std::string no_transition_reason(qp::QpType type, qp::QpState from, qp::QpState to);
// "RC RESET->INIT": a transition as vectors list it.
std::string transition_name(qp::QpType type, qp::QpState from, qp::QpState to);

}  // namespace rocecert::vectors::detail
