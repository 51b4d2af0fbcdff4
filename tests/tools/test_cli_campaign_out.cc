// `locksim campaign --out DIR` writes a runs directory (reports/run_summary.h):
// summary.json and report.html always; for a failing campaign also
// failures/<seed>.jsonl (replayable), the shrunk counterexample
// failures/<seed>.shrunk.jsonl (replayable: its explicit plan re-runs) and
// timelines/<seed>.svg naming the violating events; `locksim report DIR`
// rebuilds report.html from them. (Until issue 14: report.html,
// timeline.svg and seed-<N>.jsonl.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

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

TEST_F(CampaignOut, PassingCampaignWritesSummaryAndReport) {
  auto r = run_locksim("campaign --seeds 5 --profile safe --lock mixed --locks 2 --out " + dir_.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = read_file(dir_ / "report.html");
  EXPECT_NE(html.find("PASS"), std::string::npos);
  EXPECT_NE(html.find("--profile safe"), std::string::npos);
  const auto summary = nlohmann::json::parse(read_file(dir_ / "summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_EQ(summary["counts"]["seeds_run"], 5);
  EXPECT_TRUE(summary["failures"].empty());
  EXPECT_EQ(summary["properties"]["mutual_exclusion"]["result"], "pass");
  EXPECT_FALSE(fs::exists(dir_ / "failures"));
  // Nothing failed: a timeline of the first seed's first events, in the report too.
  const std::string svg = read_file(dir_ / "timelines" / "sample.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("a sample: no seed failed"), std::string::npos);
  EXPECT_NE(html.find("Sample timeline"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  // A shard other than 0 draws none (its first seed is not the campaign's).
  const fs::path shard = dir_.string() + "-shard1";
  fs::remove_all(shard);
  auto s1 = run_locksim("campaign --seeds 5 --profile safe --lock rlock --shard 1/2 --out " + shard.string());
  ASSERT_EQ(s1.exit_code, 0) << s1.out;
  EXPECT_FALSE(fs::exists(shard / "timelines" / "sample.svg"));
  fs::remove_all(shard);
}

// The must-show: both traces replay, the SVG names the violating events.
TEST_F(CampaignOut, UnlockNoWakeWritesReplayableTracesAndATimeline) {
  auto r = run_locksim("campaign --seeds 300 --mutant unlock_no_wake --out " + dir_.string());
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto summary = nlohmann::json::parse(read_file(dir_ / "summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  ASSERT_EQ(summary["failures"].size(), 1u) << summary.dump(2);
  const auto& f = summary["failures"][0];
  const std::string seed = f["seed"].dump();
  EXPECT_EQ(f["property"], "liveness");
  EXPECT_EQ(f["trace"], "failures/" + seed + ".jsonl");
  EXPECT_EQ(f["shrunk_trace"], "failures/" + seed + ".shrunk.jsonl");
  EXPECT_EQ(f["timeline"], "timelines/" + seed + ".svg");
  EXPECT_NE(r.out.find("locksim replay " + (dir_ / "failures" / (seed + ".jsonl")).string()), std::string::npos)
      << r.out;
  auto replay = run_locksim("replay " + (dir_ / "failures" / (seed + ".jsonl")).string());
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  auto shrunk = run_locksim("replay " + (dir_ / "failures" / (seed + ".shrunk.jsonl")).string());
  EXPECT_EQ(shrunk.exit_code, 0) << shrunk.out;
  EXPECT_NE(shrunk.out.find("violation: liveness"), std::string::npos) << shrunk.out;
  // The timeline names the violating script (the release that published no wake-up).
  const std::string svg = read_file(dir_ / "timelines" / (seed + ".svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("rlock_release"), std::string::npos);
  const std::string html = read_file(dir_ / "report.html");
  EXPECT_NE(html.find("FAIL"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos) << "timeline embedded";
  EXPECT_NE(html.find("Shrunk counterexample"), std::string::npos);
  // `locksim report` rebuilds the same page.
  fs::remove(dir_ / "report.html");
  auto report = run_locksim("report " + dir_.string());
  EXPECT_EQ(report.exit_code, 0) << report.out;
  EXPECT_EQ(read_file(dir_ / "report.html"), html);
}

TEST_F(CampaignOut, FailingPausesCampaignExplainsTheCause) {
  auto r = run_locksim("campaign --seeds 100 --profile pauses --out " + dir_.string());
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const std::string html = read_file(dir_ / "report.html");
  EXPECT_NE(html.find("mutual_exclusion"), std::string::npos);
  EXPECT_NE(html.find("paused"), std::string::npos);
  const auto summary = nlohmann::json::parse(read_file(dir_ / "summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  const auto& f = summary["failures"][0];
  EXPECT_NE(f["blamed"].get<std::string>().find("paused"), std::string::npos) << f.dump(2);
  // The pause is the cause re-runs confirmed: without it the overlap is gone.
  EXPECT_TRUE(f["cause"]["confirmed"].get<bool>()) << f.dump(2);
  EXPECT_EQ(f["cause"]["kind"], "pause") << f.dump(2);
  EXPECT_EQ(f["unexplained"], 0) << f.dump(2);
  EXPECT_EQ(summary["results"]["unexplained"], 0) << summary["results"].dump();
  EXPECT_GE(summary["results"]["explained_by_kind"]["pause"].get<int>(), 1) << summary["results"].dump();
  EXPECT_NE(html.find("explained violations"), std::string::npos);
  EXPECT_NE(html.find("explained (pause, confirmed by"), std::string::npos);
  auto replay = run_locksim("replay " + (dir_ / f["shrunk_trace"].get<std::string>()).string());
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
}

// An output directory that cannot be made is the environment: exit 3.
TEST_F(CampaignOut, UnwritableOutputDirIsExit3) {
  auto r = run_locksim("campaign --seeds 1 --profile safe --out /proc/locksim-cannot-create");
  EXPECT_EQ(r.exit_code, 3) << r.out;
}

TEST_F(CampaignOut, ReportOfANonRunsDirectoryIsExit2) {
  fs::create_directories(dir_);
  auto r = run_locksim("report " + dir_.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("summary.json"), std::string::npos) << r.out;
  EXPECT_EQ(run_locksim("report " + (dir_ / "nope").string()).exit_code, 2);
}

}  // namespace
