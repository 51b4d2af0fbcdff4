// Issue 13, item 9: partial output never looks complete. A live run cut
// short (a script that never returns: the connection's 5 s read timeout)
// exits 2 naming the script, writes no trace, and leaves an existing trace
// untouched; a campaign whose outputs cannot be written prints its verdict
// (FAILED or ok, text or JSON) before it exits 3 (the environment), and
// leaves nothing: its runs directory appears complete or not at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::run_locksim;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(LOCKSIM_BINARY_DIR) / "partial_output" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PartialOutput, LiveRunCutShortWritesNoTrace) {
  const fs::path dir = fresh_dir("live");
  const fs::path pack = dir / "loop";
  fs::copy(fs::path(LOCKSIM_SOURCE_DIR) / "impl" / "lua", pack);
  const std::string renew = locksim::testing::read_file(pack / "rlock_renew.lua");
  std::ofstream(pack / "rlock_renew.lua", std::ios::trunc) << "while true do end\n" << renew;
  const fs::path traces = dir / "traces";
  fs::create_directories(traces);
  std::ofstream(traces / "old.jsonl") << "an older trace\n";
  const CliRun r = run_locksim("run --seed 1 --backend live --duration-s 20 --scripts " + pack.string() +
                               " --trace " + (traces / "old.jsonl").string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "live run failed")) << r.out;
  EXPECT_TRUE(contains(r.out, "rlock_renew")) << r.out;
  EXPECT_TRUE(contains(r.out, "timed out")) << r.out;
  EXPECT_TRUE(contains(r.out, "no trace written")) << r.out;
  EXPECT_EQ(locksim::testing::line_count(r.out), 1) << r.out;
  EXPECT_EQ(entries(traces), std::vector<std::string>{"old.jsonl"});  // no temp file either
  EXPECT_EQ(locksim::testing::read_file(traces / "old.jsonl"), "an older trace\n");
  fs::remove_all(dir);
}

// The outputs cannot be written: a file size limit (ulimit -f, with
// SIGXFSZ ignored so a write fails with EFBIG instead of killing locksim)
// stops the first file that passes it.
const std::string kSmallFileLimit = "trap '' XFSZ; ulimit -f 2;";

// Nothing of a run is left: no --out, no staging dir, no lock file.
void expect_nothing_written(const fs::path& parent) {
  for (const std::string& name : entries(parent)) ADD_FAILURE() << "left behind: " << name;
}

TEST(PartialOutput, FailingCampaignPrintsItsVerdictEvenIfItsOutputsFail) {
  const fs::path parent = fresh_dir("campaign-text");
  const fs::path out = parent / "out";
  const CliRun r = run_locksim("campaign --seeds 20 --mutant release_no_publish --out " + out.string(),
                               locksim::testing::Stderr::Discard, kSmallFileLimit);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "FAILED: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "liveness")) << r.out;
  expect_nothing_written(parent);
  const CliRun merged = run_locksim("campaign --seeds 20 --mutant release_no_publish --out " + out.string(),
                                    locksim::testing::Stderr::Merge, kSmallFileLimit);
  EXPECT_TRUE(contains(merged.out, "cannot write the campaign outputs: " + out.string() + "/")) << merged.out;
  EXPECT_TRUE(contains(merged.out, "File too large")) << merged.out;
  EXPECT_TRUE(contains(merged.out, "the campaign itself FAILED")) << merged.out;
  EXPECT_TRUE(contains(merged.out, "nothing written to " + out.string())) << merged.out;
  EXPECT_TRUE(contains(merged.out, "exit 3 for the outputs")) << merged.out;
  expect_nothing_written(parent);
  // Without the limit, the same command writes the whole run.
  const CliRun whole = run_locksim("campaign --seeds 20 --mutant release_no_publish --out " + out.string());
  EXPECT_EQ(whole.exit_code, 1) << whole.out;
  EXPECT_EQ(entries(parent), std::vector<std::string>{"out"});
  for (const std::string& name : entries(out / "failures")) {
    const CliRun replay = run_locksim("replay " + (out / "failures" / name).string());
    EXPECT_EQ(replay.exit_code, 0) << name << ": " << replay.out;
  }
  fs::remove_all(parent);
}

TEST(PartialOutput, JsonVerdictComesFirstToo) {
  const fs::path parent = fresh_dir("campaign-json");
  const fs::path out = parent / "out";
  const CliRun r = run_locksim("campaign --seeds 20 --mutant release_no_publish --json --out " + out.string(),
                               locksim::testing::Stderr::Discard, kSmallFileLimit);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["ok"], false);
  const CliRun passing = run_locksim("campaign --seeds 3 --json --out " + out.string(),
                                     locksim::testing::Stderr::Discard, kSmallFileLimit);
  EXPECT_EQ(passing.exit_code, 3) << passing.out;
  EXPECT_EQ(nlohmann::json::parse(passing.out, nullptr, false)["ok"], true) << passing.out;
  expect_nothing_written(parent);
  fs::remove_all(parent);
}

