#include "rocecert/wire/icrc.h"

#include <libdeflate.h>

#include <array>
#include <cstring>

namespace rocecert::wire {

std::uint32_t crc32(std::uint32_t crc, ByteSpan data) {
  // libdeflate's CRC-32 uses PCLMULQDQ where the CPU has it: several times zlib's speed.
  return libdeflate_crc32(crc, data.data(), data.size());
}

namespace {
// CRC-32 state after the 8 bytes of 0xFF that stand in for the LRH (Annex A17.7.1).
const std::uint32_t kLrhPrefixCrc = [] {
  const std::array<std::uint8_t, 8> ones{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  return libdeflate_crc32(0, ones.data(), ones.size());
}();
}  // namespace

std::uint32_t compute_icrc(ByteSpan packet, unsigned ip_version, std::size_t ip_header_len) {
  // Copy IP + UDP + BTH (at most 60 + 8 + 12 bytes), mask the variant fields, and hash the
  // copy; the rest of the packet is hashed in place, so nothing large is copied.
  constexpr std::size_t kUdp = 8, kBth = 12;
  std::array<std::uint8_t, 60 + kUdp + kBth> head{};
  const std::size_t head_len = ip_header_len + kUdp + kBth;
  std::memcpy(head.data(), packet.data(), head_len);
  if (ip_version == 4) {
    head[1] = 0xFF;              // TOS (DSCP + ECN)
    head[8] = 0xFF;              // TTL
    head[10] = head[11] = 0xFF;  // header checksum
  } else {
    head[0] |= 0x0F;                     // traffic class, high nibble
    head[1] = head[2] = head[3] = 0xFF;  // traffic class low nibble + flow label
    head[7] = 0xFF;                      // hop limit
  }
  const std::size_t udp = ip_header_len;
  head[udp + 6] = head[udp + 7] = 0xFF;  // UDP checksum
  head[udp + kUdp + 4] = 0xFF;           // BTH FECN, BECN, Resv6a
  std::uint32_t crc = libdeflate_crc32(kLrhPrefixCrc, head.data(), head_len);
  return libdeflate_crc32(crc, packet.data() + head_len, packet.size() - head_len);
}

}  // namespace rocecert::wire
