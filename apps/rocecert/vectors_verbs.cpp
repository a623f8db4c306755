#include "vectors_verbs.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "rocecert/verbs/player.h"
#include "vectors_results.h"
#ifdef ROCECERT_HAVE_IBVERBS
#include "rocecert/verbs/ibverbs.h"
#endif

namespace rocecert::cli {

namespace {

namespace vec = rocecert::vectors;

// The devices a spec names, in the order of the vector's adapters.
std::vector<std::string> device_names(const std::string& spec) {
  std::vector<std::string> out;
  const std::string rest = spec.substr(spec.find(':') + 1);
  for (std::size_t from = 0; from <= rest.size();) {
    std::size_t to = rest.find(',', from);
    if (to == std::string::npos) to = rest.size();
    if (to > from) out.push_back(rest.substr(from, to - from));
    from = to + 1;
  }
  if (out.empty()) throw vec::VectorError("--dut verbs: name a device (verbs:rxe0 or verbs:A,B)");
  return out;
}

std::unique_ptr<verbs::Verbs> open_device(const std::string& name) {
#ifdef ROCECERT_HAVE_IBVERBS
  try {
    return verbs::open_ibverbs(name);
  } catch (const verbs::VerbsError& e) {
    throw vec::VectorError(fmt::format("--dut verbs: {}", e.what()));
  }
#else
  throw vec::VectorError(fmt::format(
      "--dut verbs:{}: this rocecert was built without libibverbs (install libibverbs-dev and "
      "build again)",
      name));
#endif
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw vec::VectorError(fmt::format("{}: cannot write", path));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw vec::VectorError(fmt::format("{}: cannot read", path));
  return text.str();
}

vec::Result play_one(const vec::Loaded& l, const std::vector<std::string>& names,
                     const std::string& events_dir) {
  const auto start = std::chrono::steady_clock::now();
  vec::Result r;
  r.id = l.vector.id;
  r.path = l.path;
  const std::vector<conformance::AdapterSpec>& adapters = l.scenario.adapters;
  if (names.size() > 1 && names.size() < adapters.size()) {
    r.verdict = vec::Verdict::UNSUPPORTED;
    r.differences.push_back(fmt::format("the vector has {} adapters, --dut verbs: names {}",
                                        adapters.size(), names.size()));
    return r;
  }
  // A context per adapter, opened for this vector only: nothing of one vector outlives it. One
  // device name plays every adapter (a loopback on one port).
  std::vector<std::unique_ptr<verbs::Verbs>> devices;
  std::map<std::string, verbs::Verbs*> by_adapter;
  std::map<std::string, verbs::DeviceCaps> caps;
  for (std::size_t i = 0; i < adapters.size(); ++i) {
    devices.push_back(open_device(names[names.size() == 1 ? 0 : i]));
    by_adapter[adapters[i].config.name] = devices.back().get();
    caps[adapters[i].config.name] = devices.back()->query_device();
  }
  const verbs::Gate g = verbs::gate(l.vector, l.scenario, caps);
  if (!g.runs) {
    r.verdict = vec::Verdict::UNSUPPORTED;
    r.differences.push_back(g.reason);
    return r;
  }
  const verbs::PlayResult played = verbs::Player(l.scenario, by_adapter).play();
  if (!played.unsupported.empty()) {
    r.verdict = vec::Verdict::UNSUPPORTED;
    r.differences.push_back(played.unsupported);
    return r;
  }
  r.checks = played.verbs;
  r.differences = played.errors;
  r.verdict = played.errors.empty() ? vec::Verdict::PASS : vec::Verdict::FAIL;
  if (!events_dir.empty()) {
    std::string file = r.id;
    for (char& c : file)
      if (c == '/') c = '_';
    std::filesystem::create_directories(events_dir);
    write_file(events_dir + "/" + file + ".events.jsonl", verbs::events_text(played));
    // Beside the log, the setup `rocecert check --setup` needs for a capture of this run: the
    // vector's scenario with the QPNs and rkeys the devices gave (docs/dut.md).
    try {
      write_file(events_dir + "/" + file + ".setup.json",
                 verbs::check_setup(read_file(l.path), played));
    } catch (const verbs::PlayError& e) {
      throw vec::VectorError(fmt::format("{}: {}", l.path, e.what()));
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

bool is_verbs_dut(const std::string& spec) {
  return spec.rfind("verbs:", 0) == 0;
}

std::vector<vec::Result> run_verbs(const std::vector<vec::Loaded>& set, const std::string& spec,
                                   const std::string& events_dir, bool quiet,
                                   const check::Profile* profile) {
  const std::vector<std::string> names = device_names(spec);
  std::vector<vec::Result> out;
  for (const vec::Loaded& l : set) {
    out.push_back(play_one(l, names, events_dir));
    vec::Result& r = out.back();
    if (profile != nullptr) apply_profile(r, l, *profile);
    print_result(r, quiet);
  }
  return out;
}

}  // namespace rocecert::cli
