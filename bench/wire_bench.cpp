// Micro-benchmarks of the codec (Google Benchmark): decode with and without ICRC validation,
// ICRC alone, encode. `make bench` runs them; docs/bench.md records the figures.
#include <benchmark/benchmark.h>

#include "capture_mix.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/icrc.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert;

namespace {

std::vector<std::uint8_t> frame_of(wire::Opcode op, std::uint32_t len, unsigned ipv = 4) {
  return wire::encode(wire::sample_frame(wire::to_u8(op), {ipv, false, len, 1}));
}

void decode_one(benchmark::State& state, wire::Opcode op, std::uint32_t len, unsigned ipv,
                bool icrc) {
  const auto f = frame_of(op, len, ipv);
  for (auto _ : state) {
    const wire::ParsedFrame p = wire::decode(f, {wire::LinkType::Ethernet, icrc});
    benchmark::DoNotOptimize(p.icrc_ok);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(f.size()) * state.iterations());
}

void BM_DecodeAck(benchmark::State& s) {
  decode_one(s, wire::Opcode::RC_ACKNOWLEDGE, 0, 4, true);
}
void BM_DecodeWriteMiddle1024(benchmark::State& s) {
  decode_one(s, wire::Opcode::RC_RDMA_WRITE_MIDDLE, 1024, 4, true);
}
void BM_DecodeWriteFirst4096(benchmark::State& s) {
  decode_one(s, wire::Opcode::RC_RDMA_WRITE_FIRST, 4096, 4, true);
}
void BM_DecodeSendOnlyIpv6(benchmark::State& s) {
  decode_one(s, wire::Opcode::RC_SEND_ONLY, 1024, 6, true);
}
void BM_DecodeWriteMiddle1024NoIcrc(benchmark::State& s) {
  decode_one(s, wire::Opcode::RC_RDMA_WRITE_MIDDLE, 1024, 4, false);
}

void BM_DecodeMix(benchmark::State& state) {
  const auto pool = bench::make_frame_pool(4096, 7);
  std::size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const auto& f = pool[i++ & 4095];
    bytes += f.size();
    const wire::ParsedFrame p = wire::decode(f);
    benchmark::DoNotOptimize(p.icrc_ok);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}

void BM_Icrc(benchmark::State& state) {
  const auto f = frame_of(wire::Opcode::RC_SEND_ONLY, static_cast<std::uint32_t>(state.range(0)));
  const wire::ByteSpan packet(f.data() + wire::kEthLen, f.size() - wire::kEthLen - 4);
  for (auto _ : state) benchmark::DoNotOptimize(wire::compute_icrc(packet, 4, 20));
  state.SetBytesProcessed(static_cast<std::int64_t>(packet.size()) * state.iterations());
}

void BM_EncodeWriteMiddle1024(benchmark::State& state) {
  const wire::FrameSpec spec =
      wire::sample_frame(wire::to_u8(wire::Opcode::RC_RDMA_WRITE_MIDDLE), {4, false, 1024, 1});
  std::vector<std::uint8_t> out;
  out.reserve(2048);
  for (auto _ : state) {
    out.clear();
    wire::encode_into(spec, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_DecodeAck);
BENCHMARK(BM_DecodeWriteMiddle1024);
BENCHMARK(BM_DecodeWriteFirst4096);
BENCHMARK(BM_DecodeSendOnlyIpv6);
BENCHMARK(BM_DecodeWriteMiddle1024NoIcrc);
BENCHMARK(BM_DecodeMix);
BENCHMARK(BM_Icrc)->Arg(64)->Arg(1024)->Arg(4096);
BENCHMARK(BM_EncodeWriteMiddle1024);
BENCHMARK_MAIN();
