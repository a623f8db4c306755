// `rocecert check` on the golden model's own traffic (docs/check-validation.md): under seeded
// loss, duplication, reordering and delay of requests and responses, captured before or after
// the faults, the checker must never judge it FAIL; and every capture the model writes for the
// bundled scenarios must pass too. The corpus itself is checked as well (frames, every opcode,
// faults applied), so that the test cannot pass on an empty corpus.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "corpus.h"
#include "rocecert/conformance/runner.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/pcap/reader.h"

using namespace rocecert;
namespace corpus = rocecert::check_corpus;

namespace {
constexpr std::uint64_t kBudget = 200;  // seeds 1..kBudget
}  // namespace

TEST(CheckCorpus, SameSeedSameCaseSameCapture) {
  for (std::uint64_t seed : {3u, 77u}) {
    const corpus::Case a = corpus::make_case(seed), b = corpus::make_case(seed);
    EXPECT_EQ(a.scenario, b.scenario);
    EXPECT_EQ(a.fault_plan, b.fault_plan);
    const corpus::Run ra = corpus::run_case(a), rb = corpus::run_case(b);
    ASSERT_EQ(ra.frames.size(), rb.frames.size());
    for (std::size_t i = 0; i < ra.frames.size(); ++i) {
      EXPECT_EQ(ra.frames[i].ts_ns, rb.frames[i].ts_ns);
      EXPECT_EQ(ra.frames[i].bytes, rb.frames[i].bytes);
    }
  }
  EXPECT_NE(corpus::make_case(1).scenario, corpus::make_case(2).scenario);
}

// The written capture reads back as the frames the tap saw (what a failing seed leaves behind
// for `rocecert check`).
TEST(CheckCorpus, CaptureWrittenForReplayReadsBack) {
  const corpus::Run run = corpus::run_case(corpus::make_case(5));
  ASSERT_FALSE(run.frames.empty());
  const std::string path =
      (std::filesystem::temp_directory_path() / "rocecert-corpus-readback.pcap").string();
  corpus::write_pcap(run, path);
  pcap::Reader reader(path);
  pcap::Record rec;
  std::size_t n = 0;
  while (reader.next(rec)) {
    ASSERT_LT(n, run.frames.size());
    EXPECT_EQ(rec.ts_ns, run.frames[n].ts_ns);
    EXPECT_TRUE(std::equal(rec.data.begin(), rec.data.end(), run.frames[n].bytes.begin(),
                           run.frames[n].bytes.end()));
    ++n;
  }
  EXPECT_EQ(n, run.frames.size());
  std::filesystem::remove(path);
}

// Seeds beyond the budget that once ended in a false FAIL, or left the model busy forever
// (docs/check-validation.md): each stays right.
TEST(CheckCorpus, SeedsThatOnceFailedStayRight) {
  const std::vector<check::Profile> profiles = corpus::corpus_profiles();
  // 36, 75, 76, 95684, 116840, 121880, 177144: psn.timeout took a resend the network caused
  // (or delayed) for the timer's; 152: events.wc_status took a timeout after a NAK lost behind
  // the tap for a wrong status; 40032 (max_rd_atomic varied): err.after_fatal took the resend of
  // a PSN after the failed one, by a requester whose NAK was lost behind the tap, for a new
  // request; 402725: a NAK remote access error duplicated by the link refused, for z3.key, a
  // WRITE whose FIRST the tap had shown after its LAST (a go-back-N after the FIRST's loss).
  for (std::uint64_t seed : {43582u, 84763u, 85795u, 5078u, 6096u, 2533u, 7981u, 16701u, 36u, 75u,
                             76u, 95684u, 116840u, 121880u, 177144u, 152u, 40032u, 402725u}) {
    const corpus::Outcome o = corpus::evaluate(seed, profiles);
    EXPECT_TRUE(o.problems.empty()) << "seed " << seed << "\n" << o.detail;
  }
}

