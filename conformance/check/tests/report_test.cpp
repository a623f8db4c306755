// Verdicts: names, precedence, Report::settle() (docs/json.md §2, "Verdicts") and merge().
#include <gtest/gtest.h>

#include "rocecert/check/report.h"
#include "sample_report.h"

namespace rocecert::check {
namespace {

using testing::violation;

TEST(Verdict, NamesRoundTripAndUnknownNamesAreRefused) {
  for (Verdict v : {Verdict::PASS, Verdict::DEVIATION, Verdict::UNSUPPORTED, Verdict::INCONCLUSIVE,
                    Verdict::FAIL})
    EXPECT_EQ(parse_verdict(to_string(v)), v);
  EXPECT_FALSE(parse_verdict("pass"));
  EXPECT_FALSE(parse_verdict(""));
  EXPECT_EQ(to_string(NoteKind::OneDirection), "one_direction");
  EXPECT_EQ(to_string(NoteKind::CaptureError), "capture_error");
}

TEST(Verdict, WorstFollowsThePrecedence) {
  EXPECT_EQ(worst(Verdict::PASS, Verdict::DEVIATION), Verdict::DEVIATION);
  EXPECT_EQ(worst(Verdict::UNSUPPORTED, Verdict::DEVIATION), Verdict::UNSUPPORTED);
  EXPECT_EQ(worst(Verdict::UNSUPPORTED, Verdict::INCONCLUSIVE), Verdict::INCONCLUSIVE);
  EXPECT_EQ(worst(Verdict::FAIL, Verdict::INCONCLUSIVE), Verdict::FAIL);
}

Report two_connections() {
  Report r;
  r.files = {"a.pcap"};
  r.roce_frames = 10;
  r.connections.resize(2);
  r.connections[1].id = 1;
  // Stale verdicts that settle() must recompute.
  r.verdict = Verdict::FAIL;
  r.connections[0].verdict = Verdict::FAIL;
  return r;
}

TEST(Settle, NothingFoundIsPass) {
  Report r = two_connections();
  r.settle();
  EXPECT_EQ(r.verdict, Verdict::PASS);
  EXPECT_EQ(r.connections[0].verdict, Verdict::PASS);
}

TEST(Settle, ACaptureWithoutRoceFramesIsInconclusive) {
  Report r;
  r.files = {"a.pcap"};
  r.frames = 12;  // ARP, LLDP: nothing a rule could judge
  r.settle();
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE);
  r.roce_frames = 1;
  r.settle();
  EXPECT_EQ(r.verdict, Verdict::PASS);
}

TEST(Settle, AnUndeclaredErrorViolationFailsItsConnectionOnly) {
  Report r = two_connections();
  r.violations.push_back(violation(RuleId::PsnSequence, 1, 5, "x"));
  r.notes.push_back({NoteKind::Gap, 1, 0, 3, "gap"});
  r.notes.push_back({NoteKind::Unsupported, 0, 0, 0, "XRC"});
  r.settle();
  EXPECT_EQ(r.connections[1].verdict, Verdict::FAIL);
  EXPECT_EQ(r.connections[0].verdict, Verdict::UNSUPPORTED);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
}

// A report lists at most 100,000 violations and 10,000 notes; the counts stay exact and decide
// the verdicts with what is listed, and the notes past the bound still count (Connection::
// unlisted), so that a large capture never passes a connection the list no longer shows.
TEST(Settle, TheRuleCountsDecideWhatTheListNoLongerShows) {
  Report r = two_connections();
  r.connections[1].rules[static_cast<std::size_t>(RuleId::PsnSequence)].violations = 1;
  r.rules[static_cast<std::size_t>(RuleId::PsnSequence)].violations = 1;
  r.connections[0].rules[static_cast<std::size_t>(RuleId::ReadOpcode)].deviations = 2;
  r.rules[static_cast<std::size_t>(RuleId::ReadOpcode)].deviations = 2;
  r.settle();
  EXPECT_EQ(r.connections[1].verdict, Verdict::FAIL);
  EXPECT_EQ(r.connections[0].verdict, Verdict::DEVIATION);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
  // Explained, or of an advisory rule: nothing.
  Report e = two_connections();
  e.connections[1].rules[static_cast<std::size_t>(RuleId::PsnSequence)].explained = 3;
  e.connections[1].rules[static_cast<std::size_t>(RuleId::WireAckReq)].violations = 4;
  e.rules = e.connections[1].rules;
  e.settle();
  EXPECT_EQ(e.connections[1].verdict, Verdict::PASS);
  EXPECT_EQ(e.verdict, Verdict::PASS);
}

TEST(Settle, NotesPastTheBoundStillCount) {
  Report r = two_connections();
  r.connections[1].unlisted = Verdict::INCONCLUSIVE;
  r.settle();
  EXPECT_EQ(r.connections[0].verdict, Verdict::PASS);
  EXPECT_EQ(r.connections[1].verdict, Verdict::INCONCLUSIVE);
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE);
}

