// The committed vector set (vectors/README.md): it is what the generator writes, byte for byte;
// every vector passes on the golden model; every opcode cell is covered or has a written reason;
// a broken vector file is reported with its file and JSON path, and a changed expectation fails
// with the first difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "../support/command.h"
#include "../support/require_tool.h"
#include "rocecert/errors/error_table.h"
#include "rocecert/vectors/vectors.h"

namespace rocecert::testing {
namespace {

namespace fs = std::filesystem;
namespace vec = rocecert::vectors;

const std::string kSet = std::string(ROCECERT_SOURCE_DIR) + "/vectors";

// Every file the generator owns in the committed set: DIR/<area>/*.json and *.pcap.
std::set<std::string> generated_files(const std::string& dir, const std::set<std::string>& areas) {
  std::set<std::string> out;
  for (const std::string& area : areas)
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(dir) / area))
      out.insert(area + "/" + e.path().filename().string());
  return out;
}

TEST(VectorsGenerate, TheCommittedSetIsWhatTheGeneratorWrites) {
  const std::vector<vec::Generated> set = vec::generate(kSet + "/scenarios");
  ASSERT_FALSE(set.empty());
  const std::string tmp = temp_path("vectors", "regenerated");
  fs::remove_all(tmp);
  vec::write_set(set, tmp);
  std::set<std::string> areas;
  for (const vec::Generated& g : set) areas.insert(g.vector.id.substr(0, g.vector.id.find('/')));
  const std::set<std::string> fresh = generated_files(tmp, areas);
  EXPECT_EQ(fresh, generated_files(kSet, areas))
      << "regenerate with: rocecert vectors generate vectors";
  for (const std::string& f : fresh)
    EXPECT_EQ(slurp((fs::path(tmp) / f).string()), slurp((fs::path(kSet) / f).string()))
        << f << " differs from what `rocecert vectors generate vectors` writes";
  fs::remove_all(tmp);
}

TEST(VectorsGenerate, IdsAreTheirPathsAndStable) {
  for (const std::string& path : vec::find(kSet)) {
    const vec::Loaded l = vec::load(path);
    const std::string rel = fs::relative(path, kSet).replace_extension("").string();
    EXPECT_EQ(l.vector.id, rel);
    EXPECT_TRUE(fs::exists(fs::path(path).replace_extension(".pcap"))) << path;
    EXPECT_FALSE(l.vector.clauses.empty()) << path;
    EXPECT_FALSE(l.vector.capabilities.empty()) << path;
  }
}

// Every matrix (opcodes, transitions, NAK codes, completion statuses): no cell without a vector
// or a written reason, and the NAK codes and statuses the model's peers can cause are shown.
TEST(VectorsCoverage, EveryMatrixIsCoveredOrReasoned) {
  std::vector<vec::Vector> set;
  for (const std::string& path : vec::find(kSet)) set.push_back(vec::load(path).vector);
  const vec::Coverage c = vec::coverage(set);
  std::set<std::string> names;
  for (const vec::Coverage::Matrix& m : c.matrices) {
    names.insert(m.name);
    for (const vec::Coverage::Cell* cell : m.missing())
      ADD_FAILURE() << m.name << ": " << cell->row << " has no vector and no reason";
  }
  EXPECT_EQ(names, (std::set<std::string>{"opcode x transport", "transition x QP type", "NAK code",
                                          "WC status", "error class x profile"}));
  for (const vec::Coverage::Matrix& m : c.matrices) {
    if (m.name != "NAK code" && m.name != "WC status") continue;
    for (const vec::Coverage::Cell& cell : m.cells) {
      const bool producible = cell.row.find("RD") == std::string::npos &&
                              cell.row.rfind("TM_", 0) != 0 && cell.reason.empty();
      if (producible) {
        EXPECT_FALSE(cell.vectors.empty()) << m.name << ": " << cell.row;
      }
    }
  }
}

