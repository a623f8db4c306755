// `rocecert decode --json` against its schema, docs/decode.schema.json (docs/json.md is the
// contract in prose). The binary is run as a user runs it, and every line it prints is validated
// with Debian's python3-jsonschema (/usr/bin/python3: the `python3` on PATH may be another one):
// every real capture in vectors/real/, and captures of malformed and foreign frames on every
// link type, so that each error code and each optional key is seen. The schema's enums are
// compared with the decoder's own tables. Without the validator the tests fail when CI=true and
// are skipped, saying why, elsewhere.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "../support/command.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/sample_frames.h"

using namespace rocecert;
using nlohmann::json;
using nlohmann::ordered_json;
using Bytes = std::vector<std::uint8_t>;

namespace {

const std::string kSchema = std::string(ROCECERT_SOURCE_DIR) + "/docs/decode.schema.json";
constexpr const char* kPython = "/usr/bin/python3";

using rocecert::testing::CommandResult;
using rocecert::testing::run_command;
using rocecert::testing::slurp;

std::string temp_path(const std::string& name) {
  return rocecert::testing::temp_path("schema", name);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

bool have_jsonschema() {
  return run_command(std::string(kPython) + " -c 'import jsonschema'").exit_code == 0;
}

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// python3-jsonschema is installed by scripts/install-deps.sh: in CI its absence is a failure.
#define REQUIRE_JSONSCHEMA()                                                                       \
  do {                                                                                             \
    if (!have_jsonschema()) {                                                                      \
      if (in_ci()) FAIL() << kPython << " cannot import jsonschema (Debian: python3-jsonschema)";  \
      std::fprintf(stderr, "decode_schema_test: skipped: %s cannot import jsonschema\n", kPython); \
      GTEST_SKIP() << kPython << " cannot import jsonschema (Debian: python3-jsonschema)";         \
    }                                                                                              \
  } while (0)

// Checks the schema itself, then validates every line; prints one message per invalid line (the
// first ten), labelled with where the line came from, and exits 1 if any line is invalid.
constexpr const char* kValidator = R"(import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
labels = open(sys.argv[3]).read().splitlines()
bad = 0
for i, line in enumerate(open(sys.argv[2])):
    instance = json.loads(line)
    if not validator.is_valid(instance):
        bad += 1
        if bad <= 10:
            error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
            print(labels[i] + ": " + error.json_path + ": " + error.message)
if bad:
    print("%d of %d lines invalid" % (bad, len(labels)))
sys.exit(1 if bad else 0)
)";

struct Lines {
  std::vector<std::string> json;   // one decode output line each
  std::vector<std::string> label;  // where it came from, for messages
  void add(const std::string& source, const std::string& output) {
    for (const std::string& l : lines_of(output)) {
      label.push_back(source + " line " + std::to_string(json.size() + 1));
      json.push_back(l);
    }
  }
};

// "" when every line is valid, else the validator's messages.
std::string validate(const Lines& lines, const std::string& schema = kSchema) {
  const std::string script = temp_path("validate.py"), data = temp_path("lines.jsonl"),
                    labels = temp_path("labels.txt");
  std::ofstream(script) << kValidator;
  {
    std::ofstream d(data), l(labels);
    for (const auto& j : lines.json) d << j << '\n';
    for (const auto& s : lines.label) l << s << '\n';
  }
  const CommandResult r = run_command(std::string(kPython) + " '" + script + "' '" + schema +
                                      "' '" + data + "' '" + labels + "'");
  for (const auto& f : {script, data, labels}) std::filesystem::remove(f);
  if (r.exit_code == 0) return "";
  return "validator exit " + std::to_string(r.exit_code) + ":\n" + r.out + r.err;
}

CommandResult decode_json(const std::string& file, const std::string& options = "") {
  return run_command(std::string(ROCECERT_CLI) + " decode --json " + options + " '" + file + "'");
}

// "" when the keys of `line`, and of every object in it, come in the order of the schema's
// `properties` (docs/json.md promises a fixed order), else the first key out of place.
std::string key_order_problem(const ordered_json& line, const ordered_json& schema,
                              const std::string& path = "$") {
  if (!line.is_object() || !schema.contains("properties")) return "";
  const ordered_json& props = schema["properties"];
  std::vector<std::string> order;
  for (const auto& [key, value] : props.items()) order.push_back(key);
  std::size_t at = 0;
  for (const auto& [key, value] : line.items()) {
    const auto it = std::find(order.begin() + static_cast<long>(at), order.end(), key);
    if (it == order.end()) return path + "." + key + " is out of order (or unknown)";
    at = static_cast<std::size_t>(it - order.begin()) + 1;
    const std::string inner = key_order_problem(value, props[key], path + "." + key);
    if (!inner.empty()) return inner;
  }
  return "";
}

// Every line's keys in the schema's order; the first problem, or "".
std::string key_order_problems(const Lines& lines) {
  const ordered_json schema = ordered_json::parse(slurp(kSchema));
  for (std::size_t i = 0; i < lines.json.size(); ++i) {
    const std::string problem = key_order_problem(ordered_json::parse(lines.json[i]), schema);
    if (!problem.empty()) return lines.label[i] + ": " + problem;
  }
  return "";
}

Bytes frame_of(wire::Opcode op, std::uint32_t payload = 16, unsigned ipv = 4, bool vlan = false) {
  return wire::encode(wire::sample_frame(wire::to_u8(op), {ipv, vlan, payload, 11}));
}

constexpr std::size_t kIp = wire::kEthLen;
constexpr std::size_t kUdp = kIp + 20;
constexpr std::size_t kBth = kUdp + wire::kUdpLen;

// An Ethernet capture of every known opcode (IPv4 and IPv6, with and without a VLAN tag), each
// frame cut at every byte (caplen < len), UDP lengths ending inside every header, one frame for
// each error the recipes below make, and frames that are not RoCEv2.
void write_ethernet_capture(const std::string& path) {
  pcap::Writer w(path);
  std::int64_t ts = 1'700'000'000'000'000'000;
  auto put = [&](const Bytes& f, std::uint32_t orig_len = 0) { w.write(ts += 1000, f, orig_len); };
  for (std::uint8_t op : wire::known_opcodes()) {
    for (unsigned ipv : {4u, 6u}) {
      for (bool vlan : {false, true}) put(wire::encode(wire::sample_frame(op, {ipv, vlan, 5, op})));
    }
    // UDP length ending at every byte of the transport headers and the ICRC.
    const wire::OpcodeInfo& info = wire::opcode_info(op);
    for (std::size_t n = 0; n < info.header_len + wire::kIcrcLen; ++n) {
      Bytes f = wire::encode(wire::sample_frame(op, {4, false, 0, 4}));
      wire::store_be16(f, kUdp + 4, static_cast<std::uint32_t>(wire::kUdpLen + n));
      put(f);
    }
  }
  for (const Bytes& full : {frame_of(wire::Opcode::RC_RDMA_WRITE_FIRST, 32, 4, true),
                            frame_of(wire::Opcode::UD_SEND_ONLY_WITH_IMMEDIATE, 8, 6),
                            frame_of(wire::Opcode::RC_ATOMIC_ACKNOWLEDGE, 0, 4)}) {
    for (std::size_t k = 0; k < full.size(); ++k) {
      put(Bytes(full.begin(), full.begin() + static_cast<long>(k)),
          static_cast<std::uint32_t>(full.size()));
    }
  }
  const Bytes send = frame_of(wire::Opcode::RC_SEND_ONLY);
  Bytes f = send;
  f[kIp] = 0x44;  // bad_ipv4_ihl
  put(f);
  f = send;
  f[kIp] = 0x65;  // bad_ip_version
  put(f);
  f = send;
  wire::store_be16(f, kIp + 6, 0x2000);  // ipv4_fragment
  put(f);
  f = Bytes(send.begin(), send.begin() + kUdp + 4);  // truncated_udp
  wire::store_be16(f, kIp + 2, 24);
  put(f);
  f = send;
  wire::store_be16(f, kUdp + 4, 7);  // bad_udp_length
  put(f);
  f = send;
  f[kBth] = 0xE5;  // unknown_opcode (vendor specific)
  put(f);
  f = frame_of(wire::Opcode::RC_SEND_ONLY, 0);
  f[kBth + 1] |= 0x20;  // pad_exceeds_payload
  put(f);
  wire::FrameSpec s =
      wire::sample_frame(wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE), {4, false, 0, 5});
  s.payload = {1, 2, 3, 4};  // unexpected_payload
  put(wire::encode(wire::finalize(s)));
  s = wire::sample_frame(wire::to_u8(wire::Opcode::RC_ATOMIC_WRITE), {4, false, 0, 5});
  s.payload.resize(12);  // bad_atomic_write_length
  put(wire::encode(wire::finalize(s)));
  f = send;
  f[kBth + 20] ^= 0xFF;  // an ICRC that does not match
  put(f);
  // Not RoCEv2: ARP, TCP, UDP to another port, ICMPv6, a later IPv4 fragment.
  f = send;
  wire::store_be16(f, 12, 0x0806);
  put(f);
  f = send;
  f[kIp + 9] = 6;
  put(f);
  f = send;
  wire::store_be16(f, kUdp + 2, 53);
  put(f);
  f = frame_of(wire::Opcode::RC_SEND_ONLY, 16, 6);
  f[kIp + 6] = 58;
  put(f);
  f = send;
  wire::store_be16(f, kIp + 6, 0x0010);
  put(f);
  w.close();
}

