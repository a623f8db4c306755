#include "prove_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "rocecert/proofs/proofs.h"

namespace rocecert::cli {

int run_prove(const ProveArgs& args) {
  std::vector<const proofs::Proof*> selected;
  for (const std::string& id : args.only) {
    const proofs::Proof* p = proofs::find(id);
    if (p == nullptr) {
      fmt::print(stderr, "rocecert prove: unknown proof \"{}\" (rocecert prove lists them)\n", id);
      return 2;
    }
    selected.push_back(p);
  }
  if (selected.empty())
    for (const proofs::Proof& p : proofs::catalog()) selected.push_back(&p);

  const proofs::Variant variant = args.broken ? proofs::Variant::BROKEN : proofs::Variant::MODEL;
  nlohmann::json report = nlohmann::json::array();
  int failed = 0;
  double seconds = 0;
  for (const proofs::Proof* p : selected) {
    const proofs::Outcome o = proofs::prove(*p, variant);
    // With --broken, a variant the solver refutes is what is expected.
    const bool ok = args.broken ? !o.proved : o.proved;
    failed += ok ? 0 : 1;
    seconds += o.seconds;
    if (args.json) {
      nlohmann::json j = {{"id", p->id},
                          {"statement", p->statement},
                          {"reference", p->reference},
                          {"variant", args.broken ? "broken" : "model"},
                          {"proved", o.proved},
                          {"seconds", o.seconds}};
      if (args.broken) j["broken"] = p->broken;
      if (!o.counterexample.empty()) j["counterexample"] = o.counterexample;
      if (!o.evidence.empty()) j["evidence"] = o.evidence;
      report.push_back(std::move(j));
      continue;
    }
    const char* verdict = o.proved ? "PROVED" : "REFUTED";
    fmt::print("{:<8} {:<22} {:6.2f} s  {}\n", verdict, p->id, o.seconds, p->statement);
    if (args.broken) fmt::print("{:<8} {:<22} {:>8}  broken: {}\n", "", "", "", p->broken);
    if (!o.counterexample.empty())
      fmt::print("{:<8} {:<22} {:>8}  counterexample: {}\n", "", "", "", o.counterexample);
    if (!o.evidence.empty()) fmt::print("{:<8} {:<22} {:>8}  e.g. {}\n", "", "", "", o.evidence);
  }
  if (args.json) {
    fmt::print("{}\n", nlohmann::json{{"variant", args.broken ? "broken" : "model"},
                                      {"proofs", std::move(report)},
                                      {"failed", failed},
                                      {"seconds", seconds}}
                           .dump(2));
  } else {
    fmt::print("{} proof{}, {} {}, {:.1f} s\n", selected.size(), selected.size() == 1 ? "" : "s",
               selected.size() - static_cast<std::size_t>(failed),
               args.broken ? "broken variants refuted" : "proved", seconds);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace rocecert::cli
