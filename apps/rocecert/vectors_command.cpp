#include "vectors_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "rocecert/check/report_io.h"
#include "rocecert/vectors/vectors.h"
#include "vectors_results.h"
#include "vectors_verbs.h"

namespace rocecert::cli {
namespace {

namespace vec = rocecert::vectors;

// Writes `text` to `path` ("-": stdout); false when it cannot.
bool write_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return static_cast<bool>(std::cout);
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

std::string junit(const std::vector<vec::Result>& results, double seconds) {
  std::size_t failures = 0, skipped = 0;
  for (const vec::Result& r : results) {
    failures += r.verdict == vec::Verdict::FAIL ? 1u : 0u;
    skipped += r.verdict == vec::Verdict::UNSUPPORTED ? 1u : 0u;
  }
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format(
      "<testsuites name=\"rocecert vectors\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n  <testsuite name=\"rocecert vectors\" tests=\"{}\" failures=\"{}\" "
      "skipped=\"{}\" time=\"{:.3f}\">\n",
      results.size(), failures, skipped, seconds, results.size(), failures, skipped, seconds);
  for (const vec::Result& r : results) {
    const std::string area = r.id.substr(0, r.id.find('/'));
    x += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"",
                     check::xml_escape(area), check::xml_escape(r.id), r.seconds);
    if (r.verdict == vec::Verdict::PASS) {
      x += "/>\n";
      continue;
    }
    if (r.verdict == vec::Verdict::DEVIATION) {
      // Passed: what differs is what the profile declares, said in the output.
      std::string body = "DEVIATION: " + r.declared + "\n";
      for (const std::string& d : r.differences) body += d + "\n";
      x += fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n",
                       check::xml_escape(body, false));
      continue;
    }
    x += ">\n";
    if (r.verdict == vec::Verdict::UNSUPPORTED) {
      x += fmt::format("      <skipped message=\"{}\"/>\n",
                       check::xml_escape(r.differences.empty() ? "" : r.differences.front()));
    } else {
      std::string body;
      for (const std::string& d : r.differences) body += d + "\n";
      x += fmt::format("      <failure message=\"{}\">{}</failure>\n",
                       check::xml_escape(r.differences.empty() ? "" : r.differences.front()),
                       check::xml_escape(body, false));
    }
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

std::string json_report(const std::vector<vec::Result>& results) {
  nlohmann::ordered_json j;
  std::size_t pass = 0, fail = 0, unsupported = 0, deviation = 0;
  j["vectors"] = nlohmann::ordered_json::array();
  for (const vec::Result& r : results) {
    (r.verdict == vec::Verdict::PASS        ? pass
     : r.verdict == vec::Verdict::FAIL      ? fail
     : r.verdict == vec::Verdict::DEVIATION ? deviation
                                            : unsupported)++;
    nlohmann::ordered_json v = {{"id", r.id},
                                {"path", r.path},
                                {"verdict", std::string(vec::to_string(r.verdict))},
                                {"checks", r.checks},
                                {"seconds", r.seconds},
                                {"differences", r.differences}};
    if (!r.declared.empty()) v["declared"] = r.declared;
    j["vectors"].push_back(std::move(v));
  }
  j["summary"] = {{"vectors", results.size()},
                  {"pass", pass},
                  {"fail", fail},
                  {"deviation", deviation},
                  {"unsupported", unsupported},
                  {"verdict", fail != 0 ? "FAIL" : "PASS"}};
  return j.dump(2) + "\n";
}

int generate(const VectorsArgs& a) {
  std::string scenarios = a.scenarios;
  if (scenarios.empty()) {
    scenarios = a.dir + "/scenarios";
    if (!std::filesystem::is_directory(scenarios)) {
      fmt::print("no {}: the reliability area is left out (--scenarios names its source)\n",
                 scenarios);
      scenarios.clear();
    }
  }
  const std::vector<vec::Generated> set = vec::generate(scenarios);
  vec::write_set(set, a.dir);
  std::size_t frames = 0;
  for (const vec::Generated& g : set) frames += g.frames.size();
  fmt::print("{} vectors ({} expected frames) written to {}\n", set.size(), frames, a.dir);
  return 0;
}

// The summary line and the reports; the exit code.
int summarize(const VectorsArgs& a, const std::vector<vec::Result>& results, double seconds,
              std::string_view what, const std::string& who) {
  std::size_t fail = 0, unsupported = 0, deviation = 0;
  for (const vec::Result& r : results) {
    fail += r.verdict == vec::Verdict::FAIL ? 1u : 0u;
    unsupported += r.verdict == vec::Verdict::UNSUPPORTED ? 1u : 0u;
    deviation += r.verdict == vec::Verdict::DEVIATION ? 1u : 0u;
  }
  fmt::print("{} {}: {} PASS, {} FAIL, {} UNSUPPORTED{} (DUT: {}{})\n", results.size(), what,
             results.size() - fail - unsupported - deviation, fail, unsupported,
             a.profile.empty() ? "" : fmt::format(", {} DEVIATION", deviation), who,
             a.profile.empty() ? "" : fmt::format(", profile {}", a.profile));
  if (!a.junit.empty() && !write_file(a.junit, junit(results, seconds)))
    throw vec::VectorError(fmt::format("{}: cannot write", a.junit));
  if (!a.json.empty() && !write_file(a.json, json_report(results)))
    throw vec::VectorError(fmt::format("{}: cannot write", a.json));
  return fail == 0 ? 0 : 1;
}

// --dut verbs: every adapter of each vector on a device; the verbs and the expectations are
// judged here, the wire by rocecert check on a capture, with the --events logs.
int run_on_verbs(const VectorsArgs& a, const std::vector<vec::Loaded>& loaded) {
  if (a.wire_only) throw vec::VectorError("--wire-only is for --dut lib: plugins");
  const std::optional<check::Profile> profile = load_profile(a.profile);
  const std::vector<vec::Result> results =
      run_verbs(loaded, a.dut, a.events, a.quiet, profile ? &*profile : nullptr);
  double seconds = 0;
  for (const vec::Result& r : results) seconds += r.seconds;
  return summarize(a, results, seconds, "vectors",
                   fmt::format("{}, every adapter; frames unjudged", a.dut));
}

int run(const VectorsArgs& a) {
  std::vector<vec::Loaded> loaded;
  for (const std::string& path : vec::find(a.dir)) {
    vec::Loaded l = vec::load(path);
    if (!a.filter.empty() && l.vector.id.find(a.filter) == std::string::npos) continue;
    loaded.push_back(std::move(l));
  }
  if (a.wire_only && a.dut.empty())
    throw vec::VectorError("--wire-only judges a device: give it with --dut lib:PATH.so");
  if (!a.events.empty() && !is_verbs_dut(a.dut))
    throw vec::VectorError("--events records what verbs devices report: give --dut verbs:...");
  if (!a.profile.empty() && a.dut.empty())
    throw vec::VectorError("--profile reads a device's results: give the device with --dut");
  if (is_verbs_dut(a.dut)) return run_on_verbs(a, loaded);
  const std::optional<check::Profile> profile = load_profile(a.profile);
  std::unique_ptr<conformance::DutPlugin> dut;
  if (!a.dut.empty()) dut = conformance::DutPlugin::load(a.dut);
  // --dut-as A,B: every vector once per role, each result named with its role.
  std::vector<std::string> roles;
  for (std::size_t from = 0; from <= a.dut_as.size();) {
    std::size_t to = a.dut_as.find(',', from);
    if (to == std::string::npos) to = a.dut_as.size();
    if (to > from) roles.push_back(a.dut_as.substr(from, to - from));
    from = to + 1;
  }
  if (roles.empty()) throw vec::VectorError("--dut-as: name an adapter (A, B, or A,B)");
  if (!dut) roles.resize(1);
  std::vector<vec::Result> results;
  double seconds = 0;
  for (const vec::Loaded& l : loaded) {
    for (const std::string& role : roles) {
      results.push_back(dut ? vec::run_dut(l, *dut, role, a.wire_only) : vec::run_golden(l));
      vec::Result& r = results.back();
      if (profile) apply_profile(r, l, *profile);
      if (dut && roles.size() > 1) r.id += fmt::format(" (as {})", role);
      seconds += r.seconds;
      print_result(r, a.quiet);
    }
  }
  std::string as;
  for (const std::string& role : roles) as += (as.empty() ? "" : ", ") + role;
  const std::string who =
      dut ? fmt::format("{} as adapter {}{}", dut->path(), as, a.wire_only ? ", wire only" : "")
          : "the golden model";
  return summarize(a, results, seconds, roles.size() > 1 ? "runs" : "vectors", who);
}

int coverage(const VectorsArgs& a) {
  std::vector<vec::Vector> set;
  for (const std::string& path : vec::find(a.dir)) set.push_back(vec::load(path).vector);
  const vec::Coverage c = vec::coverage(set);
  std::size_t missing = 0;
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const vec::Coverage::Matrix& m : c.matrices) {
    const std::size_t n = m.cells.size();
    auto pct = [n](std::size_t k) {
      return n == 0 ? 100.0 : 100.0 * static_cast<double>(k) / static_cast<double>(n);
    };
    fmt::print(
        "{}: {} cells, {} covered by a vector ({:.0f} %), {} with a written reason, "
        "{} missing ({:.0f} % covered or reasoned)\n",
        m.name, n, m.covered(), pct(m.covered()), m.reasoned(), m.missing().size(),
        pct(m.covered() + m.reasoned()));
    for (const vec::Coverage::Cell& cell : m.cells)
      if (cell.vectors.empty() && !cell.reason.empty() && !a.quiet)
        fmt::print("  reasoned: {} ({}): {}\n", cell.row, cell.column, cell.reason);
    for (const vec::Coverage::Cell* cell : m.missing())
      fmt::print("  missing: {} ({})\n", cell->row, cell->column);
    missing += m.missing().size();
    nlohmann::ordered_json jm = {{"matrix", m.name}, {"cells", nlohmann::ordered_json::array()}};
    for (const vec::Coverage::Cell& cell : m.cells)
      jm["cells"].push_back({{"row", cell.row},
                             {"column", cell.column},
                             {"vectors", cell.vectors},
                             {"reason", cell.reason}});
    j.push_back(std::move(jm));
  }
  if (!a.json.empty() && !write_file(a.json, j.dump(2) + "\n"))
    throw vec::VectorError(fmt::format("{}: cannot write", a.json));
  return missing == 0 ? 0 : 1;
}

}  // namespace

