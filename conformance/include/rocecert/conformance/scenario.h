// A scenario: adapters, links and an ordered list of steps (verbs, runs of simulated time,
// expectations), loaded from JSON and validated completely before anything runs
// (docs/scenario.md is the format reference, conformance/scenario/scenario.schema.json its schema).
//
// Everything the JSON names is resolved here: adapter MACs and GIDs, MR addresses, address
// vectors built from a peer's name. What only exists once the model runs (PD handles, keys,
// QPNs, CQ ids) is kept as a reference to the scenario object that will hold it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rocecert/cq/wc.h"
#include "rocecert/mem/mem_table.h"
#include "rocecert/model/adapter.h"
#include "rocecert/model/faults.h"
#include "rocecert/qp/attr.h"
#include "rocecert/qp/qp_table.h"
#include "rocecert/qp/transitions.h"
#include "rocecert/sim/event_queue.h"
#include "rocecert/tx/work_request.h"
#include "rocecert/wire/encode.h"

namespace rocecert::conformance {

// An unusable scenario (a configuration problem, thrown at the boundary and reported
// once by the CLI). what() is one line: "FILE: PATH: MESSAGE", where PATH is the JSON path of the
// offending value (e.g. `steps[4].wr.sg_list[0].lkey`), or "FILE: byte N (line L, column C):
// MESSAGE" for JSON that does not parse, or "FILE: MESSAGE" when the file cannot be read.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, std::string path, std::string message);
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }  // JSON path, or "byte N (line L, column C)"
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::string path_;
  std::string message_;
};

// Index of a named object in Scenario::objects.
using ObjId = std::uint32_t;
inline constexpr ObjId kNoObj = UINT32_MAX;

enum class ObjectKind : std::uint8_t { ADAPTER, PD, MR, MW, CQ, QP, SRQ };
std::string_view to_string(ObjectKind k);  // "adapter", "PD", "MR", "MW", "CQ", "QP", "SRQ"

struct NamedObject {
  ObjectKind kind = ObjectKind::ADAPTER;
  std::string name;
  ObjId adapter = kNoObj;         // the adapter it lives on (itself for an adapter)
  std::size_t adapter_index = 0;  // index into Scenario::adapters
  std::size_t step = SIZE_MAX;    // the step that creates it (SIZE_MAX: an adapter)
  std::string path;               // where it is declared
  // MR only: the registered range (host address, iova) — known statically.
  std::uint64_t mr_addr = 0;
  std::uint64_t mr_iova = 0;
  std::uint64_t mr_length = 0;
  // QP only: its type.
  qp::QpType qp_type = qp::QpType::RC;
};

struct AdapterSpec {
  ObjId object = kNoObj;
  std::string path;
  model::AdapterConfig config;  // name, MAC, GID, port MTU, profile, QP table config
  std::string json;             // its declaration as written (compact JSON), for DUT plugins
};

// A fault rule that names a QP ("qp=qpB"): the rule's DestQP match is that QP's number, known
// once the QP is created.
struct RuleQpRef {
  std::size_t rule = 0;  // index into LinkSpec::faults.rules
  ObjId qp = kNoObj;
  std::string path;  // the rule's JSON path
};

struct LinkSpec {
  std::string path;
  std::size_t a = 0;  // indices into Scenario::adapters
  std::size_t b = 0;
  sim::SimTime latency_ns = 1000;
  double gbps = 0;
  // Fault injection (docs/faults.md). Rules naming QPs get their DestQP at run time; the plan is
  // installed on the link when the link is made, or, when rules name QPs, right after the step
  // that creates the last of them (install_after_step).
  model::FaultPlan faults;
  std::vector<RuleQpRef> rule_qps;
  std::size_t install_after_step = SIZE_MAX;  // SIZE_MAX: from the start
};

// A 32-bit key, a QPN: a literal, or the value a scenario object gets when it is created.
struct KeyRef {
  ObjId object = kNoObj;  // an MR (lkey or rkey, by use) or an MW (its rkey); kNoObj: literal
  std::uint32_t value = 0;
};
struct QpnRef {
  ObjId qp = kNoObj;  // kNoObj: literal
  std::uint32_t value = 0;
};

struct SgeSpec {
  std::uint64_t addr = 0;
  std::uint32_t length = 0;
  KeyRef lkey;
};

// --- steps ---------------------------------------------------------------------------------

struct AllocPdStep {
  ObjId pd = kNoObj;
};

// Bytes at an offset: MR initial contents ("contents") and memory expectations.
struct MemoryPiece {
  std::uint64_t offset = 0;
  std::vector<std::uint8_t> bytes;
};

struct RegMrStep {
  ObjId mr = kNoObj;
  ObjId pd = kNoObj;
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
  mem::Access access = mem::Access::NONE;
  std::optional<std::uint64_t> iova;
  std::vector<MemoryPiece> contents;  // written to host memory at addr + offset before reg_mr
  std::optional<mem::MemErrc> expect_error;  // absent: must succeed
  // The rkey the device under test gave this MR, for `rocecert check --setup`; the model
  // allocates its own and does not read it.
  std::optional<std::uint32_t> dut_rkey;
};

