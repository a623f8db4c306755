// The scenario loader: every class of error names the file and the JSON path of the problem;
// the example scenario loads into the values its JSON says.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fault_rules.h"
#include "rocecert/conformance/scenario.h"

using namespace rocecert;
using namespace rocecert::conformance;
using nlohmann::json;

namespace {

// A small valid scenario; tests break one thing in it at a time.
const char* const kBase = R"({
  "adapters": [
    {"name": "A", "mac": "02:00:00:00:00:01", "ip": "10.0.0.1"},
    {"name": "B", "mac": "02:00:00:00:00:02", "ip": "10.0.0.2"}
  ],
  "links": [{"a": "A", "b": "B"}],
  "steps": [
    {"op": "alloc_pd", "adapter": "A", "as": "pdA"},
    {"op": "alloc_pd", "adapter": "B", "as": "pdB"},
    {"op": "reg_mr", "pd": "pdA", "as": "mrA", "addr": "0x1000", "length": 256, "access": ["LOCAL_WRITE"]},
    {"op": "reg_mr", "pd": "pdB", "as": "mrB", "addr": "0x2000", "length": 256, "access": ["LOCAL_WRITE", "REMOTE_WRITE"]},
    {"op": "create_cq", "adapter": "A", "as": "cqA"},
    {"op": "create_cq", "adapter": "B", "as": "cqB"},
    {"op": "create_qp", "pd": "pdA", "as": "qpA", "type": "RC", "send_cq": "cqA"},
    {"op": "create_qp", "pd": "pdB", "as": "qpB", "type": "RC", "send_cq": "cqB"},
    {"op": "modify_qp", "qp": "qpA", "attr": {"qp_state": "INIT", "pkey_index": 0, "port_num": 1, "qp_access_flags": ["REMOTE_WRITE"]}},
    {"op": "post_send", "qp": "qpA", "wr": {"wr_id": 1, "opcode": "RDMA_WRITE", "sg_list": [{"lkey": "mrA", "length": 16}], "rkey": "mrB"}},
    {"op": "run"},
    {"op": "expect", "completions": {"cqA": [{"wr_id": 1, "status": "SUCCESS"}]}, "memory": [{"mr": "mrB", "hex": "00"}], "qp_state": {"qpA": "INIT"}}
  ]
})";

json base() {
  return json::parse(kBase);
}

// The one-line error of loading `j` ("" when it loads).
std::string error_of(const json& j) {
  try {
    (void)parse_scenario(j.dump(), "t.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}
std::string error_of_text(const std::string& text) {
  try {
    (void)parse_scenario(text, "t.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::string source(const std::string& rel) {
  return std::string(ROCECERT_SOURCE_DIR) + "/" + rel;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(ScenarioLoader, BaseLoads) {
  EXPECT_EQ(error_of(base()), "");
  const Scenario s = parse_scenario(base().dump(), "t.json");
  EXPECT_EQ(s.adapters.size(), 2u);
  EXPECT_EQ(s.steps.size(), 12u);
  EXPECT_EQ(s.seed, 1u);
}

TEST(ScenarioLoader, SyntaxErrorsGiveTheByteOffsetLineAndColumn) {
  const std::string text = "{\n  \"adapters\": [\n    {\"name\": \"A\",}\n  ]\n}\n";
  const std::string e = error_of_text(text);
  // The '}' after the trailing comma is byte 35: line 3, column 18.
  EXPECT_EQ(e.rfind("t.json: byte offset 35 (line 3, column 18): invalid JSON: syntax error", 0),
            0u)
      << e;
  EXPECT_EQ(error_of_text("").rfind("t.json: byte offset 0 (line 1, column 1): invalid JSON", 0),
            0u)
      << error_of_text("");
  EXPECT_EQ(error_of_text("{\"seed\": 1} x").rfind("t.json: byte offset 12 (line 1, column 13)", 0),
            0u)
      << error_of_text("{\"seed\": 1} x");
  EXPECT_EQ(e.find('\n'), std::string::npos);
  // An unexpected token is located at its first byte, where a reader looks for it.
  EXPECT_EQ(error_of_text("{\"seed\": 1 \"steps\": []}")
                .rfind("t.json: byte offset 11 (line 1, column 12)", 0),
            0u)
      << error_of_text("{\"seed\": 1 \"steps\": []}");
  EXPECT_EQ(
      error_of_text("{\"seed\": [1 22]}").rfind("t.json: byte offset 12 (line 1, column 13)", 0),
      0u)
      << error_of_text("{\"seed\": [1 22]}");
}

// nlohmann's parser throws out_of_range.406, with no position, for a number beyond a double's
// range; it escaped the loader as a bare library message. Every parser error is now located.
TEST(ScenarioLoader, NumbersBeyondADoubleAndOtherParserErrorsAreLocated) {
  EXPECT_EQ(error_of_text(R"({"seed": 1e400})"),
            "t.json: byte offset 9 (line 1, column 10): invalid JSON: the number 1e400 is beyond "
            "the range of a double");
  EXPECT_EQ(error_of_text(R"({"seed": -1e400})"),
            "t.json: byte offset 9 (line 1, column 10): invalid JSON: the number -1e400 is beyond "
            "the range of a double");
  const std::string deep = "{\n  \"links\": [\n    {\"a\": \"A\", \"gbps\": 2.5e999}\n  ]\n}\n";
  EXPECT_EQ(error_of_text(deep),
            "t.json: byte offset 38 (line 3, column 24): invalid JSON: the number 2.5e999 is "
            "beyond the range of a double");
  // 2^64 is still JSON (a double to nlohmann): the loader names it where it stands.
  EXPECT_EQ(error_of_text(R"({"adapters": [], "steps": [], "seed": 18446744073709551616})"),
            "t.json: seed: expected an integer, got 1.8446744073709552e+19 (write values above "
            "2^53 as \"0x...\" strings)");
  // A NUL byte and invalid UTF-8 are syntax errors with their offset.
  const std::string nul = error_of_text(std::string("{\"seed\": 1\0}", 12));
  EXPECT_EQ(nul.rfind("t.json: byte offset 10 (line 1, column 11): invalid JSON: ", 0), 0u) << nul;
  const std::string utf8 = error_of_text("{\"description\": \"caf\xC3\x28\"}");
  EXPECT_EQ(utf8,
            "t.json: byte offset 21 (line 1, column 22): invalid JSON: syntax error while parsing "
            "value - invalid string: ill-formed UTF-8 byte; last read: '\"caf\\xc3('");
}

// Integers written as strings are read with std::from_chars: digits only, all of them.
TEST(ScenarioLoader, IntegerStringsAreDigitsOnly) {
  EXPECT_EQ(error_of_text(R"({"seed": "0XfF", "adapters": [], "steps": []})"),
            "t.json: adapters: expected at least 1 element");
  for (const char* bad : {"+5", " 5", "5 ", "-5", "0x-1", "0x+1", "0x 1", "1_000", "0x"}) {
    const std::string text =
        std::string(R"({"adapters": [], "steps": [], "seed": ")") + bad + R"("})";
    EXPECT_EQ(error_of_text(text), std::string("t.json: seed: expected an integer (decimal or "
                                               "\"0x...\"), got \"") +
                                       bad + "\"")
        << bad;
  }
  EXPECT_EQ(error_of_text(R"({"adapters": [], "steps": [], "seed": "18446744073709551616"})"),
            "t.json: seed: \"18446744073709551616\" does not fit in 64 bits");
  EXPECT_EQ(error_of_text(R"({"adapters": [], "steps": [], "seed": "0x10000000000000000"})"),
            "t.json: seed: \"0x10000000000000000\" does not fit in 64 bits");
  EXPECT_EQ(error_of_text(R"({"seed": "18446744073709551615", "adapters": [], "steps": []})"),
            "t.json: adapters: expected at least 1 element");
}

TEST(ScenarioLoader, DuplicateKeysAreNamedWithTheirPath) {
  std::string text = kBase;
  const std::string from = R"("wr_id": 1, "opcode": "RDMA_WRITE")";
  text.replace(text.find(from), from.size(), R"("wr_id": 1, "opcode": "RDMA_WRITE", "wr_id": 2)");
  EXPECT_EQ(error_of_text(text), "t.json: steps[9].wr.wr_id: duplicate key \"wr_id\"");
  EXPECT_EQ(error_of_text(R"({"seed": 1, "seed": 2})"), "t.json: seed: duplicate key \"seed\"");
}

// Found with fuzz/fuzz_scenario: 60 kB of '[' made the path tracking of the JSON reader allocate
// gigabytes (one path per open container, each as long as the path to it). Nesting is bounded.
TEST(ScenarioLoader, DeepNestingIsAnErrorNotAnOutOfMemory) {
  const auto nested = [](std::size_t arrays) {
    return "{\"seed\": " + std::string(arrays, '[') + std::string(arrays, ']') + "}";
  };
  // 64 levels (the object and 63 arrays) are JSON the loader reads; "seed" is just no integer.
  EXPECT_EQ(error_of_text(nested(63)).find("nested deeper"), std::string::npos)
      << error_of_text(nested(63));
  const auto zeros = [](std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += "[0]";
    return s;
  };
  EXPECT_EQ(error_of_text(nested(64)),
            "t.json: seed" + zeros(63) + ": objects and arrays nested deeper than 64 levels");
  EXPECT_EQ(error_of_text(std::string(60000, '[')),
            "t.json: " + zeros(64) + ": objects and arrays nested deeper than 64 levels");
}

TEST(ScenarioLoader, UnknownKeys) {
  json j = base();
  j["steps"][2]["lenght"] = 5;
  EXPECT_EQ(error_of(j),
            "t.json: steps[2].lenght: unknown key \"lenght\" (did you mean \"length\"?)");
  j = base();
  j["steps"][9]["wr"]["sg_list"][0]["zzz"] = 1;
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.sg_list[0].zzz: unknown key \"zzz\" (expected one of: lkey, addr, "
            "offset, length)");
  j = base();
  j["bogus"] = true;
  EXPECT_EQ(error_of(j).rfind("t.json: bogus: unknown key \"bogus\"", 0), 0u);
  j = base();
  j["steps"][11]["memory"][0]["odd key"] = 1;
  EXPECT_EQ(error_of(j).rfind("t.json: steps[11].memory[0][\"odd key\"]: unknown key", 0), 0u)
      << error_of(j);
  // "description" is allowed everywhere, but must be a string.
  j = base();
  j["steps"][9]["wr"]["sg_list"][0]["description"] = "fine";
  j["adapters"][0]["description"] = "fine";
  EXPECT_EQ(error_of(j), "");
  j["steps"][9]["wr"]["sg_list"][0]["description"] = 3;
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr.sg_list[0].description: expected a string");
}

TEST(ScenarioLoader, WrongTypes) {
  json j = base();
  j["steps"][2]["length"] = "sixty-four";
  EXPECT_EQ(
      error_of(j),
      "t.json: steps[2].length: expected an integer (decimal or \"0x...\"), got \"sixty-four\"");
  j = base();
  j["steps"][2]["length"] = 1.5;
  EXPECT_EQ(error_of(j).rfind("t.json: steps[2].length: expected an integer, got 1.5", 0), 0u);
  j = base();
  j["steps"] = json::object();
  EXPECT_EQ(error_of(j), "t.json: steps: expected an array, got object");
  j = base();
  j["steps"][9]["wr"] = json::array();
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr: expected an object, got array");
  j = base();
  j["links"][0]["a"] = 1;
  EXPECT_EQ(error_of(j), "t.json: links[0].a: expected the name of an adapter, got integer");
  j = base();
  j["steps"][6]["sq_sig_all"] = "yes";
  EXPECT_EQ(error_of(j), "t.json: steps[6].sq_sig_all: expected true or false, got string");
  EXPECT_EQ(error_of_text("[]"), "t.json: (top level): expected an object, got array");
}

TEST(ScenarioLoader, MissingKeys) {
  json j = base();
  j["steps"][9]["wr"].erase("opcode");
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr: missing required key \"opcode\"");
  j = base();
  j.erase("adapters");
  EXPECT_EQ(error_of(j), "t.json: (top level): missing required key \"adapters\"");
  j = base();
  j["steps"][9]["wr"].erase("rkey");
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr: missing required key \"rkey\"");
  j = base();
  j["steps"][9]["wr"]["rkey"] = "0x1234";
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr: missing required key \"remote_addr\" (for RDMA_WRITE; it has a "
            "default only when \"rkey\" names an MR)");
  j = base();
  j["steps"][10] = json{{"description", "no op"}};
  EXPECT_EQ(error_of(j), "t.json: steps[10]: missing required key \"op\"");
  j = base();
  j["steps"][11] = json{{"op", "expect"}};
  EXPECT_EQ(error_of(j),
            "t.json: steps[11]: needs at least one of: frames, completions, memory, qp_state, "
            "async_events");
}

TEST(ScenarioLoader, UnknownAndMisusedNames) {
  json j = base();
  j["steps"][9]["wr"]["sg_list"][0]["lkey"] = "mrX";
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.sg_list[0].lkey: unknown MR \"mrX\" (did you mean \"mrA\"?)");
  j["steps"][9]["wr"]["sg_list"][0]["lkey"] = "nothing_like_it";
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr.sg_list[0].lkey: unknown MR \"nothing_like_it\"");
  j["steps"][9]["wr"]["sg_list"][0]["lkey"] = "cqA";
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr.sg_list[0].lkey: \"cqA\" is a CQ, not an MR");
  j["steps"][9]["wr"]["sg_list"][0]["lkey"] = "mrB";
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.sg_list[0].lkey: MR \"mrB\" is on adapter \"B\", QP \"qpA\" on "
            "adapter \"A\"");
  j = base();
  j["steps"][9]["wr"]["rkey"] = "pdB";
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr.rkey: \"pdB\" is a PD, not an MR or MW");
  j = base();
  j["steps"][6]["send_cq"] = "cqB";
  EXPECT_EQ(
      error_of(j),
      "t.json: steps[6].send_cq: CQ \"cqB\" is on adapter \"B\", PD \"pdA\" on adapter \"A\"");
  j = base();
  std::swap(j["steps"][4], j["steps"][6]);  // used before the step that creates it
  EXPECT_EQ(error_of(j),
            "t.json: steps[4].send_cq: CQ \"cqA\" is used before it is created (steps[6])");
  j = base();
  j["steps"][11]["completions"] = json{{"cqZ", json::array()}};
  EXPECT_EQ(error_of(j),
            "t.json: steps[11].completions.cqZ: unknown CQ \"cqZ\" (did you mean \"cqA\"?)");
  j = base();
  j["steps"][11]["qp_state"] = json{{"qpC", "RTS"}};
  EXPECT_EQ(error_of(j),
            "t.json: steps[11].qp_state.qpC: unknown QP \"qpC\" (did you mean \"qpA\"?)");
  // Names are unique across kinds, and well formed.
  j = base();
  j["steps"][5]["as"] = "mrA";
  EXPECT_EQ(error_of(j), "t.json: steps[5].as: \"mrA\" is already the name of an MR (steps[2].as)");
  j = base();
  j["steps"][5]["as"] = "9lives";
  EXPECT_EQ(error_of(j).rfind("t.json: steps[5].as: \"9lives\" is not a valid name", 0), 0u);
  j = base();
  j["adapters"][1]["name"] = "A";
  EXPECT_EQ(error_of(j),
            "t.json: adapters[1].name: \"A\" is already the name of an adapter (adapters[0].name)");
}

