// The scenario loader: JSON → validated Scenario (docs/scenario.md). Every check happens here,
// before anything runs; the first problem found is thrown as a ScenarioError with its JSON path.
#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "json_reader.h"
#include "names.h"
#include "rocecert/conformance/scenario.h"

namespace rocecert::conformance {

using json_input::Node;
using json_input::Reader;

ScenarioError::ScenarioError(std::string file, std::string path, std::string message)
    : std::runtime_error(path.empty() ? file + ": " + message
                                      : file + ": " + path + ": " + message),
      file_(std::move(file)),
      path_(std::move(path)),
      message_(std::move(message)) {}

std::string_view to_string(ObjectKind k) {
  switch (k) {
    case ObjectKind::ADAPTER:
      return "adapter";
    case ObjectKind::PD:
      return "PD";
    case ObjectKind::MR:
      return "MR";
    case ObjectKind::MW:
      return "MW";
    case ObjectKind::CQ:
      return "CQ";
    case ObjectKind::QP:
      return "QP";
    case ObjectKind::SRQ:
      return "SRQ";
  }
  return "?";
}

ObjId Scenario::find(std::string_view name) const {
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (objects[i].name == name) return static_cast<ObjId>(i);
  return kNoObj;
}

std::uint64_t adapter_seed(std::uint64_t seed, std::size_t index) {
  // splitmix64 (Steele, Lea, Flood 2014), one output for state = seed + index + 1.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string_view post_error_name(model::PostError e) {
  return names::name_of(names::post_errors(), e);
}

namespace {

constexpr std::uint64_t kMaxContents = 16u << 20;            // bytes a "contents" pattern may fill
constexpr std::uint64_t kMaxFaultNs = 1'000'000'000'000ull;  // fault timings: at most 1000 s

std::string_view an(ObjectKind k) {
  switch (k) {
    case ObjectKind::ADAPTER:
      return "an adapter";
    case ObjectKind::MR:
      return "an MR";
    case ObjectKind::MW:
      return "an MW";
    case ObjectKind::PD:
      return "a PD";
    case ObjectKind::CQ:
      return "a CQ";
    case ObjectKind::QP:
      return "a QP";
    case ObjectKind::SRQ:
      return "an SRQ";
  }
  return "an object";
}

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  const auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9') || c == '-'; });
}

// The kind of object a step's "as" declares, by its op.
std::optional<ObjectKind> declared_kind(const std::string& op) {
  if (op == "alloc_pd") return ObjectKind::PD;
  if (op == "reg_mr") return ObjectKind::MR;
  if (op == "alloc_mw") return ObjectKind::MW;
  if (op == "create_cq") return ObjectKind::CQ;
  if (op == "create_qp") return ObjectKind::QP;
  if (op == "create_srq") return ObjectKind::SRQ;
  return std::nullopt;
}

constexpr std::string_view kOps[] = {"alloc_pd",   "reg_mr",    "alloc_mw",      "create_cq",
                                     "create_srq", "create_qp", "modify_qp",     "post_recv",
                                     "post_send",  "run",       "post_srq_recv", "arm_srq_limit",
                                     "expect"};

// WR fields beyond wr_id/opcode/send_flags, and the opcodes that use them.
enum WrField : std::uint32_t {
  kData = 1u << 0,        // sg_list, inline_data
  kRemote = 1u << 1,      // remote_addr, remote_offset, rkey
  kImm = 1u << 2,         // imm_data
  kInvalidate = 1u << 3,  // invalidate_rkey
  kCompareAdd = 1u << 4,  // compare_add
  kSwap = 1u << 5,        // swap
  kBind = 1u << 6,        // bind
  kFlush = 1u << 7,       // flush_type, flush_level
};

std::uint32_t wr_fields(tx::WrOpcode op) {
  using tx::WrOpcode;
  switch (op) {
    case WrOpcode::RDMA_WRITE:
      return kData | kRemote;
    case WrOpcode::RDMA_WRITE_WITH_IMM:
      return kData | kRemote | kImm;
    case WrOpcode::SEND:
      return kData;
    case WrOpcode::SEND_WITH_IMM:
      return kData | kImm;
    case WrOpcode::RDMA_READ:
      return kData | kRemote;
    case WrOpcode::ATOMIC_CMP_AND_SWP:
      return kData | kRemote | kCompareAdd | kSwap;
    case WrOpcode::ATOMIC_FETCH_AND_ADD:
      return kData | kRemote | kCompareAdd;
    case WrOpcode::LOCAL_INV:
      return kInvalidate;
    case WrOpcode::BIND_MW:
      return kBind;
    case WrOpcode::SEND_WITH_INV:
      return kData | kInvalidate;
    case WrOpcode::TSO:
    case WrOpcode::DRIVER1:
      return kData;
    case WrOpcode::FLUSH:
      return kRemote | kFlush;
    case WrOpcode::ATOMIC_WRITE:
      return kData | kRemote;
  }
  return 0;
}

std::uint32_t field_of_key(std::string_view key) {
  if (key == "sg_list" || key == "inline_data") return kData;
  if (key == "remote_addr" || key == "remote_offset" || key == "rkey") return kRemote;
  if (key == "imm_data") return kImm;
  if (key == "invalidate_rkey") return kInvalidate;
  if (key == "compare_add") return kCompareAdd;
  if (key == "swap") return kSwap;
  if (key == "bind") return kBind;
  if (key == "flush_type" || key == "flush_level") return kFlush;
  return 0;
}

class Loader {
 public:
  explicit Loader(const std::string& file) : in_(file) { sc_.file = file; }

  Scenario load(std::string_view text) {
    const json_input::json doc = in_.parse(text);
    const Node root{&doc, ""};
    in_.object(root, {"$schema", "seed", "adapters", "links", "steps"});
    if (auto d = in_.optional(root, "description")) sc_.description = in_.string(*d);
    if (auto s = in_.optional(root, "seed")) sc_.seed = in_.u64(*s);
    const std::vector<Node> adapters = in_.array(in_.required(root, "adapters"), 1);
    for (std::size_t i = 0; i < adapters.size(); ++i) adapter(adapters[i], i);
    if (auto l = in_.optional(root, "links")) {
      for (const Node& n : in_.array(*l)) link(n);
    }
    const Node steps = in_.required(root, "steps");
    const std::vector<Node> list = in_.array(steps);
    prescan(list);
    for (std::size_t i = 0; i < list.size(); ++i) step(list[i], i);
    resolve_rule_qps();
    return std::move(sc_);
  }

 private:
  // --- names ---------------------------------------------------------------------------------

  // Names declared by later steps, so that a forward reference gets a precise message.
  void prescan(const std::vector<Node>& steps) {
    for (const Node& s : steps) {
      if (!s->is_object() || !s->contains("op") || !s->contains("as")) continue;
      const auto& op = s->at("op");
      const auto& as = s->at("as");
      if (!op.is_string() || !as.is_string()) continue;
      if (auto kind = declared_kind(op.get<std::string>()))
        later_.emplace(as.get<std::string>(), std::make_pair(*kind, s.path));
    }
  }

  ObjId declare(const Node& as, ObjectKind kind, std::size_t adapter_index, std::size_t step) {
    const std::string name = in_.string(as);
    if (!valid_name(name))
      in_.fail(as, fmt::format("\"{}\" is not a valid name (a letter or '_', then letters, "
                               "digits, '_' or '-')",
                               name));
    const ObjId prev = sc_.find(name);
    if (prev != kNoObj)
      in_.fail(as, fmt::format("\"{}\" is already the name of {} ({})", name,
                               an(sc_.objects[prev].kind), sc_.objects[prev].path));
    NamedObject o;
    o.kind = kind;
    o.name = name;
    o.adapter_index = adapter_index;
    o.adapter = kind == ObjectKind::ADAPTER ? static_cast<ObjId>(sc_.objects.size())
                                            : sc_.adapters.at(adapter_index).object;
    o.step = step;
    o.path = as.path;
    sc_.objects.push_back(o);
    return static_cast<ObjId>(sc_.objects.size() - 1);
  }

