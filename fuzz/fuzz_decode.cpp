// libFuzzer target for the frame decoder (links rocecert_wire).
// Input: byte 0 selects the link type, the rest is the frame. Besides "no crash, no UB, no
// out-of-bounds read" (ASan/UBSan), it checks two properties on every frame that decodes:
// all reported regions lie inside the frame, spec → bytes → spec is stable, and the encoder's
// ICRC always validates.
#include <cstdint>
#include <cstdlib>

#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"

using namespace rocecert::wire;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const LinkType links[] = {LinkType::Ethernet, LinkType::LinuxSll, LinkType::LinuxSll2,
                            LinkType::RawIp};
  const LinkType link = links[data[0] % 4];
  const ByteSpan frame(data + 1, size - 1);
  const ParsedFrame p = decode(frame, {link, true});
  if (p.has_error) {
    if (p.error.offset > frame.size()) std::abort();
    return 0;
  }
  if (!p.roce || !p.has_bth) return 0;
  if (std::size_t{p.payload_off} + p.payload_len > frame.size()) std::abort();
  if (std::size_t{p.icrc_off} + kIcrcLen > frame.size()) std::abort();
  if (p.icrc_ok != (p.icrc == p.icrc_computed)) std::abort();

  // Only a "tight" packet (no bytes between the UDP datagram and the end of the IP packet) can
  // be rebuilt from its spec.
  const std::size_t ip_payload =
      p.ip.version == 4 ? p.ip.total_length - p.ip_header_len : p.ip.total_length;
  if (ip_payload != p.udp.length) return 0;
  const FrameSpec spec = to_spec(p);
  const auto bytes = encode(spec);
  const ParsedFrame again = decode(bytes);
  if (again.has_error || !again.roce) std::abort();
  if (!(to_spec(again) == spec)) std::abort();
  // With the ICRC left to the encoder, any spec yields a frame whose ICRC validates. (The carried
  // ICRC of the input may not: reserved bits and pad bytes are not part of the spec.)
  FrameSpec fresh = spec;
  fresh.icrc.reset();
  if (!decode(encode(fresh)).icrc_ok) std::abort();
  return 0;
}
