// `make check-campaign`: the corpus of check_corpus_tests over thousands of seeds (env SEEDS,
// default 5000; FIRST_SEED, default 1), with a summary; with COMPARE_JOBS=N, each seed is also
// checked on N threads, and a report that differs is a problem; with PLACEMENTS=1 the RC pairs
// also post FLUSH and ATOMIC WRITE (corpus::Ops::with_placements); RETIRE_IDLE_NS=N retires QP
// pairs silent for N ns (Profile::retire_idle_ns; the runs then checked without their --events
// logs); CUT_HEAD=1 cuts the start of each capture (corpus::EvalOptions::cut_head). Exit 1 when a
// seed has a problem or an opcode of the list never appeared (docs/check-validation.md).
#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "corpus.h"
#include "rocecert/check/catalog.h"

using namespace rocecert;
namespace corpus = rocecert::check_corpus;

namespace {
std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// Adds up a golden replay note: what was compared and agreed, and why the replay started again
// (the last reason, cut before its PSNs and frames).
void tally_replay(const check::Note& n, std::map<std::string, std::uint64_t>& t) {
  if (n.kind != check::NoteKind::Replay) return;
  const std::string& m = n.message;
  const bool req = m.rfind("golden requester replay:", 0) == 0;
  const std::string who = req ? "requester" : "responder";
  t[who + " connections"] += 1;
  t[who + " compared"] +=
      corpus::number_before(m, req ? " requests compared" : " responses compared");
  t[who + " agreed"] += corpus::number_before(m, " agreed");
  const std::uint64_t resyncs = corpus::number_before(m, " resync");
  t[who + " resyncs"] += resyncs;
  const auto last = m.find("(last: ");
  if (resyncs != 0 && last != std::string::npos) {
    // Its words, without the numbers (PSNs, frames, counts).
    std::string why;
    std::size_t at = last + 7;
    while (at < m.size() && m[at] != ')' && m[at] != ';') {
      const std::size_t end = std::min(m.find_first_of(" );", at), m.size());
      const std::string word = m.substr(at, end - at);
      if (!word.empty() && !std::isdigit(static_cast<unsigned char>(word[0])))
        why += (why.empty() ? "" : " ") + word;
      at = end < m.size() && m[end] == ' ' ? end + 1 : end;
    }
    t[who + " last resync: " + why] += 1;
  }
}
// The words of a note before its first number or colon: what kind of gap made a run
// INCONCLUSIVE, without the PSNs and frames.
std::string note_gist(const check::Note& n) {
  std::string gist = std::string(check::to_string(n.kind)) + ":";
  for (const char ch : n.message) {
    if (ch == ':' || std::isdigit(static_cast<unsigned char>(ch)) != 0 || gist.size() > 90) break;
    gist += ch;
  }
  while (!gist.empty() && gist.back() == ' ') gist.pop_back();
  return gist;
}
}  // namespace

