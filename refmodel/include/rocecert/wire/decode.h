// Frame decoding: link layer → IP → UDP 4791 → BTH → extended headers → payload → pad → ICRC.
// Decoding never copies or allocates: a ParsedFrame holds values and offsets into the caller's
// bytes. A frame that is not RoCEv2 (another EtherType, protocol or UDP port) is not an error:
// it comes back with `roce == false`. A frame that claims to be RoCEv2 but does not hold
// together comes back with `error` set to a code and the byte offset where it breaks.
#pragma once

#include <cstdint>
#include <string_view>

#include "rocecert/wire/bytes.h"
#include "rocecert/wire/headers.h"
#include "rocecert/wire/net.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::wire {

// Link-layer framing of a captured frame (libpcap LINKTYPE_* values are mapped by pcap_tools).
enum class LinkType : std::uint8_t { Ethernet, LinuxSll, LinuxSll2, RawIp };

#define ROCECERT_DECODE_ERRORS(X)                                                               \
  X(truncated_link, "frame ends inside the link-layer header")                                  \
  X(truncated_vlan, "frame ends inside an 802.1Q tag")                                          \
  X(truncated_ipv4, "frame ends inside the IPv4 header")                                        \
  X(bad_ip_version, "IP version nibble does not match the EtherType")                           \
  X(bad_ipv4_ihl, "IPv4 IHL below 5 or beyond the captured bytes")                              \
  X(bad_ipv4_total_length, "IPv4 total length is smaller than the header or exceeds the frame") \
  X(ipv4_fragment, "IPv4 fragment (RoCEv2 packets are sent whole, with DF)")                    \
  X(truncated_ipv6, "frame ends inside the IPv6 header")                                        \
  X(bad_ipv6_payload_length, "IPv6 payload length exceeds the frame")                           \
  X(truncated_udp, "IP payload ends inside the UDP header")                                     \
  X(bad_udp_length, "UDP length is below 8 or exceeds the IP payload")                          \
  X(truncated_bth, "UDP payload is shorter than a BTH")                                         \
  X(unknown_opcode, "BTH opcode is reserved or vendor specific")                                \
  X(truncated_headers, "UDP payload ends inside the extended headers or the ICRC")              \
  X(pad_exceeds_payload, "BTH pad count is larger than the bytes before the ICRC")              \
  X(unexpected_payload, "opcode carries no payload but bytes remain before the ICRC")           \
  X(bad_atomic_write_length, "ATOMIC WRITE payload is not exactly 8 bytes")

enum class DecodeErrc : std::uint8_t {
#define ROCECERT_X(name, text) name,
  ROCECERT_DECODE_ERRORS(ROCECERT_X)
#undef ROCECERT_X
};
std::string_view to_string(DecodeErrc e);  // the code, e.g. "truncated_bth"
std::string_view describe(DecodeErrc e);   // one line of prose

struct DecodeError {
  DecodeErrc code;
  std::uint32_t offset;  // byte offset within the frame where the problem lies
};

struct DecodeOptions {
  LinkType link = LinkType::Ethernet;
  bool verify_icrc = true;
};

struct ParsedFrame {
  ByteSpan bytes;     // the captured frame, not owned
  bool roce = false;  // a RoCEv2 packet (IP, UDP dport 4791)
  bool has_error = false;
  DecodeError error{};

  LinkType link = LinkType::Ethernet;
  bool has_eth = false;  // Ethernet header (or its SLL stand-in: source address and type)
  Ethernet eth{};
  bool has_ip = false;
  IpHeader ip{};
  std::uint32_t ip_off = 0;
  std::uint32_t ip_header_len = 0;
  bool has_udp = false;
  Udp udp{};
  std::uint32_t udp_off = 0;

  // Transport; valid when has_bth. `op` is never null once has_bth is set.
  bool has_bth = false;
  Bth bth{};
  const OpcodeInfo* op = nullptr;
  std::uint32_t bth_off = 0;
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
  // The extended headers decoded (HeaderBit mask): those of the opcode whose bytes all lie
  // inside the UDP payload. A frame cut short inside its headers has only the leading ones.
  std::uint16_t headers = 0;
  std::uint32_t payload_off = 0;
  std::uint32_t payload_len = 0;  // without pad and ICRC
  bool has_icrc = false;
  std::uint32_t icrc_off = 0;
  std::uint32_t icrc = 0;           // as carried (LSB first on the wire)
  std::uint32_t icrc_computed = 0;  // valid when verify_icrc was set
  bool icrc_checked = false;
  bool icrc_ok = false;

  // True when header `h` was decoded: the opcode carries it and its bytes are present.
  bool has(Header h) const { return (headers & header_bit(h)) != 0; }
  ByteSpan payload() const { return bytes.subspan(payload_off, payload_len); }
};

// Decodes one frame. Never throws; never reads outside `frame`.
ParsedFrame decode(ByteSpan frame, const DecodeOptions& opts = {});

}  // namespace rocecert::wire
