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
#include <cstdio>
#include <string>
#include <string_view>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr, "usage: %s DECODE_DIR [RULE_DIR SCENARIO_DIR]\n", argv[0]);
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
  if (argc == 4) {
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
  std::printf("%d seeds\n", n);
  return 0;
}