TEST(ScenarioLoader, BadEnumValues) {
  json j = base();
  j["steps"][9]["wr"]["opcode"] = "RDMA_WRTIE";
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.opcode: unknown WR opcode \"RDMA_WRTIE\" (did you mean "
            "\"RDMA_WRITE\"?)");
  j["steps"][9]["wr"]["opcode"] = "PUT";
  EXPECT_EQ(
      error_of(j).rfind("t.json: steps[9].wr.opcode: unknown WR opcode \"PUT\" (expected one of: "
                        "RDMA_WRITE, RDMA_WRITE_WITH_IMM, SEND,",
                        0),
      0u)
      << error_of(j);
  j = base();
  j["steps"][9]["wr"]["send_flags"] = {"SIGNALED", "SOLICITD"};
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.send_flags[1]: unknown send flag \"SOLICITD\" (did you mean "
            "\"SOLICITED\"?)");
  j = base();
  j["steps"][9]["wr"]["send_flags"] = "SIGNALED";
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.send_flags: expected an array of send flag names or an integer, "
            "got a string");
  j = base();
  j["steps"][11]["completions"]["cqA"][0]["status"] = "OK";
  EXPECT_EQ(
      error_of(j).rfind("t.json: steps[11].completions.cqA[0].status: unknown WC status \"OK\"", 0),
      0u);
  j = base();
  j["steps"][6]["type"] = "RD";
  EXPECT_EQ(error_of(j), "t.json: steps[6].type: unknown QP type \"RD\" (did you mean \"RC\"?)");
  j = base();
  j["steps"][8]["attr"]["qp_state"] = "READY";
  EXPECT_EQ(error_of(j).rfind("t.json: steps[8].attr.qp_state: unknown QP state \"READY\"", 0), 0u);
  j = base();
  j["steps"][3]["access"] = {"LOCAL_WRITE", "REMOTE_WRIT"};
  EXPECT_EQ(error_of(j),
            "t.json: steps[3].access[1]: unknown access flag \"REMOTE_WRIT\" (did you mean "
            "\"REMOTE_WRITE\"?)");
  j = base();
  j["steps"][10] = json{{"op", "sleep"}};
  EXPECT_EQ(error_of(j).rfind("t.json: steps[10].op: unknown op \"sleep\"", 0), 0u);
  j = base();
  j["steps"][9]["expect_error"] = "NOPE";
  EXPECT_EQ(error_of(j).rfind("t.json: steps[9].expect_error: unknown post error \"NOPE\"", 0), 0u);
  j["steps"][9]["expect_error"] = "INVALID_STATE";
  EXPECT_EQ(error_of(j), "");
}

