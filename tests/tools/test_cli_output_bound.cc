// A pack that answers megabytes is stopped, not recorded (hardening, round
// 2, item 8, and the whole-run bound of item 12): one execution may hand
// back at most 1 MiB (reply, messages, holders, line), one run 64 MiB
// (sim/script_output_bound.h). Past either, `run` and `campaign` stop with
// exit 2 naming the script and the bound, and write no trace or runs
// directory, instead of a trace they could not read back; `pack check`
// reports it as the pack's problem (exit 1).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

fs::path work_dir() { return fs::path(LOCKSIM_BINARY_DIR) / "cli_output_bound"; }

fs::path pack_with_acquire_prefix(const std::string& name, const std::string& prefix) {
  const fs::path dir = work_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(fs::path(LOCKSIM_SOURCE_DIR) / "impl" / "lua", dir, fs::copy_options::recursive);
  const std::string text = read_file(dir / "rlock_acquire.lua");
  std::ofstream(dir / "rlock_acquire.lua", std::ios::trunc) << prefix << "\n" << text;
  return dir;
}

TEST(OutputBound, AHugeReplyStopsTheRun) {
  const fs::path pack = pack_with_acquire_prefix("huge", "if true then return string.rep('x', 2000000) end");
  const fs::path trace = work_dir() / "huge.jsonl";
  const CliRun run = run_locksim("run --backend live --scripts " + pack.string() + " --seed 1 --trace " + trace.string());
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_EQ(line_count(run.out), 1) << run.out;
  EXPECT_TRUE(contains(run.out, "rlock_acquire handed back 2000008 bytes")) << run.out;
  EXPECT_TRUE(contains(run.out, "at most 1048576 per execution")) << run.out;
  EXPECT_FALSE(fs::exists(trace));
  const fs::path out = work_dir() / "huge-out";
  const CliRun campaign =
      run_locksim("campaign --backend live --scripts " + pack.string() + " --seeds 2 --out " + out.string());
  EXPECT_EQ(campaign.exit_code, 2) << campaign.out;
  EXPECT_TRUE(contains(campaign.out, "at most 1048576 per execution")) << campaign.out;
  EXPECT_FALSE(fs::exists(out));
  // pack check reports it as the pack's problem, as it does a script that
  // never answers: the pack fails its check.
  const CliRun check = run_locksim("pack check " + pack.string());
  EXPECT_EQ(check.exit_code, 1) << check.out;
  EXPECT_TRUE(contains(check.out, "PROBLEM while comparing with the model")) << check.out;
  EXPECT_TRUE(contains(check.out, "at most 1048576 per execution")) << check.out;
}

TEST(OutputBound, ManyLargeRepliesStopTheRunAtItsBound) {
  // 600 kB published by every acquire: under the bound per execution, past
  // the run's 64 MiB after about a hundred acquires.
  const fs::path pack = pack_with_acquire_prefix("many", "redis.call('PUBLISH', 'pad', string.rep('y', 600000))");
  const fs::path out = work_dir() / "many-out";
  const CliRun campaign =
      run_locksim("campaign --backend live --scripts " + pack.string() + " --seeds 2 --out " + out.string());
  EXPECT_EQ(campaign.exit_code, 2) << campaign.out;
  EXPECT_TRUE(contains(campaign.out, "locksim records at most 67108864 per run")) << campaign.out;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