TEST(CheckCorpus, ModelTrafficUnderFaultsIsNeverFail) {
  const std::vector<check::Profile> profiles = corpus::corpus_profiles();
  ASSERT_EQ(profiles.size(), 2u);
  std::set<std::string> opcodes;
  std::map<std::string, std::uint64_t> faults;
  std::map<std::string, std::uint64_t> taps;
  std::map<std::string, std::uint64_t> verdicts;
  std::map<std::string, std::uint64_t> events;
  std::uint64_t frames = 0, faulty_runs = 0;
  // The requester replayed in lockstep (golden.requester): what it compared, agreed and judged.
  std::uint64_t req_compared = 0, req_agreed = 0, req_replays = 0, resends_judged = 0;
  for (std::uint64_t seed = 1; seed <= kBudget; ++seed) {
    const corpus::Outcome o = corpus::evaluate(seed, profiles);
    EXPECT_TRUE(o.problems.empty()) << o.detail;
    if (!o.reports.empty()) {
      const check::Report& r = o.reports.front();
      resends_judged += r.rules[static_cast<std::size_t>(check::RuleId::GoldenRequester)].checked;
      for (const check::Note& n : r.notes) {
        if (n.kind != check::NoteKind::Replay ||
            n.message.rfind("golden requester replay:", 0) != 0)
          continue;
        ++req_replays;
        req_compared += corpus::number_before(n.message, " requests compared");
        req_agreed += corpus::number_before(n.message, " agreed");
      }
    }
    frames += o.run.frames.size();
    opcodes.insert(o.run.opcodes.begin(), o.run.opcodes.end());
    for (const auto& [action, n] : o.run.faults) faults[action] += n;
    for (const auto& [e, n] : o.run.events) events[e] += n;
    if (!o.run.faults.empty()) ++faulty_runs;
    ++taps[corpus::tap_name(o.c.tap)];
    for (std::size_t i = 0; i < o.reports.size(); ++i)
      ++verdicts[profiles[i].name + " " + std::string(corpus::verdict_name(o.reports[i].verdict))];
  }
  // The corpus is not vacuous: every opcode of the list, every fault, every tap point.
  for (const std::string& op : corpus::required_opcodes())
    EXPECT_TRUE(opcodes.count(op)) << op << " never captured in " << kBudget << " seeds";
  for (const char* action : {"drop", "duplicate", "reorder", "delay"})
    EXPECT_GT(faults[action], 0u) << action;
  EXPECT_GT(faulty_runs, kBudget / 2);
  // ... and what the model does about them: RNR NAKs (late receives), a bad rkey NAKed, retry
  // exhaustion without a peer, go-back-N on a timeout, a sequence NAK and an implied NAK,
  // PSNs across the 2^24 wrap.
  for (const char* e : {"RNR_NAK", "NAK_REMOTE_ACCESS_ERROR", "NAK_PSN_SEQUENCE_ERROR",
                        "completion RETRY_EXC_ERR", "completion REM_ACCESS_ERR", "retry timeout",
                        "retry sequence_nak", "retry implied_nak", "retry rnr_nak", "PSN wrap"})
    EXPECT_GT(events[e], 0u) << e;
  EXPECT_EQ(taps.size(), 4u);
  EXPECT_GT(frames, kBudget * 10);
  // Every request the requester replays compared agreed with the model's (a disagreement is a
  // resync or a golden.requester violation), and resends were among them.
  EXPECT_GT(req_replays, kBudget);
  EXPECT_GT(req_compared, kBudget * 10);
  EXPECT_EQ(req_agreed, req_compared);
  EXPECT_GT(resends_judged, 0u);
  std::string summary;
  for (const auto& [v, n] : verdicts) summary += " " + v + "=" + std::to_string(n);
  for (const auto& [a, n] : faults) summary += " " + a + ":" + std::to_string(n);
  summary += " requester replays:" + std::to_string(req_replays) +
             " compared:" + std::to_string(req_compared) +
             " resends judged:" + std::to_string(resends_judged);
  std::printf("%llu seeds, %llu frames, %zu opcodes;%s\n", static_cast<unsigned long long>(kBudget),
              static_cast<unsigned long long>(frames), opcodes.size(), summary.c_str());
}

// The same corpus with FLUSH and ATOMIC WRITE among the RC requests (IBA 1.5: each answered by
// an empty READ RESPONSE ONLY), under the same faults and taps: never FAIL, every request the
// requester replay compared agreed, and both opcodes were captured.
TEST(CheckCorpus, FlushAndAtomicWriteUnderFaultsAreNeverFail) {
  const std::vector<check::Profile> profiles = corpus::corpus_profiles();
  std::set<std::string> opcodes;
  std::uint64_t req_compared = 0, req_agreed = 0, faulty_runs = 0;
  for (std::uint64_t seed = 1; seed <= kBudget / 2; ++seed) {
    const corpus::Outcome o = corpus::evaluate(seed, profiles, {0, corpus::Ops::with_placements});
    EXPECT_TRUE(o.problems.empty()) << o.detail;
    opcodes.insert(o.run.opcodes.begin(), o.run.opcodes.end());
    if (!o.run.faults.empty()) ++faulty_runs;
    if (o.reports.empty()) continue;
    for (const check::Note& n : o.reports.front().notes) {
      if (n.kind != check::NoteKind::Replay || n.message.rfind("golden requester replay:", 0) != 0)
        continue;
      req_compared += corpus::number_before(n.message, " requests compared");
      req_agreed += corpus::number_before(n.message, " agreed");
    }
  }
  for (const std::string& op : corpus::required_opcodes(corpus::Ops::with_placements))
    EXPECT_TRUE(opcodes.count(op)) << op << " never captured";
  EXPECT_GT(faulty_runs, kBudget / 4);
  EXPECT_GT(req_compared, kBudget * 5);
  EXPECT_EQ(req_agreed, req_compared);
}

