// Writes seed corpora:
//  - fuzz_decode (DECODE_DIR): one well-formed frame per opcode, IPv4 and IPv6, with and without
//    a VLAN tag, each prefixed by the link-type selector byte (0 = Ethernet);
//  - fuzz_fault_rule (RULE_DIR): the rule objects of docs/faults.md and vectors/scenarios/*.json
//    (a QP number where a scenario names a QP), and rules in the model's text form;
//  - fuzz_scenario (SCENARIO_DIR): inputs the JSON parser itself must refuse with a located
//    error: numbers beyond a double's range, integers beyond 64 bits, a NUL byte, invalid
//    UTF-8, deep nesting. (The committed scenarios are copied next to them by CMake.)
#include <cstdio>
#include <string>
#include <string_view>

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
      const auto frame = encode(sample_frame(op, {ipv, ipv == 6, 13, 1}));
      const std::string path =
          std::string(argv[1]) + "/op" + std::to_string(op) + "_v" + std::to_string(ipv);
      std::string bytes(1, '\0');  // link type 0: Ethernet
      bytes.append(reinterpret_cast<const char*>(frame.data()), frame.size());
      if (!write(path, bytes)) return 1;
      ++n;
    }
  }
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
