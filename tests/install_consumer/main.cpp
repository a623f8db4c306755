// Built against an installed rocecert (find_package(rocecert CONFIG REQUIRED)): encodes a frame
// with the codec and decodes it back, writes it to a capture and reads it again, then runs a
// scenario on the golden model. Prints one line and exits 0 when everything agrees.
//   consumer SCENARIO.json SCRATCH.pcap
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "rocecert/conformance/runner.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/opcode.h"
#include "rocecert/wire/sample_frames.h"

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "install consumer: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rocecert;
  if (argc != 3) return fail("usage: consumer SCENARIO.json SCRATCH.pcap");
  try {
    // The codec: an RDMA WRITE with 64 bytes of payload, encoded then decoded.
    wire::FrameSpec spec =
        wire::sample_frame(wire::to_u8(wire::Opcode::RC_RDMA_WRITE_ONLY), {4, false, 64, 7});
    spec.bth.psn = 0x123456;
    wire::finalize(spec);
    const std::vector<std::uint8_t> frame = wire::encode(spec);
    const wire::ParsedFrame parsed = wire::decode(frame);
    if (parsed.has_error)
      return fail("decode reports " + std::string(to_string(parsed.error.code)));
    if (!parsed.icrc_ok) return fail("the ICRC of an encoded frame does not validate");
    if (parsed.bth.psn != 0x123456 || parsed.payload_len != 64) return fail("fields differ");
    wire::FrameSpec expected = spec;
    expected.icrc = parsed.icrc;  // to_spec() keeps the carried ICRC; encode() computed it
    if (!(wire::to_spec(parsed) == expected)) return fail("decode(encode(spec)) != spec");

    // The capture writer and reader.
    {
      pcap::Writer writer(argv[2]);
      writer.write(1'000'000'000, frame);
      writer.close();
    }
    pcap::Reader reader(argv[2]);
    pcap::Record record;
    if (!reader.next(record)) return fail("the capture is empty");
    if (!std::equal(record.data.begin(), record.data.end(), frame.begin(), frame.end()))
      return fail("the frame read back differs");

    // The golden model, driven by a scenario.
    const conformance::Scenario scenario = conformance::load_scenario_file(argv[1]);
    const conformance::RunResult result = conformance::run_scenario(scenario, {});
    if (!result.passed()) return fail(argv[1] + std::string(": ") + result.failures[0].message);
    std::printf("install consumer: codec, pcap and model OK (%zu completions)\n",
                result.completions.size());
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
