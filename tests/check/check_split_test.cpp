// rocecert split + merge: checking the parts of a capture and merging their reports gives the
// verdict, frame counts, rule counts and violations of checking the whole.
#include <gtest/gtest.h>

#include <filesystem>

#include "conversation.h"
#include "rocecert/check/checker.h"
#include "rocecert/check/split.h"

namespace rocecert::testing {
namespace {

void expect_same(const check::Report& whole, const check::Report& merged) {
  EXPECT_EQ(whole.verdict, merged.verdict);
  EXPECT_EQ(whole.frames, merged.frames);
  EXPECT_EQ(whole.roce_frames, merged.roce_frames);
  EXPECT_EQ(whole.connections.size(), merged.connections.size());
  EXPECT_EQ(whole.violations.size(), merged.violations.size());
  for (std::size_t i = 0; i < check::kRuleCount; ++i) {
    SCOPED_TRACE(std::string(check::rules()[i].id));
    EXPECT_EQ(whole.rules[i].checked, merged.rules[i].checked);
    EXPECT_EQ(whole.rules[i].violations, merged.rules[i].violations);
    EXPECT_EQ(whole.rules[i].deviations, merged.rules[i].deviations);
    EXPECT_EQ(whole.rules[i].explained, merged.rules[i].explained);
  }
}

class CheckSplit : public ::testing::TestWithParam<const char*> {};

TEST_P(CheckSplit, PartsCheckedAndMergedEqualTheWhole) {
  const std::string capture = std::string(ROCECERT_SOURCE_DIR "/vectors/real/") + GetParam();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rocecert-split-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  check::Options o;
  o.profile = check::load_profile("rxe");
  const check::Report whole = check::check_files({capture}, o);
  const auto parts = check::split_capture(capture, 3, (dir / "part").string());
  ASSERT_EQ(parts.size(), 3u);
  std::uint64_t frames = 0;
  std::vector<check::Report> reports;
  for (const check::SplitPart& p : parts) {
    frames += p.frames;
    reports.push_back(check::check_files({p.file}, o));
  }
  EXPECT_EQ(frames, whole.frames);
  const check::Report merged = check::merge(std::move(reports));
  expect_same(whole, merged);
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(RealCaptures, CheckSplit,
                         ::testing::Values("rc_write_bw_4096_mtu1024_q8.pcap",
                                           "multi_qp_errors.pcap",
                                           "srq_pingpong_q4_4096_mtu1024.pcap",
                                           "rc_ops_mtu4096.pcap", "ud_pingpong_1024.pcap",
                                           "rc_send_bw_64_mtu1024_corrupt2.pcap"));

TEST(CheckSplitGroups, ConnectionsAreSpreadOverTheParts) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rocecert-split2-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto parts =
      check::split_capture(ROCECERT_SOURCE_DIR "/vectors/real/rc_write_bw_4096_mtu1024_q8.pcap", 4,
                           (dir / "part").string());
  for (const check::SplitPart& p : parts) {
    EXPECT_EQ(p.groups, 2u);  // 8 QP pairs of 50 frames each, balanced
    EXPECT_EQ(p.frames, 100u);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rocecert::testing