// Idle QP pairs retired as early as the run's setup allows (Profile::retire_idle_ns 1 ns: the
// bound is then the longest local ACK timeout or RNR timer of the setup's QPs, plus the tap's
// tolerance), checked without the events log (with one nothing is retired), on one and two
// jobs: never FAIL, and some pairs are retired.
TEST(CheckCorpus, IdlePairsRetiredAtTheShortestBoundAreNeverFail) {
  std::vector<check::Profile> profiles = corpus::corpus_profiles();
  for (check::Profile& p : profiles) p.retire_idle_ns = 1;
  std::uint64_t retired = 0;
  for (std::uint64_t seed = 1; seed <= 2 * kBudget; ++seed) {
    const corpus::Outcome o =
        corpus::evaluate(seed, profiles, {seed % 4 == 0 ? 2u : 0u, corpus::Ops::classic, false});
    EXPECT_TRUE(o.problems.empty()) << o.detail;
    if (o.reports.empty()) continue;
    for (const check::Note& n : o.reports.front().notes)
      if (n.message.find("retire_idle_ns of profile") != std::string::npos)
        retired += std::strtoull(n.message.c_str(), nullptr, 10);
  }
  EXPECT_GT(retired, kBudget / 20);
}

// The same traffic with the start of each capture cut (between one frame and all but one): a
// tap started mid-conversation. What came before is a gap, never a FAIL (docs/check.md, "A
// capture that begins mid-conversation"); the campaign with CUT_HEAD=1 runs thousands more
// (docs/check-validation.md).
TEST(CheckCorpus, CapturesThatBeginMidConversationAreNeverFail) {
  const std::vector<check::Profile> profiles = corpus::corpus_profiles();
  std::uint64_t gaps = 0;
  for (std::uint64_t seed = 1; seed <= 2 * kBudget; ++seed) {
    const corpus::Outcome o = corpus::evaluate(
        seed, profiles, {seed % 4 == 0 ? 2u : 0u, corpus::Ops::classic, false, true});
    EXPECT_TRUE(o.problems.empty()) << o.detail;
    if (o.reports.empty()) continue;
    for (const check::Note& n : o.reports.front().notes)
      if (n.message.find("the capture began while the responder held requests") !=
          std::string::npos)
        ++gaps;
  }
  // The opening explained something in a good share of the runs: the test is not vacuous.
  EXPECT_GT(gaps, kBudget / 10);
}

// Cut captures that once FAILed (CUT_HEAD=1 campaign, seeds 1-60,000, before session 51's and
// 52's fixes): pairings of QPs whose PSNs overlap, an opening ended by a duplicate's MSN, a READ
// whose span was unknown, a go-back past what the capture shows unacknowledged, a pairing that
// rests on ACKs or on a contradiction (and 55072: a READ re-requested from inside before the
// path MTU, counted as a message of its own, made a cut capture look like the start while
// session 52's fixes were built), a QP with no peer sharing PSNs with a QP cut away (session 53:
// the UDP source port, and a requester that disowns the answers), an answer to a request that
// overtook the first ones seen, a READ resent after its PSN was acknowledged (session 53). None
// may FAIL again.
TEST(CheckCorpus, CutCapturesThatOnceFailedAreNeverFail) {
  const std::vector<check::Profile> profiles = corpus::corpus_profiles();
  static constexpr std::uint64_t kSeeds[] = {
      1109,  1559,  1790,  3091,  3227,  3421,  3939,  4080,  4492,  5485,  5524,  5890,  5911,
      6043,  6171,  7064,  7407,  7528,  8409,  8605,  8688,  8821,  9203,  9242,  10016, 10837,
      11323, 11381, 11622, 12727, 13219, 13380, 13424, 13568, 14836, 14841, 15901, 16124, 17404,
      17857, 17937, 18436, 18621, 19159, 2439,  10845, 2670,  8752,  14516, 1245,  21549, 24820,
      41243, 19072, 23851, 26599, 29067, 32829, 37085, 51134, 55072, 55400, 56200, 56413, 11455,
      13801, 40249, 44724, 60628, 81633, 86128, 37937, 63349, 77361};
  for (const std::uint64_t seed : kSeeds) {
    const corpus::Outcome o =
        corpus::evaluate(seed, profiles, {0u, corpus::Ops::classic, false, true});
    EXPECT_TRUE(o.problems.empty()) << o.detail;
  }
}