  // A reference to an existing object of one of `kinds` by name.
  ObjId ref(const Node& n, std::initializer_list<ObjectKind> kinds) {
    std::string what;
    for (ObjectKind k : kinds) {
      if (!what.empty()) what += " or ";
      what += to_string(k);
    }
    if (!n->is_string()) {
      // "an adapter", "an MR or MW"
      std::string article = std::string(an(*kinds.begin()));
      article = article.substr(0, article.find(' ') + 1);
      in_.fail(n, fmt::format("expected the name of {}{}, got {}", article, what,
                              json_input::type_name(*n)));
    }
    const std::string name = n->get<std::string>();
    const ObjId id = sc_.find(name);
    if (id == kNoObj) {
      auto it = later_.find(name);
      if (it != later_.end() &&
          std::find(kinds.begin(), kinds.end(), it->second.first) != kinds.end())
        in_.fail(n, fmt::format("{} \"{}\" is used before it is created ({})",
                                to_string(it->second.first), name, it->second.second));
      std::vector<std::string_view> candidates;
      for (const NamedObject& o : sc_.objects)
        if (std::find(kinds.begin(), kinds.end(), o.kind) != kinds.end())
          candidates.push_back(o.name);
      const std::string_view close = json_input::suggest(name, candidates);
      if (!close.empty())
        in_.fail(n, fmt::format("unknown {} \"{}\" (did you mean \"{}\"?)", what, name, close));
      in_.fail(n, fmt::format("unknown {} \"{}\"", what, name));
    }
    const NamedObject& o = sc_.objects[id];
    if (std::find(kinds.begin(), kinds.end(), o.kind) == kinds.end()) {
      std::string expected = std::string(an(*kinds.begin()));
      expected = expected.substr(0, expected.find(' ') + 1) + what;
      in_.fail(n, fmt::format("\"{}\" is {}, not {}", name, an(o.kind), expected));
    }
    return id;
  }

  // An object named by `n` must live on the adapter of `owner`.
  void same_adapter(const Node& n, ObjId id, ObjId owner) {
    const NamedObject& a = sc_.objects[id];
    const NamedObject& b = sc_.objects[owner];
    if (a.adapter_index != b.adapter_index)
      in_.fail(n, fmt::format("{} \"{}\" is on adapter \"{}\", {} \"{}\" on adapter \"{}\"",
                              to_string(a.kind), a.name, adapter_name(a), to_string(b.kind), b.name,
                              adapter_name(b)));
  }
  const std::string& adapter_name(const NamedObject& o) const {
    return sc_.adapters.at(o.adapter_index).config.name;
  }

  KeyRef key_ref(const Node& n, std::initializer_list<ObjectKind> kinds) {
    KeyRef k;
    if (n->is_string() && !Reader::looks_numeric(n->get<std::string>())) {
      k.object = ref(n, kinds);
    } else {
      k.value = in_.u32(n);
    }
    return k;
  }

  QpnRef qpn_ref(const Node& n) {
    QpnRef q;
    if (n->is_string() && !Reader::looks_numeric(n->get<std::string>())) {
      q.qp = ref(n, {ObjectKind::QP});
    } else {
      q.value = static_cast<std::uint32_t>(in_.integer(n, 0, 0xFFFFFF));
    }
    return q;
  }

  // --- addresses -----------------------------------------------------------------------------

  wire::MacAddr mac(const Node& n) {
    const std::string s = in_.string(n);
    wire::MacAddr m{};
    unsigned v[6];
    char sep[5];
    char tail = 0;
    const int got =
        std::sscanf(s.c_str(), "%2x%c%2x%c%2x%c%2x%c%2x%c%2x%c", &v[0], &sep[0], &v[1], &sep[1],
                    &v[2], &sep[2], &v[3], &sep[3], &v[4], &sep[4], &v[5], &tail);
    bool ok = got == 11 && s.size() == 17;
    for (int i = 0; ok && i < 5; ++i) ok = sep[i] == ':' || sep[i] == '-';
    if (!ok)
      in_.fail(n, fmt::format("\"{}\" is not a MAC address (like \"02:00:00:00:00:01\")", s));
    for (std::size_t i = 0; i < 6; ++i) m[i] = static_cast<std::uint8_t>(v[i]);
    return m;
  }

  // An IPv4 or IPv6 address as a GID (IPv4 as ::ffff:a.b.c.d).
  std::array<std::uint8_t, 16> gid(const Node& n) {
    const std::string s = in_.string(n);
    std::array<std::uint8_t, 16> g{};
    in_addr v4{};
    in6_addr v6{};
    if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
      g[10] = 0xFF;
      g[11] = 0xFF;
      std::memcpy(&g[12], &v4, 4);
    } else if (inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
      std::memcpy(g.data(), &v6, 16);
    } else {
      in_.fail(n, fmt::format("\"{}\" is not an IPv4 or IPv6 address", s));
    }
    return g;
  }

  // --- adapters and links --------------------------------------------------------------------

  void adapter(const Node& n, std::size_t index) {
    in_.object(n, {"name", "mac", "ip", "mtu", "profile", "qp_profile", "first_qpn"});
    AdapterSpec spec;
    spec.path = n.path;
    model::AdapterConfig& c = spec.config;
    const Node name = in_.required(n, "name");
    c.name = in_.string(name);
    c.mac = mac(in_.required(n, "mac"));
    c.gid = gid(in_.required(n, "ip"));
    if (auto m = in_.optional(n, "mtu")) {
      const auto bytes = static_cast<std::uint32_t>(in_.integer(*m, 256, 4096));
      qp::PathMtu code{};
      if (!qp::path_mtu_from_bytes(bytes, code))
        in_.fail(*m, fmt::format("{} is not an MTU (256, 512, 1024, 2048 or 4096)", bytes));
      c.port_mtu = bytes;
    }
    // The port's active MTU bounds the path MTU modify_qp accepts (qp/profile.h).
    qp::PathMtu active{};
    (void)qp::path_mtu_from_bytes(c.port_mtu, active);
    c.qp.device.active_mtu = active;
    if (auto p = in_.optional(n, "profile")) profile(*p, c.profile);
    if (auto q = in_.optional(n, "qp_profile")) {
      static constexpr json_input::EnumName<int> kProfiles[] = {{"linux_core", 0}, {"rxe", 1}};
      const int which = in_.enumerated<int>(*q, kProfiles, "QP profile");
      c.qp.profile = which == 1 ? qp::rxe_profile() : qp::linux_core_profile();
    }
    if (auto f = in_.optional(n, "first_qpn"))
      c.qp.qpn.first = static_cast<std::uint32_t>(in_.integer(*f, 2, c.qp.qpn.last));
    for (const AdapterSpec& other : sc_.adapters) {
      if (other.config.mac == c.mac)
        in_.fail(n.child("mac"), fmt::format("adapter \"{}\" has the same MAC", other.config.name));
      if (other.config.gid == c.gid)
        in_.fail(n.child("ip"),
                 fmt::format("adapter \"{}\" has the same address", other.config.name));
    }
    sc_.adapters.push_back(spec);
    sc_.adapters.back().object = declare(name, ObjectKind::ADAPTER, index, SIZE_MAX);
  }

