// What locksim prints for a person (issue 62): the commands it prints run
// when pasted where they were printed (a reproduce line in the campaign's
// directory, report.html's and summary.json's from anywhere); `run` exits 1
// when a property fails; `merge` prints the campaign's results line and
// exits as the campaign would; a campaign's headline says first whether
// anything is unexplained; --property on timeline, check and replay, and
// --violation counting violations only; `locksim shrink`; bad input to each
// new flag and command is one line, exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;
using locksim::testing::run_shell;
using locksim::testing::TempDir;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The lines of `text` that start with `prefix`, the prefix cut off.
std::vector<std::string> lines_after(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
  return out;
}

std::string html_unescape(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""},
                                 {"&#39;", "'"}, {"&amp;", "&"}}) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  }
  return s;
}

// A checkout-like directory: build/tools/locksim leads to the binary under
// test, so a command typed as ./build/tools/locksim runs it.
class Printed : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "build" / "tools");
    fs::create_symlink(LOCKSIM_CLI_PATH, dir_ / "build" / "tools" / "locksim");
  }
  CliRun here(const std::string& args) { return run_shell("./build/tools/locksim " + args, dir_.path().string()); }
  TempDir dir_;
};

constexpr const char* kQuickstart = "campaign --seeds 20 --profile pauses --mutant renew_no_owner_check --out runs/q";

TEST_F(Printed, ReproduceLinesReportAndSummaryCommandsRunAsPrinted) {
  const CliRun c = here(kQuickstart);
  ASSERT_EQ(c.exit_code, 1) << c.out;
  const std::vector<std::string> reproduce = lines_after(c.out, "reproduce seed 7: ");
  ASSERT_EQ(reproduce.size(), 1u) << c.out;
  EXPECT_EQ(reproduce[0], "./build/tools/locksim replay runs/q/failures/7.jsonl");
  // Pasted where it was printed.
  const CliRun replay = run_shell(reproduce[0], dir_.path().string());
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_TRUE(contains(replay.out, "reproduced identically")) << replay.out;
  // report.html's commands, pasted anywhere (here: /).
  const std::string html = read_file(dir_ / "runs" / "q" / "report.html");
  const std::regex code_re("<code>([^<]* replay [^<]*)</code>");
  size_t ran = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), code_re); it != std::sregex_iterator(); ++it) {
    const std::string command = html_unescape((*it)[1].str());
    const CliRun r = run_shell(command, "/");
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.out;
    ++ran;
  }
  EXPECT_GE(ran, 2u) << "report.html shows a full trace's and a shrunk trace's replay";
  // summary.json's command, pasted anywhere with a new --out.
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir_ / "runs" / "q" / "summary.json"));
  const std::string command = summary["command"].get<std::string>();
  EXPECT_EQ(command.front(), '/') << "not a bare locksim, which is not on PATH here: " << command;
  const CliRun again = run_shell(command + " --out " + (dir_ / "again").string(), "/");
  EXPECT_EQ(again.exit_code, 1) << command << "\n" << again.out;
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ / "again" / "summary.json"))["failures"], summary["failures"]);
  // Each failure's "reproduce" runs in the runs directory.
  const std::string in_dir = summary["failures"][0]["reproduce"].get<std::string>();
  const CliRun from_dir = run_shell(in_dir, (dir_ / "runs" / "q").string());
  EXPECT_EQ(from_dir.exit_code, 0) << in_dir << ": " << from_dir.out;
}

