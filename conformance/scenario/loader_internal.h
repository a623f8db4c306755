// The scenario loader's one class, shared by the files that implement it: loader.cpp (the
// driver and the public entry points), loader_names.cpp (declaring and referring to named
// objects), loader_adapters.cpp (adapters, their profiles and addresses),
// loader_links.cpp (links and their fault plans, docs/faults.md), loader_resources.cpp (the
// steps that create PDs, MRs, MWs, CQs, QPs and SRQs), loader_steps.cpp (the other steps) and
// loader_expect.cpp (expectations). docs/scenario.md describes what it reads.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_reader.h"
#include "keys.h"
#include "names.h"
#include "rocecert/conformance/scenario.h"

namespace rocecert::conformance::loader {

using json_input::Node;
using json_input::Reader;

inline constexpr std::uint64_t kMaxContents = 16u << 20;  // bytes a "contents" pattern may fill
inline constexpr std::uint64_t kMaxInjectPayload = 9000;  // an injected frame's payload (jumbo)

// "an adapter", "a PD", ...
std::string_view an(ObjectKind k);
// A letter or '_', then letters, digits, '_' or '-'.
bool valid_name(const std::string& s);

class Loader {
 public:
  explicit Loader(const std::string& file) : in_(file) { sc_.file = file; }

  Scenario load(std::string_view text);

 private:
  // --- names (loader_names.cpp) -----------------------------------------------------------------
  void prescan(const std::vector<Node>& steps);
  ObjId declare(const Node& as, ObjectKind kind, std::size_t adapter_index, std::size_t step);
  ObjId ref(const Node& n, std::initializer_list<ObjectKind> kinds);
  void same_adapter(const Node& n, ObjId id, ObjId owner);
  const std::string& adapter_name(const NamedObject& o) const;
  KeyRef key_ref(const Node& n, std::initializer_list<ObjectKind> kinds);
  QpnRef qpn_ref(const Node& n);

  // --- adapters and addresses (loader_adapters.cpp) ---------------------------------------------
  wire::MacAddr mac(const Node& n);
  std::array<std::uint8_t, 16> gid(const Node& n);
  void adapter(const Node& n, std::size_t index);
  void profile(const Node& n, model::Profile& p);
  qp::AddressVector address_vector(const Node& n);

  // --- links and faults (loader_links.cpp) ------------------------------------------------------
  void link(const Node& n);
  void faults(const Node& n, LinkSpec& l);
  void rates(const Node& n, model::FaultRates& r);
  model::FaultRule rule(const Node& n, const LinkSpec& l);
  void resolve_rule_qps();

  // --- steps that create objects (loader_resources.cpp) -----------------------------------------
  AllocPdStep alloc_pd(const Node& n, std::size_t index);
  RegMrStep reg_mr(const Node& n, std::size_t index);
  std::vector<MemoryPiece> contents(const Node& n, std::uint64_t mr_length);
  MemoryPiece piece(const Node& n, std::optional<std::uint64_t> region_length,
                    const keys::ObjectKeys& key_list);
  void object_keys(const Node& n, std::span<const std::string_view> keys);
  AllocMwStep alloc_mw(const Node& n, std::size_t index);
  CreateCqStep create_cq(const Node& n, std::size_t index);
  CreateQpStep create_qp(const Node& n, std::size_t index);
  CreateSrqStep create_srq(const Node& n, std::size_t index);

  // --- the other steps (loader_steps.cpp) -------------------------------------------------------
  void step(const Node& n, std::size_t index);
  PostSrqRecvStep post_srq_recv(const Node& n);
  ArmSrqLimitStep arm_srq_limit(const Node& n);
  DeregMrStep dereg_mr(const Node& n);
  ModifyQpStep modify_qp(const Node& n);
  std::vector<SgeSpec> sg_list(const Node& n, ObjId qp);
  PostRecvStep post_recv(const Node& n);
  PostSendStep post_send(const Node& n);
  void remote(const Node& wr, PostSendStep& s, std::string_view opname);
  void bind(const Node& n, PostSendStep& s);
  RunStep run(const Node& n);

  // --- the inject step (loader_inject.cpp) ------------------------------------------------------
  InjectStep inject(const Node& n);

  template <typename E>
  std::optional<E> expect_error(const Node& n, names::Table<E> table, std::string_view what) {
    if (auto e = in_.optional(n, "expect_error")) return in_.enumerated<E>(*e, table, what);
    return std::nullopt;
  }

  // --- expectations (loader_expect.cpp) ---------------------------------------------------------
  ExpectStep expect(const Node& n);
  AsyncEventExpect async_event(const Node& n, ObjId adapter);
  FrameExpect frame(const Node& n);
  CompletionExpect completion(const Node& n);
  MemoryExpect memory(const Node& n);

  // A fault rule's "qp" given by name: resolved after the steps, which create the QPs.
  struct PendingRuleQp {
    std::size_t link = 0;
    std::size_t rule = 0;
    std::string name;
    std::string path;       // the "qp" value's JSON path
    std::string rule_path;  // the rule's
    std::optional<model::LinkDirection> direction;
  };

  Reader in_;
  Scenario sc_;
  std::map<std::string, std::pair<ObjectKind, std::string>> later_;
  std::vector<PendingRuleQp> pending_rule_qps_;
};

}  // namespace rocecert::conformance::loader