CLI::App* add_vectors_command(CLI::App& app, VectorsArgs& args) {
  CLI::App* v = app.add_subcommand(
      "vectors", "Test vectors: generate the set from the model, run it, report its coverage");
  v->require_subcommand(1);
  CLI::App* gen = v->add_subcommand("generate", "Write the vector set (JSON + pcap) into DIR");
  gen->add_option("DIR", args.dir, "Output directory (vectors/ holds the committed set)")
      ->required();
  gen->add_option("--scenarios", args.scenarios,
                  "The scenarios the reliability area records (default: DIR/scenarios)");
  CLI::App* run = v->add_subcommand("run", "Run the vectors under DIR (or one vector file)");
  run->add_option("DIR", args.dir, "A vector set, or one vector file")->required();
  run->add_option("--filter", args.filter, "Only the vectors whose id contains this text");
  run->add_option("--junit", args.junit, "Write a JUnit XML report here (- for stdout)");
  run->add_option("--json", args.json, "Write a JSON report here (- for stdout)");
  run->add_flag("-q,--quiet", args.quiet, "Print only failures and the summary");
  run->add_option("--dut", args.dut,
                  "The device under test: lib:PATH.so[,ARGS], a plugin of the C ABI "
                  "rocecert/dut.h, or verbs:DEV_A[,DEV_B], RDMA devices through libibverbs "
                  "playing every adapter (docs/dut.md); default: the golden model");
  run->add_option("--events", args.events,
                  "With --dut verbs:: write each vector's event log (completions, QP states, "
                  "asynchronous events, key changes) into this directory, for rocecert check "
                  "--events");
  run->add_option("--profile", args.profile,
                  "With --dut: the device's profile (rxe, iba, or a file; docs/profiles.md): a "
                  "FAIL it explains is a DEVIATION");
  run->add_option("--dut-as", args.dut_as,
                  "The adapter of each vector the --dut plays (default A; the model plays the "
                  "others); A,B runs every vector once in each role");
  run->add_flag("--wire-only", args.wire_only,
                "Judge the --dut on its frames alone: the model keeps the vector's traffic going "
                "and the device gets the same frames and verbs, the model's keys and QP numbers "
                "imposed (docs/dut.md)");
  CLI::App* cov = v->add_subcommand("coverage", "Which cells of the coverage matrices DIR fills");
  cov->add_option("DIR", args.dir, "A vector set")->required();
  cov->add_option("--json", args.json, "Write the matrices as JSON here (- for stdout)");
  cov->add_flag("-q,--quiet", args.quiet, "Do not list the cells with a written reason");
  return v;
}

int run_vectors(const CLI::App& vectors, const VectorsArgs& args) {
  try {
    if (vectors.got_subcommand("generate")) return generate(args);
    if (vectors.got_subcommand("run")) return run(args);
    return coverage(args);
  } catch (const vec::VectorError& e) {
    std::fprintf(stderr, "rocecert vectors: %s\n", e.what());
    return 2;
  } catch (const conformance::DutError& e) {
    std::fprintf(stderr, "rocecert vectors: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocecert vectors: %s\n", e.what());
    return 2;
  }
}

}  // namespace rocecert::cli