// A runs directory that already holds a run is refused (exit 2), so old
// failure traces cannot sit beside a new summary that does not list them;
// nothing in it changes.
TEST(FreshRunDir, CampaignAndMergeRefuseADirectoryHoldingARun) {
  const fs::path dir = fresh_dir("reuse");
  const fs::path failing = dir / "failing";
  const CliRun first = run_locksim("campaign --seeds 5 --mutant release_no_publish --out " + failing.string());
  ASSERT_EQ(first.exit_code, 1) << first.out;
  ASSERT_TRUE(fs::is_directory(failing / "failures"));
  const std::vector<std::string> before = entries(failing / "failures");
  const std::string summary = locksim::testing::read_file(failing / "summary.json");
  const CliRun again = run_locksim("campaign --seeds 3 --out " + failing.string());
  EXPECT_EQ(again.exit_code, 2) << again.out;
  EXPECT_TRUE(contains(again.out, "already holds a run")) << again.out;
  EXPECT_EQ(locksim::testing::read_file(failing / "summary.json"), summary);
  EXPECT_EQ(entries(failing / "failures"), before);
  // merge: two shards into a fresh directory works; into the failing run's does not.
  const fs::path s0 = dir / "s0";
  const fs::path s1 = dir / "s1";
  ASSERT_EQ(run_locksim("campaign --seeds 4 --shard 0/2 --out " + s0.string()).exit_code, 0);
  ASSERT_EQ(run_locksim("campaign --seeds 4 --shard 1/2 --out " + s1.string()).exit_code, 0);
  EXPECT_EQ(run_locksim("merge " + s0.string() + " " + s1.string() + " --out " + (dir / "m").string()).exit_code,
            0);
  const CliRun into_used = run_locksim("merge " + s0.string() + " " + s1.string() + " --out " + failing.string());
  EXPECT_EQ(into_used.exit_code, 2) << into_used.out;
  EXPECT_TRUE(contains(into_used.out, "already holds a run")) << into_used.out;
  EXPECT_EQ(locksim::testing::read_file(failing / "summary.json"), summary);
  fs::remove_all(dir);
}

// A merge whose outputs cannot be written is the environment too: exit 3,
// one line, and nothing of it left beside the shards.
TEST(PartialOutput, MergeWhoseOutputsFailExitsThree) {
  const fs::path dir = fresh_dir("merge");
  const fs::path shards = dir / "shards";
  const std::string campaign = "campaign --seeds 20 --mutant release_no_publish --keep-going --shard ";
  ASSERT_EQ(run_locksim(campaign + "0/2 --out " + (shards / "s0").string()).exit_code, 1);
  ASSERT_EQ(run_locksim(campaign + "1/2 --out " + (shards / "s1").string()).exit_code, 1);
  const fs::path parent = dir / "merged";
  fs::create_directories(parent);
  const std::string merge = "merge " + (shards / "s0").string() + " " + (shards / "s1").string() + " --out " +
                            (parent / "m").string();
  const CliRun r = run_locksim(merge, locksim::testing::Stderr::Merge, kSmallFileLimit);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_EQ(locksim::testing::line_count(r.out), 1) << r.out;
  EXPECT_TRUE(contains(r.out, "cannot write the merged outputs")) << r.out;
  expect_nothing_written(parent);
  EXPECT_EQ(run_locksim(merge).exit_code, 1);  // the same merge, room to write: done (a property failed)
  fs::remove_all(dir);
}

// No redis-server can be started (here: the virtual-clock shim it needs is
// missing) is the environment, not the input: exit 3, one line, for every
// command that starts one.
TEST(EnvironmentExit, NoRedisServerIsExitThree) {
  const fs::path dir = fresh_dir("no-server");
  const std::string env = "LOCKSIM_VCLOCK_SHIM=" + (dir / "no-such-shim.so").string();
  const std::vector<std::string> commands = {
      "campaign --backend live --seeds 2 --duration-ms 2000 --out " + (dir / "c").string(),
      "run --backend live --seed 1 --duration-s 1 --trace " + (dir / "t.jsonl").string(),
      "diff --sequences 2 --length 5",
      "pack check builtin:impl/lua --sequences 2",
  };
  for (const std::string& command : commands) {
    const CliRun r = run_locksim(command, locksim::testing::Stderr::Merge, env);
    EXPECT_EQ(r.exit_code, 3) << command << ": " << r.out;
    EXPECT_EQ(locksim::testing::line_count(r.out), 1) << command << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "no-such-shim.so")) << command << ": " << r.out;
  }
  EXPECT_EQ(entries(dir), std::vector<std::string>{});
  fs::remove_all(dir);
}

}  // namespace
