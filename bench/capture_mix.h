// A realistic mix of RoCEv2 frames for the benchmarks: mostly MTU-sized RC WRITE/SEND/READ
// data packets and their ACKs, some small SENDs, UD, atomics and CNPs, IPv4 and IPv6.
#pragma once

#include <cstdint>
#include <vector>

#include "rocecert/wire/sample_frames.h"

namespace rocecert::bench {

inline std::vector<std::vector<std::uint8_t>> make_frame_pool(std::size_t n, std::uint64_t seed) {
  using wire::Opcode;
  struct Kind {
    Opcode op;
    std::uint32_t len;
    unsigned weight;
  };
  const Kind kinds[] = {
      {Opcode::RC_RDMA_WRITE_MIDDLE, 1024, 22},
      {Opcode::RC_RDMA_WRITE_FIRST, 1024, 6},
      {Opcode::RC_RDMA_WRITE_LAST, 1024, 6},
      {Opcode::RC_SEND_MIDDLE, 1024, 10},
      {Opcode::RC_RDMA_READ_RESPONSE_MIDDLE, 1024, 10},
      {Opcode::RC_RDMA_READ_RESPONSE_FIRST, 4096, 2},
      {Opcode::RC_ACKNOWLEDGE, 0, 25},
      {Opcode::RC_SEND_ONLY, 64, 6},
      {Opcode::RC_RDMA_READ_REQUEST, 0, 3},
      {Opcode::UD_SEND_ONLY, 256, 4},
      {Opcode::RC_FETCH_ADD, 0, 2},
      {Opcode::RC_ATOMIC_ACKNOWLEDGE, 0, 2},
      {Opcode::CNP_CNP, 0, 2},
  };
  unsigned total = 0;
  for (const Kind& k : kinds) total += k.weight;
  wire::SplitMix64 rng(seed);
  std::vector<std::vector<std::uint8_t>> pool;
  pool.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    unsigned pick = rng.below(total);
    const Kind* kind = &kinds[0];
    for (const Kind& k : kinds) {
      if (pick < k.weight) {
        kind = &k;
        break;
      }
      pick -= k.weight;
    }
    const unsigned ipv = rng.below(5) == 0 ? 6u : 4u;
    pool.push_back(wire::encode(
        wire::sample_frame(wire::to_u8(kind->op), {ipv, false, kind->len, rng.next()})));
  }
  return pool;
}

}  // namespace rocecert::bench