// Every capture `rocecert simulate --pcap` writes for the bundled scenarios (examples/,
// vectors/scenarios/) goes through the checker: never FAIL with rxe, and with iba only what rxe
// declares.
TEST(CheckCorpus, BundledScenarioCapturesPass) {
  const std::vector<check::Profile> profiles = corpus::corpus_profiles();
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"examples", "vectors/scenarios"})
    for (const auto& e :
         std::filesystem::directory_iterator(std::filesystem::path(ROCECERT_SOURCE_DIR) / dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 13u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const conformance::Scenario s = conformance::load_scenario_file(f.string());
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("rocecert-corpus-" + f.stem().string() + ".pcap"))
                                 .string();
    {
      conformance::PcapSink sink(path);  // as `simulate --pcap` writes it
      conformance::RunOptions opt;
      opt.seed = s.seed;
      opt.observers.push_back(&sink);
      conformance::run_scenario(s, opt);
      sink.close();
      EXPECT_GT(sink.frames(), 0u);
    }
    corpus::Run run;
    pcap::Reader reader(path);
    pcap::Record rec;
    while (reader.next(rec)) run.frames.push_back({rec.ts_ns, {rec.data.begin(), rec.data.end()}});
    std::vector<check::Report> reports;
    for (const check::Profile& p : profiles) reports.push_back(corpus::check_run(run, p, path));
    const std::vector<std::string> problems = corpus::judge(reports, profiles);
    std::string detail;
    for (const std::string& p : problems) detail += "  problem: " + p + "\n";
    for (const check::Report& r : reports) detail += corpus::describe({}, run, r, path);
    EXPECT_TRUE(problems.empty()) << detail;
    for (std::size_t i = 0; i < reports.size(); ++i)
      std::printf("%s: %zu frames, %s %s\n", f.filename().c_str(), run.frames.size(),
                  profiles[i].name.c_str(),
                  std::string(corpus::verdict_name(reports[i].verdict)).c_str());
    if (!HasFailure()) std::filesystem::remove(path);
  }
}

// The judge of the corpus itself: a violation of an Error rule that the profile did not declare
// is a failing one; under the strict profile, only what the first profile declares is allowed.
TEST(CheckCorpus, FailingViolationsAndDeclaredDeviations) {
  check::Report r;
  check::Violation v;
  v.rule = check::RuleId::ReadOpcode;
  v.cause = "resumed_mid_read";
  r.violations.push_back(v);
  check::Violation advisory;
  advisory.rule = check::RuleId::WireAckReq;  // Advisory: never a FAIL
  r.violations.push_back(advisory);
  ASSERT_EQ(corpus::failing_violations(r).size(), 1u);
  EXPECT_EQ(corpus::failing_violations(r)[0]->rule, check::RuleId::ReadOpcode);

  check::Profile declared;
  declared.deviations.push_back({check::RuleId::ReadOpcode, "resumed_mid_read", "", ""});
  EXPECT_TRUE(corpus::only_declared(r, declared));
  declared.deviations[0].cause = "other";
  EXPECT_FALSE(corpus::only_declared(r, declared));
  declared.deviations[0].cause = "*";
  EXPECT_TRUE(corpus::only_declared(r, declared));
  r.violations[0].deviation = true;  // declared by the profile the report was made with
  EXPECT_TRUE(corpus::failing_violations(r).empty());
  EXPECT_TRUE(corpus::only_declared(r, check::Profile{}));
}

TEST(CheckCorpus, JudgeAcceptsPassAndExplainedInconclusiveOnly) {
  check::Profile rxe, iba;
  rxe.name = "rxe";
  iba.name = "iba";
  const std::vector<check::Profile> profiles = {rxe, iba};
  check::Report pass, fail, unexplained, explained, unsupported;
  fail.verdict = check::Verdict::FAIL;
  check::Violation v;
  v.rule = check::RuleId::PsnSequence;
  fail.violations.push_back(v);
  unexplained.verdict = check::Verdict::INCONCLUSIVE;
  explained = unexplained;
  explained.notes.push_back({check::NoteKind::Gap, 0u, 0, 7, "PSN 5 never seen"});
  unsupported.verdict = check::Verdict::UNSUPPORTED;
  EXPECT_TRUE(corpus::judge({pass, pass}, profiles).empty());
  EXPECT_TRUE(corpus::judge({explained, explained}, profiles).empty());
  EXPECT_EQ(corpus::judge({fail, pass}, profiles).size(), 1u);
  EXPECT_EQ(corpus::judge({pass, fail}, profiles).size(), 1u);  // not declared by rxe
  EXPECT_EQ(corpus::judge({unexplained, pass}, profiles).size(), 1u);
  EXPECT_EQ(corpus::judge({pass, unsupported}, profiles).size(), 1u);
}
