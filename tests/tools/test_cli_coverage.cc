// Coverage in the runs directory: summary.json records it, `locksim coverage
// DIR` shows it (what was never covered first, in words), report.html has
// its section with the never-covered items and the curves, and shards merge
// into the unsharded campaign's coverage. A `safe` campaign never pauses a
// holder past its lease; a `pauses` one does, and says so. Bad input is one
// line and exit 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;
using locksim::testing::Stderr;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class CliCoverage : public ::testing::Test {
 protected:
  fs::path dir(const std::string& name) const { return scratch_ / name; }
  locksim::testing::TempDir scratch_{"locksim-coverage"};
};

nlohmann::json summary_of(const fs::path& dir) {
  return nlohmann::json::parse(read_file(dir / "summary.json"), nullptr, false);
}

TEST_F(CliCoverage, NeverCoveredUnderSafeCoveredUnderPauses) {
  const std::string item = "fault/pause:holding_past_lease";
  CliRun safe = run_locksim("campaign --seeds 30 --profile safe --lock rlock --out " + dir("safe").string());
  ASSERT_EQ(safe.exit_code, 0) << safe.out;
  CliRun text = run_locksim("coverage " + dir("safe").string(), Stderr::Discard);
  ASSERT_EQ(text.exit_code, 0) << text.out;
  const size_t never = text.out.find("never covered (");
  ASSERT_NE(never, std::string::npos) << text.out;
  const size_t rarest = text.out.find("rarest covered");
  const size_t at = text.out.find(item);
  EXPECT_TRUE(at != std::string::npos && at > never && at < rarest) << text.out;
  EXPECT_TRUE(contains(text.out, "for longer than that lock's lease had left")) << text.out;
  EXPECT_TRUE(contains(text.out, "coverage of 30 seeds")) << text.out;
  const std::string report = read_file(dir("safe") / "report.html");
  EXPECT_TRUE(contains(report, "<h2 id=\"coverage\">Coverage</h2>"));
  const size_t table = report.find("<table class=\"never\">");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(report.find(item, table), std::string::npos);
  EXPECT_TRUE(contains(report, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"460\""));

  CliRun pauses =
      run_locksim("campaign --seeds 30 --profile pauses --lock rlock --unexplained-only --out " + dir("pauses").string());
  ASSERT_EQ(pauses.exit_code, 0) << pauses.out;
  CliRun json = run_locksim("coverage --json " + dir("pauses").string(), Stderr::Discard);
  ASSERT_EQ(json.exit_code, 0) << json.out;
  const nlohmann::json v = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(v.is_discarded()) << json.out;
  for (const nlohmann::json& n : v["never_covered"]) EXPECT_NE(n["item"], item);
  bool listed = false;
  for (const nlohmann::json& c : v["covered"]) listed = listed || c["item"] == item;
  EXPECT_TRUE(listed) << json.out;
  const nlohmann::json s = summary_of(dir("pauses"));
  EXPECT_TRUE(s["coverage"]["items"].contains(item));
  EXPECT_EQ(s["coverage"]["runs"], 30);
}

TEST_F(CliCoverage, ShardsMergeIntoTheUnshardedCoverage) {
  const std::string campaign = "campaign --seeds 40 --profile hostile --lock mixed --keep-going --no-shrink";
  ASSERT_NE(run_locksim(campaign + " --out " + dir("whole").string()).exit_code, 2);
  const CliRun merge = locksim::testing::run_shards_and_merge(campaign, {dir("s0"), dir("s1")}, dir("merged"));
  ASSERT_NE(merge.exit_code, 2) << merge.out;
  const nlohmann::json whole = summary_of(dir("whole")), merged = summary_of(dir("merged"));
  ASSERT_TRUE(whole.contains("coverage"));
  EXPECT_EQ(whole["coverage"], merged["coverage"]);
  EXPECT_EQ(run_locksim("coverage " + dir("whole").string(), Stderr::Discard).out,
            run_locksim("coverage " + dir("merged").string(), Stderr::Discard).out);
  // One shard alone covers less (or as much), never more.
  const nlohmann::json s0 = summary_of(dir("s0"));
  EXPECT_LE(s0["coverage"]["items"].size(), whole["coverage"]["items"].size());
  EXPECT_EQ(s0["coverage"]["runs"], 20);
}

TEST_F(CliCoverage, BadInputIsOneLineAndExit2) {
  CliRun none = run_locksim("coverage " + dir("absent").string());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(line_count(none.out), 1) << none.out;
  fs::create_directories(dir("empty"));
  CliRun empty = run_locksim("coverage " + dir("empty").string());
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(line_count(empty.out), 1) << empty.out;
  // A summary without coverage (an older campaign's).
  ASSERT_EQ(run_locksim("campaign --seeds 2 --profile none --out " + dir("old").string()).exit_code, 0);
  nlohmann::json s = summary_of(dir("old"));
  s.erase("coverage");
  std::ofstream(dir("old") / "summary.json", std::ios::trunc) << s.dump(2);
  CliRun old = run_locksim("coverage " + dir("old").string());
  EXPECT_EQ(old.exit_code, 2);
  EXPECT_TRUE(contains(old.out, "records no coverage")) << old.out;
  EXPECT_EQ(line_count(old.out), 1) << old.out;
  // A coverage that contradicts the counts.
  nlohmann::json bad = summary_of(dir("old"));
  ASSERT_EQ(run_locksim("report " + dir("old").string()).exit_code, 0);  // a summary without coverage still reads
  ASSERT_EQ(run_locksim("campaign --seeds 2 --profile none --out " + dir("bad").string()).exit_code, 0);
  bad = summary_of(dir("bad"));
  bad["coverage"]["runs"] = 3;
  std::ofstream(dir("bad") / "summary.json", std::ios::trunc) << bad.dump(2);
  CliRun contradicted = run_locksim("coverage " + dir("bad").string());
  EXPECT_EQ(contradicted.exit_code, 2);
  EXPECT_TRUE(contains(contradicted.out, "coverage")) << contradicted.out;
  EXPECT_EQ(line_count(contradicted.out), 1) << contradicted.out;
}

}  // namespace