  void profile(const Node& n, model::Profile& p) {
    in_.object(n, {"ackreq", "ack", "dcqcn", "sport", "fixed_sport", "ipv4_ttl", "ipv4_df", "pkey",
                   "ack_syndrome_credits", "retry_cnt_7_is_infinite", "send_cnp", "cnp_interval_ns",
                   "cnp_traffic_class", "error_profile", "arbitration"});
    if (auto a = in_.optional(n, "ackreq")) {
      in_.object(*a, {"on_last_packet", "every_n_packets"});
      if (auto v = in_.optional(*a, "on_last_packet")) p.ackreq.on_last_packet = in_.boolean(*v);
      if (auto v = in_.optional(*a, "every_n_packets")) p.ackreq.every_n_packets = in_.u32(*v);
    }
    if (auto a = in_.optional(n, "ack")) {
      in_.object(*a, {"mode", "max_packets", "max_delay_ns"});
      using AM = model::AckCoalescing::Mode;
      static constexpr json_input::EnumName<AM> kModes[] = {
          {"ACKREQ", AM::ACKREQ}, {"EVERY_PACKET", AM::EVERY_PACKET}, {"COALESCE", AM::COALESCE}};
      if (auto v = in_.optional(*a, "mode")) p.ack.mode = in_.enumerated<AM>(*v, kModes, "ACK mode");
      if (auto v = in_.optional(*a, "max_packets")) {
        p.ack.max_packets = static_cast<std::uint32_t>(in_.integer(*v, 1, 0xFFFFFF));
      }
      if (auto v = in_.optional(*a, "max_delay_ns")) p.ack.max_delay_ns = in_.u64(*v);
    }
    if (auto d = in_.optional(n, "dcqcn")) {
      // Presence turns the reaction point on (docs/dcqcn.md).
      in_.object(*d, {"line_rate_gbps", "preset"});
      p.dcqcn = true;
      if (auto v = in_.optional(*d, "preset")) {
        enum class Preset : std::uint8_t { PAPER, MLX5 };
        static constexpr json_input::EnumName<Preset> kPresets[] = {{"PAPER", Preset::PAPER},
                                                                    {"MLX5", Preset::MLX5}};
        if (in_.enumerated<Preset>(*v, kPresets, "DCQCN preset") == Preset::MLX5)
          p.dcqcn_params = cc::DcqcnParams::mlx5_firmware();
      }
      if (auto v = in_.optional(*d, "line_rate_gbps")) {
        p.line_rate_gbps = static_cast<double>(in_.integer(*v, 1, 1'000'000));
      }
    }
    if (auto s = in_.optional(n, "sport")) {
      using SP = model::Profile::SportPolicy;
      static constexpr json_input::EnumName<SP> kPolicies[] = {
          {"RXE_FLOW_LABEL", SP::RXE_FLOW_LABEL}, {"FIXED", SP::FIXED}};
      p.sport = in_.enumerated<SP>(*s, kPolicies, "UDP source port policy");
    }
    if (auto v = in_.optional(n, "fixed_sport"))
      p.fixed_sport = static_cast<std::uint16_t>(in_.integer(*v, 0, 0xFFFF));
    if (auto v = in_.optional(n, "ipv4_ttl"))
      p.ipv4_ttl = static_cast<std::uint8_t>(in_.integer(*v, 0, 0xFF));
    if (auto v = in_.optional(n, "ipv4_df")) p.ipv4_df = in_.boolean(*v);
    if (auto v = in_.optional(n, "pkey"))
      p.pkey = static_cast<std::uint16_t>(in_.integer(*v, 0, 0xFFFF));
    if (auto v = in_.optional(n, "ack_syndrome_credits"))
      p.ack_syndrome_credits = static_cast<std::uint8_t>(in_.integer(*v, 0, 0x1F));
    if (auto v = in_.optional(n, "retry_cnt_7_is_infinite"))
      p.retry_cnt_7_is_infinite = in_.boolean(*v);
    if (auto v = in_.optional(n, "send_cnp")) p.send_cnp = in_.boolean(*v);
    if (auto v = in_.optional(n, "cnp_interval_ns")) p.cnp_interval_ns = in_.u64(*v);
    if (auto v = in_.optional(n, "cnp_traffic_class"))
      p.cnp_traffic_class = static_cast<std::uint8_t>(in_.integer(*v, 0, 0xFF));
    if (auto v = in_.optional(n, "error_profile")) {
      static constexpr json_input::EnumName<errors::ErrorProfile> kProfiles[] = {
          {"RXE", errors::ErrorProfile::RXE}, {"IBA", errors::ErrorProfile::IBA}};
      p.error_profile = in_.enumerated<errors::ErrorProfile>(*v, kProfiles, "error profile");
    }
    if (auto v = in_.optional(n, "arbitration")) {
      using AP = errors::ArbitrationPolicy;
      static constexpr json_input::EnumName<AP> kPolicies[] = {{"PRECEDENCE", AP::PRECEDENCE},
                                                               {"ROUND_ROBIN", AP::ROUND_ROBIN}};
      p.arbitration = in_.enumerated<AP>(*v, kPolicies, "arbitration policy");
    }
  }

  void link(const Node& n) {
    in_.object(n, {"a", "b", "latency_ns", "gbps", "faults"});
    LinkSpec l;
    l.path = n.path;
    const Node a = in_.required(n, "a");
    const Node b = in_.required(n, "b");
    l.a = sc_.objects[ref(a, {ObjectKind::ADAPTER})].adapter_index;
    l.b = sc_.objects[ref(b, {ObjectKind::ADAPTER})].adapter_index;
    if (l.a == l.b) in_.fail(b, "a link joins two different adapters");
    for (const LinkSpec& other : sc_.links) {
      for (const auto& [end, node] : {std::pair{l.a, a}, std::pair{l.b, b}}) {
        if (other.a == end || other.b == end)
          in_.fail(node,
                   fmt::format("adapter \"{}\" already has a link ({}); an adapter has one port",
                               sc_.adapters[end].config.name, other.path));
      }
    }
    if (auto v = in_.optional(n, "latency_ns")) l.latency_ns = in_.u64(*v);
    if (auto v = in_.optional(n, "gbps")) l.gbps = in_.number(*v, 0, 1e6);
    if (auto f = in_.optional(n, "faults")) faults(*f, l);
    sc_.links.push_back(l);
  }

  // --- link faults (docs/faults.md) ------------------------------------------------------------

  void faults(const Node& n, LinkSpec& l) {
    in_.object(n, {"seed", "a_to_b", "b_to_a", "rules"});
    model::FaultPlan& plan = l.faults;
    if (auto v = in_.optional(n, "seed")) plan.seed = in_.u64(*v);
    if (auto v = in_.optional(n, "a_to_b")) rates(*v, plan.a_to_b);
    if (auto v = in_.optional(n, "b_to_a")) rates(*v, plan.b_to_a);
    if (auto r = in_.optional(n, "rules")) {
      for (const Node& e : in_.array(*r)) plan.rules.push_back(rule(e, l));
    }
  }

  void rates(const Node& n, model::FaultRates& r) {
    in_.object(n, {"drop", "duplicate", "reorder", "delay", "corrupt", "ecn_ce", "delay_ns",
                   "jitter_ns", "overtake", "max_hold_ns"});
    const auto p = [&](std::string_view key, double& out) {
      if (auto v = in_.optional(n, key)) out = in_.number(*v, 0, 1);
    };
    p("drop", r.drop);
    p("duplicate", r.duplicate);
    p("reorder", r.reorder);
    p("delay", r.delay);
    p("corrupt", r.corrupt);
    p("ecn_ce", r.ecn_ce);
    if (auto v = in_.optional(n, "delay_ns")) r.timing.delay_ns = in_.integer(*v, 0, kMaxFaultNs);
    if (auto v = in_.optional(n, "jitter_ns")) r.timing.jitter_ns = in_.integer(*v, 0, kMaxFaultNs);
    if (auto v = in_.optional(n, "overtake"))
      r.timing.overtake = static_cast<std::uint32_t>(in_.integer(*v, 1, UINT32_MAX));
    if (auto v = in_.optional(n, "max_hold_ns"))
      r.timing.max_hold_ns = in_.integer(*v, 0, kMaxFaultNs);
  }

  // One rule of the language of docs/faults.md. "qp=NAME" names a scenario QP (on either end of
  // the link): its QPN is filled in at run time, so the text is parsed with a placeholder.
  model::FaultRule rule(const Node& n, const LinkSpec& l) {
    std::string text = in_.string(n);
    std::optional<std::string> qp_name;
    std::size_t pos = 0;
    while (pos < text.size()) {
      while (pos < text.size() && text[pos] == ' ') ++pos;
      const std::size_t start = pos;
      while (pos < text.size() && text[pos] != ' ') ++pos;
      const std::string term = text.substr(start, pos - start);
      if (term.rfind("qp=", 0) != 0) continue;
      const std::string value = term.substr(3);
      if (!valid_name(value) || Reader::looks_numeric(value)) continue;
      qp_name = value;
      text.replace(start + 3, value.size(), "0");
      pos = start + 4;
    }
    const model::RuleParseResult r = model::parse_fault_rule(text);
    if (!r.ok()) {
      std::string msg = r.error;
      if (qp_name) {  // show the term as written, not with the placeholder
        const std::string placeholder = "\"qp=0\"";
        const std::size_t at = msg.find(placeholder);
        if (at != std::string::npos) msg.replace(at, placeholder.size(), "\"qp=" + *qp_name + "\"");
      }
      in_.fail(n, msg);
    }
    if (qp_name) {
      pending_rule_qps_.push_back(
          {sc_.links.size(), l.faults.rules.size(), *qp_name, n.path, r.rule.match.direction});
    }
    return r.rule;
  }