TEST_F(Printed, CampaignHeadlineSaysFirstWhetherAnythingIsUnexplained) {
  const CliRun bug = here(kQuickstart);
  EXPECT_EQ(bug.out.rfind("FAILED: 1 unexplained violation (seed 7)", 0), 0u) << bug.out;
  // Correct code under hostile: every violation explained, said first.
  const CliRun hostile = here("campaign --seeds 30 --profile hostile --lock fair --keep-going --no-shrink --out runs/h");
  ASSERT_EQ(hostile.exit_code, 1) << hostile.out;
  EXPECT_TRUE(std::regex_search(hostile.out, std::regex("^FAILED: 0 unexplained; \\d+ seeds? with violations, all "
                                                        "explained by faults the hostile profile injects \\(")))
      << hostile.out.substr(0, 400);
  // `merge` of the same campaign's shards prints the same results line and
  // the same headline, and exits as the campaign did.
  for (int i = 0; i < 2; ++i) {
    const CliRun shard = here("campaign --seeds 30 --profile hostile --lock fair --keep-going --no-shrink --shard " +
                              std::to_string(i) + "/2 --out runs/s" + std::to_string(i));
    ASSERT_EQ(shard.exit_code == 0 || shard.exit_code == 1, true) << shard.out;
  }
  const CliRun merged = here("merge runs/s0 runs/s1 --out runs/m");
  EXPECT_EQ(merged.exit_code, hostile.exit_code) << merged.out;
  const std::vector<std::string> results = lines_after(hostile.out, "results: ");
  ASSERT_EQ(results.size(), 1u) << hostile.out;
  EXPECT_EQ(lines_after(merged.out, "results: "), results) << merged.out;
  EXPECT_EQ(lines_after(merged.out, "FAILED: "), lines_after(hostile.out, "FAILED: ")) << merged.out;
  EXPECT_EQ(lines_after(merged.out, "failed: "), lines_after(hostile.out, "failed: ")) << merged.out;
  // Its reproduce lines paste too.
  const std::vector<std::string> reproduce = lines_after(merged.out, "reproduce seed ");
  ASSERT_FALSE(reproduce.empty()) << merged.out;
  const std::string line = reproduce[0].substr(reproduce[0].find(": ") + 2);
  EXPECT_EQ(run_shell(line, dir_.path().string()).exit_code, 0) << line;
}

TEST(CliVerdicts, RunExitsOneWhenAPropertyFails) {
  TempDir dir;
  const CliRun failing = run_locksim("run --seed 7 --profile pauses --mutant renew_no_owner_check --trace " +
                                     (dir / "t.jsonl").string());
  EXPECT_EQ(failing.exit_code, 1) << failing.out;
  EXPECT_TRUE(fs::exists(dir / "t.jsonl"));  // the trace is written either way
  EXPECT_TRUE(contains(failing.out, "violation(s)")) << failing.out;
  const CliRun passing = run_locksim("run --seed 7 --profile safe --trace " + (dir / "ok.jsonl").string());
  EXPECT_EQ(passing.exit_code, 0) << passing.out;
}

// A fair lock's hostile seed with a busy_poll advisory before its
// violations: --violation counts violations, never the advisory.
TEST(CliVerdicts, PropertyAndViolationChooseAmongViolations) {
  TempDir dir;
  const CliRun c = run_locksim("campaign --seeds 1 --base-seed 9 --profile hostile --lock mixed --locks 2 --no-shrink "
                               "--out " + (dir / "r").string());
  ASSERT_EQ(c.exit_code, 1) << c.out;
  const std::string trace = (dir / "r" / "failures" / "9.jsonl").string();
  const CliRun check = run_locksim("check " + trace + " --cause-reruns 0");
  std::vector<std::string> properties;
  for (const std::string& line : lines_after(check.out, "FAIL ")) properties.push_back(line.substr(0, line.find(' ')));
  ASSERT_FALSE(properties.empty()) << check.out;
  const std::string first = properties.front();
  // --violation 1 is the first violation (not an advisory report).
  const CliRun one = run_locksim("timeline " + trace + " --violation 1 -o " + (dir / "1.dot").string());
  ASSERT_EQ(one.exit_code, 0) << one.out;
  EXPECT_TRUE(contains(read_file(dir / "1.dot"), first + " on ")) << first;
  // --property picks that property's violations, on timeline, check and replay.
  const CliRun by_property = run_locksim("timeline " + trace + " --property " + first + " -o " + (dir / "p.dot").string());
  ASSERT_EQ(by_property.exit_code, 0) << by_property.out;
  const CliRun checked = run_locksim("check " + trace + " --cause-reruns 0 --property " + first);
  for (const std::string& line : lines_after(checked.out, "FAIL ")) EXPECT_EQ(line.rfind(first, 0), 0u) << line;
  for (const std::string& line : lines_after(checked.out, "note ")) EXPECT_EQ(line.rfind(first, 0), 0u) << line;
  const CliRun replayed = run_locksim("replay " + trace + " --property " + first);
  EXPECT_EQ(replayed.exit_code, 0) << replayed.out;
  for (const std::string& line : lines_after(replayed.out, "  violation: ")) EXPECT_EQ(line.rfind(first, 0), 0u) << line;
  // busy_poll reports, when the trace has them, count only when named.
  const CliRun advisory = run_locksim("check " + trace + " --cause-reruns 0 --property busy_poll");
  for (const std::string& line : lines_after(advisory.out, "FAIL ")) ADD_FAILURE() << "an advisory failed: " << line;
}