TEST(ScenarioLoader, OutOfRangeNumbers) {
  json j = base();
  j["steps"][4]["cqe"] = 0;
  EXPECT_EQ(error_of(j), "t.json: steps[4].cqe: 0 is out of range (0x1..0x100000)");
  j = base();
  j["adapters"][0]["mtu"] = 1000;
  EXPECT_EQ(error_of(j),
            "t.json: adapters[0].mtu: 1000 is not an MTU (256, 512, 1024, 2048 or 4096)");
  j = base();
  j["steps"][9]["wr"]["wr_id"] = -1;
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.wr_id: -1 is negative; expected 0..18446744073709551615");
  j = base();
  j["steps"][9]["wr"]["wr_id"] = "0x10000000000000000";
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.wr_id: \"0x10000000000000000\" does not fit in 64 bits");
  j["steps"][9]["wr"]["wr_id"] = "0xFFFFFFFFFFFFFFFF";
  EXPECT_EQ(error_of(j), "");
  j = base();
  j["steps"][8]["attr"]["port_num"] = 256;
  EXPECT_EQ(error_of(j), "t.json: steps[8].attr.port_num: 256 is out of range (0..255)");
  j = base();
  j["steps"][8]["attr"]["dest_qp_num"] = "0x1000000";
  EXPECT_EQ(error_of(j),
            "t.json: steps[8].attr.dest_qp_num: \"0x1000000\" is out of range (0x0..0xffffff)");
  j = base();
  j["links"][0]["gbps"] = -1;
  EXPECT_EQ(error_of(j), "t.json: links[0].gbps: -1 is out of range (0..1000000)");
  j = base();
  j["steps"][9]["wr"]["sg_list"][0]["offset"] = 300;
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr.sg_list[0].offset: 300 is out of range (0..256)");
  // Values the model must judge (a timeout above 31) are expressible: only storage widths are
  // checked.
  j = base();
  j["steps"][8]["attr"]["timeout"] = 40;
  EXPECT_EQ(error_of(j), "");
}

TEST(ScenarioLoader, AddressesAndHex) {
  json j = base();
  j["adapters"][0]["mac"] = "02:00:00:00:00";
  EXPECT_EQ(error_of(j),
            "t.json: adapters[0].mac: \"02:00:00:00:00\" is not a MAC address (like "
            "\"02:00:00:00:00:01\")");
  // Exactly six groups of two hex digits separated by ':'. sscanf("%2x") took a sign or a space
  // for a digit: "-1:..." was read as ff:..., " 1: 2:..." as 01:02:...
  for (const char* bad :
       {"-1:00:00:00:00:01", " 1: 2:00:00:00:01", "+1:00:00:00:00:01", "02-00-00-00-00-01",
        "02:00:00:00:00:0g", "02:00:00:00:0001:", "002:00:00:00:0:01", "02:00:00:00:00:01:"}) {
    j = base();
    j["adapters"][0]["mac"] = bad;
    EXPECT_EQ(error_of(j), std::string("t.json: adapters[0].mac: \"") + bad +
                               "\" is not a MAC address (like \"02:00:00:00:00:01\")")
        << bad;
  }
  j = base();
  j["adapters"][0]["mac"] = "0A:bC:00:00:00:FF";
  ASSERT_EQ(error_of(j), "");
  EXPECT_EQ(parse_scenario(j.dump(), "t.json").adapters[0].config.mac,
            (wire::MacAddr{0x0A, 0xBC, 0, 0, 0, 0xFF}));
  j = base();
  j["adapters"][0]["ip"] = "10.0.0.256";
  EXPECT_EQ(error_of(j), "t.json: adapters[0].ip: \"10.0.0.256\" is not an IPv4 or IPv6 address");
  j = base();
  j["adapters"][1]["ip"] = "10.0.0.1";
  EXPECT_EQ(error_of(j), "t.json: adapters[1].ip: adapter \"A\" has the same address");
  j = base();
  j["steps"][11]["memory"][0]["hex"] = "0g";
  EXPECT_EQ(error_of(j), "t.json: steps[11].memory[0].hex: 'g' at position 1 is not a hex digit");
  j["steps"][11]["memory"][0]["hex"] = "012";
  EXPECT_EQ(error_of(j), "t.json: steps[11].memory[0].hex: odd number of hex digits");
  j["steps"][11]["memory"][0]["hex"] = "0x01 02:03_04";
  EXPECT_EQ(error_of(j), "");
  j["steps"][11]["memory"][0]["offset"] = 250;
  j["steps"][11]["memory"][0]["hex"] = "00112233445566778899";
  EXPECT_EQ(
      error_of(j),
      "t.json: steps[11].memory[0]: 10 bytes at offset 250 run past the end of the MR (256 bytes)");
  j = base();
  j["steps"][2]["contents"] = json{{"fill", 1}, {"hex", "00"}};
  EXPECT_EQ(error_of(j), "t.json: steps[2].contents.fill: \"hex\" and \"fill\" exclude each other");
  j["steps"][2]["contents"] = json{{"u64", {1, 2}}, {"offset", 248}};
  EXPECT_EQ(
      error_of(j),
      "t.json: steps[2].contents: 16 bytes at offset 248 run past the end of the MR (256 bytes)");
  j = base();
  j["links"][0]["b"] = "A";
  EXPECT_EQ(error_of(j), "t.json: links[0].b: a link joins two different adapters");
}

TEST(ScenarioLoader, WorkRequestFieldsMustFitTheOpcodeAndQpType) {
  json j = base();
  j["steps"][9]["wr"]["swap"] = 1;
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr.swap: \"swap\" is not used by RDMA_WRITE");
  j = base();
  j["steps"][9]["wr"]["remote_qpn"] = "qpB";
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.remote_qpn: \"remote_qpn\" is for UD QPs; \"qpA\" is RC");
  j = base();
  j["steps"][9]["wr"]["opcode"] = "ATOMIC_CMP_AND_SWP";
  j["steps"][9]["wr"]["compare_add"] = 1;
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr: missing required key \"swap\"");
  j = base();
  j["steps"][9]["wr"]["inline_data"] = "00";
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.inline_data: \"inline_data\" needs the INLINE send flag");
  j = base();
  j["steps"][9]["wr"]["opcode"] = "LOCAL_INV";
  EXPECT_EQ(error_of(j), "t.json: steps[9].wr.rkey: \"rkey\" is not used by LOCAL_INV");
  j = base();
  j["steps"][9]["wr"]["remote_addr"] = 0;
  j["steps"][9]["wr"]["remote_offset"] = 0;
  EXPECT_EQ(error_of(j),
            "t.json: steps[9].wr.remote_offset: \"remote_addr\" and \"remote_offset\" exclude each "
            "other");
  j = base();
  j["steps"][10]["until_ns"] = 5;
  j["steps"][10]["for_ns"] = 5;
  EXPECT_EQ(error_of(j),
            "t.json: steps[10].for_ns: \"until_ns\" and \"for_ns\" exclude each other");
  j = base();
  j["steps"][11]["frames"] = {{{"from", "A"}, {"opcode", "RC_WRITE_FIRST"}}};
  EXPECT_EQ(
      error_of(j).rfind("t.json: steps[11].frames[0].opcode: unknown opcode \"RC_WRITE_FIRST\"", 0),
      0u)
      << error_of(j);
  j["steps"][11]["frames"] = {{{"from", "A"}, {"opcode", "RC_ACKNOWLEDGE"}, {"aeth", "NAK"}}};
  EXPECT_EQ(error_of(j).rfind("t.json: steps[11].frames[0].aeth: unknown AETH \"NAK\"", 0), 0u)
      << error_of(j);
  j["steps"][11]["frames"] = {{{"from", "C"}, {"opcode", "RC_ACKNOWLEDGE"}}};
  EXPECT_EQ(error_of(j).rfind("t.json: steps[11].frames[0].from: ", 0), 0u) << error_of(j);
  j["steps"][11]["frames"] = {{{"opcode", "RC_ACKNOWLEDGE"}}};
  EXPECT_EQ(error_of(j), "t.json: steps[11].frames[0]: missing required key \"from\"");
  j = base();
  j["steps"][10]["poll"] = "no";
  EXPECT_EQ(error_of(j).rfind("t.json: steps[10].poll: ", 0), 0u) << error_of(j);
  j = base();
  j["steps"][10]["poll"] = false;
  {
    const Scenario s = parse_scenario(j.dump(), "t.json");
    ASSERT_TRUE(std::holds_alternative<RunStep>(s.steps[10].body));
    EXPECT_FALSE(std::get<RunStep>(s.steps[10].body).poll);
  }
  j = base();
  j["steps"][8]["attr"]["ah_attr"] = json::object();
  EXPECT_EQ(error_of(j),
            "t.json: steps[8].attr.ah_attr: needs \"peer\" (an adapter or QP name), or both "
            "\"dgid\" and \"dmac\"");
}

