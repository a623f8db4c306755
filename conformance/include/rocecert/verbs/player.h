// A vector played on devices reached through verbs (docs/dut.md, "The verbs DUT"): every step
// of its scenario that is a verb (alloc_pd, reg_mr, dereg_mr, alloc_mw, create_cq, create_srq,
// create_qp, modify_qp, post_send, post_recv, post_srq_recv, arm_srq_limit) becomes a call on
// the Verbs of the adapter it names, with the vector's names turned into the device's numbers;
// `run` and `expect` steps poll. What the devices report (completions, asynchronous events, QP
// states, key changes) is recorded in the `rocecert check --events` format (docs/check.md,
// "Events"), for judging against a capture of the same run; the vector's expectations of
// completions, QP states, asynchronous events and memory are held against them.
//
// No frame is judged here: the wire is a real link, captured and checked by `rocecert check`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rocecert/conformance/scenario.h"
#include "rocecert/vectors/vectors.h"
#include "rocecert/verbs/verbs.h"

namespace rocecert::verbs {

// A vector the player cannot play at all (an adapter without a device). what(): "FILE: ..."
class PlayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether a vector can run on the devices, decided before anything is created: UNSUPPORTED with
// the reason when a device lacks what a step needs (a step the vector expects to be refused is
// not a need), when the vector declares a capability the device does not offer, or when it needs
// what no verbs device can do (forged frames, link faults).
struct Gate {
  bool runs = true;
  std::string reason;  // "B: atomic operations (atomic_cap is IBV_ATOMIC_NONE)"
};
// `caps`: per adapter name, its device's capabilities.
Gate gate(const vectors::Vector& v, const conformance::Scenario& sc,
          const std::map<std::string, DeviceCaps>& caps);

// What a vector's name became on the device (the player's name map).
struct Mapped {
  std::string adapter;
  std::string name;
  conformance::ObjectKind kind = conformance::ObjectKind::PD;
  std::uint32_t handle = 0;                     // PD, MR, MW, CQ, SRQ handle; the QPN for a QP
  std::uint32_t lkey = 0;                       // MR
  std::uint32_t rkey = 0;                       // MR; MW: its current rkey
  std::uint64_t host_addr = 0;                  // MR: where its bytes are on the host
  std::uint64_t iova = 0;                       // MR: the address its keys start at
  std::optional<std::uint32_t> sq_psn, rq_psn;  // QP: the PSNs modify_qp gave it
};

struct PlayOptions {
  // A `run` step polls until nothing has happened for settle_ns, and gives up after max_run_ns.
  std::uint64_t settle_ns = 50'000'000;
  std::uint64_t max_run_ns = 10'000'000'000;
  std::uint64_t poll_pause_ns = 1'000'000;  // between two polls that found nothing
  // Hold the devices to the vector's expect steps (completions, QP states, asynchronous events,
  // memory); false: only record (the frames are never compared here).
  bool check_expectations = true;
  // The host address the event log gives an adapter (default: its IP in the vector).
  std::map<std::string, std::string> hosts;
};

// A number a device gave that `rocecert check --setup` needs to know the vector's objects by on
// the wire (docs/check.md, "--setup"): a create_qp's QPN (dut_qpn), a reg_mr's rkey (dut_rkey),
// the rkey a BIND_MW gave its window (bind.dut_rkey); and the addresses the wire shows for them:
// the device's address of a region's first byte (its iova), a bind's start address.
struct DutNumber {
  enum class Kind { QPN, RKEY, IOVA, BIND_RKEY, BIND_ADDR };
  std::size_t step = 0;  // index in the scenario's steps
  Kind kind = Kind::QPN;
  std::uint64_t value = 0;
};

struct PlayResult {
  // Verbs answered otherwise than the vector says ("FILE: steps[7]: create_qp: expected success,
  // got EINVAL"), steps skipped because an object they name was not created, and expectations
  // the devices did not meet ("FILE: steps[16].completions.cqA[0]: status: ...").
  std::vector<std::string> errors;
  std::vector<std::string> events;  // JSON lines, rocecert check --events
  std::vector<Mapped> names;        // by adapter, then name
  std::vector<DutNumber> numbers;   // in step order
  // Not empty: the vector cannot be played on these devices after all, and why (found only
  // once an object is made: a CQ bigger than asked where the vector needs it to overflow).
  std::string unsupported;
  std::uint64_t verbs = 0;  // verbs called
};

class Player {
 public:
  // `devices`: a Verbs per adapter name of the vector; throws PlayError when an adapter has none.
  Player(const conformance::Scenario& sc, std::map<std::string, Verbs*> devices,
         PlayOptions options = {});
  PlayResult play();

 private:
  const conformance::Scenario& sc_;
  std::vector<Verbs*> devices_;  // per adapter index
  PlayOptions options_;
};

// The log as one text, a line per event.
std::string events_text(const PlayResult& r);

// The setup for `rocecert check --setup` of a capture of this run: the vector's scenario (the
// JSON text of the vector, or of its scenario alone) with the devices' numbers written into
// its steps (dut_qpn, dut_rkey, bind.dut_rkey) and the devices' addresses (a region's iova, a
// bind's addr), so that its MR table is the one the wire shows. Throws PlayError on text that is
// not a scenario's JSON, or steps that do not match the result's numbers.
std::string check_setup(const std::string& vector_json, const PlayResult& r);

}  // namespace rocecert::verbs