// The same IP packets behind Linux cooked headers (v1, v2) and as raw IP, whole and cut short.
void write_cooked_capture(const std::string& path, int linktype) {
  pcap::Writer w(path, linktype);
  std::int64_t ts = 1'000'000'000;
  for (const Bytes& eth : {frame_of(wire::Opcode::RC_RDMA_WRITE_FIRST, 64),
                           frame_of(wire::Opcode::UD_SEND_ONLY, 16, 6)}) {
    const Bytes ip(eth.begin() + kIp, eth.end());
    const bool v6 = (ip[0] >> 4) == 6;
    Bytes f;
    if (linktype == 113) {  // pkttype, hatype, halen 6, address (8), protocol
      f = {0, 4, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x08, 0x00};
      if (v6) {
        f[14] = 0x86;
        f[15] = 0xDD;
      }
    } else if (linktype == 276) {  // protocol, reserved, ifindex, hatype, pkttype, halen 0, address
      f = {0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0};
      if (v6) {
        f[0] = 0x86;
        f[1] = 0xDD;
      }
    }
    f.insert(f.end(), ip.begin(), ip.end());
    const auto len = static_cast<std::uint32_t>(f.size());
    for (std::size_t k = 0; k < std::min<std::size_t>(f.size(), 80); ++k)
      w.write(ts += 1000, std::span(f.data(), k), len);
    w.write(ts += 1000, f);
  }
  w.close();
}

}  // namespace