// The inject step: every field is checked against the opcode, names resolve, addresses agree.
TEST(ScenarioLoader, InjectStepFieldsMustFitTheOpcode) {
  const auto with_inject = [](json step) {
    json j = base();
    j["steps"].insert(j["steps"].begin() + 10, std::move(step));
    return j;
  };
  const auto inject = [](json frame) {
    return json{{"op", "inject"}, {"from", "A"}, {"qp", "qpB"}, {"frame", std::move(frame)}};
  };
  EXPECT_EQ(error_of(with_inject(inject({{"opcode", "RC_SEND_MIDDLE"}, {"psn", 5}}))), "");
  EXPECT_EQ(error_of(with_inject(inject({{"opcode", 0xFF}, {"psn", 5}}))), "");
  EXPECT_EQ(error_of(with_inject(inject({{"opcode", "RC_RDMA_WRITE_ONLY"},
                                         {"psn", 0},
                                         {"rkey", "mrB"},
                                         {"va_offset", 8},
                                         {"dmalen", 16},
                                         {"payload", {{"hex", "0011"}}}}))),
            "");
  const Scenario sc =
      parse_scenario(with_inject(inject({{"opcode", "RC_SEND_ONLY"},
                                         {"psn", 7},
                                         {"ackreq", true},
                                         {"payload", {{"fill", 1}, {"length", 3}}}}))
                         .dump(),
                     "t.json");
  const auto& in = std::get<InjectStep>(sc.steps[10].body);
  EXPECT_EQ(in.from, 0u);
  EXPECT_EQ(in.to, 1u);
  EXPECT_EQ(in.spec.bth.psn, 7u);
  EXPECT_TRUE(in.spec.bth.ackreq);
  EXPECT_EQ(in.spec.payload, (std::vector<std::uint8_t>{1, 1, 1}));
  EXPECT_EQ(in.spec.ip.dst[3], 2);  // 10.0.0.2: B's address

  EXPECT_EQ(error_of(with_inject(inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"dmalen", 4}}))),
            "t.json: steps[10].frame.dmalen: \"dmalen\" belongs to the RETH, which RC_SEND_ONLY "
            "does not carry");
  EXPECT_EQ(
      error_of(with_inject(inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"rkey", "mrB"}}))),
      "t.json: steps[10].frame.rkey: \"rkey\" needs a RETH or an AtomicETH, which "
      "RC_SEND_ONLY does not carry");
  EXPECT_EQ(error_of(with_inject(
                inject({{"opcode", "RC_ACKNOWLEDGE"}, {"psn", 0}, {"payload", {{"hex", "00"}}}}))),
            "t.json: steps[10].frame.payload: RC_ACKNOWLEDGE carries no payload");
  EXPECT_EQ(error_of(with_inject(inject({{"opcode", "RC_SEND_FIRSTX"}, {"psn", 0}}))),
            "t.json: steps[10].frame.opcode: unknown opcode \"RC_SEND_FIRSTX\" (the names "
            "`rocecert decode` prints, e.g. RC_SEND_MIDDLE, or a number 0..0xff)");
  EXPECT_EQ(error_of(with_inject(inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0x1000000}}))),
            "t.json: steps[10].frame.psn: 16777216 is out of range (0x0..0xffffff)");
  EXPECT_EQ(error_of(with_inject(inject(
                {{"opcode", "RC_RDMA_WRITE_ONLY"}, {"psn", 0}, {"rkey", 5}, {"va_offset", 0}}))),
            "t.json: steps[10].frame.va_offset: \"va_offset\" needs \"rkey\" to name an MR; use "
            "\"va\"");
  EXPECT_EQ(
      error_of(with_inject(inject(
                   {{"opcode", "RC_ACKNOWLEDGE"}, {"psn", 0}, {"syndrome", "NAK_SOMETHING"}})))
          .rfind("t.json: steps[10].frame.syndrome: unknown AETH \"NAK_SOMETHING\"", 0),
      0u);
  EXPECT_EQ(
      error_of(with_inject(inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"icrc", "good"}}))),
      "t.json: steps[10].frame.icrc: \"icrc\" is \"bad\" (or absent), not \"good\"");
  EXPECT_EQ(error_of(with_inject(
                inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"src_ip", "fd00::9"}}))),
            "t.json: steps[10].frame: the source and destination addresses must both be IPv4 or "
            "both IPv6");
  EXPECT_EQ(
      error_of(with_inject(inject(
          {{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"payload", {{"fill", 0}, {"length", 9001}}}}))),
      "t.json: steps[10].frame.payload: a payload of 9001 bytes is above the limit of 9000");
  EXPECT_EQ(error_of(with_inject(
                inject({{"opcode", "RC_SEND_ONLY"},
                        {"psn", 0},
                        {"payload", {{"hex", "00"}, {"offset", "0xffffffffffffffff"}}}}))),
            "t.json: steps[10].frame.payload: a payload of 1 bytes at offset 18446744073709551615 "
            "is above the limit of 9000");
  EXPECT_EQ(
      error_of(with_inject(inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"truncate", 0}}))),
      "t.json: steps[10].frame.truncate: 0 is out of range (1..65535)");
  json self = inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}});
  self["from"] = "B";
  EXPECT_EQ(error_of(with_inject(self)),
            "t.json: steps[10].qp: the frame goes from \"B\" to itself; inject toward another "
            "adapter");
  json number = inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}});
  number["qp"] = 0x11;
  EXPECT_EQ(error_of(with_inject(number)), "t.json: steps[10]: missing required key \"to\"");
  number["to"] = "B";
  EXPECT_EQ(error_of(with_inject(number)), "");
  json named_and_to = inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}});
  named_and_to["to"] = "B";
  EXPECT_EQ(error_of(with_inject(named_and_to)),
            "t.json: steps[10].to: \"to\" goes with a QP number; a QP name says its adapter");
  json unlinked = with_inject(inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}}));
  unlinked.erase("links");
  EXPECT_EQ(error_of(unlinked), "t.json: steps[10]: no link joins \"A\" and \"B\"");
  json unknown = with_inject(inject({{"opcode", "RC_SEND_ONLY"}, {"psn", 0}, {"psnx", 0}}));
  EXPECT_NE(error_of(unknown).find("steps[10].frame.psnx: unknown key"), std::string::npos)
      << error_of(unknown);
}

TEST(ScenarioLoader, FilesThatCannotBeRead) {
  try {
    (void)load_scenario_file("/nonexistent/s.json");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(),
                 "/nonexistent/s.json: cannot open the scenario file: No such file or directory");
    EXPECT_EQ(e.path(), "");
  }
  try {
    (void)load_scenario_file(source("examples"));
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.message(), "is a directory, not a scenario file");
  }
}

// The files the CLI tests use too: each gives exactly this line.
TEST(ScenarioLoader, BrokenScenarioFiles) {
  const std::pair<const char*, const char*> cases[] = {
      {"unknown_mr.json",
       "steps[4].wr.sg_list[0].lkey: unknown MR \"mrX\" (did you mean \"mrA\"?)"},
      {"syntax_error.json",
       "byte offset 156 (line 7, column 3): invalid JSON: syntax error while parsing object - "
       "unexpected string literal; expected '}'"},
      {"unknown_key.json", "steps[1].lenght: unknown key \"lenght\" (did you mean \"length\"?)"},
      {"bad_opcode.json",
       "steps[4].wr.opcode: unknown WR opcode \"RDMA_WRTIE\" (did you mean \"RDMA_WRITE\"?)"},
      {"out_of_range.json", "adapters[0].mtu: 9000 is out of range (256..4096)"},
      {"wrong_type.json",
       "steps[1].length: expected an integer (decimal or \"0x...\"), got \"64 bytes\""},
      {"missing_key.json", "steps[3]: missing required key \"type\""},
      {"duplicate_key.json", "steps[2].cqe: duplicate key \"cqe\""},
      {"used_before_created.json",
       "steps[2].send_cq: CQ \"cqA\" is used before it is created (steps[3])"},
      {"bad_status.json",
       "steps[6].completions.cqA[0].status: unknown WC status \"DONE\" (expected one of: "},
  };
  std::size_t files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(source("tests/data/broken_scenarios")))
    files += entry.path().extension() == ".json" ? 1u : 0u;
  EXPECT_EQ(files, std::size(cases)) << "every broken scenario has a case here";
  for (const auto& [name, expected] : cases) {
    const std::string path = source("tests/data/broken_scenarios/") + name;
    try {
      (void)load_scenario_file(path);
      ADD_FAILURE() << path << " loaded";
    } catch (const ScenarioError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ": " + expected, 0), 0u) << e.what();
    }
  }
}

