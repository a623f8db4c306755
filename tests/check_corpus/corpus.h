// The generalisation corpus of `rocecert check` (docs/check-validation.md): traffic made by the
// golden model that the checker must never judge FAIL. For a seed, a scenario (RC, UC and UD QP
// pairs between two hosts, every request opcode, message sizes around the path MTU, PSNs near
// the 2^24 wrap, RNR, a bad rkey, retry exhaustion without a peer) with link faults picked by
// the seed (loss, duplication, reordering and delay of requests and of responses), run on the
// model and captured in memory at a tap point picked by the seed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/check/checker.h"
#include "rocecert/check/events.h"
#include "rocecert/check/profile.h"
#include "rocecert/check/report.h"
#include "rocecert/check/setup.h"
#include "rocecert/conformance/pcap_sink.h"

namespace rocecert::check_corpus {

// One generated case: everything needed to run it again.
// The requests a case's RC pairs draw from: the classic set (SEND, WRITE, READ, atomics; the
// seeds of docs/check-validation.md), or that set with FLUSH and ATOMIC WRITE (IBA 1.5), the
// MRs and QPs then granting the FLUSH placement types.
enum class Ops { classic, with_placements };

struct Case {
  std::uint64_t seed = 0;
  Ops ops = Ops::classic;
  std::string scenario;  // the scenario's JSON text (docs/scenario.md), runnable by `simulate`
  conformance::Tap tap;
  std::string fault_plan;  // one line: the fault rates and rules of the link
};

Case make_case(std::uint64_t seed, Ops ops = Ops::classic);

// "egress (before the faults)", "ingress (after the faults)", "host A", "host B".
std::string tap_name(const conformance::Tap& tap);

struct CapturedFrame {
  std::int64_t ts_ns = 0;
  std::vector<std::uint8_t> bytes;
};

// What a case produced.
struct Run {
  std::vector<CapturedFrame> frames;            // what the tap saw, in order (Ethernet)
  std::uint64_t sent = 0;                       // frames the adapters transmitted
  std::map<std::string, std::uint64_t> faults;  // fault action -> frames it hit
  std::set<std::string> opcodes;                // opcode names in the capture
  std::vector<std::string> failures;  // the runner's failures (a verb refused), "PATH: MESSAGE"
  std::uint64_t completions = 0;
  std::uint64_t end_ns = 0;  // simulated time at the end of the run
  // What the model did, to show the corpus reaches it: "RNR_NAK ..." / "NAK_..." (the AETH
  // name of each NAK a responder sent), "retry TIMEOUT" / "retry SEQUENCE_NAK" / ... (each
  // go-back-N), "completion RETRY_EXC_ERR" / ... (each completion that is not SUCCESS).
  std::map<std::string, std::uint64_t> events;
  std::map<std::string, std::uint32_t> qpns;  // the model's QPN of each QP, by scenario name
  // The scenario as a --setup (QP attributes, no keys: docs/check.md), with the model's QPNs.
  std::shared_ptr<const check::Setup> setup;
  // What a test program would log (--events): every completion in polling order, the QP states
  // its modify_qp steps set and the asynchronous events, in the order they happened.
  std::shared_ptr<const check::Events> log;
};

// Runs the case on the model. Throws conformance::ScenarioError if the scenario is unusable
// (a generator bug).
Run run_case(const Case& c);

// Feeds the capture to the streaming checker (in capture order, Ethernet link type), with the
// run's setup (the QPs' timing attributes) and, unless `with_log` is false, its --events log.
// `jobs`, `shard_drill`: Options::jobs and Options::shard_drill (sharded checking).
check::Report check_run(const Run& run, const check::Profile& profile, const std::string& name,
                        unsigned jobs = 1, std::uint32_t shard_drill = 0, bool with_log = true);

// Writes the capture as a pcap file (nanosecond timestamps), for `rocecert check FILE`.
void write_pcap(const Run& run, const std::string& path);

// The rule ids and causes of the violations that make `report` FAIL: those of Error rules
// that are neither declared deviations nor explained. Empty when the verdict is not FAIL.
std::vector<const check::Violation*> failing_violations(const check::Report& report);

// True when every failing violation of `report` is one `declared` lists as a deviation (rule
// and cause, "*" for any cause). The model reproduces Linux Soft-RoCE: judged with the strict
// IBA profile, its traffic may show those behaviours, and nothing else.
bool only_declared(const check::Report& report, const check::Profile& declared);

// A few lines for a failure message: seed, tap, fault plan, the first violations.
std::string describe(const Case& c, const Run& run, const check::Report& report,
                     const std::string& pcap_path);

// The profiles the corpus is judged with: "rxe" first (the model's defaults reproduce Linux
// Soft-RoCE), then the strict "iba".
std::vector<check::Profile> corpus_profiles();

// The problems of the reports of one capture, made with `profiles` (corpus_profiles() order),
// one line each: FAIL under the first profile; under another, a violation of an Error rule that
// the first does not declare as a deviation; INCONCLUSIVE without a note saying why;
// UNSUPPORTED (the corpus holds only RC, UC and UD traffic, which the checker models).
std::vector<std::string> judge(const std::vector<check::Report>& reports,
                               const std::vector<check::Profile>& profiles);

// One seed, run and judged with every profile.
struct Outcome {
  Case c;
  Run run;
  std::vector<check::Report> reports;  // one per profile, in corpus_profiles() order
  // What is wrong, one line each: a verb the model refused, a model still busy after 1 s of
  // simulated time (every case ends long before: a timer that keeps firing is a model bug), an
  // empty capture, a tap that did not see what the link did, and what judge() finds. The capture
  // and the scenario are then written to temp files, named in `detail`.
  std::vector<std::string> problems;
  std::string detail;
};
// How a seed is checked.
struct EvalOptions {
  // >= 2: the first profile's check is run again on that many threads, and a report that is not
  // the same, byte for byte in JSON, is a problem.
  unsigned compare_jobs = 0;
  Ops ops = Ops::classic;
  // False: checked without the run's --events log (idle QP pairs are retired only without one).
  bool with_log = true;
  // True: the capture loses its first frames (between one and all but one, drawn from the seed),
  // as a tap started while the QPs were already talking; checked without the log, which would
  // speak of what the capture no longer shows (docs/check-validation.md).
  bool cut_head = false;
};
Outcome evaluate(std::uint64_t seed, const std::vector<check::Profile>& profiles,
                 const EvalOptions& how = {});

std::string_view verdict_name(check::Verdict v);

// The number in a note just before `what` ("12 agreed" for " agreed"), 0 when absent: the
// golden replays' notes give their counts in words (docs/check.md).
std::uint64_t number_before(const std::string& note, std::string_view what);

// The request opcodes the corpus must put on the wire across a budget of seeds (RC, UC, UD:
// SEND, SEND with immediate, SEND with invalidate, WRITE, WRITE with immediate, READ,
// CMP_SWAP, FETCH_ADD, in their FIRST/MIDDLE/LAST/ONLY forms), and the responses.
const std::vector<std::string>& required_opcodes(Ops ops = Ops::classic);

}  // namespace rocecert::check_corpus
