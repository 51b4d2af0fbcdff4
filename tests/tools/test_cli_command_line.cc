// One command line: the command a campaign records in summary.json (and
// report.html) runs the same campaign when pasted into a shell, and `run`
// takes the same scenario flags as `campaign`, with the same defaults, so a
// campaign's seed runs alone with its flags.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

class CommandLine : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("locksim-command-line-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "pack dir");
    for (const auto& entry : fs::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua")) {
      fs::copy_file(entry.path(), dir_ / "pack dir" / entry.path().filename());
    }
  }
  void TearDown() override { fs::remove_all(dir_); }
  static nlohmann::json summary(const fs::path& out) { return nlohmann::json::parse(read_file(out / "summary.json")); }
  fs::path dir_;
};

TEST_F(CommandLine, RecordedCampaignCommandReproducesTheRunWhenPasted) {
  // A pack path with a space and a quote-worthy fail-on list: the recorded
  // command must survive the shell.
  const std::string first = "campaign --seeds 6 --base-seed 3 --profile pauses --lock fair --clients 3 --duration-s 20 "
                            "--scripts '" + (dir_ / "pack dir").string() + "' --fail-on busy_poll --keep-going --out " +
                            (dir_ / "a").string();
  const auto a = run_locksim(first);
  ASSERT_TRUE(a.exit_code == 0 || a.exit_code == 1) << a.out;
  const nlohmann::json sa = summary(dir_ / "a");
  const std::string command = sa.at("command").get<std::string>();
  // locksim by its absolute path (it is not on PATH here), as pasted anywhere.
  ASSERT_EQ(command.rfind(fs::canonical(LOCKSIM_CLI_PATH).string() + " campaign ", 0), 0u) << command;
  EXPECT_NE(command.find("--duration-ms 20000"), std::string::npos) << command;
  // Pasted as recorded, from another directory, with a new --out.
  const auto b = locksim::testing::run_shell(command + " --out " + (dir_ / "b").string(), "/");
  EXPECT_EQ(b.exit_code, a.exit_code) << command << "\n" << b.out;
  const nlohmann::json sb = summary(dir_ / "b");
  EXPECT_EQ(sb.at("command"), sa.at("command"));
  EXPECT_EQ(sb.at("configuration"), sa.at("configuration"));
  EXPECT_EQ(sb.at("failures"), sa.at("failures"));
  EXPECT_EQ(sb.at("counts"), sa.at("counts"));
}

TEST_F(CommandLine, RunAndCampaignShareScenarioFlagsAndDefaults) {
  // The same defaults: a campaign of one seed and `run` of that seed, both
  // with no scenario flags, check the same history (same event count).
  const auto run = run_locksim("run --seed 5 --trace " + (dir_ / "r.jsonl").string());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("profile=safe"), std::string::npos) << run.out;
  const auto camp = run_locksim("campaign --seeds 1 --base-seed 5 --json --out " + (dir_ / "c").string(),
                                locksim::testing::Stderr::Discard);
  ASSERT_TRUE(camp.exit_code == 0 || camp.exit_code == 1) << camp.out;
  const nlohmann::json sc = summary(dir_ / "c");
  const std::string trace = read_file(dir_ / "r.jsonl");
  const size_t events = static_cast<size_t>(std::count(trace.begin(), trace.end(), '\n')) - 1;
  EXPECT_EQ(sc.at("counts").at("events_checked").get<size_t>(), events) << sc.dump();
  // Every scenario flag that campaign takes, run takes too (and the other
  // way round), in both units of duration.
  for (const std::string flags : {"--duration-ms 5000", "--duration-s 5", "--profile hostile --lock mixed --locks 2",
                                  "--servers 3 --lock redlock --persistence always --restart-delay-ms 10",
                                  "--lock fair --fair-slot-ms 5000", "--mutant release_no_owner_check",
                                  "--mutant watchdog_not_cancelled", "--clients 2 --validity --lock redlock --servers 3"}) {
    const auto r = run_locksim("run --seed 1 " + flags + " --trace " + (dir_ / "f.jsonl").string());
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << flags << "\n" << r.out;  // 1: a property failed
    const auto c = run_locksim("campaign --seeds 1 --no-shrink " + flags + " --out " + (dir_ / "cf").string());
    EXPECT_TRUE(c.exit_code == 0 || c.exit_code == 1) << flags << "\n" << c.out;
    fs::remove_all(dir_ / "cf");
  }
}

}  // namespace