int main() {
  const std::uint64_t seeds = env_u64("SEEDS", 5000);
  const std::uint64_t first = env_u64("FIRST_SEED", 1);
  const auto compare_jobs = static_cast<unsigned>(env_u64("COMPARE_JOBS", 0));
  const corpus::Ops ops =
      env_u64("PLACEMENTS", 0) != 0 ? corpus::Ops::with_placements : corpus::Ops::classic;
  std::vector<check::Profile> profiles = corpus::corpus_profiles();
  // RETIRE_IDLE_NS=N: QP pairs silent for N ns retired (Profile::retire_idle_ns), to try the
  // retirement on traffic whose silences are milliseconds, not the built-in 10 s.
  // Checked without the run's --events log then (with one, nothing is retired).
  const std::uint64_t retire_idle = env_u64("RETIRE_IDLE_NS", 0);
  // CUT_HEAD=1: each capture loses its first frames, as a tap started mid-conversation.
  const bool cut_head = env_u64("CUT_HEAD", 0) != 0;
  if (retire_idle != 0)
    for (check::Profile& p : profiles) p.retire_idle_ns = retire_idle;
  std::map<std::string, std::uint64_t> opcodes, faults, taps, verdicts, events;
  std::map<std::string, std::uint64_t> checked;  // rule -> evaluations under the first profile
  // rule -> its declared deviations and its violations explained by capture errors (first
  // profile): where the rule did more than pass.
  std::map<std::string, std::uint64_t> deviated, explained;
  std::uint64_t frames = 0, bad = 0, longest = 0, longest_seed = 0;
  std::map<std::string, std::uint64_t> replays;         // the golden replays' notes, added up
  std::map<std::string, std::uint64_t> inconclusive;    // note gist -> INCONCLUSIVE runs with it
  std::uint64_t retired_runs = 0, retired_streams = 0;  // RETIRE_IDLE_NS (first profile)
  for (std::uint64_t seed = first; seed < first + seeds; ++seed) {
    const corpus::Outcome o = corpus::evaluate(
        seed, profiles, {compare_jobs, ops, retire_idle == 0 && !cut_head, cut_head});
    frames += o.run.frames.size();
    if (o.run.end_ns > longest) {
      longest = o.run.end_ns;
      longest_seed = seed;
    }
    for (const std::string& op : o.run.opcodes) ++opcodes[op];
    for (const auto& [a, n] : o.run.faults) faults[a] += n;
    for (const auto& [e, n] : o.run.events) events[e] += n;
    ++taps[corpus::tap_name(o.c.tap)];
    if (!o.reports.empty())
      for (const check::RuleInfo& r : check::rules()) {
        const check::RuleCount& rr = o.reports.front().rules[static_cast<std::size_t>(r.rule)];
        checked[std::string(r.id)] += rr.checked;
        if (rr.deviations != 0) deviated[std::string(r.id)] += rr.deviations;
        if (rr.explained != 0) explained[std::string(r.id)] += rr.explained;
      }
    if (!o.reports.empty())
      for (const check::Note& n : o.reports.front().notes) {
        tally_replay(n, replays);
        if (n.kind == check::NoteKind::Assumption &&
            n.message.find("retire_idle_ns of profile") != std::string::npos) {
          ++retired_runs;
          retired_streams += std::strtoull(n.message.c_str(), nullptr, 10);
        }
      }
    // Why the first profile's INCONCLUSIVE runs are so: each note that can make a connection
    // INCONCLUSIVE, counted once per run.
    if (!o.reports.empty() && o.reports.front().verdict == check::Verdict::INCONCLUSIVE) {
      std::set<std::string> gists;
      for (const check::Note& n : o.reports.front().notes)
        if (check::verdict_of(n.kind) == check::Verdict::INCONCLUSIVE) gists.insert(note_gist(n));
      for (const std::string& g : gists) ++inconclusive[g];
    }
    for (std::size_t i = 0; i < o.reports.size(); ++i)
      ++verdicts[fmt::format("{} {}", profiles[i].name,
                             corpus::verdict_name(o.reports[i].verdict))];
    if (!o.problems.empty()) {
      ++bad;
      fmt::print("seed {}:\n{}", seed, o.detail);
    }
    if ((seed - first + 1) % 500 == 0) fmt::print(stderr, "{} seeds...\n", seed - first + 1);
  }
  fmt::print("runs: {} (seeds {}..{}), frames captured: {}, seeds with a problem: {}\n", seeds,
             first, first + seeds - 1, frames, bad);
  fmt::print("longest run: {:.3f} ms of simulated time (seed {})\n",
             static_cast<double>(longest) / 1e6, longest_seed);
  if (retired_runs != 0)
    fmt::print("idle request streams retired: {} in {} runs\n", retired_streams, retired_runs);
  for (const auto& [v, n] : verdicts) fmt::print("verdict {}: {}\n", v, n);
  for (const auto& [g, n] : inconclusive) fmt::print("inconclusive {}: {} runs\n", g, n);
  for (const auto& [t, n] : taps) fmt::print("tap {}: {} runs\n", t, n);
  for (const auto& [a, n] : faults) fmt::print("fault {}: {} frames\n", a, n);
  for (const auto& [e, n] : events) fmt::print("model {}: {}\n", e, n);
  for (const auto& [r, n] : replays) fmt::print("replay {}: {}\n", r, n);
  for (const auto& [r, n] : checked) fmt::print("rule {} checked: {}\n", r, n);
  for (const auto& [r, n] : deviated) fmt::print("rule {} deviations: {}\n", r, n);
  for (const auto& [r, n] : explained) fmt::print("rule {} explained: {}\n", r, n);
  fmt::print("opcodes seen ({}):", opcodes.size());
  for (const auto& [op, n] : opcodes) fmt::print(" {}={}", op, n);
  fmt::print("\n");
  int missing = 0;
  for (const std::string& op : corpus::required_opcodes(ops))
    if (!opcodes.count(op)) {
      fmt::print("opcode never captured: {}\n", op);
      ++missing;
    }
  return bad == 0 && missing == 0 ? 0 : 1;
}