  // After the steps: the QPs that rules name exist, on an end of their link.
  void resolve_rule_qps() {
    for (const PendingRuleQp& p : pending_rule_qps_) {
      LinkSpec& l = sc_.links[p.link];
      const json_input::json name_value = p.name;
      const ObjId id = ref(Node{&name_value, p.path}, {ObjectKind::QP});
      const NamedObject& qp = sc_.objects[id];
      const std::string& a = sc_.adapters[l.a].config.name;
      const std::string& b = sc_.adapters[l.b].config.name;
      if (qp.adapter_index != l.a && qp.adapter_index != l.b)
        in_.fail(p.path, fmt::format("QP \"{}\" is on adapter \"{}\", which is not an end of "
                                     "this link ({} and {})",
                                     qp.name, adapter_name(qp), a, b));
      if (p.direction) {
        const bool to_b = *p.direction == model::LinkDirection::A_TO_B;
        if (qp.adapter_index != (to_b ? l.b : l.a))
          in_.fail(p.path,
                   fmt::format("qp={} is a DestQP on adapter \"{}\", but dir={} frames go to "
                               "adapter \"{}\"",
                               qp.name, adapter_name(qp), to_b ? "a>b" : "b>a", to_b ? b : a));
      }
      l.rule_qps.push_back({p.rule, id, p.path});
      if (l.install_after_step == SIZE_MAX || qp.step > l.install_after_step)
        l.install_after_step = qp.step;
    }
  }

  // --- steps ---------------------------------------------------------------------------------

  void step(const Node& n, std::size_t index) {
    if (!n->is_object())
      in_.fail(n, fmt::format("expected an object, got {}", json_input::type_name(*n)));
    const Node opn = in_.required(n, "op");
    const std::string op = in_.string(opn);
    if (std::find(std::begin(kOps), std::end(kOps), op) == std::end(kOps))
      in_.fail(opn, Reader::bad_name_message("op", op, {std::begin(kOps), std::end(kOps)}));
    Step s;
    s.path = n.path;
    s.op = op;
    if (auto d = in_.optional(n, "description")) s.description = in_.string(*d);
    if (op == "alloc_pd") {
      s.body = alloc_pd(n, index);
    } else if (op == "reg_mr") {
      s.body = reg_mr(n, index);
    } else if (op == "alloc_mw") {
      s.body = alloc_mw(n, index);
    } else if (op == "create_cq") {
      s.body = create_cq(n, index);
    } else if (op == "create_qp") {
      s.body = create_qp(n, index);
    } else if (op == "create_srq") {
      s.body = create_srq(n, index);
    } else if (op == "post_srq_recv") {
      s.body = post_srq_recv(n);
    } else if (op == "arm_srq_limit") {
      s.body = arm_srq_limit(n);
    } else if (op == "modify_qp") {
      s.body = modify_qp(n);
    } else if (op == "post_recv") {
      s.body = post_recv(n);
    } else if (op == "post_send") {
      s.body = post_send(n);
    } else if (op == "run") {
      s.body = run(n);
    } else {
      s.body = expect(n);
    }
    sc_.steps.push_back(std::move(s));
  }

  AllocPdStep alloc_pd(const Node& n, std::size_t index) {
    in_.object(n, {"op", "as", "adapter"});
    const ObjId a = ref(in_.required(n, "adapter"), {ObjectKind::ADAPTER});
    AllocPdStep s;
    s.pd = declare(in_.required(n, "as"), ObjectKind::PD, sc_.objects[a].adapter_index, index);
    return s;
  }

  template <typename E>
  std::optional<E> expect_error(const Node& n, names::Table<E> table, std::string_view what) {
    if (auto e = in_.optional(n, "expect_error")) return in_.enumerated<E>(*e, table, what);
    return std::nullopt;
  }

  RegMrStep reg_mr(const Node& n, std::size_t index) {
    in_.object(n,
               {"op", "as", "pd", "addr", "length", "access", "iova", "contents", "expect_error"});
    RegMrStep s;
    s.pd = ref(in_.required(n, "pd"), {ObjectKind::PD});
    s.addr = in_.u64(in_.required(n, "addr"));
    s.length = in_.u64(in_.required(n, "length"));
    s.access = mem::access_from_u32(
        in_.flags<mem::Access>(in_.required(n, "access"), names::access_flags(), "access flag"));
    if (auto v = in_.optional(n, "iova")) s.iova = in_.u64(*v);
    if (auto c = in_.optional(n, "contents")) s.contents = contents(*c, s.length);
    s.expect_error = expect_error(n, names::mem_errors(), "MR error");
    s.mr = declare(in_.required(n, "as"), ObjectKind::MR, sc_.objects[s.pd].adapter_index, index);
    NamedObject& o = sc_.objects[s.mr];
    o.mr_addr = s.addr;
    o.mr_iova = mem::contains(s.access, mem::Access::ZERO_BASED) ? 0 : s.iova.value_or(s.addr);
    o.mr_length = s.length;
    return s;
  }

  // "contents" of an MR: one piece or an array of pieces, written in order.
  std::vector<MemoryPiece> contents(const Node& n, std::uint64_t mr_length) {
    std::vector<MemoryPiece> out;
    if (n->is_array()) {
      for (const Node& p : in_.array(n, 1)) out.push_back(piece(p, mr_length, {}));
    } else {
      out.push_back(piece(n, mr_length, {}));
    }
    return out;
  }

  // Bytes at an offset: {"offset"?, one of "hex" | "u64" | "fill" | "counter", "length"?}.
  // "u64" is one little-endian 64-bit word or an array of them; "fill" repeats a byte and
  // "counter" counts up from a byte (mod 256), over "length" bytes (default: to the end of the
  // region, when there is one). `extra` names the keys the caller reads itself.
  MemoryPiece piece(const Node& n, std::optional<std::uint64_t> region_length,
                    std::initializer_list<std::string_view> extra) {
    std::vector<std::string_view> keys{"offset", "hex", "u64", "fill", "counter", "length"};
    keys.insert(keys.end(), extra.begin(), extra.end());
    if (!n->is_object())
      in_.fail(n, fmt::format("expected an object, got {}", json_input::type_name(*n)));
    object_keys(n, keys);
    MemoryPiece p;
    const std::uint64_t limit = region_length.value_or(UINT64_MAX);
    if (auto o = in_.optional(n, "offset")) p.offset = in_.integer(*o, 0, limit);
    const std::string_view kind = in_.one_of(n, {"hex", "u64", "fill", "counter"});
    const Node v = n.child(kind);
    const bool pattern = kind == "fill" || kind == "counter";
    if (!pattern && in_.has(n, "length"))
      in_.fail(n.child("length"),
               fmt::format("\"length\" goes with \"fill\" or \"counter\", not \"{}\"", kind));
    if (kind == "hex") {
      p.bytes = in_.hex(v);
      if (p.bytes.empty()) in_.fail(v, "expected at least one byte");
    } else if (kind == "u64") {
      std::vector<Node> words;
      if (v->is_array()) {
        words = in_.array(v, 1);
      } else {
        words.push_back(v);
      }
      for (const Node& w : words) {
        const std::uint64_t x = in_.u64(w);
        for (unsigned i = 0; i < 8; ++i) p.bytes.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
      }
    } else {
      const auto start = static_cast<std::uint8_t>(in_.integer(v, 0, 0xFF));
      std::uint64_t length = 0;
      if (auto l = in_.optional(n, "length")) {
        length = in_.integer(*l, 1, kMaxContents);
      } else if (region_length) {
        length = *region_length - p.offset;
        if (length > kMaxContents)
          in_.fail(n, fmt::format("{} bytes to the end of the region is above the limit of {}; "
                                  "give \"length\"",
                                  length, kMaxContents));
      } else {
        in_.fail(n, fmt::format("missing required key \"length\" (for \"{}\")", kind));
      }
      p.bytes.resize(static_cast<std::size_t>(length));
      for (std::size_t i = 0; i < p.bytes.size(); ++i)
        p.bytes[i] = kind == "fill" ? start : static_cast<std::uint8_t>(start + i);
    }
    if (region_length && p.bytes.size() > *region_length - p.offset)
      in_.fail(n, fmt::format("{} bytes at offset {} run past the end of the MR ({} bytes)",
                              p.bytes.size(), p.offset, *region_length));
    return p;
  }

