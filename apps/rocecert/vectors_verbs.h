// `rocecert vectors run --dut verbs:DEV_A[,DEV_B]`: the vectors' verbs steps played on RDMA
// devices through libibverbs (docs/dut.md, "The verbs DUT").
#pragma once

#include <string>
#include <vector>

#include "rocecert/check/profile.h"
#include "rocecert/vectors/vectors.h"

namespace rocecert::cli {

// True for a --dut that names verbs devices.
bool is_verbs_dut(const std::string& spec);

// One result per vector: UNSUPPORTED with the gate's reason, FAIL with the verbs the devices
// answered otherwise than the vector says and the expectations (completions, QP states,
// asynchronous events, memory; not frames) they did not meet, PASS otherwise. `events_dir`
// (optional): each vector's event log there, as <id with '/' as '_'>.events.jsonl. Throws
// vectors::VectorError when a device cannot be opened, or without libibverbs.
// `profile` (optional): applied to each result before it is printed (vectors_profile.h).
std::vector<vectors::Result> run_verbs(const std::vector<vectors::Loaded>& set,
                                       const std::string& spec, const std::string& events_dir,
                                       bool quiet, const check::Profile* profile = nullptr);

}  // namespace rocecert::cli
