// The scenario loader: adapters, their profiles, and addresses (MAC, GID, address vectors).
#include <arpa/inet.h>
#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "loader_internal.h"

namespace rocecert::conformance::loader {

wire::MacAddr Loader::mac(const Node& n) {
  // Exactly six groups of two hex digits, separated by ':' ("02:00:00:00:00:01").
  const std::string s = in_.string(n);
  wire::MacAddr m{};
  bool ok = s.size() == 17;
  for (std::size_t i = 0; ok && i < 6; ++i) {
    const char* group = s.data() + 3 * i;
    const auto [end, ec] = std::from_chars(group, group + 2, m[i], 16);
    ok = ec == std::errc{} && end == group + 2 && (i == 5 || group[2] == ':');
  }
  if (!ok) in_.fail(n, fmt::format("\"{}\" is not a MAC address (like \"02:00:00:00:00:01\")", s));
  return m;
}

// An IPv4 or IPv6 address as a GID (IPv4 as ::ffff:a.b.c.d).
std::array<std::uint8_t, 16> Loader::gid(const Node& n) {
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

void Loader::adapter(const Node& n, std::size_t index) {
  in_.object(n, keys::kAdapter);
  AdapterSpec spec;
  spec.path = n.path;
  spec.json = n->dump();
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

void Loader::profile(const Node& n, model::Profile& p) {
  in_.object(n, keys::kProfile);
  if (auto a = in_.optional(n, "ackreq")) {
    in_.object(*a, keys::kProfileAckreq);
    if (auto v = in_.optional(*a, "on_last_packet")) p.ackreq.on_last_packet = in_.boolean(*v);
    if (auto v = in_.optional(*a, "every_n_packets")) p.ackreq.every_n_packets = in_.u32(*v);
  }
  if (auto a = in_.optional(n, "ack")) {
    in_.object(*a, keys::kProfileAck);
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
    in_.object(*d, keys::kProfileDcqcn);
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
    static constexpr json_input::EnumName<SP> kPolicies[] = {{"RXE_FLOW_LABEL", SP::RXE_FLOW_LABEL},
                                                             {"FIXED", SP::FIXED}};
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

// An address vector: "peer" (an adapter or a QP) gives the destination GID and MAC; "dgid"
// and "dmac" give or override them.
qp::AddressVector Loader::address_vector(const Node& n) {
  in_.object(n, keys::kAddressVector);
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

}  // namespace rocecert::conformance::loader