  void object_keys(const Node& n, const std::vector<std::string_view>& keys) {
    // Reader::object takes an initializer_list; check the same way for a computed key set.
    for (auto it = n->begin(); it != n->end(); ++it) {
      if (it.key() == "description" || std::find(keys.begin(), keys.end(), it.key()) != keys.end())
        continue;
      const std::string_view close = json_input::suggest(it.key(), keys);
      in_.fail(json_input::join_path(n.path, it.key()),
               close.empty()
                   ? fmt::format("unknown key \"{}\"", it.key())
                   : fmt::format("unknown key \"{}\" (did you mean \"{}\"?)", it.key(), close));
    }
    if (auto d = in_.optional(n, "description")) (void)in_.string(*d);
  }

  AllocMwStep alloc_mw(const Node& n, std::size_t index) {
    in_.object(n, {"op", "as", "pd", "type", "expect_error"});
    AllocMwStep s;
    s.pd = ref(in_.required(n, "pd"), {ObjectKind::PD});
    if (auto t = in_.optional(n, "type"))
      s.type = in_.integer(*t, 1, 2) == 1 ? mem::MwType::TYPE_1 : mem::MwType::TYPE_2;
    s.expect_error = expect_error(n, names::mem_errors(), "MW error");
    s.mw = declare(in_.required(n, "as"), ObjectKind::MW, sc_.objects[s.pd].adapter_index, index);
    return s;
  }

  CreateCqStep create_cq(const Node& n, std::size_t index) {
    in_.object(n, {"op", "as", "adapter", "cqe"});
    const ObjId a = ref(in_.required(n, "adapter"), {ObjectKind::ADAPTER});
    CreateCqStep s;
    if (auto v = in_.optional(n, "cqe"))
      s.cqe = static_cast<std::uint32_t>(in_.integer(*v, 1, 1u << 20));
    s.cq = declare(in_.required(n, "as"), ObjectKind::CQ, sc_.objects[a].adapter_index, index);
    return s;
  }

  CreateQpStep create_qp(const Node& n, std::size_t index) {
    in_.object(n, {"op", "as", "pd", "type", "send_cq", "recv_cq", "srq", "cap", "sq_sig_all",
                   "expect_error"});
    CreateQpStep s;
    s.pd = ref(in_.required(n, "pd"), {ObjectKind::PD});
    s.type = in_.enumerated<qp::QpType>(in_.required(n, "type"), names::qp_types(), "QP type");
    const Node scq = in_.required(n, "send_cq");
    s.send_cq = ref(scq, {ObjectKind::CQ});
    same_adapter(scq, s.send_cq, s.pd);
    s.recv_cq = s.send_cq;
    if (auto r = in_.optional(n, "recv_cq")) {
      s.recv_cq = ref(*r, {ObjectKind::CQ});
      same_adapter(*r, s.recv_cq, s.pd);
    }
    s.caps = qp::QpCaps{64, 64, 4, 4, 64};
    if (auto c = in_.optional(n, "cap")) {
      in_.object(*c,
                 {"max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge", "max_inline_data"});
      if (auto v = in_.optional(*c, "max_send_wr")) s.caps.max_send_wr = in_.u32(*v);
      if (auto v = in_.optional(*c, "max_recv_wr")) s.caps.max_recv_wr = in_.u32(*v);
      if (auto v = in_.optional(*c, "max_send_sge")) s.caps.max_send_sge = in_.u32(*v);
      if (auto v = in_.optional(*c, "max_recv_sge")) s.caps.max_recv_sge = in_.u32(*v);
      if (auto v = in_.optional(*c, "max_inline_data")) s.caps.max_inline_data = in_.u32(*v);
    }
    if (auto v = in_.optional(n, "srq")) {
      s.srq = ref(*v, {ObjectKind::SRQ});
      same_adapter(*v, s.srq, s.pd);
    }
    if (auto v = in_.optional(n, "sq_sig_all")) s.sq_sig_all = in_.boolean(*v);
    s.expect_error = expect_error(n, names::modify_errors(), "QP error");
    s.qp = declare(in_.required(n, "as"), ObjectKind::QP, sc_.objects[s.pd].adapter_index, index);
    sc_.objects[s.qp].qp_type = s.type;
    return s;
  }

  CreateSrqStep create_srq(const Node& n, std::size_t index) {
    in_.object(n, {"op", "as", "pd", "max_wr", "max_sge"});
    CreateSrqStep s;
    const ObjId pd = ref(in_.required(n, "pd"), {ObjectKind::PD});
    if (auto v = in_.optional(n, "max_wr"))
      s.max_wr = static_cast<std::uint32_t>(in_.integer(*v, 1, UINT32_MAX));
    if (auto v = in_.optional(n, "max_sge")) s.max_sge = in_.u32(*v);
    s.srq = declare(in_.required(n, "as"), ObjectKind::SRQ, sc_.objects[pd].adapter_index, index);
    return s;
  }

  PostSrqRecvStep post_srq_recv(const Node& n) {
    in_.object(n, {"op", "srq", "wr", "expect_error"});
    PostSrqRecvStep s;
    s.srq = ref(in_.required(n, "srq"), {ObjectKind::SRQ});
    const Node wr = in_.required(n, "wr");
    in_.object(wr, {"wr_id", "sg_list"});
    if (auto v = in_.optional(wr, "wr_id")) s.wr_id = in_.u64(*v);
    if (auto v = in_.optional(wr, "sg_list")) s.sg_list = sg_list(*v, s.srq);
    s.expect_error = expect_error(n, names::post_errors(), "post error");
    return s;
  }

  ArmSrqLimitStep arm_srq_limit(const Node& n) {
    in_.object(n, {"op", "srq", "limit"});
    ArmSrqLimitStep s;
    s.srq = ref(in_.required(n, "srq"), {ObjectKind::SRQ});
    s.limit = in_.u32(in_.required(n, "limit"));
    return s;
  }

  // An address vector: "peer" (an adapter or a QP) gives the destination GID and MAC; "dgid"
  // and "dmac" give or override them.
  qp::AddressVector address_vector(const Node& n) {
    in_.object(n, {"peer", "dgid", "dmac", "sgid_index", "hop_limit", "traffic_class", "flow_label",
                   "udp_sport"});
    qp::AddressVector av;
    const auto peer = in_.optional(n, "peer");
    if (peer) {
      const ObjId id = ref(*peer, {ObjectKind::ADAPTER, ObjectKind::QP});
      const model::AdapterConfig& c = sc_.adapters[sc_.objects[id].adapter_index].config;
      av.dgid = c.gid;
      av.dmac = c.mac;
    } else if (!in_.has(n, "dgid") || !in_.has(n, "dmac")) {
      in_.fail(n, "needs \"peer\" (an adapter or QP name), or both \"dgid\" and \"dmac\"");
    }
    if (auto v = in_.optional(n, "dgid")) av.dgid = gid(*v);
    if (auto v = in_.optional(n, "dmac")) av.dmac = mac(*v);
    if (auto v = in_.optional(n, "sgid_index"))
      av.sgid_index = static_cast<std::uint8_t>(in_.integer(*v, 0, 0xFF));
    if (auto v = in_.optional(n, "hop_limit"))
      av.hop_limit = static_cast<std::uint8_t>(in_.integer(*v, 0, 0xFF));
    if (auto v = in_.optional(n, "traffic_class"))
      av.traffic_class = static_cast<std::uint8_t>(in_.integer(*v, 0, 0xFF));
    if (auto v = in_.optional(n, "flow_label")) av.flow_label = in_.u32(*v);
    if (auto v = in_.optional(n, "udp_sport"))
      av.udp_sport = static_cast<std::uint16_t>(in_.integer(*v, 0, 0xFFFF));
    return av;
  }