namespace {

// A canonical text of a loaded scenario, to compare two loads.
std::string canonical(const Scenario& s) {
  json j;
  j["seed"] = s.seed;
  j["description"] = s.description;
  for (const AdapterSpec& a : s.adapters) {
    j["adapters"].push_back({a.config.name, a.config.mac, a.config.gid, a.config.port_mtu,
                             a.config.profile.pkey, a.config.qp.qpn.first});
  }
  for (const LinkSpec& l : s.links) j["links"].push_back({l.a, l.b, l.latency_ns, l.gbps});
  for (const NamedObject& o : s.objects)
    j["objects"].push_back(
        {o.name, to_string(o.kind), o.adapter_index, o.step, o.mr_addr, o.mr_iova, o.mr_length});
  for (const Step& st : s.steps) {
    json x = {{"path", st.path}, {"op", st.op}, {"description", st.description}};
    std::visit(
        [&](const auto& b) {
          using T = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<T, RegMrStep>) {
            x["mr"] = {b.mr, b.pd, b.addr, b.length, mem::to_u32(b.access)};
            for (const MemoryPiece& p : b.contents) x["contents"].push_back({p.offset, p.bytes});
          } else if constexpr (std::is_same_v<T, ModifyQpStep>) {
            x["mask"] = b.mask.raw();
            x["dest"] = {b.dest_qpn.qp, b.dest_qpn.value};
            x["attr"] = {qp::to_string(b.attr.qp_state), b.attr.ah_attr.dgid, b.attr.ah_attr.dmac,
                         qp::mtu_bytes(b.attr.path_mtu), b.attr.rq_psn,       b.attr.sq_psn};
          } else if constexpr (std::is_same_v<T, PostSendStep>) {
            x["wr"] = {b.wr.wr_id,       tx::to_string(b.wr.opcode), b.wr.send_flags,
                       b.wr.remote_addr, b.wr.compare_add,           b.wr.swap,
                       b.rkey.object};
            for (const SgeSpec& g : b.sg_list)
              x["sge"].push_back({g.addr, g.length, g.lkey.object});
          } else if constexpr (std::is_same_v<T, ExpectStep>) {
            for (const CqExpect& c : b.completions)
              for (const CompletionExpect& w : c.completions)
                x["cqe"].push_back(
                    {c.cq, w.wr_id, cq::to_string(w.status), w.byte_len.value_or(0)});
            for (const MemoryExpect& m : b.memory) x["mem"].push_back({m.adapter, m.addr, m.bytes});
            for (const QpStateExpect& q : b.qp_states)
              x["qps"].push_back({q.qp, qp::to_string(q.state)});
          }
        },
        st.body);
    j["steps"].push_back(x);
  }
  return j.dump();
}

}  // namespace

