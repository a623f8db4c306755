// Frame encoding from a field spec. The model builds every frame it sends through this, and the
// tests build well-formed and deliberately broken frames with it.
//
// encode() writes every field exactly as the spec says. finalize() fills the fields that follow
// from the others (IPv4 total length and header checksum, IPv6 payload length, UDP length, BTH
// pad count) so that a spec built by hand becomes a well-formed frame; leave it out to build a
// frame whose lengths lie. The ICRC is computed unless `icrc` is set.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rocecert/wire/decode.h"
#include "rocecert/wire/headers.h"
#include "rocecert/wire/net.h"

namespace rocecert::wire {

struct FrameSpec {
  Ethernet eth{};
  IpHeader ip{};
  std::vector<std::uint8_t> ipv4_options;  // IHL must account for them
  Udp udp{};
  Bth bth{};  // bth.opcode selects which extended headers below are written
  Rdeth rdeth{};
  Deth deth{};
  Xrceth xrceth{};
  Feth feth{};
  Reth reth{};
  AtomicEth atomiceth{};
  Aeth aeth{};
  AtomicAckEth atomicacketh{};
  ImmDt immdt{};
  Ieth ieth{};
  std::vector<std::uint8_t> payload;
  std::optional<std::uint32_t> icrc;  // nullopt: compute it
  friend bool operator==(const FrameSpec&, const FrameSpec&) = default;
};

// Fills IP lengths and checksum, UDP length and BTH PadCnt from the rest of the spec.
FrameSpec& finalize(FrameSpec& spec);

// Appends the encoded frame to `out` (which is not cleared) and returns its length.
std::size_t encode_into(const FrameSpec& spec, std::vector<std::uint8_t>& out);
std::vector<std::uint8_t> encode(const FrameSpec& spec);
// The length encode_into() gives `spec`, without encoding it.
std::size_t encoded_length(const FrameSpec& spec);

// The spec of a decoded frame (headers the opcode does not carry stay at their defaults;
// `icrc` holds the carried value). Requires a frame that decoded without error.
FrameSpec to_spec(const ParsedFrame& frame);

// IPv4 header checksum (RFC 791) over `header` with its checksum field taken as zero.
std::uint16_t ipv4_checksum(ByteSpan header);

}  // namespace rocecert::wire