  ModifyQpStep modify_qp(const Node& n) {
    in_.object(n, {"op", "qp", "attr", "attr_mask", "expect_error"});
    ModifyQpStep s;
    s.qp = ref(in_.required(n, "qp"), {ObjectKind::QP});
    const Node a = in_.required(n, "attr");
    in_.object(a, {"qp_state",
                   "cur_qp_state",
                   "path_mtu",
                   "qkey",
                   "rq_psn",
                   "sq_psn",
                   "dest_qp_num",
                   "qp_access_flags",
                   "pkey_index",
                   "port_num",
                   "ah_attr",
                   "timeout",
                   "retry_cnt",
                   "rnr_retry",
                   "min_rnr_timer",
                   "max_rd_atomic",
                   "max_dest_rd_atomic",
                   "path_mig_state",
                   "en_sqd_async_notify",
                   "rate_limit"});
    qp::QpAttr& attr = s.attr;
    qp::AttrMask& mask = s.mask;
    using qp::AttrBit;
    const auto u8 = [&](const Node& v) {
      return static_cast<std::uint8_t>(in_.integer(v, 0, 0xFF));
    };
    if (auto v = in_.optional(a, "qp_state")) {
      attr.qp_state = in_.enumerated<qp::QpState>(*v, names::qp_states(), "QP state");
      mask |= AttrBit::STATE;
    }
    if (auto v = in_.optional(a, "cur_qp_state")) {
      attr.cur_qp_state = in_.enumerated<qp::QpState>(*v, names::qp_states(), "QP state");
      mask |= AttrBit::CUR_STATE;
    }
    if (auto v = in_.optional(a, "path_mtu")) {
      const auto bytes = static_cast<std::uint32_t>(in_.integer(*v, 256, 4096));
      if (!qp::path_mtu_from_bytes(bytes, attr.path_mtu))
        in_.fail(*v, fmt::format("{} is not an MTU (256, 512, 1024, 2048 or 4096)", bytes));
      mask |= AttrBit::PATH_MTU;
    }
    if (auto v = in_.optional(a, "qkey")) {
      attr.qkey = in_.u32(*v);
      mask |= AttrBit::QKEY;
    }
    if (auto v = in_.optional(a, "rq_psn")) {
      attr.rq_psn = in_.u32(*v);
      mask |= AttrBit::RQ_PSN;
    }
    if (auto v = in_.optional(a, "sq_psn")) {
      attr.sq_psn = in_.u32(*v);
      mask |= AttrBit::SQ_PSN;
    }
    if (auto v = in_.optional(a, "dest_qp_num")) {
      s.dest_qpn = qpn_ref(*v);
      attr.dest_qp_num = s.dest_qpn.value;
      mask |= AttrBit::DEST_QPN;
    }
    if (auto v = in_.optional(a, "qp_access_flags")) {
      attr.qp_access_flags = in_.flags<mem::Access>(*v, names::access_flags(), "access flag");
      mask |= AttrBit::ACCESS_FLAGS;
    }
    if (auto v = in_.optional(a, "pkey_index")) {
      attr.pkey_index = static_cast<std::uint16_t>(in_.integer(*v, 0, 0xFFFF));
      mask |= AttrBit::PKEY_INDEX;
    }
    if (auto v = in_.optional(a, "port_num")) {
      attr.port_num = u8(*v);
      mask |= AttrBit::PORT;
    }
    if (auto v = in_.optional(a, "ah_attr")) {
      attr.ah_attr = address_vector(*v);
      mask |= AttrBit::AV;
    }
    if (auto v = in_.optional(a, "timeout")) {
      attr.timeout = u8(*v);
      mask |= AttrBit::TIMEOUT;
    }
    if (auto v = in_.optional(a, "retry_cnt")) {
      attr.retry_cnt = u8(*v);
      mask |= AttrBit::RETRY_CNT;
    }
    if (auto v = in_.optional(a, "rnr_retry")) {
      attr.rnr_retry = u8(*v);
      mask |= AttrBit::RNR_RETRY;
    }
    if (auto v = in_.optional(a, "min_rnr_timer")) {
      attr.min_rnr_timer = u8(*v);
      mask |= AttrBit::MIN_RNR_TIMER;
    }
    if (auto v = in_.optional(a, "max_rd_atomic")) {
      attr.max_rd_atomic = u8(*v);
      mask |= AttrBit::MAX_QP_RD_ATOMIC;
    }
    if (auto v = in_.optional(a, "max_dest_rd_atomic")) {
      attr.max_dest_rd_atomic = u8(*v);
      mask |= AttrBit::MAX_DEST_RD_ATOMIC;
    }
    if (auto v = in_.optional(a, "path_mig_state")) {
      attr.path_mig_state =
          in_.enumerated<qp::PathMigState>(*v, names::path_mig_states(), "path migration state");
      mask |= AttrBit::PATH_MIG_STATE;
    }
    if (auto v = in_.optional(a, "en_sqd_async_notify")) {
      attr.en_sqd_async_notify = in_.boolean(*v);
      mask |= AttrBit::EN_SQD_ASYNC_NOTIFY;
    }
    if (auto v = in_.optional(a, "rate_limit")) {
      attr.rate_limit = in_.u32(*v);
      mask |= AttrBit::RATE_LIMIT;
    }
    if (auto m = in_.optional(n, "attr_mask")) {
      mask = qp::AttrMask::from_raw(in_.flags<qp::AttrBit>(*m, names::attr_bits(), "attribute"));
    }
    s.expect_error = expect_error(n, names::modify_errors(), "modify_qp error");
    return s;
  }

  // SGEs: "lkey" names an MR on the QP's adapter (then "addr" defaults to the MR's start plus
  // "offset", and "length" to the rest of the MR), or is a number (then addr and length are
  // required).
  std::vector<SgeSpec> sg_list(const Node& n, ObjId qp) {
    std::vector<SgeSpec> out;
    for (const Node& e : in_.array(n)) {
      in_.object(e, {"lkey", "addr", "offset", "length"});
      SgeSpec sge;
      const Node lkey = in_.required(e, "lkey");
      sge.lkey = key_ref(lkey, {ObjectKind::MR});
      in_.at_most_one(e, {"addr", "offset"});
      if (sge.lkey.object != kNoObj) {
        same_adapter(lkey, sge.lkey.object, qp);
        const NamedObject& mr = sc_.objects[sge.lkey.object];
        std::uint64_t offset = 0;
        if (auto o = in_.optional(e, "offset")) offset = in_.integer(*o, 0, mr.mr_length);
        sge.addr = mr.mr_iova + offset;
        if (auto a = in_.optional(e, "addr")) sge.addr = in_.u64(*a);
        if (auto l = in_.optional(e, "length")) {
          sge.length = in_.u32(*l);
        } else {
          const std::uint64_t rest = mr.mr_length - offset;
          if (in_.has(e, "addr") || rest > UINT32_MAX)
            in_.fail(e, "missing required key \"length\"");
          sge.length = static_cast<std::uint32_t>(rest);
        }
      } else {
        if (in_.has(e, "offset"))
          in_.fail(e.child("offset"), "\"offset\" needs an lkey that names an MR; use \"addr\"");
        sge.addr = in_.u64(in_.required(e, "addr"));
        sge.length = in_.u32(in_.required(e, "length"));
      }
      out.push_back(sge);
    }
    return out;
  }

  PostRecvStep post_recv(const Node& n) {
    in_.object(n, {"op", "qp", "wr", "expect_error"});
    PostRecvStep s;
    s.qp = ref(in_.required(n, "qp"), {ObjectKind::QP});
    const Node wr = in_.required(n, "wr");
    in_.object(wr, {"wr_id", "sg_list"});
    if (auto v = in_.optional(wr, "wr_id")) s.wr_id = in_.u64(*v);
    if (auto v = in_.optional(wr, "sg_list")) s.sg_list = sg_list(*v, s.qp);
    s.expect_error = expect_error(n, names::post_errors(), "post error");
    return s;
  }