TEST(DecodeSchema, EnumsAreTheDecodersOwnTables) {
  const json schema = json::parse(slurp(kSchema));
  std::set<std::string> names, codes;
  for (const auto& n :
       schema.at("properties").at("bth").at("properties").at("opcode_name").at("enum"))
    names.insert(n.get<std::string>());
  for (const auto& c : schema.at("properties").at("error").at("properties").at("code").at("enum"))
    codes.insert(c.get<std::string>());
  std::set<std::string> table_names{"UNKNOWN"}, table_codes;
  for (std::uint8_t op : wire::known_opcodes())
    table_names.insert(std::string(wire::opcode_info(op).name));
#define ROCECERT_X(name, text) table_codes.insert(#name);
  ROCECERT_DECODE_ERRORS(ROCECERT_X)
#undef ROCECERT_X
  EXPECT_EQ(names, table_names)
      << "bth.opcode_name enum vs refmodel/include/rocecert/wire/opcodes.def";
  EXPECT_EQ(codes, table_codes) << "error.code enum vs ROCECERT_DECODE_ERRORS in wire/decode.h";
}

TEST(DecodeSchema, EveryRealCaptureValidates) {
  REQUIRE_JSONSCHEMA();
  Lines lines;
  std::size_t captures = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(ROCECERT_SOURCE_DIR) + "/vectors/real")) {
    const auto ext = e.path().extension();
    if (ext != ".pcap" && ext != ".pcapng") continue;
    ++captures;
    const CommandResult r = decode_json(e.path().string());
    ASSERT_EQ(r.exit_code, 0) << e.path() << ": " << r.err;
    lines.add(e.path().filename().string(), r.out);
  }
  EXPECT_GT(captures, 0u);
  EXPECT_GT(lines.json.size(), captures);
  EXPECT_EQ(validate(lines), "");
  EXPECT_EQ(key_order_problems(lines), "");
}

