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
  r = run_locksim("timeline " + trace_ + " -o " + dot.string() + " --around 10 --radius 3");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string text = read_file(dot);
  EXPECT_NE(text.find("e10 [label="), std::string::npos);
  EXPECT_NE(text.find("tomato"), std::string::npos);  // the --around event is highlighted
  EXPECT_EQ(text.find("e14 [label="), std::string::npos);
  EXPECT_EQ(text.find("e6 [label="), std::string::npos);
}

TEST_F(CliTimeline, BadInputIsOneLineExit2) {
  for (const std::string& args : std::vector<std::string>{"timeline /nonexistent.jsonl -o x.svg",
                                 "timeline " + trace_ + " -o " + (dir_ / "x.gif").string(),
                                 "timeline " + trace_ + " -o " + (dir_ / "x.svg").string() + " --from 50 --to 10",
                                 "timeline " + trace_ + " -o " + (dir_ / "x.svg").string() + " --from 999999"}) {
    auto r = run_locksim(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1) << args << ": " << r.out;
  }
}

}  // namespace