  PostSendStep post_send(const Node& n) {
    in_.object(n, {"op", "qp", "wr", "expect_error"});
    PostSendStep s;
    s.qp = ref(in_.required(n, "qp"), {ObjectKind::QP});
    const bool ud = sc_.objects[s.qp].qp_type == qp::QpType::UD;
    const Node wr = in_.required(n, "wr");
    in_.object(wr,
               {"wr_id", "opcode", "send_flags", "sg_list", "inline_data", "imm_data",
                "invalidate_rkey", "remote_addr", "remote_offset", "rkey", "compare_add", "swap",
                "bind", "flush_type", "flush_level", "ah", "remote_qpn", "remote_qkey"});
    tx::SendWr& w = s.wr;
    w.opcode =
        in_.enumerated<tx::WrOpcode>(in_.required(wr, "opcode"), names::wr_opcodes(), "WR opcode");
    const std::string_view opname = tx::to_string(w.opcode);
    const std::uint32_t allowed = wr_fields(w.opcode);
    for (auto it = wr->begin(); it != wr->end(); ++it) {
      const std::uint32_t f = field_of_key(it.key());
      if (f != 0 && (allowed & f) == 0)
        in_.fail(wr.child(it.key()), fmt::format("\"{}\" is not used by {}", it.key(), opname));
      if ((it.key() == "ah" || it.key() == "remote_qpn" || it.key() == "remote_qkey") && !ud)
        in_.fail(wr.child(it.key()),
                 fmt::format("\"{}\" is for UD QPs; \"{}\" is {}", it.key(), sc_.objects[s.qp].name,
                             qp::to_string(sc_.objects[s.qp].qp_type)));
    }
    if (auto v = in_.optional(wr, "wr_id")) w.wr_id = in_.u64(*v);
    if (auto v = in_.optional(wr, "send_flags"))
      w.send_flags = in_.flags<tx::SendFlag>(*v, names::send_flags(), "send flag");
    if (auto v = in_.optional(wr, "sg_list")) s.sg_list = sg_list(*v, s.qp);
    if (auto v = in_.optional(wr, "inline_data")) {
      if ((w.send_flags & tx::kSendInline) == 0)
        in_.fail(*v, "\"inline_data\" needs the INLINE send flag");
      if (in_.has(wr, "sg_list"))
        in_.fail(*v, "give either \"inline_data\" or \"sg_list\", not both");
      w.inline_data = in_.hex(*v);
    } else if ((w.send_flags & tx::kSendInline) != 0) {
      s.inline_from_sg = true;  // verbs copy the SGEs' bytes at post time
    }
    if (auto v = in_.optional(wr, "imm_data")) w.imm_data = in_.u32(*v);
    if (auto v = in_.optional(wr, "invalidate_rkey")) {
      s.invalidate_rkey = key_ref(*v, {ObjectKind::MR, ObjectKind::MW});
    } else if (allowed & kInvalidate) {
      in_.fail(wr, fmt::format("missing required key \"invalidate_rkey\" (for {})", opname));
    }
    if (allowed & kRemote) remote(wr, s, opname);
    if (allowed & kCompareAdd) w.compare_add = in_.u64(in_.required(wr, "compare_add"));
    if (allowed & kSwap) w.swap = in_.u64(in_.required(wr, "swap"));
    if (allowed & kBind) bind(in_.required(wr, "bind"), s);
    if (auto v = in_.optional(wr, "flush_type"))
      w.flush_type = static_cast<std::uint8_t>(
          in_.flags<std::uint8_t>(*v, names::flush_types(), "flush type") & 0xFFu);
    if (auto v = in_.optional(wr, "flush_level")) {
      if ((*v)->is_string() && !Reader::looks_numeric((*v)->get<std::string>())) {
        w.flush_level = in_.enumerated<std::uint8_t>(*v, names::flush_levels(), "flush level");
      } else {
        w.flush_level = static_cast<std::uint8_t>(in_.integer(*v, 0, 0xFF));
      }
    }
    if (ud) {
      s.ah = address_vector(in_.required(wr, "ah"));
      s.remote_qpn = qpn_ref(in_.required(wr, "remote_qpn"));
      w.remote_qpn = s.remote_qpn.value;
      w.remote_qkey = in_.u32(in_.required(wr, "remote_qkey"));
    }
    s.expect_error = expect_error(n, names::post_errors(), "post error");
    return s;
  }

  // remote_addr / remote_offset / rkey. An rkey naming an MR gives remote_addr a default: the
  // MR's iova plus remote_offset.
  void remote(const Node& wr, PostSendStep& s, std::string_view opname) {
    const Node rk = in_.required(wr, "rkey");
    s.rkey = key_ref(rk, {ObjectKind::MR, ObjectKind::MW});
    in_.at_most_one(wr, {"remote_addr", "remote_offset"});
    if (auto v = in_.optional(wr, "remote_addr")) {
      s.wr.remote_addr = in_.u64(*v);
      return;
    }
    if (s.rkey.object == kNoObj || sc_.objects[s.rkey.object].kind != ObjectKind::MR)
      in_.fail(wr, fmt::format("missing required key \"remote_addr\" (for {}; it has a default "
                               "only when \"rkey\" names an MR)",
                               opname));
    const NamedObject& mr = sc_.objects[s.rkey.object];
    std::uint64_t offset = 0;
    if (auto o = in_.optional(wr, "remote_offset")) offset = in_.integer(*o, 0, mr.mr_length);
    s.wr.remote_addr = mr.mr_iova + offset;
  }

  void bind(const Node& n, PostSendStep& s) {
    in_.object(n, {"mw", "mr", "addr", "offset", "length", "access"});
    s.bind_mw = key_ref(in_.required(n, "mw"), {ObjectKind::MW});
    const Node mrn = in_.required(n, "mr");
    s.bind_mr = key_ref(mrn, {ObjectKind::MR});
    in_.at_most_one(n, {"addr", "offset"});
    if (s.bind_mr.object != kNoObj) {
      const NamedObject& mr = sc_.objects[s.bind_mr.object];
      same_adapter(mrn, s.bind_mr.object, s.qp);
      std::uint64_t offset = 0;
      if (auto o = in_.optional(n, "offset")) offset = in_.integer(*o, 0, mr.mr_length);
      s.wr.bind_addr = mr.mr_iova + offset;
      s.wr.bind_length = mr.mr_length - offset;
    } else if (in_.has(n, "offset")) {
      in_.fail(n.child("offset"), "\"offset\" needs \"mr\" to name an MR; use \"addr\"");
    }
    if (auto v = in_.optional(n, "addr")) s.wr.bind_addr = in_.u64(*v);
    if (auto v = in_.optional(n, "length")) {
      s.wr.bind_length = in_.u64(*v);
    } else if (s.bind_mr.object == kNoObj || in_.has(n, "addr")) {
      in_.fail(n, "missing required key \"length\"");
    }
    s.wr.bind_access =
        in_.flags<mem::Access>(in_.required(n, "access"), names::access_flags(), "access flag");
  }

  RunStep run(const Node& n) {
    in_.object(n, {"op", "until_ns", "for_ns", "poll"});
    in_.at_most_one(n, {"until_ns", "for_ns"});
    RunStep s;
    if (auto v = in_.optional(n, "poll")) s.poll = in_.boolean(*v);
    if (auto v = in_.optional(n, "until_ns")) s.until_ns = in_.integer(*v, 0, sim::kNever - 1);
    if (auto v = in_.optional(n, "for_ns")) s.for_ns = in_.integer(*v, 1, sim::kNever - 1);
    return s;
  }

  ExpectStep expect(const Node& n) {
    in_.object(n, {"op", "frames", "completions", "memory", "qp_state", "async_events"});
    ExpectStep s;
    if (!in_.has(n, "frames") && !in_.has(n, "completions") && !in_.has(n, "memory") &&
        !in_.has(n, "qp_state") && !in_.has(n, "async_events"))
      in_.fail(n, "needs at least one of: frames, completions, memory, qp_state, async_events");
    if (auto f = in_.optional(n, "frames")) {
      FramesExpect e;
      e.path = f->path;
      for (const Node& x : in_.array(*f)) e.frames.push_back(frame(x));
      s.frames = std::move(e);
    }
    if (auto c = in_.optional(n, "completions")) {
      if (!(*c)->is_object())
        in_.fail(*c, fmt::format("expected an object {{CQ name: [completions]}}, got {}",
                                 json_input::type_name(**c)));
      for (auto it = (*c)->begin(); it != (*c)->end(); ++it) {
        CqExpect e;
        const Node list = c->child(it.key());
        e.path = list.path;
        const json_input::json name_value = it.key();
        e.cq = ref(Node{&name_value, list.path}, {ObjectKind::CQ});
        for (const Node& w : in_.array(list)) e.completions.push_back(completion(w));
        s.completions.push_back(std::move(e));
      }
    }
    if (auto m = in_.optional(n, "memory")) {
      for (const Node& e : in_.array(*m, 1)) s.memory.push_back(memory(e));
    }
    if (auto q = in_.optional(n, "qp_state")) {
      if (!(*q)->is_object())
        in_.fail(*q, fmt::format("expected an object {{QP name: state}}, got {}",
                                 json_input::type_name(**q)));
      for (auto it = (*q)->begin(); it != (*q)->end(); ++it) {
        QpStateExpect e;
        const Node v = q->child(it.key());
        e.path = v.path;
        const json_input::json name_value = it.key();
        e.qp = ref(Node{&name_value, v.path}, {ObjectKind::QP});
        e.state = in_.enumerated<qp::QpState>(v, names::qp_states(), "QP state");
        s.qp_states.push_back(e);
      }
    }
    if (auto a = in_.optional(n, "async_events")) {
      if (!(*a)->is_object())
        in_.fail(*a, fmt::format("expected an object {{adapter name: [events]}}, got {}",
                                 json_input::type_name(**a)));
      for (auto it = (*a)->begin(); it != (*a)->end(); ++it) {
        AsyncExpect e;
        const Node list = a->child(it.key());
        e.path = list.path;
        const json_input::json name_value = it.key();
        const ObjId adapter = ref(Node{&name_value, list.path}, {ObjectKind::ADAPTER});
        e.adapter = sc_.objects[adapter].adapter_index;
        for (const Node& ev : in_.array(list)) e.events.push_back(async_event(ev, adapter));
        s.async_events.push_back(std::move(e));
      }
    }
    return s;
  }