// Every class of the errors table under both profiles; a class is reasoned away only when the
// model's own peers cannot cause it, and then under both profiles alike.
TEST(VectorsCoverage, EveryErrorClassUnderBothProfilesIsMetOrHasAReason) {
  std::vector<vec::Vector> set;
  for (const std::string& path : vec::find(kSet)) set.push_back(vec::load(path).vector);
  const vec::Coverage c = vec::coverage(set);
  const auto m = std::find_if(c.matrices.begin(), c.matrices.end(),
                              [](const auto& x) { return x.name == "error class x profile"; });
  ASSERT_NE(m, c.matrices.end());
  EXPECT_EQ(m->cells.size(), 2 * errors::kErrorClassCount);
  EXPECT_TRUE(m->missing().empty());
  std::map<std::string, std::set<bool>> reasoned;  // class -> {reasoned under IBA, under RXE}
  for (const vec::Coverage::Cell& cell : m->cells) reasoned[cell.row].insert(cell.vectors.empty());
  for (const auto& [cls, r] : reasoned) EXPECT_EQ(r.size(), 1u) << cls << ": one profile only";
  // Classes the verbs alone reach are met, not reasoned away.
  for (const char* cls :
       {"CQ_OVERFLOW", "CQ_OVERFLOW_SEND", "REQ_RETRY_EXCEEDED", "REQ_RNR_RETRY_EXCEEDED",
        "RESP_RNR", "RESP_PSN_SEQUENCE", "RESP_RKEY_VIOLATION", "REQ_REMOTE_ACCESS",
        "REQ_LOCAL_PROTECTION", "REQ_UD_MESSAGE_TOO_LONG", "QP_MODIFIED_TO_ERR", "WR_POSTED_IN_ERR",
        "PKT_ICRC_ERROR", "PKT_INVALID_DEST_QP", "PKT_QP_NOT_READY", "PKT_PKEY_VIOLATION",
        "PKT_QKEY_VIOLATION"})
    EXPECT_EQ(reasoned[cls], (std::set<bool>{false})) << cls;
}

TEST(VectorsCoverage, EveryTransitionIsTriedOrHasAReason) {
  std::vector<vec::Vector> set;
  for (const std::string& path : vec::find(kSet)) set.push_back(vec::load(path).vector);
  const vec::Coverage c = vec::coverage(set);
  const auto m = std::find_if(c.matrices.begin(), c.matrices.end(),
                              [](const auto& x) { return x.name == "transition x QP type"; });
  ASSERT_NE(m, c.matrices.end());
  EXPECT_EQ(m->cells.size(), 147u);  // 3 QP types x 7 x 7 states
  EXPECT_TRUE(m->missing().empty());
  for (const vec::Coverage::Cell& cell : m->cells) {
    if (cell.vectors.empty()) {
      EXPECT_EQ(cell.row.rfind("RC SQE->", 0), 0u) << cell.row;
    }
  }
}

TEST(VectorsCoverage, EveryOpcodeIsCoveredOrHasAReason) {
  std::vector<vec::Vector> set;
  for (const std::string& path : vec::find(kSet)) set.push_back(vec::load(path).vector);
  const vec::Coverage c = vec::coverage(set);
  const auto m = std::find_if(c.matrices.begin(), c.matrices.end(),
                              [](const auto& x) { return x.name == "opcode x transport"; });
  ASSERT_NE(m, c.matrices.end());
  for (const vec::Coverage::Cell* cell : m->missing())
    ADD_FAILURE() << cell->row << " has no vector and no reason";
  // The transports the model speaks are all covered, not reasoned away.
  for (const vec::Coverage::Cell& cell : m->cells) {
    if (cell.column == "RC" || cell.column == "UC" || cell.column == "UD" || cell.column == "CNP") {
      EXPECT_FALSE(cell.vectors.empty()) << cell.row;
    }
  }
}

class CommittedVector : public ::testing::TestWithParam<std::string> {};

TEST_P(CommittedVector, PassesOnTheGoldenModel) {
  const vec::Result r = vec::run_golden(vec::load(GetParam()));
  EXPECT_EQ(r.verdict, vec::Verdict::PASS);
  for (const std::string& d : r.differences) ADD_FAILURE() << d;
  EXPECT_GT(r.checks, 0u);
}

