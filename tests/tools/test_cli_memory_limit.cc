// --memory-limit on every command that runs a pack's Lua in process (run,
// campaign, replay, diff, explore, check, shrink, pack check): a bad value
// is exit 2 with one line naming the flag, before anything runs; a good one
// is taken; the command lines locksim prints to run it again carry it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::line_count;
using locksim::testing::run_locksim;
using locksim::testing::TempDir;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Each command with the arguments it needs to get as far as its flags.
std::vector<std::string> lua_commands(const fs::path& dir) {
  const std::string trace = (dir / "t.jsonl").string();
  return {
      "run --seed 1 --backend lua --trace " + trace,
      "campaign --seeds 1 --backend lua --out " + (dir / "out").string(),
      "replay " + trace,
      "diff --backend lua --sequences 1",
      "explore --backend lua",
      "check " + trace,
      "shrink " + trace,
      "pack check builtin:impl/lua --backend lua",
  };
}

TEST(CliMemoryLimit, BadValuesAreExit2WithOneLineOnEveryCommand) {
  TempDir dir;
  for (const std::string& command : lua_commands(dir.path())) {
    for (const char* bad : {"0", "-5", "2000G", "99999999999999999999G", "lots", "1.5G", "''"}) {
      const CliRun r = run_locksim(command + " --memory-limit " + bad);
      EXPECT_EQ(r.exit_code, 2) << command << " --memory-limit " << bad << ": " << r.out;
      EXPECT_EQ(line_count(r.out), 1) << command << " --memory-limit " << bad << ": " << r.out;
      EXPECT_TRUE(contains(r.out, "locksim: --memory-limit: ")) << command << ": " << r.out;
    }
    // The = form: a negative number is read as the flag's value, and refused.
    const CliRun eq = run_locksim(command + " --memory-limit=-1G");
    EXPECT_EQ(eq.exit_code, 2) << command << ": " << eq.out;
    EXPECT_TRUE(contains(eq.out, "'-1G' is not a size")) << command << ": " << eq.out;
  }
}

TEST(CliMemoryLimit, EveryLuaCommandListsIt) {
  TempDir dir;
  for (const char* command : {"run", "campaign", "replay", "diff", "explore", "check", "shrink", "pack check"}) {
    const CliRun r = run_locksim(std::string(command) + " --help");
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_TRUE(contains(r.out, "--memory-limit SIZE")) << command << ": " << r.out;
  }
}

TEST(CliMemoryLimit, AGoodValueIsTakenAndACampaignRecordsIt) {
  TempDir dir;
  const std::string trace = (dir.path() / "t.jsonl").string();
  const CliRun run = run_locksim("run --seed 1 --backend lua --duration-s 2 --memory-limit 64M --trace " + trace);
  EXPECT_EQ(run.exit_code, 0) << run.out;
  const CliRun replay = run_locksim("replay " + trace + " --memory-limit 64m");
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  const fs::path out = dir.path() / "out";
  const CliRun campaign = run_locksim("campaign --seeds 1 --backend lua --duration-s 2 --memory-limit 96M --json --out " +
                                      out.string(), locksim::testing::Stderr::Discard);
  EXPECT_EQ(campaign.exit_code, 0) << campaign.out;
  EXPECT_TRUE(contains(locksim::testing::read_file(out / "summary.json"), "--memory-limit 96M"));
}

}  // namespace
