// A vector's expectations held against what the devices reported (the `expect` step,
// docs/scenario.md): completions, asynchronous events, memory. Pure functions: the player
// collects, these compare. The vector names objects; `number` gives an object's number on its
// device (a QP's QPN, a CQ's or SRQ's handle), nullopt when it was never created.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rocecert/conformance/scenario.h"
#include "rocecert/verbs/verbs.h"

namespace rocecert::verbs {

using NumberOf = std::function<std::optional<std::uint32_t>(conformance::ObjId)>;

// "steps[16].completions.cqA[0]: status: expected SUCCESS, got REM_ACCESS_ERR", one per
// completion that differs, is missing or was not expected (exactly these, in this order).
std::vector<std::string> compare_completions(const conformance::CqExpect& e,
                                             const std::vector<cq::Wc>& got,
                                             const conformance::Scenario& sc,
                                             const NumberOf& number);
std::vector<std::string> compare_async_events(const conformance::AsyncExpect& e,
                                              const std::vector<AsyncEvent>& got,
                                              const conformance::Scenario& sc,
                                              const NumberOf& number);
// Empty when `have` (the bytes at the expectation's address on the host) are the expected ones.
std::string compare_memory(const conformance::MemoryExpect& m,
                           const std::vector<std::uint8_t>& have);

}  // namespace rocecert::verbs