TEST(ByConnection, GroupsInReportOrderWithTheUnconnectedLast) {
  Report r = two_connections();
  r.violations.push_back(violation(RuleId::PsnSequence, 1, 5, "a"));
  r.violations.push_back(violation(RuleId::WireIcrc, kNoConnection, 6, "b"));
  r.violations.push_back(violation(RuleId::PsnSequence, 0, 7, "c"));
  r.violations.push_back(violation(RuleId::PsnSequence, 1, 8, "d"));
  r.violations.push_back(violation(RuleId::PsnSequence, 9, 9, "out of range"));
  r.notes.push_back({NoteKind::Gap, 1, 0, 3, "gap"});
  r.notes.push_back({NoteKind::Truncated, std::nullopt, 0, 4, "cut"});
  r.notes.push_back({NoteKind::Gap, 1, 0, 5, "gap 2"});
  const ByConnection by = by_connection(r);
  auto messages = [](const auto& group) {
    std::vector<std::string> out;
    for (const auto* x : group) out.push_back(x->message);
    return out;
  };
  ASSERT_EQ(by.violations.size(), 3u);
  EXPECT_EQ(messages(by.violations[0]), std::vector<std::string>{"c"});
  EXPECT_EQ(messages(by.violations[1]), (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(messages(by.violations[2]), (std::vector<std::string>{"b", "out of range"}));
  ASSERT_EQ(by.notes.size(), 3u);
  EXPECT_TRUE(by.notes[0].empty());
  EXPECT_EQ(messages(by.notes[1]), (std::vector<std::string>{"gap", "gap 2"}));
  EXPECT_EQ(messages(by.notes[2]), std::vector<std::string>{"cut"});
}

TEST(Settle, EachIncompleteCaptureNoteMakesItInconclusive) {
  for (NoteKind k : {NoteKind::CaptureError, NoteKind::Gap, NoteKind::Truncated,
                     NoteKind::OneDirection, NoteKind::Unpaired}) {
    Report r = two_connections();
    r.notes.push_back({k, 0, 0, 0, "n"});
    r.notes.push_back({NoteKind::Unsupported, 0, 0, 0, "u"});
    Violation v = violation(RuleId::ReadOpcode, 0, 1, "d");
    v.deviation = true;
    r.violations.push_back(v);
    r.settle();
    EXPECT_EQ(r.connections[0].verdict, Verdict::INCONCLUSIVE) << to_string(k);
    EXPECT_EQ(r.connections[1].verdict, Verdict::PASS) << to_string(k);
    EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE) << to_string(k);
  }
}

TEST(Settle, UnsupportedBeatsDeviation) {
  Report r = two_connections();
  Violation v = violation(RuleId::ReadOpcode, 0, 1, "d");
  v.deviation = true;
  r.violations.push_back(v);
  r.settle();
  EXPECT_EQ(r.connections[0].verdict, Verdict::DEVIATION);
  r.notes.push_back({NoteKind::Unsupported, 0, 0, 0, "u"});
  r.settle();
  EXPECT_EQ(r.connections[0].verdict, Verdict::UNSUPPORTED);
}

TEST(Settle, AdvisoryViolationsAndInformativeNotesNeverChangeAVerdict) {
  Report r = two_connections();
  r.violations.push_back(violation(RuleId::WireAckReq, 0, 1, "advisory"));
  Violation d = violation(RuleId::UdQkey, 1, 2, "advisory, declared");
  d.deviation = true;
  r.violations.push_back(d);
  r.notes.push_back({NoteKind::Assumption, 0, 0, 0, "static keys"});
  r.notes.push_back({NoteKind::Deviation, 1, 0, 0, "applied"});
  r.settle();
  EXPECT_EQ(r.connections[0].verdict, Verdict::PASS);
  EXPECT_EQ(r.connections[1].verdict, Verdict::PASS);
  EXPECT_EQ(r.verdict, Verdict::PASS);
}

TEST(Settle, NotesWithoutAConnectionCountForTheOverallVerdictOnly) {
  Report r = two_connections();
  r.notes.push_back({NoteKind::OneDirection, std::nullopt, 0, 0, "one way"});
  r.settle();
  EXPECT_EQ(r.connections[0].verdict, Verdict::PASS);
  EXPECT_EQ(r.connections[1].verdict, Verdict::PASS);
  EXPECT_EQ(r.verdict, Verdict::INCONCLUSIVE);
}

TEST(Settle, TheSampleReport) {
  const Report r = testing::sample_report();
  EXPECT_EQ(r.connections[0].verdict, Verdict::FAIL);
  EXPECT_EQ(r.connections[1].verdict, Verdict::INCONCLUSIVE);
  EXPECT_EQ(r.connections[2].verdict, Verdict::DEVIATION);
  EXPECT_EQ(r.verdict, Verdict::FAIL);
}

TEST(Merge, RenumbersFilesAndConnectionsAndSumsCounts) {
  Report first = testing::sample_report();
  Report second;
  second.profile = "rxe";
  second.max_capture_errors = 2;
  second.files = {"c.pcap"};
  second.frames = 10;
  second.roce_frames = 8;
  Connection c;
  c.transport = "RC";
  c.rules[static_cast<std::size_t>(RuleId::PsnSequence)] = {4, 1, 0};
  second.connections = {c};
  second.rules[static_cast<std::size_t>(RuleId::PsnSequence)] = {4, 1, 0};
  second.violations = {violation(RuleId::PsnSequence, 0, 9, "late")};
  second.notes = {{NoteKind::Gap, 0, 0, 2, "gap"}, {NoteKind::Assumption, std::nullopt, 0, 0, "a"}};

  const Report m = merge({first, second});
  ASSERT_EQ(m.files.size(), 3u);
  EXPECT_EQ(m.files[2], "c.pcap");
  EXPECT_EQ(m.frames, first.frames + 10);
  EXPECT_EQ(m.roce_frames, first.roce_frames + 8);
  ASSERT_EQ(m.connections.size(), 4u);
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(m.connections[i].id, i);
  EXPECT_EQ(m.connections[3].verdict, Verdict::FAIL);
  const RuleCount& psn = m.rules[static_cast<std::size_t>(RuleId::PsnSequence)];
  EXPECT_EQ(psn.checked, 104u);
  EXPECT_EQ(psn.violations, 3u);
  ASSERT_EQ(m.violations.size(), 8u);
  EXPECT_EQ(m.violations[4].file, 1u);  // untouched: first part
  EXPECT_EQ(m.violations[4].connection, 2u);
  EXPECT_EQ(m.violations[6].connection, kNoConnection);  // stays outside any connection
  EXPECT_EQ(m.violations[7].file, 2u);
  EXPECT_EQ(m.violations[7].connection, 3u);
  ASSERT_EQ(m.notes.size(), 10u);
  EXPECT_EQ(m.notes[8].connection, 3u);
  EXPECT_EQ(m.notes[8].file, 2u);
  EXPECT_EQ(m.notes[9].connection, std::nullopt);
  EXPECT_EQ(m.notes[9].file, 2u);
  EXPECT_EQ(m.profile, "rxe");
  EXPECT_EQ(m.verdict, Verdict::FAIL);
}

TEST(Merge, SettlesTheVerdictsAndNamesEveryProfile) {
  Report a, b;
  a.profile = "iba";
  a.files = {"a.pcap"};
  a.roce_frames = 5;
  b.profile = "rxe";
  b.files = {"b.pcap"};
  b.notes = {{NoteKind::Truncated, std::nullopt, 0, 1, "snaplen"}};
  const Report m = merge({a, b, a});
  EXPECT_EQ(m.profile, "iba+rxe");
  EXPECT_EQ(m.verdict, Verdict::INCONCLUSIVE);
  EXPECT_EQ(m.notes[0].file, 1u);
  // Nothing merged: no RoCEv2 frame judged.
  EXPECT_EQ(merge({}).verdict, Verdict::INCONCLUSIVE);
}

TEST(Merge, AnEmptyPartOfASplitIsInconclusiveAloneButNotOnceMerged) {
  Report empty, full;
  empty.files = {"part-2-of-2.pcap"};
  full.files = {"part-1-of-2.pcap"};
  full.roce_frames = 40;
  empty.settle();
  full.settle();
  EXPECT_EQ(empty.verdict, Verdict::INCONCLUSIVE);
  EXPECT_EQ(merge({full, empty}).verdict, Verdict::PASS);
}

}  // namespace
}  // namespace rocecert::check
