// Well-formed sample frames for any opcode, with every field drawn from a seed. Used by the
// round-trip property tests, the tshark cross-check, the fuzz seed corpus and the benchmark.
#pragma once

#include <cstdint>
#include <vector>

#include "rocecert/wire/encode.h"

namespace rocecert::wire {

struct SampleOptions {
  unsigned ip_version = 4;
  bool vlan = false;
  std::uint32_t payload_len = 0;  // ignored for opcodes without payload (ATOMIC WRITE: 8)
  std::uint64_t seed = 1;
};

// A finalized spec for `opcode` (which must be known): every header field the opcode carries,
// addresses, ports, PSN, keys and payload bytes come from the seed; reserved fields are zero.
FrameSpec sample_frame(std::uint8_t opcode, const SampleOptions& opts);

// Every opcode the table knows, in ascending order.
std::vector<std::uint8_t> known_opcodes();

// Deterministic 64-bit generator (splitmix64): same seed, same sequence on every platform.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }

 private:
  std::uint64_t state_;
};

}  // namespace rocecert::wire
