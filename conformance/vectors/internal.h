// What the generator's files share inside rocecert_vectors (vectors.h).
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "rocecert/qp/types.h"
#include "rocecert/vectors/vectors.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::vectors::detail {

using json = nlohmann::ordered_json;

inline constexpr const char* kQkey = "0x11111111";

std::string transport_name(wire::Transport t);
json adapter(const char* name, const char* mac, const char* ip, const json& profile);
json step(std::initializer_list<std::pair<const std::string, json>> fields);

// Runs `scenario` on the model, appends an expect step with what it did (frames, completions,
// QP states) and runs the result again, where it must pass; throws VectorError otherwise.
// Fills v.opcodes and v.scenario.
Generated record(Vector v, json scenario);

// The areas (opcodes.cpp, transitions.cpp, errors.cpp, reliability.cpp).
std::vector<Generated> opcode_vectors();
std::vector<Generated> transition_vectors();
std::vector<Generated> error_vectors();
// From the scenario files in `scenarios_dir` (vectors/scenarios); none when it is empty.
std::vector<Generated> reliability_vectors(const std::string& scenarios_dir);

// Why a cell has no vector (coverage); empty when it should have one.
std::string no_vector_reason(const wire::OpcodeInfo& op);
std::string no_transition_reason(qp::QpType type, qp::QpState from, qp::QpState to);
// "RC RESET->INIT": a transition as vectors list it.
std::string transition_name(qp::QpType type, qp::QpState from, qp::QpState to);

}  // namespace rocecert::vectors::detail