TEST(ScenarioLoader, ExampleLoadsIntoWhatItSays) {
  const Scenario s = load_scenario_file(source("examples/rc_basic.json"));
  ASSERT_EQ(s.adapters.size(), 2u);
  EXPECT_EQ(s.adapters[1].config.name, "B");
  EXPECT_EQ(s.adapters[1].config.port_mtu, 1024u);
  const std::array<std::uint8_t, 16> gid_b = {0, 0, 0,    0,    0,  0, 0, 0,
                                              0, 0, 0xFF, 0xFF, 10, 0, 0, 2};
  EXPECT_EQ(s.adapters[1].config.gid, gid_b);
  ASSERT_EQ(s.links.size(), 1u);
  EXPECT_EQ(s.links[0].gbps, 25.0);

  // mrB: contents pieces, iova = addr.
  const auto& reg = std::get<RegMrStep>(s.steps[3].body);
  EXPECT_EQ(reg.addr, 0x20000u);
  ASSERT_EQ(reg.contents.size(), 2u);
  EXPECT_EQ(reg.contents[0].offset, 512u);
  EXPECT_EQ(reg.contents[0].bytes.size(), 16u);
  EXPECT_EQ(reg.contents[0].bytes[15], 0xAF);
  EXPECT_EQ(reg.contents[1].bytes, (std::vector<std::uint8_t>{100, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(mem::to_u32(reg.access), 0xFu);

  // qpA INIT -> RTR: the mask comes from the attributes given; the AV from the peer QP.
  const auto& rtr = std::get<ModifyQpStep>(s.steps[10].body);
  using qp::AttrBit;
  EXPECT_EQ(rtr.mask, AttrBit::STATE | AttrBit::PATH_MTU | AttrBit::DEST_QPN | AttrBit::RQ_PSN |
                          AttrBit::AV | AttrBit::MAX_DEST_RD_ATOMIC | AttrBit::MIN_RNR_TIMER);
  EXPECT_EQ(rtr.attr.ah_attr.dgid, gid_b);
  EXPECT_EQ(rtr.attr.ah_attr.dmac, (wire::MacAddr{2, 0, 0, 0, 0, 2}));
  EXPECT_EQ(rtr.attr.path_mtu, qp::PathMtu::MTU_1024);
  EXPECT_EQ(rtr.dest_qpn.qp, s.find("qpB"));

  // The READ: SGE at mrA+1024, remote address mrB+512, rkey a reference to mrB.
  const auto& read = std::get<PostSendStep>(s.steps[16].body);
  EXPECT_EQ(read.wr.opcode, tx::WrOpcode::RDMA_READ);
  ASSERT_EQ(read.sg_list.size(), 1u);
  EXPECT_EQ(read.sg_list[0].addr, 0x10400u);
  EXPECT_EQ(read.sg_list[0].length, 16u);
  EXPECT_EQ(read.sg_list[0].lkey.object, s.find("mrA"));
  EXPECT_EQ(read.wr.remote_addr, 0x20200u);
  EXPECT_EQ(read.rkey.object, s.find("mrB"));
  EXPECT_EQ(read.wr.send_flags, tx::kSendSignaled);

  const auto& expect = std::get<ExpectStep>(s.steps.back().body);
  ASSERT_EQ(expect.completions.size(), 2u);
  EXPECT_EQ(expect.completions[0].completions.size(), 5u);
  EXPECT_EQ(expect.completions[0].completions[2].opcode, cq::WcOpcode::FETCH_ADD);
  EXPECT_EQ(expect.completions[1].completions[0].byte_len, 16u);
  EXPECT_EQ(expect.completions[0].completions[4].path, "steps[21].completions.cqA[4]");
  ASSERT_EQ(expect.memory.size(), 5u);
  EXPECT_EQ(expect.memory[2].addr, 0x10800u);
  EXPECT_EQ(expect.memory[2].bytes.size(), 16u);
  EXPECT_EQ(expect.qp_states.size(), 2u);
}

// The same scenario, reformatted and with its keys reordered, loads into the same steps.
TEST(ScenarioLoader, ExampleRoundTripsThroughReformatting) {
  const std::string path = source("examples/rc_basic.json");
  const Scenario a = load_scenario_file(path);
  const json j = json::parse(slurp(path));  // nlohmann orders keys alphabetically
  const Scenario b = parse_scenario(j.dump(2), path);
  const Scenario c = parse_scenario(j.dump(), path);
  EXPECT_EQ(canonical(a), canonical(b));
  EXPECT_EQ(canonical(a), canonical(c));
}

TEST(ScenarioLoader, AdapterSeedsDifferPerAdapterAndSeed) {
  EXPECT_NE(adapter_seed(1, 0), adapter_seed(1, 1));
  EXPECT_NE(adapter_seed(1, 0), adapter_seed(2, 0));
  EXPECT_EQ(adapter_seed(7, 3), adapter_seed(7, 3));
}

namespace {
void strip_descriptions(json& j) {
  if (j.is_object()) {
    j.erase("description");
    j.erase("$schema");
    for (auto& [k, v] : j.items()) strip_descriptions(v);
  } else if (j.is_array()) {
    for (auto& v : j) strip_descriptions(v);
  }
}
}  // namespace

// docs/scenario.md shows examples/rc_basic.json in full: the two must not drift apart.
TEST(ScenarioLoader, DocumentedExampleIsTheExampleFile) {
  const std::string doc = slurp(source("docs/scenario.md"));
  const std::size_t section = doc.find("## A complete example");
  ASSERT_NE(section, std::string::npos);
  const std::size_t begin = doc.find("```json\n", section);
  ASSERT_NE(begin, std::string::npos);
  const std::size_t end = doc.find("```", begin + 8);
  json shown = json::parse(doc.substr(begin + 8, end - begin - 8));
  json file = json::parse(slurp(source("examples/rc_basic.json")));
  strip_descriptions(shown);
  strip_descriptions(file);
  EXPECT_EQ(shown, file) << "docs/scenario.md and examples/rc_basic.json differ";
  EXPECT_EQ(error_of(shown), "");
}

TEST(ScenarioLoader, AdapterProfileKnobs) {
  json j = base();
  j["adapters"][0]["profile"] = {
      {"ackreq", {{"on_last_packet", false}, {"every_n_packets", 8}}},
      {"ack", {{"mode", "COALESCE"}, {"max_packets", 4}, {"max_delay_ns", 700}}},
      {"dcqcn", {{"line_rate_gbps", 100}, {"preset", "MLX5"}}},
      {"sport", "FIXED"},
      {"fixed_sport", "0xC123"},
      {"ipv4_ttl", 3},
      {"ipv4_df", false},
      {"pkey", "0x7FFF"},
      {"ack_syndrome_credits", 5},
      {"retry_cnt_7_is_infinite", false},
      {"send_cnp", true},
      {"cnp_interval_ns", 1000},
      {"cnp_traffic_class", 2},
      {"error_profile", "IBA"},
      {"arbitration", "ROUND_ROBIN"}};
  j["adapters"][0]["qp_profile"] = "rxe";
  j["adapters"][0]["first_qpn"] = 100;
  j["adapters"][0]["ip"] = "fd00::1";
  const Scenario s = parse_scenario(j.dump(), "t.json");
  const model::AdapterConfig& c = s.adapters[0].config;
  EXPECT_FALSE(c.profile.ackreq.on_last_packet);
  EXPECT_EQ(c.profile.ackreq.every_n_packets, 8u);
  EXPECT_EQ(c.profile.ack.mode, model::AckCoalescing::Mode::COALESCE);
  EXPECT_EQ(c.profile.ack.max_packets, 4u);
  EXPECT_EQ(c.profile.ack.max_delay_ns, 700u);
  EXPECT_EQ(s.adapters[1].config.profile.ack.mode, model::AckCoalescing::Mode::ACKREQ);
  EXPECT_TRUE(c.profile.dcqcn);
  EXPECT_EQ(c.profile.line_rate_gbps, 100.0);
  EXPECT_EQ(c.profile.dcqcn_params.rate_increase_period_ns,
            cc::DcqcnParams::mlx5_firmware().rate_increase_period_ns);
  EXPECT_FALSE(s.adapters[1].config.profile.dcqcn);
  EXPECT_EQ(c.profile.sport, model::Profile::SportPolicy::FIXED);
  EXPECT_EQ(c.profile.fixed_sport, 0xC123);
  EXPECT_EQ(c.profile.ipv4_ttl, 3);
  EXPECT_FALSE(c.profile.ipv4_df);
  EXPECT_EQ(c.profile.pkey, 0x7FFF);
  EXPECT_EQ(c.profile.ack_syndrome_credits, 5);
  EXPECT_FALSE(c.profile.retry_cnt_7_is_infinite);
  EXPECT_TRUE(c.profile.send_cnp);
  EXPECT_EQ(c.profile.cnp_interval_ns, 1000u);
  EXPECT_EQ(c.profile.cnp_traffic_class, 2);
  EXPECT_EQ(c.profile.error_profile, errors::ErrorProfile::IBA);
  EXPECT_EQ(c.profile.arbitration, errors::ArbitrationPolicy::ROUND_ROBIN);
  EXPECT_EQ(s.adapters[1].config.profile.error_profile, errors::ErrorProfile::RXE);
  EXPECT_EQ(s.adapters[1].config.profile.arbitration, errors::ArbitrationPolicy::PRECEDENCE);
  EXPECT_TRUE(c.qp.profile.cur_state_selects_row);  // the rxe QP profile
  EXPECT_EQ(c.qp.qpn.first, 100u);
  EXPECT_EQ(c.gid[0], 0xFD);
  EXPECT_EQ(c.gid[15], 1);
  j["adapters"][0]["profile"]["error_profile"] = "rxe";
  EXPECT_EQ(error_of(j),
            "t.json: adapters[0].profile.error_profile: unknown error profile \"rxe\" (expected "
            "one of: RXE, IBA)");
  j["adapters"][0]["profile"]["error_profile"] = "RXE";
  j["adapters"][0]["profile"]["ack_syndrome_credits"] = 32;
  EXPECT_EQ(error_of(j),
            "t.json: adapters[0].profile.ack_syndrome_credits: 32 is out of range (0..31)");
}

// --- link faults (docs/faults.md) -----------------------------------------------------------
// Fault rules are JSON objects read by the strict reader (fault_rules.h).

namespace {
json rules(const char* text) {
  return json::parse(text);
}
}  // namespace

TEST(ScenarioLoader, LinkFaultsLoadRatesSeedAndRules) {
  json j = base();
  j["links"][0]["faults"] = {
      {"description", "lossy"},
      {"seed", 7},
      {"a_to_b",
       {{"drop", 0.05}, {"ecn_ce", 1}, {"delay", 0.5}, {"delay_ns", 2000}, {"jitter_ns", 30}}},
      {"b_to_a", {{"reorder", 0.25}, {"overtake", 3}, {"max_hold_ns", "0x1000"}}},
      {"rules", rules(R"([
        {"action": "drop", "match": {"opcode": "RC_RDMA_WRITE_MIDDLE", "qp": "0x11"}, "nth": 3},
        {"action": "duplicate", "direction": "b_to_a", "match": {"class": "ack"}},
        {"action": "reorder", "match": {"class": "send"}, "from": 2, "to": 4, "overtake": 2,
         "max_hold_ns": 5000},
        {"action": "delay", "direction": "b_to_a", "match": {"class": "response"}, "from": 5,
         "delay_ns": 20000, "jitter_ns": 300},
        {"action": "duplicate", "match": {"opcode": 100, "position": "only", "ackreq": true,
         "psn": 258}, "description": "a rule may say why"}])")}};
  ASSERT_EQ(error_of(j), "");
  const Scenario s = parse_scenario(j.dump(), "t.json");
  const model::FaultPlan& p = s.links.at(0).faults;
  EXPECT_EQ(p.seed, 7u);
  EXPECT_DOUBLE_EQ(p.a_to_b.drop, 0.05);
  EXPECT_DOUBLE_EQ(p.a_to_b.ecn_ce, 1.0);
  EXPECT_DOUBLE_EQ(p.a_to_b.delay, 0.5);
  EXPECT_EQ(p.a_to_b.timing.delay_ns, 2000u);
  EXPECT_EQ(p.a_to_b.timing.jitter_ns, 30u);
  EXPECT_DOUBLE_EQ(p.b_to_a.reorder, 0.25);
  EXPECT_EQ(p.b_to_a.timing.overtake, 3u);
  EXPECT_EQ(p.b_to_a.timing.max_hold_ns, 0x1000u);
  ASSERT_EQ(p.rules.size(), 5u);
  // The same rules as the model's text form gives them.
  EXPECT_EQ(p.rules[0],
            model::parse_fault_rule("drop opcode=RC_RDMA_WRITE_MIDDLE qp=0x11 nth=3").rule);
  EXPECT_EQ(model::format_rule(p.rules[1]), "duplicate dir=b>a class=ack");
  EXPECT_EQ(p.rules[2],
            model::parse_fault_rule("reorder class=send nth=2..4 overtake=2 hold=5000").rule);
  EXPECT_EQ(
      p.rules[3],
      model::parse_fault_rule("delay dir=b>a class=response nth=5.. delay=20000 jitter=300").rule);
  EXPECT_EQ(p.rules[4],
            model::parse_fault_rule("duplicate opcode=0x64 pos=only psn=0x102 ackreq=1").rule);
  // Only literal QPNs: the plan goes on the link from the start.
  EXPECT_TRUE(s.links[0].rule_qps.empty());
  EXPECT_EQ(s.links[0].install_after_step, SIZE_MAX);
  // No "faults": an empty plan.
  EXPECT_TRUE(parse_scenario(base().dump(), "t.json").links[0].faults.empty());
}

TEST(ScenarioLoader, FaultRulesNameQpsThatResolveAtRunTime) {
  json j = base();
  j["links"][0]["faults"]["rules"] = rules(R"([
    {"action": "drop", "direction": "a_to_b", "match": {"class": "request", "qp": "qpB"}},
    {"action": "drop", "match": {"qp": "qpA", "class": "ack"}, "nth": 1},
    {"action": "corrupt", "match": {"psn": 5}}])");
  ASSERT_EQ(error_of(j), "");
  const Scenario s = parse_scenario(j.dump(), "t.json");
  const LinkSpec& l = s.links[0];
  ASSERT_EQ(l.rule_qps.size(), 2u);
  EXPECT_EQ(l.rule_qps[0].rule, 0u);
  EXPECT_EQ(s.object(l.rule_qps[0].qp).name, "qpB");
  EXPECT_EQ(l.rule_qps[0].path, "links[0].faults.rules[0]");
  EXPECT_EQ(l.rule_qps[1].rule, 1u);
  EXPECT_EQ(s.object(l.rule_qps[1].qp).name, "qpA");
  // Installed once the last named QP exists: qpB is created by steps[7].
  EXPECT_EQ(l.install_after_step, 7u);
  // The rest of each rule is read as written; the QPN is filled in at run time.
  EXPECT_EQ(l.faults.rules[0].match.direction, model::LinkDirection::A_TO_B);
  EXPECT_FALSE(l.faults.rules[0].match.dest_qp.has_value());
  EXPECT_EQ(l.faults.rules[1].first, 1u);
  EXPECT_EQ(l.faults.rules[1].last, 1u);
  EXPECT_FALSE(l.faults.rules[2].match.dest_qp.has_value());
  EXPECT_EQ(l.faults.rules[2].match.psn, 5u);
}

TEST(ScenarioLoader, FaultRuleErrorsNameTheJsonPath) {
  json j = base();
  const auto with = [&](const char* text) {
    j["links"][0]["faults"]["rules"] = rules(text);
    return error_of(j);
  };
  EXPECT_EQ(with(R"([{"action": "drop"}, {"action": "drop", "qpn": 3}])"),
            "t.json: links[0].faults.rules[1].qpn: unknown key \"qpn\" (expected one of: action, "
            "direction, match, nth, from, to, delay_ns, jitter_ns, overtake, max_hold_ns)");
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"qpn": 3}}])"),
            "t.json: links[0].faults.rules[0].match.qpn: unknown key \"qpn\" (did you mean "
            "\"qp\"?)");
  EXPECT_EQ(with(R"([{"action": "lose"}])"),
            "t.json: links[0].faults.rules[0].action: unknown fault action \"lose\" (expected one "
            "of: drop, duplicate, reorder, delay, corrupt, ecn_ce)");
  EXPECT_EQ(with(R"([{"match": {"class": "ack"}}])"),
            "t.json: links[0].faults.rules[0]: missing required key \"action\"");
  EXPECT_EQ(with(R"([{"action": "drop", "direction": "a>b"}])"),
            "t.json: links[0].faults.rules[0].direction: unknown link direction \"a>b\" (expected "
            "one of: a_to_b, b_to_a)");
  EXPECT_EQ(
      with(R"([{"action": "drop", "match": {"opcode": "RC_WRITE_MIDDLE"}}])"),
      "t.json: links[0].faults.rules[0].match.opcode: unknown opcode \"RC_WRITE_MIDDLE\" (the "
      "names `rocecert decode` prints, e.g. RC_RDMA_WRITE_MIDDLE, RC_ACKNOWLEDGE; or "
      "0..0xff)");
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"opcode": 256}}])"),
            "t.json: links[0].faults.rules[0].match.opcode: 256 is out of range (0..255)");
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"class": "acks"}}])"),
            "t.json: links[0].faults.rules[0].match.class: unknown opcode class \"acks\" (did you "
            "mean \"ack\"?)");
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"position": "FIRST"}}])"),
            "t.json: links[0].faults.rules[0].match.position: unknown position \"FIRST\" "
            "(expected one of: first, middle, last, only)");
  EXPECT_EQ(with(R"([{"action": "drop", "nth": 0}])"),
            "t.json: links[0].faults.rules[0].nth: 0 is out of range (0x1..0xfffffffffffffffe)");
  EXPECT_EQ(with(R"([{"action": "drop", "nth": 2, "from": 1}])"),
            "t.json: links[0].faults.rules[0].from: \"nth\" and \"from\" exclude each other");
  EXPECT_EQ(with(R"([{"action": "drop", "from": 5, "to": 4}])"),
            "t.json: links[0].faults.rules[0].to: 4 is below \"from\" (5): the range is empty");
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"qp": "0x1000000"}}])"),
            "t.json: links[0].faults.rules[0].match.qp: \"0x1000000\" is out of range "
            "(0x0..0xffffff)");
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"psn": -1}}])"),
            "t.json: links[0].faults.rules[0].match.psn: -1 is negative; expected 0..16777215");
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"ackreq": 1}}])"),
            "t.json: links[0].faults.rules[0].match.ackreq: expected true or false, got integer");
  EXPECT_EQ(with(R"([{"action": "drop", "delay_ns": 5}])"),
            "t.json: links[0].faults.rules[0].delay_ns: only a \"delay\" rule takes \"delay_ns\"");
  EXPECT_EQ(with(R"([{"action": "delay", "overtake": 2}])"),
            "t.json: links[0].faults.rules[0].overtake: only a \"reorder\" rule takes "
            "\"overtake\"");
  EXPECT_EQ(with(R"([{"action": "reorder", "overtake": 0}])"),
            "t.json: links[0].faults.rules[0].overtake: 0 is out of range (0x1..0xffffffff)");
  EXPECT_EQ(with(R"([{"action": "delay", "delay_ns": 1000000000001}])"),
            "t.json: links[0].faults.rules[0].delay_ns: 1000000000001 is out of range "
            "(0x0..0xe8d4a51000)");
  // The string form of earlier versions is refused where it stands.
  EXPECT_EQ(with(R"(["drop dir=a>b class=ack"])"),
            "t.json: links[0].faults.rules[0]: expected an object, got string");
  j["links"][0]["faults"]["rules"] = "drop";
  EXPECT_EQ(error_of(j), "t.json: links[0].faults.rules: expected an array, got string");
}