TEST(CliVerdicts, ShrinkWritesAReplayableCounterexample) {
  TempDir dir;
  const CliRun c = run_locksim("campaign --seeds 20 --profile pauses --mutant renew_no_owner_check --no-shrink --out " +
                               (dir / "r").string());
  ASSERT_EQ(c.exit_code, 1) << c.out;
  const std::string trace = (dir / "r" / "failures" / "7.jsonl").string();
  const std::string out = (dir / "w.jsonl").string();
  const CliRun s = run_locksim("shrink " + trace + " --property watchdog_expiry -o " + out);
  ASSERT_EQ(s.exit_code, 0) << s.out;
  EXPECT_TRUE(contains(s.out, "shrink: watchdog_expiry [lsim:L0]: 212 trace events shrunk to ")) << s.out;
  const CliRun replay = run_locksim("replay " + out);
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_TRUE(contains(replay.out, "watchdog_expiry")) << replay.out;
  const std::vector<std::string> replay_line = lines_after(s.out, "replay it: ");
  ASSERT_EQ(replay_line.size(), 1u) << s.out;
  EXPECT_EQ(run_shell(replay_line[0]).exit_code, 0) << replay_line[0];
  // The default output: beside the trace, named for the property.
  const CliRun beside = run_locksim("shrink " + trace + " --property watchdog_expiry");
  EXPECT_EQ(beside.exit_code, 0) << beside.out;
  EXPECT_TRUE(fs::exists(dir / "r" / "failures" / "7.watchdog_expiry.shrunk.jsonl")) << beside.out;
}

// Bad input to every new flag and command: one line, exit 2.
TEST(CliVerdicts, BadInputToTheNewFlagsIsOneLine) {
  TempDir dir;
  const CliRun c = run_locksim("run --seed 7 --profile pauses --mutant renew_no_owner_check --trace " +
                               (dir / "t.jsonl").string());
  ASSERT_EQ(c.exit_code, 1) << c.out;
  const std::string t = (dir / "t.jsonl").string();
  const std::string svg = " -o " + (dir / "x.svg").string();
  for (const std::string& args : std::vector<std::string>{
           "shrink", "shrink ''", "shrink /nonexistent.jsonl", "shrink " + t + " --property nope",
           "shrink " + t + " --property ''", "shrink " + t + " --violation -1", "shrink " + t + " --violation 0",
           "shrink " + t + " --violation 99999999999", "shrink " + t + " --violation 50",
           "shrink " + t + " --property busy_poll", "shrink " + t + " -o ''", "shrink " + t + " -o " + t,
           "shrink " + t + " -o /nonexistent-dir/x.jsonl", "shrink -",
           "timeline " + t + " --property nope" + svg, "timeline " + t + " --property ''" + svg,
           "timeline " + t + " --violation 0" + svg, "timeline " + t + " --violation -3" + svg,
           "timeline " + t + " --violation 50" + svg, "timeline " + t + " --property fifo_fairness" + svg,
           "timeline " + t + " --property mutual_exclusion --from 3" + svg, "timeline " + t + " --property mutual_exclusion -o " + t,
           "check " + t + " --property nope", "check " + t + " --property ''",
           "replay " + t + " --property nope", "replay " + t + " --backend nope",
       }) {
    const CliRun r = run_locksim(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1) << args << ": " << r.out;
  }
}

}  // namespace
