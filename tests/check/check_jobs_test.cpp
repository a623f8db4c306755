// `check --jobs N` on one capture: reading, decoding and pairing on the calling thread, the
// request streams and their golden replay sharded over threads (shards.h, check_files.cpp). The
// report must be the one of a single thread, byte for byte, and a capture cut short must fail
// alike. (The corpus campaign compares them over thousands of seeds: COMPARE_JOBS; the fuzz
// target on its inputs.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
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

std::string json_of(const std::string& file, unsigned jobs, std::uint32_t drill = 0) {
  check::Options o;
  o.profile = check::load_profile("rxe");
  o.jobs = jobs;
  o.shard_drill = drill;
  std::ostringstream out;
  check::write_json(check::check_files({file}, o), out);
  return out.str();
}

// Every Ethernet capture of vectors/real/ one after the other, 1 s apart, into one file of
// several MB: many batches of the replay's commands, so that it falls behind and catches up.
// `name`: a file of the test's own (ctest runs tests side by side).
std::string long_capture(const std::string& name) {
  const std::string path = temp_path("check", name);
  pcap::Writer w(path);
  std::int64_t base = 1'700'000'000'000'000'000;
  for (const std::string& f : real_captures()) {
    pcap::Reader r(f);
    if (r.link() != wire::LinkType::Ethernet) continue;
    pcap::Record rec;
    std::int64_t first = -1, last = 0;
    while (r.next(rec)) {
      if (first < 0) first = rec.ts_ns;
      last = base + (rec.ts_ns - first);
      w.write(last, rec.data, rec.len);
    }
    base = last + 1'000'000'000;
  }
  return path;
}

// Two jobs: one shard; three: two shards (streams move between them when the checker pairs
// the two directions of a QP pair); four: two shards and reading on a thread of its own.
TEST(CheckJobs, EveryRealCaptureGetsTheSameReportOnAnyNumberOfJobs) {
  for (const std::string& f : real_captures()) {
    SCOPED_TRACE(f);
    const std::string one = json_of(f, 1);
    for (unsigned jobs : {2u, 3u, 4u}) EXPECT_EQ(one, json_of(f, jobs)) << jobs << " jobs";
  }
}

TEST(CheckJobs, ALongCaptureGetsTheSameReportOnAnyNumberOfJobs) {
  const std::string path = long_capture("rocecert_jobs_long.pcap");
  ASSERT_GT(std::filesystem::file_size(path), std::uintmax_t{4} << 20);
  const std::string one = json_of(path, 1);
  for (unsigned jobs : {2u, 3u, 3u, 4u}) EXPECT_EQ(one, json_of(path, jobs)) << jobs << " jobs";
  std::filesystem::remove(path);
}

// Streams moving between the checker's thread (the inline shard) and the shard threads every
// few frames, both ways, as the balance of the work would move them on a long capture: the
// report stays the one of a single thread.
TEST(CheckJobs, StreamsMovingBetweenThreadsAllTheTimeLeaveTheReportAlone) {
  const std::string path = long_capture("rocecert_jobs_drill.pcap");
  const std::string one = json_of(path, 1);
  for (const std::uint32_t every : {1u, 7u, 64u}) {
    EXPECT_EQ(one, json_of(path, 2, every)) << "2 jobs, every " << every;
    EXPECT_EQ(one, json_of(path, 3, every)) << "3 jobs, every " << every;
  }
  for (const std::string& f : real_captures()) {
    SCOPED_TRACE(f);
    EXPECT_EQ(json_of(f, 1), json_of(f, 2, 3));
  }
  std::filesystem::remove(path);
}

// Cut in the middle of a record, past many batches: the same error (file, frame, byte offset)
// whatever the number of jobs.
TEST(CheckJobs, ACaptureCutShortFailsAlikeOnAnyNumberOfJobs) {
  const std::string path = long_capture("rocecert_jobs_cut.pcap");
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size * 7 / 10);
  auto error_of = [&](unsigned jobs) {
    check::Options o;
    o.jobs = jobs;
    try {
      check::check_files({path}, o);
    } catch (const pcap::CaptureError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string one = error_of(1);
  EXPECT_NE(one.find("truncated dump file"), std::string::npos) << one;
  EXPECT_EQ(one, error_of(2));
  EXPECT_EQ(one, error_of(4));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rocecert::testing
