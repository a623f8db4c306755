// Writes seed corpora:
//  - fuzz_decode (DECODE_DIR): one well-formed frame per opcode, IPv4 and IPv6, with and without
//    a VLAN tag, each prefixed by the link-type selector byte (0 = Ethernet, 3 = raw IP), the
//    same frames again as raw IP packets, and the inputs the target once failed on (each also
//    a unit test in refmodel/wire/tests/fuzz_regression_test.cpp);
//  - fuzz_fault_rule (RULE_DIR): the rule objects of docs/faults.md and vectors/scenarios/*.json
//    (a QP number where a scenario names a QP), and rules in the model's text form;
//  - fuzz_scenario (SCENARIO_DIR): inputs the JSON parser itself must refuse with a located
//    error: numbers beyond a double's range, integers beyond 64 bits, a NUL byte, invalid
//    UTF-8, deep nesting. (The committed scenarios are copied next to them by CMake.)
//  - fuzz_check (CHECK_DIR): the captures of REAL_DIR (vectors/real/) in fuzz_check's framing,
//    as far as 60 KB hold them, also cut to 128 bytes a frame (longer exchanges), and with one
//    frame dropped, duplicated, swapped with the next, its PSN or opcode changed (ICRC
//    recomputed) or a PSN byte flipped (ICRC broken).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "rocecert/pcap/reader.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/net.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert::wire;

