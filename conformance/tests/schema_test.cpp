// The JSON Schema of scenarios: its enumerations are the loader's own tables, every example
// validates against it (with python3-jsonschema, when installed), and it rejects what the loader
// rejects for the same structural reason.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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

bool have_jsonschema() {
  return std::system("python3 -c 'import jsonschema' > /dev/null 2>&1") == 0;
}

// Validates `file` against the schema; "" when valid, else jsonschema's first message.
std::string validate(const std::string& file) {
  const std::string cmd =
      "python3 -c 'import json,sys,jsonschema; s=json.load(open(sys.argv[1])); "
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
}

TEST(ScenarioSchema, EveryStepOpHasADefinition) {
  const json s = load(kSchema);
  const auto ops = s.at("properties").at("steps").at("items").at("properties").at("op").at("enum");
  EXPECT_EQ(ops.size(), 10u);
  for (const auto& op : ops)
    EXPECT_TRUE(s.at("$defs").contains("step_" + op.get<std::string>())) << op;
}

TEST(ScenarioSchema, ExamplesValidate) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(source("examples"))) {
    if (e.path().extension() != ".json") continue;
    ++n;
    EXPECT_EQ(validate(e.path().string()), "") << e.path();
  }
  EXPECT_GE(n, 1);
}

TEST(ScenarioSchema, RejectsStructuralMistakes) {
  if (!have_jsonschema()) GTEST_SKIP() << "python3-jsonschema is not installed";
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