TEST(DecodeSchema, MalformedAndForeignFramesOnEveryLinkTypeValidate) {
  REQUIRE_JSONSCHEMA();
  Lines lines;
  const std::string eth = temp_path("eth.pcap");
  write_ethernet_capture(eth);
  CommandResult r = decode_json(eth);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  lines.add("ethernet capture", r.out);
  r = decode_json(eth, "--no-icrc");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  lines.add("ethernet capture --no-icrc", r.out);
  std::filesystem::remove(eth);
  for (int linktype : {113, 276, 101}) {
    const std::string cooked = temp_path("cooked.pcap");
    write_cooked_capture(cooked, linktype);
    r = decode_json(cooked);
    std::filesystem::remove(cooked);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    lines.add("linktype " + std::to_string(linktype), r.out);
  }

  // The captures exercise what the schema allows: every error code, every optional key.
  std::set<std::string> codes, keys;
  for (const std::string& l : lines.json) {
    const json j = json::parse(l);
    for (const auto& [key, value] : j.items()) keys.insert(key);
    if (j.contains("error")) codes.insert(j["error"]["code"].get<std::string>());
    if (j.contains("eth")) {
      for (const auto& [key, value] : j["eth"].items()) keys.insert("eth." + key);
    }
    if (j.contains("ip") && j["ip"].contains("flow_label")) keys.insert("ip.flow_label");
  }
  std::set<std::string> all_codes;
#define ROCECERT_X(name, text) all_codes.insert(#name);
  ROCECERT_DECODE_ERRORS(ROCECERT_X)
#undef ROCECERT_X
  EXPECT_EQ(codes, all_codes);
  const json schema = json::parse(slurp(kSchema));
  for (const auto& [key, value] : schema.at("properties").items())
    EXPECT_TRUE(keys.count(key)) << key;
  for (const char* k : {"eth.dst", "eth.vlan", "ip.flow_label"}) EXPECT_TRUE(keys.count(k)) << k;

  EXPECT_EQ(validate(lines), "");
  EXPECT_EQ(key_order_problems(lines), "");
}

TEST(DecodeSchema, TheValidatorRejectsLinesThatBreakTheContract) {
  // The check above can fail: lines that break the contract are reported.
  REQUIRE_JSONSCHEMA();
  const CommandResult r = decode_json(
      std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/rc_ops_mtu4096.pcap", "--count 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json good = json::parse(r.out);
  Lines ok;
  ok.add("good", good.dump());
  EXPECT_EQ(validate(ok), "");

  std::vector<json> bad(6, good);
  bad[0]["extra"] = 1;              // a key the contract does not have
  bad[1].erase("frame");            // a required key missing
  bad[2]["bth"]["psn"] = 1u << 24;  // out of range
  bad[3]["bth"].erase("ackreq");    // a required key inside an object
  bad[4]["ip"]["flow_label"] = 0;   // IPv6 only
  bad[5]["error"] = {{"code", "no_such_error"}, {"offset", 0}, {"message", "x"}};
  // Keys in another order than the documented one.
  Lines in_order, reordered;
  ordered_json line = ordered_json::parse(r.out);
  in_order.add("good", line.dump());
  EXPECT_EQ(key_order_problems(in_order), "");
  const ordered_json frame = line["frame"];
  line.erase("frame");
  line["frame"] = frame;
  reordered.add("frame last", line.dump());
  EXPECT_NE(key_order_problems(reordered), "");

  for (std::size_t i = 0; i < bad.size(); ++i) {
    Lines one;
    one.add("bad " + std::to_string(i), bad[i].dump());
    EXPECT_NE(validate(one), "") << bad[i].dump();
  }
}
