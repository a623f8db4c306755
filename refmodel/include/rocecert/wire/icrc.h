// RoCEv2 Invariant CRC (IBA Annex A17.7.1; rxe_icrc.c). CRC-32 (IEEE 802.3) over
//   8 bytes of 0xFF (stand-in for the LRH) ‖ IP header ‖ UDP header ‖ BTH ‖ rest of the packet
// with the variant fields set to all ones: IPv4 TOS, TTL and header checksum; IPv6 traffic
// class, flow label and hop limit; UDP checksum; BTH byte 4 (FECN, BECN, Resv6a).
// The result is carried least-significant byte first, like the Ethernet FCS.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rocecert/wire/bytes.h"

namespace rocecert::wire {

// `packet` starts at the IP header and ends just before the ICRC; `ip_header_len` is 20..60
// for IPv4 (IHL × 4) and 40 for IPv6. The packet must hold at least IP + UDP + BTH.
std::uint32_t compute_icrc(ByteSpan packet, unsigned ip_version, std::size_t ip_header_len);

// Plain CRC-32 (reflected 0xEDB88320, init and final XOR 0xFFFFFFFF), continuing `crc`.
std::uint32_t crc32(std::uint32_t crc, ByteSpan data);

}  // namespace rocecert::wire