struct AllocMwStep {
  ObjId mw = kNoObj;
  ObjId pd = kNoObj;
  mem::MwType type = mem::MwType::TYPE_2;
  std::optional<mem::MemErrc> expect_error;
};

// ibv_dereg_mr. The MR's name keeps its keys: a later work request naming it carries the stale
// lkey or rkey, which is how a vector tests that a deregistered key is refused.
struct DeregMrStep {
  ObjId mr = kNoObj;
  std::optional<mem::MemErrc> expect_error;  // absent: must succeed
};

struct CreateCqStep {
  ObjId cq = kNoObj;
  std::uint32_t cqe = 64;
};

struct CreateQpStep {
  ObjId qp = kNoObj;
  ObjId pd = kNoObj;
  ObjId send_cq = kNoObj;
  ObjId recv_cq = kNoObj;
  qp::QpType type = qp::QpType::RC;
  qp::QpCaps caps;
  bool sq_sig_all = false;
  ObjId srq = kNoObj;  // kNoObj: the QP has its own receive queue
  std::optional<qp::ModifyError> expect_error;
  // The QP number the device under test gave this QP, for `rocecert check --setup`; the model
  // hands out its own.
  std::optional<std::uint32_t> dut_qpn;
};

// ibv_create_srq: a shared receive queue on the PD's adapter (the model keeps no PD on it).
struct CreateSrqStep {
  ObjId srq = kNoObj;
  std::uint32_t max_wr = 64;
  std::uint32_t max_sge = 4;
};

struct PostSrqRecvStep {
  ObjId srq = kNoObj;
  std::uint64_t wr_id = 0;
  std::vector<SgeSpec> sg_list;
  std::optional<model::PostError> expect_error;
};

// ibv_modify_srq with IBV_SRQ_LIMIT: SRQ_LIMIT_REACHED fires once when fewer WQEs remain.
struct ArmSrqLimitStep {
  ObjId srq = kNoObj;
  std::uint32_t limit = 0;
};

struct ModifyQpStep {
  ObjId qp = kNoObj;
  qp::QpAttr attr;  // ah_attr fully resolved; dest_qp_num filled from dest_qpn at run time
  qp::AttrMask mask;
  QpnRef dest_qpn;
  std::optional<qp::ModifyError> expect_error;
};

struct PostRecvStep {
  ObjId qp = kNoObj;
  std::uint64_t wr_id = 0;
  std::vector<SgeSpec> sg_list;
  std::optional<model::PostError> expect_error;
};

struct PostSendStep {
  ObjId qp = kNoObj;
  // Literal fields already set (wr_id, opcode, flags, inline data, imm_data, remote_addr,
  // compare_add, swap, remote_qkey, bind_addr/length/access, flush_*); the references below are
  // filled in at run time.
  tx::SendWr wr;
  std::vector<SgeSpec> sg_list;
  bool inline_from_sg = false;  // INLINE without inline_data: copy the SGEs' bytes at post time
  KeyRef rkey;
  KeyRef invalidate_rkey;
  KeyRef bind_mw;  // BIND_MW: the window (its current rkey)
  KeyRef bind_mr;  // BIND_MW: the MR (its lkey)
  // BIND_MW: the rkey the device under test gave the window (rocecert check --setup)
  std::optional<std::uint32_t> bind_dut_rkey;
  QpnRef remote_qpn;                    // UD
  std::optional<qp::AddressVector> ah;  // UD: the address handle to create for this WR
  std::optional<model::PostError> expect_error;
};

// A frame put on the wire as if adapter `from` had sent it, toward QP `dest_qp` of adapter `to`
// (docs/scenario.md, inject): the stimuli a conforming peer never sends (a broken opcode
// sequence, a wrong length, a misaligned atomic, a response of the wrong kind, a reserved NAK, a
// malformed or misaddressed packet), to see how the receiver answers. The link's faults apply.
struct InjectStep {
  std::size_t from = 0;  // indices into Scenario::adapters
  std::size_t to = 0;
  std::size_t link = 0;  // index into Scenario::links: the link joining them
  QpnRef dest_qp;        // BTH DestQP
  // Literal fields already set: addresses (from the adapters, or the overrides), BTH opcode,
  // PSN, flags, P_Key, TVer, the extended headers' literal values and the payload.
  wire::FrameSpec spec;
  KeyRef rkey;                          // RETH or AtomicETH R_Key
  std::optional<ObjId> va_mr;           // the VA is this MR's iova plus spec's VA (an offset)
  KeyRef invalidate_rkey;               // IETH
  QpnRef src_qp;                        // DETH source QP
  bool bad_icrc = false;                // the ICRC computed, then inverted
  std::optional<std::size_t> truncate;  // keep only this many bytes of the frame
};