TEST(ScenarioLoader, FaultRuleQpNamesMustResolveToAQpOnTheRightEnd) {
  json j = base();
  const auto with = [&](const char* text) {
    j["links"][0]["faults"]["rules"] = rules(text);
    return error_of(j);
  };
  EXPECT_EQ(with(R"([{"action": "drop"}, {"action": "drop", "match": {"qp": "qpX"}}])"),
            "t.json: links[0].faults.rules[1].match.qp: unknown QP \"qpX\" (did you mean "
            "\"qpA\"?)");
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"qp": "mrB"}}])"),
            "t.json: links[0].faults.rules[0].match.qp: \"mrB\" is an MR, not a QP");
  // Frames a_to_b go to B: their DestQP is one of B's QPs.
  EXPECT_EQ(with(R"([{"action": "drop", "direction": "a_to_b", "match": {"qp": "qpA"}}])"),
            "t.json: links[0].faults.rules[0].match.qp: QP \"qpA\" (the DestQP to match) is on "
            "adapter \"A\", but \"a_to_b\" frames go to adapter \"B\"");
  EXPECT_EQ(with(R"([{"action": "drop", "direction": "b_to_a", "match": {"qp": "qpB"}}])"),
            "t.json: links[0].faults.rules[0].match.qp: QP \"qpB\" (the DestQP to match) is on "
            "adapter \"B\", but \"b_to_a\" frames go to adapter \"A\"");
  // A QP on an adapter the link does not join.
  j = base();
  j["adapters"].push_back({{"name", "C"}, {"mac", "02:00:00:00:00:03"}, {"ip", "10.0.0.3"}});
  j["steps"].push_back({{"op", "alloc_pd"}, {"adapter", "C"}, {"as", "pdC"}});
  j["steps"].push_back({{"op", "create_cq"}, {"adapter", "C"}, {"as", "cqC"}});
  j["steps"].push_back(
      {{"op", "create_qp"}, {"pd", "pdC"}, {"as", "qpC"}, {"type", "RC"}, {"send_cq", "cqC"}});
  EXPECT_EQ(with(R"([{"action": "drop", "match": {"qp": "qpC"}}])"),
            "t.json: links[0].faults.rules[0].match.qp: QP \"qpC\" is on adapter \"C\", which is "
            "not an end of this link (A and B)");
}

// Every rule's object form (fault_rules::to_json) reads back to the same rule.
TEST(ScenarioLoader, FaultRuleObjectFormRoundTrips) {
  for (const char* text :
       {"drop opcode=RC_RDMA_WRITE_MIDDLE qp=0x11 nth=3", "duplicate dir=b>a class=ack",
        "reorder dir=a>b class=send nth=2..4 overtake=2 hold=5000",
        "delay dir=b>a class=response nth=5.. delay=20000 jitter=300", "ecn_ce dir=a>b",
        "duplicate opcode=0x64 pos=only psn=0x102 ackreq=0 nth=1..1",
        "corrupt opcode=0xff nth=7.."}) {
    const model::FaultRule rule = model::parse_fault_rule(text).rule;
    json j = base();
    j["links"][0]["faults"]["rules"] = json::array({fault_rules::to_json(rule)});
    ASSERT_EQ(error_of(j), "") << text << ": " << j["links"][0]["faults"]["rules"][0].dump();
    EXPECT_EQ(parse_scenario(j.dump(), "t.json").links[0].faults.rules.at(0), rule) << text;
  }
}

TEST(ScenarioLoader, FaultRatesAndKeysAreChecked) {
  json j = base();
  j["links"][0]["faults"] = {{"a_to_b", {{"drop", 1.5}}}};
  EXPECT_EQ(error_of(j), "t.json: links[0].faults.a_to_b.drop: 1.5 is out of range (0..1)");
  j["links"][0]["faults"] = {{"b_to_a", {{"corrupt", "0.1"}}}};
  EXPECT_EQ(error_of(j), "t.json: links[0].faults.b_to_a.corrupt: expected a number, got string");
  j["links"][0]["faults"] = {{"a_to_b", {{"overtake", 0}}}};
  EXPECT_EQ(error_of(j).rfind("t.json: links[0].faults.a_to_b.overtake: 0 is out of range", 0), 0u)
      << error_of(j);
  j["links"][0]["faults"] = {{"a_to_b", {{"dorp", 0.1}}}};
  EXPECT_EQ(error_of(j),
            "t.json: links[0].faults.a_to_b.dorp: unknown key \"dorp\" (did you mean \"drop\"?)");
  j["links"][0]["faults"] = {{"rulez", json::array()}};
  EXPECT_EQ(error_of(j),
            "t.json: links[0].faults.rulez: unknown key \"rulez\" (did you mean \"rules\"?)");
  j["links"][0]["faults"] = {{"seed", -1}};
  EXPECT_EQ(error_of(j).rfind("t.json: links[0].faults.seed: -1 is negative", 0), 0u)
      << error_of(j);
  j["links"][0]["faults"] = json::array();
  EXPECT_EQ(error_of(j), "t.json: links[0].faults: expected an object, got array");
}

