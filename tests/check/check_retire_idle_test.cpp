// Idle QP pairs retired (Profile::retire_idle_ns): a QP pair silent past the bound is judged as
// at the end of a capture and forgotten, so that memory follows the connections alive at once.
// What must hold: a later frame of the pair starts a new connection, judged afresh; the report
// says so; the report is the same on any number of jobs; and a pair whose responder sent a
// fatal NAK is kept, so requests after the NAK are still caught however long the silence.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "conversation.h"
#include "rocecert/check/checker.h"
#include "rocecert/check/report_io.h"
#include "rocecert/pcap/reader.h"
#include "rocecert/pcap/writer.h"

namespace rocecert::testing {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// The captures `files` (Ethernet only) one after the other, each `gap` after the end of the one
// before, into a file of the test's own; the same hosts, QPNs and PSNs as in each capture.
std::string one_after_another(const std::vector<std::string>& files, std::int64_t gap,
                              const std::string& name) {
  const std::string path = temp_path("check", name);
  pcap::Writer w(path);
  std::int64_t base = 1'700'000'000 * kSecond;
  for (const std::string& f : files) {
    pcap::Reader r(f);
    if (r.link() != wire::LinkType::Ethernet) continue;
    pcap::Record rec;
    std::int64_t first = -1, last = base;
    while (r.next(rec)) {
      if (first < 0) first = rec.ts_ns;
      last = base + (rec.ts_ns - first);
      w.write(last, rec.data, rec.len);
    }
    base = last + gap;
  }
  return path;
}

// `file` played `copies` times, `gap` apart: as a test program run again on QPs created anew
// with the same numbers.
std::string repeated(const std::string& file, std::size_t copies, std::int64_t gap,
                     const std::string& name) {
  return one_after_another(std::vector<std::string>(copies, file), gap, name);
}

check::Report check_with(const std::string& file, std::uint64_t retire_idle_ns, unsigned jobs = 1) {
  check::Options o;
  o.profile = check::load_profile("rxe");
  o.profile.retire_idle_ns = retire_idle_ns;
  o.jobs = jobs;
  return check::check_files({file}, o);
}

std::string json_of(const check::Report& r) {
  std::ostringstream out;
  check::write_json(r, out);
  return out.str();
}

std::size_t retire_notes(const check::Report& r) {
  std::size_t n = 0;
  for (const check::Note& note : r.notes)
    if (note.kind == check::NoteKind::Assumption &&
        note.message.find("retire_idle_ns of profile") != std::string::npos)
      ++n;
  return n;
}

TEST(CheckRetireIdle, TheBuiltInProfilesRetireAfterTenSeconds) {
  EXPECT_EQ(check::load_profile("rxe").retire_idle_ns, 10u * kSecond);
  EXPECT_EQ(check::load_profile("iba").retire_idle_ns, 10u * kSecond);
}

// A ping-pong run three times, 30 s apart, on the same QP numbers and PSNs: past the bound each
// run is a connection of its own and passes, with one note saying why; under a longer bound, or
// none, the three runs are one connection.
TEST(CheckRetireIdle, AQpPairSilentPastTheBoundIsJudgedAfreshWhenItSpeaksAgain) {
  const std::string once = kRealDir + "rc_pingpong_64_mtu1024.pcap";
  const std::string path = repeated(once, 3, 30 * kSecond, "rocecert_retire_pingpong.pcap");
  const check::Report single = check_with(once, 10 * kSecond);
  ASSERT_EQ(single.verdict, check::Verdict::PASS) << describe(single);
  const check::Report retired = check_with(path, 10 * kSecond);
  EXPECT_EQ(retired.verdict, check::Verdict::PASS) << describe(retired);
  EXPECT_EQ(retired.connections.size(), 3 * single.connections.size());
  EXPECT_EQ(retire_notes(retired), 1u) << describe(retired);
  EXPECT_EQ(retire_notes(single), 0u);
  for (const check::Connection& c : retired.connections)
    EXPECT_EQ(c.verdict, check::Verdict::PASS) << c.id;
  // Not silent for long enough: one connection per QP pair, as without the bound.
  const check::Report kept = check_with(path, 60 * kSecond);
  EXPECT_EQ(kept.connections.size(), single.connections.size());
  EXPECT_EQ(retire_notes(kept), 0u);
  EXPECT_EQ(json_of(kept), json_of(check_with(path, 0)));
  std::filesystem::remove(path);
}

// The same judgments in the same order whatever thread runs a stream: retiring is decided by the
// checker's thread in capture order and runs in order with each stream's work.
TEST(CheckRetireIdle, RetiringLeavesTheReportTheSameOnAnyNumberOfJobs) {
  // Every Ethernet capture of vectors/real/, each 2 s after the one before: with a 1 s bound the
  // QP pairs of every capture retire while the next one runs.
  const std::string path =
      one_after_another(real_captures(), 2 * kSecond, "rocecert_retire_jobs.pcap");
  const check::Report one = check_with(path, kSecond);
  EXPECT_EQ(retire_notes(one), 1u);
  const std::string expected = json_of(one);
  for (const unsigned jobs : {2u, 3u, 4u})
    EXPECT_EQ(expected, json_of(check_with(path, kSecond, jobs))) << jobs << " jobs";
  std::filesystem::remove(path);
}

// A WRITE answered by `syndrome`, then another WRITE, with the next PSN, a minute later.
Conversation write_then_write_later(std::uint8_t syndrome) {
  Conversation c;
  wire::FrameSpec w = c.make(true, wire::Opcode::RC_RDMA_WRITE_ONLY, Conversation::kQpB, 100, 64);
  w.reth = {0x1000, 7, 64};
  c.send(w);
  c.ack(100, 1, syndrome);
  w.bth.psn = 101;
  c.send(w, 60 * kSecond);
  c.ack(101, 2, 0x1F);
  return c;
}

// Acknowledged, the pair is forgotten during the silence: the later WRITE opens a connection of
// its own. Refused with a fatal NAK (remote access error), the pair is kept: the later WRITE is
// a request after the NAK, as without the bound.
TEST(CheckRetireIdle, APairWithAFatalNakIsKeptSoRequestsAfterItAreStillCaught) {
  check::Profile p = strict();
  p.retire_idle_ns = 10 * kSecond;
  const check::Report acked = write_then_write_later(0x1F).check(p);
  EXPECT_EQ(acked.verdict, check::Verdict::PASS) << describe(acked);
  EXPECT_EQ(acked.connections.size(), 2u) << describe(acked);
  EXPECT_EQ(retire_notes(acked), 1u);
  const check::Report refused = write_then_write_later(0x62).check(p);
  EXPECT_EQ(refused.connections.size(), 1u) << describe(refused);
  EXPECT_EQ(count(refused, check::RuleId::ErrAfterFatal), 1u) << describe(refused);
  EXPECT_EQ(retire_notes(refused), 0u);
  p.retire_idle_ns = 0;
  EXPECT_EQ(write_then_write_later(0x1F).check(p).connections.size(), 1u);
}

// A setup whose QP waits longer than the silence (timeout 24: 68.7 s) raises the bound: a
// requester may still resend after a minute of silence, so the pair is kept.
TEST(CheckRetireIdle, ASetupWithALongerTimeoutRaisesTheBound) {
  check::Options o;
  o.profile = strict();
  o.profile.retire_idle_ns = kSecond;
  EXPECT_EQ(write_then_write_later(0x1F).check(o).connections.size(), 2u);
  auto setup = std::make_shared<check::Setup>();
  setup->file = "setup.json";
  setup->keys_known = false;
  check::SetupQp q;
  q.host[0] = 10;
  q.host[3] = 1;
  q.qpn = Conversation::kQpA;
  q.numbered = true;
  q.timeout = 24;
  setup->qps.push_back(q);
  o.setup = setup;
  const check::Report r = write_then_write_later(0x1F).check(o);
  EXPECT_EQ(r.connections.size(), 1u) << describe(r);
  EXPECT_EQ(retire_notes(r), 0u);
  setup->qps.front().timeout = 14;  // 67 ms: the profile's 1 s stands
  EXPECT_EQ(write_then_write_later(0x1F).check(o).connections.size(), 2u);
}

}  // namespace
}  // namespace rocecert::testing
