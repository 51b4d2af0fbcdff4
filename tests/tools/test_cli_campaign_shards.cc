// Shards and workers give the same campaign: shards 0/3, 1/3 and 2/3 of a
// --keep-going campaign with failures, merged by `locksim merge`, equal the
// unsharded campaign (same seeds, same failures, same counterexamples and
// files, same summary apart from timings and what says which part of the
// seed space a directory holds), and --workers 2 equals --workers 1.
// `locksim merge` refuses shards that do not belong together (exit 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

const std::string kCampaign =
    "campaign --profile hostile --lock mixed --locks 2 --seeds 150 --keep-going --shrink-seeds 2";

nlohmann::json summary_of(const fs::path& dir) {
  return nlohmann::json::parse(read_file(dir / "summary.json"), nullptr, false);
}

// The summary without what may differ: timings, and which shard it holds.
nlohmann::json comparable(nlohmann::json s) {
  s.erase("timings");
  s.erase("shard");
  s.erase("merged_from");
  return s;
}

// Every file under failures/ and timelines/, by relative path.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const char* sub : {"failures", "timelines"}) {
    if (!fs::is_directory(dir / sub)) continue;
    for (const auto& e : fs::directory_iterator(dir / sub))
      out[std::string(sub) + "/" + e.path().filename().string()] = read_file(e.path());
  }
  return out;
}

class CampaignShards : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("locksim-shards-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path dir(const std::string& name) const { return root_ / name; }
  fs::path root_;
};

TEST_F(CampaignShards, MergedShardsAndTwoWorkersEqualTheUnshardedCampaign) {
  CliRun whole = run_locksim(kCampaign + " --workers 1 --out " + dir("whole").string());
  ASSERT_EQ(whole.exit_code, 1) << whole.out;
  CliRun two = run_locksim(kCampaign + " --workers 2 --out " + dir("two").string());
  ASSERT_EQ(two.exit_code, 1) << two.out;
  std::string shard_dirs;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "shard" + std::to_string(i);
    CliRun shard = run_locksim(kCampaign + " --shard " + std::to_string(i) + "/3 --out " + dir(name).string());
    EXPECT_EQ(shard.exit_code, 1) << shard.out;
    shard_dirs += " " + dir(name).string();
  }
  CliRun merge = run_locksim("merge" + shard_dirs + " --out " + dir("merged").string());
  ASSERT_EQ(merge.exit_code, 1) << merge.out;

  const nlohmann::json s_whole = summary_of(dir("whole"));
  ASSERT_FALSE(s_whole.is_discarded());
  ASSERT_GE(s_whole["failures"].size(), 3u) << "the campaign should fail on several seeds";
  for (const auto& f : s_whole["failures"]) {
    EXPECT_TRUE(f.contains("seed") && f["seed"].is_number_unsigned()) << f.dump();
    EXPECT_TRUE(f.contains("property") && f["property"].is_string()) << f.dump();
  }
  EXPECT_EQ(s_whole["counts"]["seeds_run"], 150);
  EXPECT_EQ(comparable(summary_of(dir("two"))), comparable(s_whole));
  EXPECT_EQ(summary_of(dir("two"))["shard"], s_whole["shard"]);
  const nlohmann::json s_merged = summary_of(dir("merged"));
  EXPECT_TRUE(s_merged["shard"].is_null());
  EXPECT_EQ(s_merged["merged_from"].size(), 3u);
  EXPECT_EQ(comparable(s_merged), comparable(s_whole)) << "merged:\n" << comparable(s_merged).dump(1);

  // Same files, byte for byte (traces are deterministic).
  const auto whole_files = files_of(dir("whole"));
  EXPECT_EQ(files_of(dir("two")), whole_files);
  EXPECT_EQ(files_of(dir("merged")), whole_files);
  EXPECT_TRUE(fs::exists(dir("merged") / "report.html"));

  // Bad merges: exit 2, saying why.
  CliRun missing = run_locksim("merge " + dir("shard0").string() + " " + dir("shard2").string() + " --out " +
                               dir("bad1").string());
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
  EXPECT_NE(missing.out.find("missing shard(s) 1/3"), std::string::npos) << missing.out;
  CliRun overlap = run_locksim("merge " + dir("shard0").string() + " " + dir("shard0").string() + " " +
                               dir("shard1").string() + " --out " + dir("bad2").string());
  EXPECT_EQ(overlap.exit_code, 2) << overlap.out;
  EXPECT_NE(overlap.out.find("overlapping"), std::string::npos) << overlap.out;
  CliRun mixed = run_locksim("merge " + dir("shard0").string() + " " + dir("whole").string() + " --out " +
                             dir("bad3").string());
  EXPECT_EQ(mixed.exit_code, 2) << mixed.out;
  CliRun into_input = run_locksim("merge" + shard_dirs + " --out " + dir("shard1").string());
  EXPECT_EQ(into_input.exit_code, 2) << into_input.out;
}

TEST_F(CampaignShards, MergeRefusesShardsOfDifferentCampaigns) {
  ASSERT_EQ(run_locksim("campaign --seeds 4 --shard 0/2 --out " + dir("a").string()).exit_code, 0);
  ASSERT_EQ(run_locksim("campaign --seeds 4 --profile none --shard 1/2 --out " + dir("b").string()).exit_code, 0);
  CliRun r = run_locksim("merge " + dir("a").string() + " " + dir("b").string() + " --out " + dir("m").string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("configurations differ in scenario"), std::string::npos) << r.out;
  EXPECT_EQ(run_locksim("merge " + dir("nothing").string() + " --out " + dir("m").string()).exit_code, 2);
}

TEST_F(CampaignShards, BadShardIsExit2) {
  for (const char* bad : {"3/3", "1/0", "x", "1", "-1/3", "1/3/4", "/3", "0/"}) {
    CliRun r = run_locksim(std::string("campaign --seeds 3 --shard ") + bad + " --out " + dir("x").string());
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("--shard"), std::string::npos) << bad << ": " << r.out;
  }
}

TEST_F(CampaignShards, AShardRunsEveryNthSeed) {
  CliRun r = run_locksim("campaign --seeds 10 --base-seed 100 --profile none --shard 2/3 --out " +
                         dir("s").string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto s = summary_of(dir("s"));
  EXPECT_EQ(s["counts"]["seeds_planned"], 3);  // indexes 2, 5, 8: seeds 102, 105, 108
  EXPECT_EQ(s["counts"]["seeds_run"], 3);
  EXPECT_EQ(s["shard"]["index"], 2);
  EXPECT_EQ(s["shard"]["count"], 3);
}

}  // namespace
