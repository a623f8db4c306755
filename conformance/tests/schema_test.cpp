// The JSON Schema of scenarios: its enumerations are the loader's own tables, every example
// validates against it (with python3-jsonschema, when installed), and it rejects what the loader
// rejects for the same structural reason.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <span>
#include <string>

#include "../../tests/support/require_tool.h"

#include "keys.h"
#include "names.h"

using namespace rocecert::conformance;
using nlohmann::json;

namespace {

std::string source(const std::string& rel) {
  return std::string(ROCECERT_SOURCE_DIR) + "/" + rel;
}
const std::string kSchema = source("conformance/scenario/scenario.schema.json");

json load(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

template <typename E>
std::vector<std::string> names_of(names::Table<E> t) {
  std::vector<std::string> v;
  for (const auto& e : t) v.emplace_back(e.name);
  return v;
}

std::vector<std::string> schema_enum(const json& schema, const std::string& def) {
  return schema.at("$defs").at(def).at("enum").get<std::vector<std::string>>();
}

// Debian's python3, where python3-jsonschema installs (a python3 earlier on PATH, e.g. a pyenv
// shim, may lack the module).
const std::string kPython = "/usr/bin/python3";

bool have_jsonschema() {
  return rocecert::testing::command_succeeds(kPython + " -c 'import jsonschema'");
}

// Validates `file` against the schema; "" when valid, else jsonschema's first message.
std::string validate(const std::string& file) {
  const std::string cmd =
      kPython +
      " -c 'import json,sys,jsonschema; s=json.load(open(sys.argv[1])); "
      "jsonschema.Draft202012Validator.check_schema(s); "
      "e=sorted(jsonschema.Draft202012Validator(s).iter_errors(json.load(open(sys.argv[2]))), "
      "key=str); "
      "print(e[0].json_path + \": \" + e[0].message if e else \"\", end=\"\")' '" +
      kSchema + "' '" + file + "' 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

}  // namespace

TEST(ScenarioSchema, EnumerationsAreTheLoadersTables) {
  const json s = load(kSchema);
  EXPECT_EQ(schema_enum(s, "qp_type"), names_of(names::qp_types()));
  EXPECT_EQ(schema_enum(s, "qp_state"), names_of(names::qp_states()));
  EXPECT_EQ(schema_enum(s, "attr_bit"), names_of(names::attr_bits()));
  EXPECT_EQ(schema_enum(s, "access_flag"), names_of(names::access_flags()));
  EXPECT_EQ(schema_enum(s, "send_flag"), names_of(names::send_flags()));
  EXPECT_EQ(schema_enum(s, "wc_flag"), names_of(names::wc_flags()));
  EXPECT_EQ(schema_enum(s, "wr_opcode"), names_of(names::wr_opcodes()));
  EXPECT_EQ(schema_enum(s, "wc_status"), names_of(names::wc_statuses()));
  EXPECT_EQ(schema_enum(s, "wc_opcode"), names_of(names::wc_opcodes()));
  EXPECT_EQ(schema_enum(s, "mem_error"), names_of(names::mem_errors()));
  EXPECT_EQ(schema_enum(s, "modify_error"), names_of(names::modify_errors()));
  EXPECT_EQ(schema_enum(s, "post_error"), names_of(names::post_errors()));
  EXPECT_EQ(schema_enum(s, "async_event"), names_of(names::async_events()));
  EXPECT_EQ(schema_enum(s, "fault_action"), names_of(names::fault_actions()));
  EXPECT_EQ(schema_enum(s, "fault_direction"), names_of(names::link_directions()));
  EXPECT_EQ(schema_enum(s, "opcode_class"), names_of(names::opcode_classes()));
  EXPECT_EQ(schema_enum(s, "frame_position"), names_of(names::frame_positions()));
}

namespace {
std::set<std::string> sorted(std::span<const std::string_view> v) {
  return {v.begin(), v.end()};
}
}  // namespace

// For every kind of object the loader reads, the schema accepts exactly the keys the loader
// accepts (its `properties`, "description" aside) and requires exactly the keys the loader
// requires: both come from the loader's own lists (keys.h), compared here mechanically.
TEST(ScenarioSchema, KeysAreTheLoadersKeys) {
  const json s = load(kSchema);
  std::set<std::string> pointers;
  for (const keys::ObjectKeys* k : keys::all()) {
    SCOPED_TRACE(std::string(k->kind));
    const json::json_pointer ptr{std::string(k->schema)};
    ASSERT_TRUE(s.contains(ptr)) << k->schema;
    const json& def = s.at(ptr);
    std::set<std::string> props;
    for (const auto& [key, value] : def.at("properties").items())
      if (key != "description") props.insert(key);
    EXPECT_EQ(props, sorted(k->allowed));
    EXPECT_EQ(def.value("required", std::set<std::string>{}), sorted(k->required));
    EXPECT_EQ(def.value("additionalProperties", true), false);
    EXPECT_TRUE(pointers.insert(std::string(k->schema)).second) << "listed twice: " << k->schema;
  }
  // And the other way round: every object the schema defines with properties is one of them
  // (the step dispatch's "op" checks aside).
  std::vector<std::string> unlisted;
  const std::function<void(const json&, const std::string&)> walk = [&](const json& v,
                                                                        const std::string& at) {
    if (v.is_object()) {
      if (v.contains("properties") && v.value("type", "") == "object" && !pointers.count(at) &&
          at != "/properties/steps/items")
        unlisted.push_back(at);
      for (const auto& [key, value] : v.items()) {
        std::string escaped = key;  // RFC 6901: "~" as "~0", "/" as "~1"
        for (std::size_t i = 0; (i = escaped.find('~', i)) != std::string::npos; i += 2)
          escaped.replace(i, 1, "~0");
        walk(value, at + "/" + escaped);
      }
    } else if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], at + "/" + std::to_string(i));
    }
  };
  walk(s, "");
  EXPECT_EQ(unlisted, std::vector<std::string>{});
}