  // "SRQ_LIMIT_REACHED", or {"event": "SRQ_LIMIT_REACHED", "srq": "srqB"}: the element key is
  // the one the event's kind names (qp, cq or srq), on the adapter the list is for.
  AsyncEventExpect async_event(const Node& n, ObjId adapter) {
    AsyncEventExpect e;
    e.path = n.path;
    if (n->is_string()) {
      const auto kind =
          in_.enumerated<errors::AsyncEventType>(n, names::async_events(), "asynchronous event");
      e.kind = names::name_of(names::async_events(), kind);
      return e;
    }
    in_.object(n, {"event", "qp", "cq", "srq"});
    const Node kn = in_.required(n, "event");
    const auto kind =
        in_.enumerated<errors::AsyncEventType>(kn, names::async_events(), "asynchronous event");
    e.kind = names::name_of(names::async_events(), kind);
    std::string_view want;
    ObjectKind want_kind = ObjectKind::QP;
    switch (errors::event_target(kind)) {
      case errors::EventTarget::QP:
        want = "qp";
        break;
      case errors::EventTarget::CQ:
        want = "cq";
        want_kind = ObjectKind::CQ;
        break;
      case errors::EventTarget::SRQ:
        want = "srq";
        want_kind = ObjectKind::SRQ;
        break;
      case errors::EventTarget::NONE:
      case errors::EventTarget::WQ:
      case errors::EventTarget::PORT:
      case errors::EventTarget::DEVICE:
        break;
    }
    for (std::string_view key : {"qp", "cq", "srq"}) {
      if (!in_.has(n, key) || key == want) continue;
      in_.fail(n.child(key),
               want.empty() ? fmt::format("{} names no QP, CQ or SRQ", e.kind)
                            : fmt::format("{} names {}; give \"{}\"", e.kind, an(want_kind), want));
    }
    if (!want.empty()) {
      if (auto v = in_.optional(n, want)) {
        e.element = ref(*v, {want_kind});
        const NamedObject& o = sc_.objects[e.element];
        if (o.adapter_index != sc_.objects[adapter].adapter_index)
          in_.fail(*v, fmt::format("{} \"{}\" is on adapter \"{}\", not \"{}\"", to_string(o.kind),
                                   o.name, adapter_name(o), sc_.objects[adapter].name));
      }
    }
    return e;
  }

  FrameExpect frame(const Node& n) {
    in_.object(n, {"from", "opcode", "qp", "psn", "ackreq", "aeth", "msn", "payload_len", "dmalen"});
    FrameExpect f;
    f.path = n.path;
    f.from = sc_.objects[ref(in_.required(n, "from"), {ObjectKind::ADAPTER})].adapter_index;
    const Node op = in_.required(n, "opcode");
    const std::string name = in_.string(op);
    if (!wire::opcode_from_name(name, f.opcode))
      in_.fail(op, fmt::format("unknown opcode \"{}\" (the names `rocecert decode` prints, e.g. "
                               "RC_RDMA_WRITE_FIRST, RC_ACKNOWLEDGE)", name));
    if (auto v = in_.optional(n, "qp")) f.qp = ref(*v, {ObjectKind::QP});
    if (auto v = in_.optional(n, "psn")) f.psn = static_cast<std::uint32_t>(in_.integer(*v, 0, 0xFFFFFF));
    if (auto v = in_.optional(n, "ackreq")) f.ackreq = in_.boolean(*v);
    if (auto v = in_.optional(n, "aeth")) {
      const std::string a = in_.string(*v);
      bool known = false;
      for (unsigned syndrome = 0; syndrome < 0x100 && !known; ++syndrome)
        known = wire::aeth_name(static_cast<std::uint8_t>(syndrome)) == a;
      if (!known)
        in_.fail(*v, fmt::format("unknown AETH \"{}\" (ACK, RNR_NAK, NAK_PSN_SEQUENCE_ERROR, "
                                 "NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS_ERROR, "
                                 "NAK_REMOTE_OPERATIONAL_ERROR, NAK_INVALID_RD_REQUEST)", a));
      f.aeth = a;
    }
    if (auto v = in_.optional(n, "msn")) f.msn = static_cast<std::uint32_t>(in_.integer(*v, 0, 0xFFFFFF));
    if (auto v = in_.optional(n, "payload_len")) f.payload_len = in_.u32(*v);
    if (auto v = in_.optional(n, "dmalen")) f.dmalen = in_.u32(*v);
    return f;
  }

  CompletionExpect completion(const Node& n) {
    in_.object(n,
               {"wr_id", "status", "opcode", "byte_len", "imm_data", "wc_flags", "src_qp", "qp"});
    CompletionExpect c;
    c.path = n.path;
    c.wr_id = in_.u64(in_.required(n, "wr_id"));
    c.status =
        in_.enumerated<cq::WcStatus>(in_.required(n, "status"), names::wc_statuses(), "WC status");
    if (auto v = in_.optional(n, "opcode"))
      c.opcode = in_.enumerated<cq::WcOpcode>(*v, names::wc_opcodes(), "WC opcode");
    if (auto v = in_.optional(n, "byte_len")) c.byte_len = in_.u32(*v);
    if (auto v = in_.optional(n, "imm_data")) c.imm_data = in_.u32(*v);
    if (auto v = in_.optional(n, "wc_flags"))
      c.wc_flags = in_.flags<cq::WcFlag>(*v, names::wc_flags(), "WC flag");
    if (auto v = in_.optional(n, "src_qp")) c.src_qp = qpn_ref(*v);
    if (auto v = in_.optional(n, "qp")) c.qp = ref(*v, {ObjectKind::QP});
    return c;
  }

  MemoryExpect memory(const Node& n) {
    MemoryExpect m;
    m.path = n.path;
    if (!n->is_object())
      in_.fail(n, fmt::format("expected an object, got {}", json_input::type_name(*n)));
    const std::string_view where = in_.one_of(n, {"mr", "adapter"});
    if (where == "mr") {
      const ObjId id = ref(n.child("mr"), {ObjectKind::MR});
      const NamedObject& mr = sc_.objects[id];
      if (in_.has(n, "addr"))
        in_.fail(n.child("addr"),
                 "with \"mr\", give \"offset\" (from the MR's start), not \"addr\"");
      const MemoryPiece p = piece(n, mr.mr_length, {"mr"});
      m.adapter = mr.adapter_index;
      m.addr = mr.mr_addr + p.offset;  // host memory: the MR's host address, not its iova
      m.bytes = p.bytes;
    } else {
      m.adapter = sc_.objects[ref(n.child("adapter"), {ObjectKind::ADAPTER})].adapter_index;
      if (in_.has(n, "offset"))
        in_.fail(n.child("offset"), "with \"adapter\", give \"addr\", not \"offset\"");
      const MemoryPiece p = piece(n, std::nullopt, {"adapter", "addr"});
      m.addr = in_.u64(in_.required(n, "addr"));
      m.bytes = p.bytes;
    }
    return m;
  }

  struct PendingRuleQp {
    std::size_t link = 0;
    std::size_t rule = 0;
    std::string name;
    std::string path;
    std::optional<model::LinkDirection> direction;
  };

  Reader in_;
  Scenario sc_;
  std::map<std::string, std::pair<ObjectKind, std::string>> later_;
  std::vector<PendingRuleQp> pending_rule_qps_;
};

}  // namespace

Scenario parse_scenario(std::string_view text, const std::string& file) {
  return Loader(file).load(text);
}

Scenario load_scenario_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ScenarioError(path, "", "is a directory, not a scenario file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, "", "cannot open the scenario file");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ScenarioError(path, "", "cannot read the scenario file");
  return parse_scenario(ss.str(), path);
}

}  // namespace rocecert::conformance
