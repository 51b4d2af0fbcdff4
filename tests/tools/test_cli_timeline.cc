// `locksim timeline` end to end: a run's trace drawn as SVG and as dot text,
// a window around an event highlighted; bad input is a one-line exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace {

using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

class CliTimeline : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("locksim-cli-timeline-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    trace_ = (dir_ / "run.jsonl").string();
    auto r = run_locksim("run --seed 7 --clients 3 --locks 1 --lock rlock --duration-s 20 --profile safe --trace " + trace_);
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string trace_;
};

TEST_F(CliTimeline, DrawsSvgAndDot) {
  const auto svg = dir_ / "t.svg";
  auto r = run_locksim("timeline " + trace_ + " -o " + svg.string() + " --from 0 --to 30");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(read_file(svg).find("<svg"), std::string::npos);
  const auto dot = dir_ / "t.dot";
  r = run_locksim("timeline " + trace_ + " -o " + dot.string() + " --around 10 --radius 3 --view sequence");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string text = read_file(dot);
  EXPECT_NE(text.find("e10 [label="), std::string::npos);
  EXPECT_NE(text.find("tomato"), std::string::npos);  // the --around event is highlighted
  EXPECT_EQ(text.find("e14 [label="), std::string::npos);
  EXPECT_EQ(text.find("e6 [label="), std::string::npos);
}

TEST_F(CliTimeline, ReviewViewIsTheDefault) {
  const auto dot = dir_ / "r.dot";
  auto r = run_locksim("timeline " + trace_ + " -o " + dot.string() + " --around 10 --radius 30");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string text = read_file(dot);
  EXPECT_NE(text.find("time since the run began"), std::string::npos);
  EXPECT_NE(text.find("holds lsim:L0 #"), std::string::npos);
  EXPECT_NE(text.find("lease lsim:L0 (client "), std::string::npos);
  EXPECT_NE(text.find("#10 "), std::string::npos);  // the --around event, named
  EXPECT_EQ(text.find("e10 [label="), std::string::npos);  // not the sequence view
}

// The classic pause counterexample: --violation 1 windows on the first
// violation the checkers find; every event it names is drawn and named, the
// holder from its acquire; --shrink draws the shrunk counterexample.
TEST_F(CliTimeline, ViolationWindowAndShrunkCounterexample) {
  const std::string pauses = (dir_ / "pauses.jsonl").string();
  auto r = run_locksim("run --seed 7 --profile pauses --lock rlock --trace " + pauses);
  ASSERT_EQ(r.exit_code, 1) << r.out;  // the pause's overlaps fail mutual_exclusion
  const auto dot = dir_ / "v.dot";
  r = run_locksim("timeline " + pauses + " --violation 1 -o " + dot.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string text = read_file(dot);
  EXPECT_NE(text.find("mutual_exclusion on lsim:L0 (violation 1"), std::string::npos);
  EXPECT_NE(text.find("#67 lock ok"), std::string::npos);   // A's acquire, named in red
  EXPECT_NE(text.find("#134 lock ok"), std::string::npos);  // B's acquire
  EXPECT_NE(text.find("holds lsim:L0 #67 - unlock #156"), std::string::npos);  // the holder, whole
  EXPECT_NE(text.find("pause 34.2 s"), std::string::npos);
  EXPECT_NE(text.find("lease lsim:L0 (client 3, 30.0 s) - expired"), std::string::npos);
  EXPECT_NE(text.find("Both believe they hold lsim:L0"), std::string::npos);
  const auto shrunk = dir_ / "s.dot";
  r = run_locksim("timeline " + pauses + " --violation 1 --shrink -o " + shrunk.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  text = read_file(shrunk);
  EXPECT_NE(text.find("shrunk counterexample"), std::string::npos);
  EXPECT_NE(text.find("pause 34.2 s"), std::string::npos);
  EXPECT_NE(text.find("- expired"), std::string::npos);
  EXPECT_NE(text.find("Both believe they hold lsim:L0"), std::string::npos);
}

TEST_F(CliTimeline, BadInputIsOneLineExit2) {
  const std::string svg = (dir_ / "x.svg").string();
  for (const std::string& args : std::vector<std::string>{"timeline /nonexistent.jsonl -o x.svg",
                                 "timeline " + trace_ + " -o " + (dir_ / "x.gif").string(),
                                 "timeline " + trace_ + " -o " + svg + " --from 50 --to 10",
                                 "timeline " + trace_ + " -o " + svg + " --from 999999",
                                 "timeline " + trace_ + " -o " + svg + " --view gantt",
                                 "timeline " + trace_ + " -o " + svg + " --violation 0",
                                 "timeline " + trace_ + " -o " + svg + " --violation x",
                                 "timeline " + trace_ + " -o " + svg + " --violation 1",  // a safe run: none
                                 "timeline " + trace_ + " -o " + svg + " --violation 1 --around 3",
                                 "timeline " + trace_ + " -o " + svg + " --shrink",
                                 "timeline " + trace_ + " -o " + svg + " --quiet-ms 0",
                                 "timeline " + trace_ + " -o " + svg + " --quiet-ms -5"}) {
    auto r = run_locksim(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1) << args << ": " << r.out;
  }
}

}  // namespace