TEST(ScenarioSchema, EveryStepOpHasADefinition) {
  const json s = load(kSchema);
  const auto ops = s.at("properties").at("steps").at("items").at("properties").at("op").at("enum");
  EXPECT_EQ(ops.size(), 15u);
  for (const auto& op : ops)
    EXPECT_TRUE(s.at("$defs").contains("step_" + op.get<std::string>())) << op;
}

TEST(ScenarioSchema, ExamplesAndVectorsValidate) {
  ROCECERT_REQUIRE_TOOL(have_jsonschema(), "python3-jsonschema (for " + kPython + ")");
  int n = 0;
  for (const char* dir : {"examples", "vectors/scenarios"}) {
    for (const auto& e : std::filesystem::directory_iterator(source(dir))) {
      if (e.path().extension() != ".json") continue;
      ++n;
      EXPECT_EQ(validate(e.path().string()), "") << e.path();
    }
  }
  EXPECT_GE(n, 8);
}

TEST(ScenarioSchema, RejectsStructuralMistakes) {
  ROCECERT_REQUIRE_TOOL(have_jsonschema(), "python3-jsonschema (for " + kPython + ")");
  // Names that do not resolve are beyond a schema; types, keys and enumerations are not.
  for (const char* f : {"unknown_key.json", "bad_opcode.json", "out_of_range.json",
                        "wrong_type.json", "missing_key.json", "bad_status.json"}) {
    const std::string msg = validate(source("tests/data/broken_scenarios/") + f);
    EXPECT_NE(msg, "") << f;
  }
  EXPECT_NE(
      validate(source("tests/data/broken_scenarios/bad_opcode.json")).find("$.steps[4].wr.opcode"),
      std::string::npos);
}

TEST(ScenarioSchema, RejectsBadFaultsSrqStepsAndAsyncEvents) {
  ROCECERT_REQUIRE_TOOL(have_jsonschema(), "python3-jsonschema (for " + kPython + ")");
  const json good = load(source("vectors/scenarios/go_back_n.json"));
  const std::string f = (std::filesystem::temp_directory_path() /
                         ("rocecert-schema-" + std::to_string(::getpid()) + ".json"))
                            .string();
  const auto check = [&](const json& j) {
    std::ofstream(f) << j.dump();
    return validate(f);
  };
  EXPECT_EQ(check(good), "");
  json j = good;
  j["links"][0]["faults"]["a_to_b"] = {{"drop", 1.5}};
  EXPECT_NE(check(j).find("$.links[0].faults.a_to_b.drop"), std::string::npos) << check(j);
  j = good;
  j["links"][0]["faults"]["rules"] = {1};
  EXPECT_NE(check(j).find("$.links[0].faults.rules[0]"), std::string::npos) << check(j);
  j = good;
  j["links"][0]["faults"]["rulez"] = json::array();
  EXPECT_NE(check(j), "");
  const json srq = load(source("examples/srq.json"));
  EXPECT_EQ(check(srq), "");
  j = srq;
  for (json& st : j["steps"])
    if (st["op"] == "create_srq") st.erase("pd");
  EXPECT_NE(check(j), "");
  j = srq;
  for (json& st : j["steps"])
    if (st["op"] == "expect" && st.contains("async_events"))
      st["async_events"]["B"] = {{{"event", "SRQ_LIMIT_REACHED"}, {"srq", "srqB"}, {"qp", "qpB1"}}};
  EXPECT_NE(check(j), "");
  j = srq;
  for (json& st : j["steps"])
    if (st["op"] == "expect" && st.contains("async_events"))
      st["async_events"]["B"] = {"SRQ_LIMIT"};
  EXPECT_NE(check(j), "");
  std::filesystem::remove(f);
}