// --- SRQs and asynchronous events -------------------------------------------------------------

namespace {
// The base scenario with an SRQ on B used by qpB, a post_srq_recv and an arm_srq_limit.
json with_srq() {
  json j = base();
  auto& st = j["steps"];
  st.insert(
      st.begin() + 6,
      json{{"op", "create_srq"}, {"pd", "pdB"}, {"as", "srqB"}, {"max_wr", 16}, {"max_sge", 2}});
  st[8]["srq"] = "srqB";  // qpB
  st.insert(st.begin() + 10,
            json{{"op", "post_srq_recv"},
                 {"srq", "srqB"},
                 {"wr", {{"wr_id", 7}, {"sg_list", {{{"lkey", "mrB"}, {"length", 64}}}}}}});
  st.insert(st.begin() + 11, json{{"op", "arm_srq_limit"}, {"srq", "srqB"}, {"limit", 1}});
  return j;
}
}  // namespace

TEST(ScenarioLoader, SrqStepsLoad) {
  const json j = with_srq();
  ASSERT_EQ(error_of(j), "");
  const Scenario s = parse_scenario(j.dump(), "t.json");
  const auto& srq = std::get<CreateSrqStep>(s.steps.at(6).body);
  EXPECT_EQ(s.object(srq.srq).name, "srqB");
  EXPECT_EQ(s.object(srq.srq).kind, ObjectKind::SRQ);
  EXPECT_EQ(s.object(srq.srq).adapter_index, 1u);
  EXPECT_EQ(srq.max_wr, 16u);
  EXPECT_EQ(srq.max_sge, 2u);
  EXPECT_EQ(std::get<CreateQpStep>(s.steps.at(8).body).srq, srq.srq);
  EXPECT_EQ(std::get<CreateQpStep>(s.steps.at(7).body).srq, kNoObj);
  const auto& post = std::get<PostSrqRecvStep>(s.steps.at(10).body);
  EXPECT_EQ(post.srq, srq.srq);
  EXPECT_EQ(post.wr_id, 7u);
  ASSERT_EQ(post.sg_list.size(), 1u);
  EXPECT_EQ(post.sg_list[0].addr, 0x2000u);
  EXPECT_EQ(post.sg_list[0].length, 64u);
  EXPECT_EQ(std::get<ArmSrqLimitStep>(s.steps.at(11).body).limit, 1u);
  // Defaults.
  json d = with_srq();
  d["steps"][6].erase("max_wr");
  d["steps"][6].erase("max_sge");
  const Scenario sd = parse_scenario(d.dump(), "t.json");
  EXPECT_EQ(std::get<CreateSrqStep>(sd.steps.at(6).body).max_wr, 64u);
  EXPECT_EQ(std::get<CreateSrqStep>(sd.steps.at(6).body).max_sge, 4u);
}

TEST(ScenarioLoader, SrqErrors) {
  json j = with_srq();
  j["steps"][7]["srq"] = "srqB";  // qpA is on A
  EXPECT_EQ(error_of(j),
            "t.json: steps[7].srq: SRQ \"srqB\" is on adapter \"B\", PD \"pdA\" on adapter \"A\"");
  j = with_srq();
  j["steps"][8]["srq"] = "cqB";
  EXPECT_EQ(error_of(j), "t.json: steps[8].srq: \"cqB\" is a CQ, not an SRQ");
  j = with_srq();
  j["steps"][10]["wr"]["sg_list"][0]["lkey"] = "mrA";
  EXPECT_EQ(error_of(j),
            "t.json: steps[10].wr.sg_list[0].lkey: MR \"mrA\" is on adapter \"A\", SRQ \"srqB\" on "
            "adapter \"B\"");
  j = with_srq();
  j["steps"][10]["srq"] = "srqC";
  EXPECT_EQ(error_of(j), "t.json: steps[10].srq: unknown SRQ \"srqC\" (did you mean \"srqB\"?)");
  j = with_srq();
  j["steps"][11].erase("limit");
  EXPECT_EQ(error_of(j), "t.json: steps[11]: missing required key \"limit\"");
  j = with_srq();
  j["steps"][6]["max_wr"] = 0;
  EXPECT_EQ(error_of(j).rfind("t.json: steps[6].max_wr: 0 is out of range", 0), 0u) << error_of(j);
  j = with_srq();
  j["steps"][10]["expect_error"] = "SRQ_ATTACHD";
  EXPECT_EQ(error_of(j),
            "t.json: steps[10].expect_error: unknown post error \"SRQ_ATTACHD\" (did you mean "
            "\"SRQ_ATTACHED\"?)");
  // Used before the step that creates it.
  j = with_srq();
  std::swap(j["steps"][6], j["steps"][10]);
  EXPECT_EQ(error_of(j),
            "t.json: steps[6].srq: SRQ \"srqB\" is used before it is created (steps[10])");
}

TEST(ScenarioLoader, AsyncEventExpectations) {
  json j = with_srq();
  json& x = j["steps"].back();
  x["async_events"] = {{"B",
                        {"SRQ_LIMIT_REACHED",
                         {{"event", "SRQ_LIMIT_REACHED"}, {"srq", "srqB"}},
                         {{"event", "QP_FATAL"}, {"qp", "qpB"}},
                         {{"event", "PORT_ERR"}}}},
                       {"A", json::array()}};
  ASSERT_EQ(error_of(j), "");
  const Scenario s = parse_scenario(j.dump(), "t.json");
  const auto& e = std::get<ExpectStep>(s.steps.back().body);
  ASSERT_EQ(e.async_events.size(), 2u);
  const AsyncExpect& b = e.async_events[0].adapter == 1 ? e.async_events[0] : e.async_events[1];
  ASSERT_EQ(b.events.size(), 4u);
  EXPECT_EQ(b.events[0].kind, "SRQ_LIMIT_REACHED");
  EXPECT_EQ(b.events[0].element, kNoObj);
  EXPECT_EQ(s.object(b.events[1].element).name, "srqB");
  EXPECT_EQ(b.events[2].kind, "QP_FATAL");
  EXPECT_EQ(s.object(b.events[2].element).name, "qpB");
  EXPECT_EQ(b.events[3].path, "steps[14].async_events.B[3]");
  // An expect step may hold nothing but async_events.
  json only = base();
  only["steps"][11] = {{"op", "expect"}, {"async_events", {{"A", json::array()}}}};
  EXPECT_EQ(error_of(only), "");

  x["async_events"] = {{"B", {"SRQ_LIMIT"}}};
  EXPECT_EQ(error_of(j).rfind("t.json: steps[14].async_events.B[0]: unknown asynchronous event "
                              "\"SRQ_LIMIT\" (expected one of: CQ_ERR, QP_FATAL,",
                              0),
            0u)
      << error_of(j);
  x["async_events"] = {{"B", {"QP_FATL"}}};
  EXPECT_EQ(error_of(j),
            "t.json: steps[14].async_events.B[0]: unknown asynchronous event \"QP_FATL\" (did you "
            "mean \"QP_FATAL\"?)");
  x["async_events"] = {{"B", {{{"event", "SRQ_LIMIT_REACHED"}, {"qp", "qpB"}}}}};
  EXPECT_EQ(error_of(j),
            "t.json: steps[14].async_events.B[0].qp: SRQ_LIMIT_REACHED names an SRQ; give \"srq\"");
  x["async_events"] = {{"B", {{{"event", "PORT_ACTIVE"}, {"cq", "cqB"}}}}};
  EXPECT_EQ(error_of(j),
            "t.json: steps[14].async_events.B[0].cq: PORT_ACTIVE names no QP, CQ or SRQ");
  x["async_events"] = {{"A", {{{"event", "CQ_ERR"}, {"cq", "cqB"}}}}};
  EXPECT_EQ(error_of(j),
            "t.json: steps[14].async_events.A[0].cq: CQ \"cqB\" is on adapter \"B\", not \"A\"");
  x["async_events"] = {{"Z", json::array()}};
  EXPECT_EQ(error_of(j), "t.json: steps[14].async_events.Z: unknown adapter \"Z\"");
  x["async_events"] = {{"B", {{{"srq", "srqB"}}}}};
  EXPECT_EQ(error_of(j), "t.json: steps[14].async_events.B[0]: missing required key \"event\"");
  x["async_events"] = json::array();
  EXPECT_EQ(
      error_of(j),
      "t.json: steps[14].async_events: expected an object {adapter name: [events]}, got array");
}
