// `locksim campaign --out DIR`: a passing campaign writes report.html and a
// sample timeline.svg; a failing one also writes the failing seed's trace,
// which `locksim replay` reproduces, and a report that explains the failure.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

class CampaignOut : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("locksim-campaign-out-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CampaignOut, PassingCampaignWritesReportAndSampleTimeline) {
  auto r = run_locksim("campaign --seeds 5 --profile safe --lock mixed --locks 2 --out " + dir_.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = read_file(dir_ / "report.html");
  EXPECT_NE(html.find("PASS"), std::string::npos);
  EXPECT_NE(html.find("--profile safe"), std::string::npos);
  EXPECT_NE(read_file(dir_ / "timeline.svg").find("<svg"), std::string::npos);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_NE(entry.path().extension(), ".jsonl") << "no failing trace expected: " << entry.path();
  }
}

TEST_F(CampaignOut, FailingCampaignWritesAReplayableTraceAndExplains) {
  auto r = run_locksim("campaign --seeds 100 --profile pauses --out " + dir_.string());
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const std::string html = read_file(dir_ / "report.html");
  EXPECT_NE(html.find("FAIL"), std::string::npos);
  EXPECT_NE(html.find("mutual_exclusion"), std::string::npos);
  EXPECT_NE(html.find("paused"), std::string::npos);
  fs::path trace;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.path().extension() == ".jsonl") trace = entry.path();
  }
  ASSERT_FALSE(trace.empty()) << "no failing trace written";
  auto replay = run_locksim("replay " + trace.string());
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_NE(read_file(dir_ / "timeline.svg").find("<svg"), std::string::npos);
}

TEST_F(CampaignOut, UnwritableOutputDirIsExit2) {
  auto r = run_locksim("campaign --seeds 1 --profile safe --out /proc/locksim-cannot-create");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

}  // namespace
