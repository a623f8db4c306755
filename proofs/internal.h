// Shared by the proofs' files: the transcriptions of the model's functions, and one proof's
// entry point per file.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rocecert/errors/arbitration.h"
#include "rocecert/errors/error_table.h"
#include "rocecert/mem/access_check.h"
#include "rocecert/mem/mem_table.h"
#include "rocecert/proofs/proofs.h"

namespace rocecert::proofs::detail {

// qp::psn_diff (refmodel/include/rocecert/qp/ids.h) on 32-bit bit-vectors: the signed serial
// distance a - b of two 24-bit PSNs. BROKEN: the half-window boundary one further (2^23 + 1).
z3::expr psn_diff(z3::context& c, const z3::expr& a, const z3::expr& b, Variant v);
// mem::range_within (refmodel/include/rocecert/mem/range.h) on bit-vectors of the operands'
// width (64 for the model's words). BROKEN: the naive end compare start + length <= base +
// base_length, which wraps.
z3::expr range_within(z3::context& c, const z3::expr& start, const z3::expr& length,
                      const z3::expr& base, const z3::expr& base_length, Variant v);

// The specification's formulas those two are proved equal to (MEM.RANGE_WITHIN), in exact
// arithmetic one bit wider than the words: base <= start and start + length <= base +
// base_length <= 2^w; and start + length <= 2^w.
z3::expr spec_within(z3::context& c, const z3::expr& start, const z3::expr& length,
                     const z3::expr& base, const z3::expr& base_length);
z3::expr spec_fits(z3::context& c, const z3::expr& start, const z3::expr& length);

// How a transcription that calls range_within/range_fits states them: as transcribed (what the
// tests hold to the compiled functions), or through the formulas MEM.RANGE_WITHIN proves them
// equal to, for every input (a lemma: the proofs built on it are as strong, and the solver no
// longer has to rediscover the wrap reasoning in each, which took it 11-13 minutes).
enum class Ranges { TRANSCRIBED, BY_LEMMA };

// The fields mem::check_access reads, as bit-vectors (op, outcome: the enums' numbers; the
// access flags: ibv_access_flags bits).
struct AccessVars {
  z3::expr op, key, pd, qpn, va, length, placement, whole;
  z3::expr has_mr, mr_lkey, mr_rkey, mr_pd, mr_valid, mr_access, mr_iova, mr_length, mr_host;
  z3::expr has_mw, mw_rkey, mw_pd, mw_valid, mw_type2, mw_qpn, mw_access, mw_addr, mw_length;
};
AccessVars access_vars(z3::context& c, const std::string& prefix);
// mem::check_access (refmodel/mem/access_check.cpp): the mem::AccessOutcome, as an 8-bit number.
z3::expr check_access(z3::context& c, const AccessVars& x, Variant v, Ranges ranges);
// mem::range_fits.
z3::expr range_fits(z3::context& c, const z3::expr& start, const z3::expr& length);

// The fields mem::check_bind reads (the window's MR: has_mr).
struct BindVars {
  z3::expr qp_pd, mw_type2, mw_valid, mw_pd, has_mr, mr_pd, mr_valid, mr_access, mr_iova, mr_length,
      addr, length, access;
};
BindVars bind_vars(z3::context& c, const std::string& prefix);
// mem::check_bind (refmodel/mem/mem_table.cpp) == OK.
z3::expr bind_accepted(z3::context& c, const BindVars& x, Variant v, Ranges ranges);

// errors::precedence_compare (refmodel/errors/arbitration.cpp) evaluated through its
// transcription in arbitration.cpp: -1, 0 or 1.
int eval_precedence(const errors::ErrorEvent& a, const errors::ErrorEvent& b);

// One error event as errors::isolate() sees it: the index of its QP, its class (8-bit), and
// whether it concerns the resource being isolated.
struct IsolationEvent {
  z3::expr qp, cls, concerns;
};
// One pass of errors::isolate()'s loop (refmodel/errors/arbitration.cpp) over the arrays of the
// QPs' states, types and attachment; returns the new states array.
z3::expr isolate_step(z3::context& c, const z3::expr& states, const z3::expr& types,
                      const z3::expr& attached, const IsolationEvent& e, const z3::expr& profile,
                      Variant v);
// The QPs' states after isolate_step over `events` in PRECEDENCE order (for the tests that hold
// the transcription to errors::isolate()).
std::map<errors::QpKey, qp::QpState> eval_isolation(const errors::ResourceRef& resource,
                                                    std::span<const errors::QpAttachment> qps,
                                                    std::span<const errors::ErrorEvent> events,
                                                    errors::ErrorProfile profile);

// errors::arbitrate()'s ROUND_ROBIN loop unrolled over events already in PRECEDENCE order, owned
// by the 8-bit QP keys `owner` (key order = QpKey order), from the cursor (has_last, last):
// chosen[k] is the index of the event handled k-th, owner_at[k] its QP.
struct RoundRobinRun {
  std::vector<z3::expr> chosen, owner_at;
};
RoundRobinRun round_robin_run(z3::context& c, const std::vector<z3::expr>& owner,
                              const z3::expr& has_last, const z3::expr& last, Variant v);
// The handling order round_robin_run gives (for the tests that hold it to errors::arbitrate()).
std::vector<errors::ErrorEvent> eval_round_robin(std::span<const errors::ErrorEvent> events,
                                                 errors::RoundRobinCursor cursor);

// errors::tier_of over an 8-bit error class, read from the errors table class by class.
z3::expr error_tier(z3::context& c, const z3::expr& cls);

// The same transcriptions evaluated on numbers (for the tests that hold them to the C++).
std::int32_t eval_psn_diff(std::uint32_t a, std::uint32_t b);
bool eval_range_within(std::uint64_t start, std::uint64_t length, std::uint64_t base,
                       std::uint64_t base_length);
mem::AccessOutcome eval_check_access(const mem::AccessTarget& t, const mem::AccessRequest& r);
bool eval_bind_accepted(const mem::QpRef& qp, const mem::MemoryWindow& mw,
                        const mem::MemoryRegion* mr, const mem::BindMwWr& wr);
// The context the eval_* functions build their literals in (one per thread, reused: a context
// per call is slow).
z3::context& scratch();

// Looks for a counterexample to `claim` (true for every value of its constants): none means it
// is proved; otherwise the solver's model of one.
std::optional<z3::model> refute(z3::context& c, const z3::expr& claim);
// The outcome of proving `claim`: proved, or the counterexample `describe` makes of the model.
Outcome settle(z3::context& c, const z3::expr& claim,
               const std::function<std::string(const z3::model&)>& describe);

// One proof per function (psn.cpp, bounds.cpp, transitions.cpp).
Outcome prove_psn_serial_order(Variant v, const Options& options);
Outcome prove_psn_responder_regions(Variant v, const Options& options);
Outcome prove_range_within(Variant v, const Options& options);
Outcome prove_transitions_reachable(Variant v, const Options& options);
Outcome prove_err_exits(Variant v, const Options& options);
Outcome prove_attrs_disjoint(Variant v, const Options& options);
Outcome prove_arbitration_order(Variant v, const Options& options);
Outcome prove_key_check(Variant v, const Options& options);
Outcome prove_mw_binding(Variant v, const Options& options);
Outcome prove_errors_table(Variant v, const Options& options);
Outcome prove_isolation(Variant v, const Options& options);
Outcome prove_round_robin(Variant v, const Options& options);
// ERR.TABLE over any table of the model's shape (the tests break it one cell at a time).
using ErrorTable = std::array<errors::ErrorRow, errors::kErrorClassCount>;
Outcome prove_errors_table_of(const ErrorTable& t);

// "0x1234" for a bit-vector value of a model.
std::string hex_of(const z3::model& m, const z3::expr& e);

}  // namespace rocecert::proofs::detail
