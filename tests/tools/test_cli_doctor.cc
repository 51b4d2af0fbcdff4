// `locksim doctor` end to end: exit 0 with "virtual clock: ok"; a bad or
// unreachable --port is a one-line error with exit code 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

struct Result {
  int exit_code = -1;
  std::string output;
};

Result run(const std::string& args) {
  Result r;
  const std::string cmd = std::string(LOCKSIM_CLI_PATH) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

int line_count(const std::string& s) {
  int lines = 0;
  for (char c : s) lines += c == '\n';
  return lines;
}

TEST(CliDoctor, AllGood) {
  Result r = run("doctor");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("virtual clock: ok"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("redis-server: ok"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("dot: ok"), std::string::npos) << r.output;
}

TEST(CliDoctor, UnreachableServerIsOneLineExit2) {
  Result r = run("doctor --port 1 --timeout-ms 500");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(line_count(r.output), 1) << r.output;
  EXPECT_NE(r.output.find("127.0.0.1:1"), std::string::npos) << r.output;
}

TEST(CliDoctor, BadPortIsOneLineExit2) {
  for (const char* bad : {"0", "70000", "-5", "abc"}) {
    Result r = run(std::string("doctor --port ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_EQ(line_count(r.output), 1) << bad << ": " << r.output;
  }
}

TEST(CliDoctor, UnknownSubcommandIsExit2) {
  Result r = run("no-such-command");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

}  // namespace
