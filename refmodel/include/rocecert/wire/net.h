// Ethernet / 802.1Q / IPv4 / IPv6 / UDP as plain values (RoCEv2: IBA Annex A17.4).
#pragma once

#include <array>
#include <cstdint>

namespace rocecert::wire {

inline constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
inline constexpr std::uint16_t kEtherTypeVlan = 0x8100;
inline constexpr std::uint16_t kEtherTypeQinQ = 0x88A8;
inline constexpr std::uint8_t kIpProtoUdp = 17;
inline constexpr std::uint16_t kRoceV2Port = 4791;  // Annex A17.4.2 (IANA "roce")

inline constexpr std::size_t kEthLen = 14;
inline constexpr std::size_t kVlanTagLen = 4;
inline constexpr std::size_t kIpv4MinLen = 20;
inline constexpr std::size_t kIpv6Len = 40;
inline constexpr std::size_t kUdpLen = 8;

using MacAddr = std::array<std::uint8_t, 6>;

struct VlanTag {
  std::uint8_t pcp = 0;  // 3 bits
  bool dei = false;
  std::uint16_t vid = 0;  // 12 bits
  friend bool operator==(const VlanTag&, const VlanTag&) = default;
};

struct Ethernet {
  MacAddr dst{};
  MacAddr src{};
  bool has_vlan = false;
  VlanTag vlan{};
  std::uint16_t ethertype = kEtherTypeIpv4;  // the inner one when tagged
  friend bool operator==(const Ethernet&, const Ethernet&) = default;
};

// An IPv4 or IPv6 header. Addresses are stored as 16 bytes; IPv4 uses the first 4.
struct IpHeader {
  std::uint8_t version = 4;
  std::uint8_t dscp = 0;  // 6 bits (IPv4 TOS or IPv6 traffic class, bits 7:2)
  std::uint8_t ecn = 0;   // 2 bits
  std::uint8_t ttl = 64;  // IPv4 TTL or IPv6 hop limit
  std::array<std::uint8_t, 16> src{};
  std::array<std::uint8_t, 16> dst{};
  // IPv4 only
  std::uint8_t ihl = 5;  // 32-bit words; options are carried opaque in `options`
  std::uint16_t id = 0;
  std::uint16_t frag = 0x4000;     // flags + fragment offset; DF as rxe sends
  std::uint16_t checksum = 0;      // as read; the encoder computes it
  std::uint16_t total_length = 0;  // as read (IPv4 total length / IPv6 payload length)
  // IPv6 only
  std::uint32_t flow_label = 0;  // 20 bits
  std::uint8_t next_header = kIpProtoUdp;
  friend bool operator==(const IpHeader&, const IpHeader&) = default;
};

struct Udp {
  std::uint16_t sport = 0xC000;
  std::uint16_t dport = kRoceV2Port;
  std::uint16_t length = 0;    // as read; the encoder computes it
  std::uint16_t checksum = 0;  // RoCEv2 senders put 0 (Annex A17.4.2; rxe does)
  friend bool operator==(const Udp&, const Udp&) = default;
};

}  // namespace rocecert::wire