namespace {

bool write(const std::string& path, std::string_view bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

constexpr std::string_view kRuleSeeds[] = {
    R"({"action": "drop", "match": {"opcode": "RC_RDMA_WRITE_MIDDLE", "qp": "0x11"}, "nth": 3})",
    R"({"action": "drop", "direction": "b_to_a", "match": {"class": "ack"}, "nth": 1})",
    R"({"action": "corrupt", "match": {"class": "read_response", "psn": "0x102"}, "nth": 1})",
    R"({"action": "reorder", "direction": "a_to_b", "match": {"class": "send"}, "from": 2,)"
    R"( "to": 4, "overtake": 2, "max_hold_ns": 5000})",
    R"({"action": "delay", "direction": "b_to_a", "match": {"class": "response"}, "from": 5,)"
    R"( "delay_ns": 20000, "jitter_ns": 300})",
    R"({"action": "ecn_ce", "direction": "a_to_b"})",
    R"({"action": "ecn_ce", "direction": "a_to_b", "match": {"qp": 18}, "from": 1, "to": 24})",
    R"({"action": "drop", "direction": "b_to_a",)"
    R"( "match": {"opcode": "RC_RDMA_READ_RESPONSE_MIDDLE", "qp": 17}, "nth": 1})",
    R"({"action": "drop", "direction": "b_to_a", "match": {"class": "atomic_ack", "qp": "qpA"}})",
    R"({"action": "duplicate", "match": {"opcode": 100, "position": "only", "ackreq": true}})",
    "drop opcode=RC_RDMA_WRITE_MIDDLE qp=0x11 nth=3",
    "reorder dir=a>b class=send nth=2..4 overtake=2 hold=5000",
    "delay dir=b>a class=response nth=5.. delay=20000 jitter=300",
    "duplicate dir=any opcode=0x64 pos=only ackreq=1 nth=every",
};

constexpr char kLinkEthernet = 0;
constexpr char kLinkRawIp = 3;

// A raw-IP IPv6 frame carrying RC_SEND_MIDDLE with PadCnt 3 and a 13-byte payload: its spec
// re-encoded as an Ethernet frame whose EtherType said IPv4.
constexpr unsigned char kRawIpv6SendMiddlePad3[] = {
    0x6b, 0xf2, 0x04, 0x07, 0x00, 0x28, 0x11, 0xb5, 0xfd, 0x00, 0x4b, 0x81, 0xab, 0xff,
    0x82, 0x54, 0xfe, 0xb0, 0xc7, 0xab, 0xc0, 0x8d, 0x8f, 0xac, 0xfd, 0x00, 0xef, 0x81,
    0x53, 0x09, 0xae, 0xc2, 0x68, 0xda, 0xcb, 0x9f, 0x2f, 0xac, 0x22, 0x4a, 0xc5, 0xae,
    0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x01, 0x30, 0xb5, 0xbf, 0x00, 0x5e, 0x6a, 0x3c,
    0x00, 0x74, 0x93, 0xdf, 0x1d, 0xc1, 0x18, 0x56, 0xbd, 0xd1, 0x64, 0x8f, 0x3e, 0xda,
    0x25, 0x98, 0xd0, 0x00, 0x00, 0x00, 0x91, 0x67, 0x49, 0x52, 0x3a};

// A decode seed: the link-type selector byte, then the frame.
std::string decode_seed(char link, const unsigned char* data, std::size_t size) {
  std::string bytes(1, link);
  bytes.append(reinterpret_cast<const char*>(data), size);
  return bytes;
}

constexpr std::string_view kScenarioSeeds[] = {
    R"({"seed": 1e400, "adapters": [], "steps": []})",
    R"({"links": [{"a": "A", "b": "B", "gbps": -1e400}], "adapters": [], "steps": []})",
    R"({"seed": 18446744073709551616, "adapters": [], "steps": []})",
    R"({"seed": "0x10000000000000000", "adapters": [], "steps": []})",
    std::string_view("{\"seed\": 1\0, \"adapters\": [], \"steps\": []}", 41),
    "{\"description\": \"caf\xC3\x28\", \"adapters\": [], \"steps\": []}",
};

struct SeedFrame {
  std::int64_t ts = 0;
  std::uint32_t wire_len = 0;
  std::vector<std::uint8_t> data;
};

constexpr std::size_t kCheckSeedMax = 60000;
constexpr std::size_t kSnap = 128;

// fuzz_check's time step byte for a gap (see fuzz/fuzz_check.cpp): µs below 64 µs, then steps
// of 2^20 ns, 127 for a step back.
std::uint8_t time_byte(std::int64_t gap) {
  if (gap < 0) return 127;
  if (gap < 64'000) return static_cast<std::uint8_t>(gap / 1000);
  return static_cast<std::uint8_t>(std::min<std::int64_t>(63 + (gap >> 20), 126));
}

// The frames in fuzz_check's framing, as many as fit in kCheckSeedMax; `snap` cuts each frame.
std::string check_seed(std::uint8_t options, const std::vector<SeedFrame>& frames,
                       std::size_t snap) {
  std::string out(1, static_cast<char>(options));
  std::int64_t prev = frames.empty() ? 0 : frames.front().ts;
  for (const SeedFrame& f : frames) {
    const std::size_t len = std::min(f.data.size(), snap);
    const bool cut = len < f.wire_len;
    if (out.size() + len + 5 > kCheckSeedMax) break;
    out.push_back(static_cast<char>(time_byte(f.ts - prev) | (cut ? 0x80 : 0)));
    out.push_back(static_cast<char>(len >> 8));
    out.push_back(static_cast<char>(len & 0xff));
    if (cut) {
      const std::uint32_t w = std::min<std::uint32_t>(f.wire_len, 0xffff);
      out.push_back(static_cast<char>(w >> 8));
      out.push_back(static_cast<char>(w & 0xff));
    }
    out.append(reinterpret_cast<const char*>(f.data.data()), len);
    prev = f.ts;
  }
  return out;
}

// The frames of the seed window (what check_seed keeps of the whole capture).
std::size_t window(const std::vector<SeedFrame>& frames) {
  std::size_t bytes = 1, n = 0;
  while (n < frames.size() && bytes + frames[n].data.size() + 5 <= kCheckSeedMax)
    bytes += frames[n++].data.size() + 3;
  return n;
}

// Re-encodes frame `f` after `change` (ICRC recomputed); false if it is not a RoCEv2 frame.
template <typename Change>
bool reencode(SeedFrame& f, LinkType link, Change change) {
  const ParsedFrame p = decode(f.data, {link, true});
  if (!p.roce || p.has_error || !p.has_bth) return false;
  FrameSpec spec = to_spec(p);
  change(spec);
  spec.icrc.reset();
  f.data = encode(spec);
  f.wire_len = static_cast<std::uint32_t>(f.data.size());
  return true;
}

// Seeds for fuzz_check from one capture; returns how many were written (-1 on a write error).
int check_seeds(const std::filesystem::path& capture, const std::string& dir) {
  std::vector<SeedFrame> frames;
  LinkType link = LinkType::Ethernet;
  try {
    rocecert::pcap::Reader reader(capture.string());
    link = reader.link();
    rocecert::pcap::Record rec;
    while (reader.next(rec))
      frames.push_back({rec.ts_ns, rec.len, {rec.data.begin(), rec.data.end()}});
  } catch (const rocecert::pcap::CaptureError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return -1;
  }
  const std::uint8_t options = static_cast<std::uint8_t>(link);
  const std::string base = dir + "/" + capture.stem().string();
  int n = 0;
  auto emit = [&](const std::string& name, const std::vector<SeedFrame>& fs, std::size_t snap) {
    // The whole captures also go through the report writers (option bit 3, and a length that
    // is a multiple of 8: zero bytes at the end, an empty frame at most).
    const bool whole = name == "whole";
    const auto o = static_cast<std::uint8_t>(options | (whole ? 8 : 0));
    std::string seed = check_seed(o, fs, snap);
    while (whole && seed.size() % 8 != 0) seed.push_back('\0');
    if (!write(base + "_" + name, seed)) return false;
    ++n;
    return true;
  };
  if (!emit("whole", frames, SIZE_MAX) || !emit("snap", frames, kSnap)) return -1;
  // The captures whose setup and completion log fuzz_check holds: a copy whose length picks
  // them (length mod 3, fuzz_check.cpp; zero bytes at the end, an empty frame at most).
  const std::string stem = capture.stem().string();
  const int side = stem == "cq_overflow"                                    ? 1
                   : stem == "rnr_nak_then_ok" || stem == "multi_qp_errors" ? 2
                                                                            : 0;
  if (side != 0) {
    std::string seed = check_seed(options, frames, SIZE_MAX);
    while (seed.size() % 3 != static_cast<std::size_t>(side)) seed.push_back('\0');
    if (!write(base + "_side", seed)) return -1;
    ++n;
  }
  std::vector<SeedFrame> w(frames.begin(),
                           frames.begin() + static_cast<std::ptrdiff_t>(window(frames)));
  if (w.size() < 3) return n;
  const std::size_t k = w.size() / 3;
  for (std::size_t drop : {k, 2 * k}) {
    std::vector<SeedFrame> v = w;
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(drop));
    if (!emit("drop" + std::to_string(drop + 1), v, SIZE_MAX)) return -1;
  }
  std::vector<SeedFrame> dup = w;
  dup.insert(dup.begin() + static_cast<std::ptrdiff_t>(k + 1), w[k]);
  std::vector<SeedFrame> swap = w;
  std::swap(swap[k], swap[k + 1]);
  if (!emit("dup", dup, SIZE_MAX) || !emit("swap", swap, SIZE_MAX)) return -1;
  std::vector<SeedFrame> psn = w, opcode = w, flip = w;
  if (reencode(psn[k], link, [](FrameSpec& s) { s.bth.psn = (s.bth.psn + 1) & kMask24; }) &&
      !emit("psn", psn, SIZE_MAX))
    return -1;
  if (reencode(opcode[k], link, [](FrameSpec& s) { s.bth.opcode ^= 1; }) &&
      !emit("opcode", opcode, SIZE_MAX))
    return -1;
  const ParsedFrame p = decode(flip[k].data, {link, true});
  if (p.roce && p.has_bth && p.bth_off + 12 <= flip[k].data.size()) {
    flip[k].data[p.bth_off + 11] ^= 0x01;  // the PSN's low byte; the ICRC no longer matches
    if (!emit("flip", flip, SIZE_MAX)) return -1;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4 && argc != 6) {
    std::fprintf(stderr, "usage: %s DECODE_DIR [RULE_DIR SCENARIO_DIR [CHECK_DIR REAL_DIR]]\n",
                 argv[0]);
    return 2;
  }
  int n = 0;
  for (std::uint8_t op : known_opcodes()) {
    for (unsigned ipv : {4u, 6u}) {
      const bool vlan = ipv == 6;
      const auto frame = encode(sample_frame(op, {ipv, vlan, 13, 1}));
      const std::string path =
          std::string(argv[1]) + "/op" + std::to_string(op) + "_v" + std::to_string(ipv);
      if (!write(path, decode_seed(kLinkEthernet, frame.data(), frame.size()))) return 1;
      const std::size_t l2 = kEthLen + (vlan ? kVlanTagLen : 0);
      if (!write(path + "_raw", decode_seed(kLinkRawIp, frame.data() + l2, frame.size() - l2)))
        return 1;
      n += 2;
    }
  }
  if (!write(std::string(argv[1]) + "/regression_rawipv6_send_middle_pad3",
             decode_seed(kLinkRawIp, kRawIpv6SendMiddlePad3, sizeof kRawIpv6SendMiddlePad3)))
    return 1;
  ++n;
  if (argc >= 4) {
    int i = 0;
    for (std::string_view rule : kRuleSeeds) {
      if (!write(std::string(argv[2]) + "/seed" + std::to_string(i++), rule)) return 1;
      ++n;
    }
    i = 0;
    for (std::string_view text : kScenarioSeeds) {
      if (!write(std::string(argv[3]) + "/parser_error" + std::to_string(i++) + ".json", text))
        return 1;
      ++n;
    }
    // Deep nesting: past the reader's limit of 64 levels.
    if (!write(std::string(argv[3]) + "/deep_nesting.json",
               "{\"seed\": " + std::string(100, '[') + std::string(100, ']') + "}"))
      return 1;
    ++n;
  }
  if (argc == 6) {
    std::vector<std::filesystem::path> captures;
    for (const auto& e : std::filesystem::directory_iterator(argv[5]))
      if (e.path().extension() == ".pcap") captures.push_back(e.path());
    std::sort(captures.begin(), captures.end());
    for (const auto& c : captures) {
      const int written = check_seeds(c, argv[4]);
      if (written < 0) return 1;
      n += written;
    }
  }
  std::printf("%d seeds\n", n);
  return 0;
}