// The committed vectors, listed without parsing them: gtest registers the tests in every test
// process, and ctest runs each test in a process of its own; parsing the whole set there (what
// vec::find does) took 1.9 s of every one of these 160 processes under ASan. The generator
// writes each vector with "vector" as its first key; ListedAsTheLoaderFindsThem holds this list
// to vec::find's.
std::vector<std::string> committed() {
  std::vector<std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(kSet)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string head;
    for (char c; head.size() < 10 && in.get(c);)
      if (!std::isspace(static_cast<unsigned char>(c))) head += c;
    if (head == "{\"vector\":") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(VectorsSet, ListedAsTheLoaderFindsThem) {
  const std::vector<std::string> listed = committed();
  EXPECT_EQ(listed, vec::find(kSet));
  EXPECT_GT(listed.size(), 100u);
}
std::string vector_name(const ::testing::TestParamInfo<std::string>& p) {
  std::string id = fs::relative(p.param, kSet).replace_extension("").string();
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return id;
}
INSTANTIATE_TEST_SUITE_P(Set, CommittedVector, ::testing::ValuesIn(committed()), vector_name);

// The vector schema (conformance/vectors/vector.schema.json) and the scenario schema accept
// every committed vector and its scenario (with python3-jsonschema, when installed).
TEST(VectorsSchema, EveryCommittedVectorValidates) {
  const std::string python = "/usr/bin/python3";
  ROCECERT_REQUIRE_TOOL(command_succeeds(python + " -c 'import jsonschema'"),
                        "python3-jsonschema (for /usr/bin/python3)");
  const std::string src = ROCECERT_SOURCE_DIR;
  const std::string script =
      "import json,sys,jsonschema\n"
      "vs=json.load(open(sys.argv[1])); ss=json.load(open(sys.argv[2]))\n"
      "bad=0\n"
      "for f in sys.argv[3:]:\n"
      "  v=json.load(open(f))\n"
      "  for s,doc,where in ((vs,v,''),(ss,v.get('scenario'),'scenario')):\n"
      "    for e in jsonschema.Draft202012Validator(s).iter_errors(doc):\n"
      "      print(f, where, e.json_path, e.message); bad+=1\n"
      "sys.exit(1 if bad else 0)\n";
  const std::string py = temp_path("vectors", "validate.py");
  std::ofstream(py) << script;
  std::string cmd = python + " " + py + " " + src + "/conformance/vectors/vector.schema.json " +
                    src + "/conformance/scenario/scenario.schema.json";
  for (const std::string& f : vec::find(kSet)) cmd += " " + f;
  const CommandResult r = run_command(cmd);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  fs::remove(py);
}

// A vector whose expectation no longer matches the model fails, naming the first difference.
TEST(VectorsRun, AChangedExpectationFailsWithTheDifference) {
  const std::string src = kSet + "/opcodes/rc-send-3mtu-00.json";
  std::string text = slurp(src);
  const auto middle = text.find("\"opcode\": \"RC_SEND_MIDDLE\",");
  ASSERT_NE(middle, std::string::npos);
  const auto at = text.find("\"psn\": 101", middle);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"psn\": 101").size(), "\"psn\": 102");
  const std::string path = temp_path("vectors", "changed.json");
  std::ofstream(path, std::ios::binary) << text;
  const vec::Result r = vec::run_golden(vec::load(path));
  EXPECT_EQ(r.verdict, vec::Verdict::FAIL);
  ASSERT_FALSE(r.differences.empty());
  EXPECT_NE(r.differences.front().find("psn: expected 102, got 101"), std::string::npos)
      << r.differences.front();
  fs::remove(path);
}

// Unusable vector files: one message naming the file and where.
TEST(VectorsLoad, BrokenFilesAreLocated) {
  const std::string good = slurp(kSet + "/opcodes/rc-send-1pkt-00.json");
  struct Case {
    std::string text, want;
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    return t;
  };
  const std::vector<Case> cases = {
      {good.substr(0, good.size() / 2), "byte offset"},
      {"[]", "expected a JSON object"},
      {replaced("\"vector\": 2", "\"vector\": 7"), "vector: expected the format version 2 (or 1)"},
      {replaced("\"vector\": 2", "\"vector\": 0"), "vector: expected the format version 2 (or 1)"},
      {replaced("\"id\":", "\"idx\":"), "idx: unknown key"},
      {replaced("\"objective\":", "\"description\":"), "objective: missing"},
      {replaced("\"clauses\": [", "\"clauses\": [3, "), "clauses[0]: expected a string"},
      {replaced("\"op\": \"alloc_pd\"", "\"op\": \"alloc_pdx\""), "steps[0].op"},
      // A number beyond a double (found by fuzz_vector): refused as JSON, not an escape.
      {replaced("\"vector\": 2", "\"vector\": 1e400"), "invalid JSON"},
  };
  for (const Case& c : cases) {
    const std::string path = temp_path("vectors", "broken.json");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << c.text;
    try {
      vec::load(path);
      ADD_FAILURE() << "loaded: " << c.want;
    } catch (const vec::VectorError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(c.want), std::string::npos) << what;
    }
    fs::remove(path);
  }
}

// A vector of format 1 (before the inject step) is a vector of format 2: still read and run.
TEST(VectorsLoad, FormatOneIsStillRead) {
  std::string text = slurp(kSet + "/opcodes/rc-send-1pkt-00.json");
  const auto at = text.find("\"vector\": 2");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string_view("\"vector\": 2").size(), "\"vector\": 1");
  const std::string path = temp_path("vectors", "format1.json");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  EXPECT_EQ(vec::run_golden(vec::load(path)).verdict, vec::Verdict::PASS);
  fs::remove(path);
}

}  // namespace
}  // namespace rocecert::testing
