// Vector files (vectors.h): writing, finding, loading, and the golden run.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rocecert/conformance/runner.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/vectors/vectors.h"

namespace rocecert::vectors {
namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::vector<std::string> strings(const json& j, const std::string& file, const char* key) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_array())
    throw VectorError(fmt::format("{}: {}: expected an array of strings", file, key));
  for (std::size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string())
      throw VectorError(fmt::format("{}: {}[{}]: expected a string", file, key, i));
    out.push_back((*it)[i].get<std::string>());
  }
  return out;
}

std::string required_string(const json& j, const std::string& file, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) throw VectorError(fmt::format("{}: {}: missing", file, key));
  if (!it->is_string()) throw VectorError(fmt::format("{}: {}: expected a string", file, key));
  return it->get<std::string>();
}

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::PASS:
      return "PASS";
    case Verdict::FAIL:
      return "FAIL";
    case Verdict::UNSUPPORTED:
      return "UNSUPPORTED";
    case Verdict::DEVIATION:
      return "DEVIATION";
  }
  return "?";
}

std::string to_text(const Vector& v) {
  json j;
  j["vector"] = kFormatVersion;
  j["id"] = v.id;
  j["objective"] = v.objective;
  j["clauses"] = v.clauses;
  j["capabilities"] = v.capabilities;
  j["opcodes"] = v.opcodes;
  if (!v.transitions.empty()) j["transitions"] = v.transitions;
  if (!v.errors.empty()) j["errors"] = v.errors;
  j["pcap"] = fs::path(v.id).filename().string() + ".pcap";
  j["scenario"] = v.scenario;
  return j.dump(2) + "\n";
}

void write_set(const std::vector<Generated>& set, const std::string& dir) {
  for (const Generated& g : set) {
    const fs::path json_path = fs::path(dir) / (g.vector.id + ".json");
    fs::create_directories(json_path.parent_path());
    std::ofstream out(json_path, std::ios::binary);
    out << to_text(g.vector);
    if (!out) throw VectorError(fmt::format("{}: cannot write", json_path.string()));
    pcap::Writer w((fs::path(dir) / (g.vector.id + ".pcap")).string(), 1, pcap::Precision::Nano,
                   pcap::Format::Pcap);
    for (const Generated::Frame& f : g.frames) w.write(f.t_ns, f.bytes);
    w.close();
  }
}

std::vector<std::string> find(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    if (fs::is_regular_file(dir, ec)) return {dir};
    throw VectorError(fmt::format("{}: not a directory or a vector file", dir));
  }
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    std::ifstream in(e.path(), std::ios::binary);
    const json j = json::parse(in, nullptr, false);
    if (j.is_object() && j.contains("vector")) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Loaded load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw VectorError(fmt::format("{}: cannot open", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

Loaded parse(std::string_view text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw VectorError(fmt::format("{}: byte offset {}: invalid JSON: {}", path, e.byte, e.what()));
  } catch (const json::exception& e) {  // a number beyond a double (found by fuzz_vector)
    throw VectorError(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  if (!j.is_object()) throw VectorError(fmt::format("{}: expected a JSON object", path));
  const auto version = j.find("vector");
  if (version == j.end() || !version->is_number_integer() || *version < kOldestFormatVersion ||
      *version > kFormatVersion)
    throw VectorError(fmt::format("{}: vector: expected the format version {} (or {})", path,
                                  kFormatVersion, kOldestFormatVersion));
  for (const auto& [key, value] : j.items())
    if (key != "vector" && key != "id" && key != "objective" && key != "clauses" &&
        key != "capabilities" && key != "opcodes" && key != "transitions" && key != "errors" &&
        key != "pcap" && key != "scenario" && key != "description" && key != "$schema")
      throw VectorError(fmt::format("{}: {}: unknown key", path, key));
  Loaded l;
  l.path = path;
  l.vector.id = required_string(j, path, "id");
  l.vector.objective = required_string(j, path, "objective");
  l.vector.clauses = strings(j, path, "clauses");
  l.vector.capabilities = strings(j, path, "capabilities");
  l.vector.opcodes = strings(j, path, "opcodes");
  l.vector.transitions = strings(j, path, "transitions");
  l.vector.errors = strings(j, path, "errors");
  const auto sc = j.find("scenario");
  if (sc == j.end() || !sc->is_object())
    throw VectorError(fmt::format("{}: scenario: expected an object", path));
  l.vector.scenario = *sc;
  try {
    l.scenario = conformance::parse_scenario(sc->dump(), path + " (scenario)");
  } catch (const std::exception& e) {
    throw VectorError(e.what());
  }
  return l;
}

namespace {

Result run_with(const Loaded& v, const conformance::RunOptions& options) {
  Result r;
  r.id = v.vector.id;
  r.path = v.path;
  const auto start = std::chrono::steady_clock::now();
  conformance::RunResult res;
  try {
    res = conformance::run_scenario(v.scenario, options);
  } catch (const conformance::DutError& e) {
    const std::string what = e.what();
    if (what.find(": unsupported:") == std::string::npos) throw;
    r.verdict = Verdict::UNSUPPORTED;
    r.differences.push_back(what);
    return r;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.checks = res.checks;
  r.verdict = !res.unsupported.empty() ? Verdict::UNSUPPORTED
              : res.passed()           ? Verdict::PASS
                                       : Verdict::FAIL;
  if (!res.unsupported.empty()) r.differences.push_back(res.unsupported);
  for (const conformance::Failure& f : res.failures)
    r.differences.push_back(fmt::format("scenario.{}: {}", f.path, f.message));
  return r;
}

}  // namespace

Result run_golden(const Loaded& v) {
  return run_with(v, {});
}

Result run_dut(const Loaded& v, const conformance::DutPlugin& dut, const std::string& dut_as,
               bool wire_only) {
  const auto unsupported = [&](std::string why) {
    Result r;
    r.id = v.vector.id;
    r.path = v.path;
    r.verdict = Verdict::UNSUPPORTED;
    r.differences.push_back(std::move(why));
    return r;
  };
  if (dut.lists_capabilities())
    for (const std::string& c : v.vector.capabilities)
      if (dut.capabilities().count(c) == 0)
        return unsupported(fmt::format("the DUT does not offer {} ({})", c, dut.path()));
  bool found = false;
  for (const conformance::AdapterSpec& a : v.scenario.adapters) found |= a.config.name == dut_as;
  if (!found)
    return unsupported(fmt::format("the vector has no adapter \"{}\" (--dut-as)", dut_as));
  conformance::RunOptions o;
  o.dut = &dut;
  o.dut_as = dut_as;
  o.wire_only = wire_only;
  return run_with(v, o);
}

}  // namespace rocecert::vectors
