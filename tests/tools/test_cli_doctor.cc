// `locksim doctor` end to end: exit 0 with "virtual clock: ok"; a bad or
// unreachable --port is a one-line error with exit code 2.
#include <gtest/gtest.h>
#include <string>

#include "tests/cli_runner.h"

namespace {

using locksim::testing::line_count;
using Result = locksim::testing::CliRun;

Result run(const std::string& args) { return locksim::testing::run_locksim(args); }

TEST(CliDoctor, AllGood) {
  Result r = run("doctor");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("virtual clock: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("redis-server: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dot: ok"), std::string::npos) << r.out;
}

TEST(CliDoctor, UnreachableServerIsOneLineExit2) {
  Result r = run("doctor --port 1 --timeout-ms 500");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(line_count(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("127.0.0.1:1"), std::string::npos) << r.out;
}

TEST(CliDoctor, BadPortIsOneLineExit2) {
  for (const char* bad : {"0", "70000", "-5", "abc"}) {
    Result r = run(std::string("doctor --port ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1) << bad << ": " << r.out;
  }
}

TEST(CliDoctor, UnknownSubcommandIsExit2) {
  Result r = run("no-such-command");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

}  // namespace