struct RunStep {
  // Absolute end time; kNever: until idle (bounded by kIdleLimitNs past the current time).
  sim::SimTime until_ns = sim::kNever;
  sim::SimTime for_ns = 0;  // relative run length, when until_ns is kNever and this is > 0
  bool poll = true;  // poll every CQ empty afterwards (false: leave them, e.g. to overrun one)
};
// "until idle" stops anyway after this much simulated time (10 s), so that a model that keeps
// scheduling timers cannot hang the run; the runner says so when it happens.
inline constexpr sim::SimTime kIdleLimitNs = 10'000'000'000ull;

struct CompletionExpect {
  std::string path;
  std::uint64_t wr_id = 0;
  cq::WcStatus status = cq::WcStatus::SUCCESS;
  std::optional<cq::WcOpcode> opcode;
  std::optional<std::uint32_t> byte_len;
  std::optional<std::uint32_t> imm_data;
  std::optional<std::uint32_t> wc_flags;
  std::optional<QpnRef> src_qp;
  ObjId qp = kNoObj;  // kNoObj: not checked
};
struct CqExpect {
  std::string path;
  ObjId cq = kNoObj;
  std::vector<CompletionExpect> completions;  // exactly these, in this order
};
struct MemoryExpect {
  std::string path;
  std::size_t adapter = 0;  // index into Scenario::adapters
  std::uint64_t addr = 0;   // host address
  std::vector<std::uint8_t> bytes;
};
struct QpStateExpect {
  std::string path;
  ObjId qp = kNoObj;
  qp::QpState state = qp::QpState::RESET;
};
// One asynchronous event (ibv_get_async_event): its kind and, optionally, the object it names.
struct AsyncEventExpect {
  std::string path;
  std::string kind;        // an ibv_event_type name without IBV_EVENT_: "SRQ_LIMIT_REACHED"
  ObjId element = kNoObj;  // a QP, CQ or SRQ; kNoObj: not checked
};
struct AsyncExpect {
  std::string path;
  std::size_t adapter = 0;               // index into Scenario::adapters
  std::vector<AsyncEventExpect> events;  // exactly these, in this order
};
// One frame an adapter put on the wire: who sent it and its opcode, and the other fields only
// when given. Frames the link then dropped or changed count too (they were sent).
struct FrameExpect {
  std::string path;
  bool optional = false;  // may be absent (a coalescable ACK); checked when present
  std::size_t from = 0;   // index into Scenario::adapters
  std::uint8_t opcode = 0;
  ObjId qp = kNoObj;  // the BTH DestQP, as a QP of the scenario; kNoObj: not checked
  std::optional<std::uint32_t> psn;
  std::optional<bool> ackreq;
  std::optional<std::string> aeth;  // wire::aeth_name of the syndrome: "ACK", "NAK_..."
  std::optional<std::uint32_t> msn;
  std::optional<std::uint32_t> payload_len;
  std::optional<std::uint32_t> dmalen;
};
// Exactly these frames were sent since the previous "frames" expectation, or since the start:
// each stream (a sender's frames to one destination QP, named by "qp"; without "qp", the
// sender's other frames) in this order. Streams may interleave in any order, as timing and QP
// scheduling decide; an optional frame may be absent.
struct FramesExpect {
  std::string path;
  std::vector<FrameExpect> frames;
};
struct ExpectStep {
  std::optional<FramesExpect> frames;
  std::vector<CqExpect> completions;
  std::vector<MemoryExpect> memory;
  std::vector<QpStateExpect> qp_states;
  std::vector<AsyncExpect> async_events;
};

using StepBody =
    std::variant<AllocPdStep, RegMrStep, AllocMwStep, CreateCqStep, CreateQpStep, CreateSrqStep,
                 PostSrqRecvStep, ArmSrqLimitStep, ModifyQpStep, PostRecvStep, PostSendStep,
                 RunStep, ExpectStep, DeregMrStep, InjectStep>;

struct Step {
  std::string path;  // "steps[4]"
  std::string op;    // "post_send"
  std::string description;
  StepBody body;
};

struct Scenario {
  std::string file;  // as given to the loader, for messages
  std::string description;
  std::uint64_t seed = 1;
  std::vector<AdapterSpec> adapters;
  std::vector<LinkSpec> links;
  std::vector<NamedObject> objects;
  std::vector<Step> steps;

  // kNoObj when there is no object of that name.
  ObjId find(std::string_view name) const;
  const NamedObject& object(ObjId id) const { return objects.at(id); }
};

// Reads and validates a scenario file. Throws ScenarioError.
Scenario load_scenario_file(const std::string& path);
// The same from text; `file` names the source in messages.
Scenario parse_scenario(std::string_view text, const std::string& file);

// The seed of adapter `index` for a run with `seed` (splitmix64 of seed + index), so adapters
// draw different key bytes and a run is a pure function of (scenario, seed).
std::uint64_t adapter_seed(std::uint64_t seed, std::size_t index);

// The name of a PostError as scenarios write it in "expect_error" ("OK", "INVALID_STATE", ...).
std::string_view post_error_name(model::PostError e);

}  // namespace rocecert::conformance
