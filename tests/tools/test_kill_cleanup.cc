// Issue 13, item 8 and its "must show": `locksim` killed during a live
// `diff` leaves no redis-server and no temp dir behind. SIGINT, SIGTERM,
// SIGHUP and SIGABRT are handled (clean up, then die of the same signal);
// after SIGKILL the server dies with its parent (PR_SET_PDEATHSIG) and the
// next locksim command sweeps the dir. The sweep never touches a dir whose
// owner is alive. Each run uses a private TMPDIR, so that parallel tests and
// other users of /tmp do not interfere.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;

// A fresh private temp dir for one test.
fs::path private_tmpdir(const std::string& name) {
  const fs::path dir = fs::path(LOCKSIM_BINARY_DIR) / "kill_cleanup" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path().filename().string());
  return out;
}

// The live children of `parent` named `comm` (from /proc/<pid>/stat).
std::vector<pid_t> children_named(pid_t parent, const std::string& comm) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) != 2) continue;
    if (ppid == parent && state != 'Z' && stat.substr(open + 1, close - open - 1) == comm) {
      out.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return out;
}

// True once pid no longer names a live process (a zombie counts as gone).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z' ||
         line[close + 2] == 'X';
}

bool wait_gone(pid_t pid, int limit_ms) {
  for (int waited_ms = 0; waited_ms < limit_ms; waited_ms += 10) {
    if (process_gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return process_gone(pid);
}

// Starts `locksim diff` (long enough to be killed mid-run) with TMPDIR set,
// its output discarded and every signal at its default disposition (a test
// runner may have left SIGINT ignored).
pid_t start_live_diff(const fs::path& tmpdir) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null_fd = ::open("/dev/null", O_RDWR);
  ::dup2(null_fd, 1);
  ::dup2(null_fd, 2);
  ::setenv("TMPDIR", tmpdir.c_str(), 1);
  ::execl(LOCKSIM_CLI_PATH, "locksim", "diff", "--sequences", "1000000", static_cast<char*>(nullptr));
  ::_exit(127);
}

// Waits until the diff's redis-server runs and the diff has sent it work.
std::vector<pid_t> wait_for_server(pid_t locksim) {
  for (int waited_ms = 0; waited_ms < 10'000; waited_ms += 20) {
    const auto servers = children_named(locksim, "redis-server");
    if (!servers.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past start-up and the clock probe
      return servers;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {};
}

void kill_during_live_diff(int sig) {
  const fs::path tmpdir = private_tmpdir(std::string("sig") + std::to_string(sig));
  const pid_t locksim = start_live_diff(tmpdir);
  ASSERT_GT(locksim, 0);
  const auto servers = wait_for_server(locksim);
  ASSERT_EQ(servers.size(), 1u) << "no redis-server started by locksim diff";
  ASSERT_EQ(entries(tmpdir).size(), 1u);
  ASSERT_EQ(::kill(locksim, sig), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(locksim, &status, 0), locksim);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), sig) << "locksim must die of the signal it got";
  if (sig == SIGKILL) {
    EXPECT_TRUE(wait_gone(servers[0], 5000)) << "redis-server " << servers[0] << " survived";
    EXPECT_EQ(entries(tmpdir).size(), 1u) << "nothing can clean up at SIGKILL itself";
    // The next command, whatever it is, sweeps the dir of the dead run.
    const auto next = locksim::testing::run_locksim("mutants --list", locksim::testing::Stderr::Merge,
                                                    "TMPDIR=" + tmpdir.string());
    EXPECT_EQ(next.exit_code, 0) << next.out;
  } else {
    // Cleaned up before dying: nothing to wait for.
    EXPECT_TRUE(process_gone(servers[0])) << "redis-server " << servers[0] << " survived";
  }
  EXPECT_TRUE(entries(tmpdir).empty()) << "left behind: " << entries(tmpdir).front();
  fs::remove_all(tmpdir);
}

TEST(KillCleanup, Sigint) { kill_during_live_diff(SIGINT); }
TEST(KillCleanup, Sigterm) { kill_during_live_diff(SIGTERM); }
TEST(KillCleanup, Sighup) { kill_during_live_diff(SIGHUP); }
TEST(KillCleanup, Sigabrt) { kill_during_live_diff(SIGABRT); }
TEST(KillCleanup, SigkillThenNextCommandSweeps) { kill_during_live_diff(SIGKILL); }

// The sweep removes only dead owners' dirs: a dir whose owner.lock nobody
// holds goes, a running diff's dir and a dir without the locksim prefix stay.
TEST(KillCleanup, SweepSparesLiveDirs) {
  const fs::path tmpdir = private_tmpdir("sweep");
  const fs::path stale = tmpdir / "locksim-redis-1-AAAAAA";
  fs::create_directories(stale);
  std::ofstream(stale / "owner.lock") << "";
  std::ofstream(stale / "redis.log") << "log\n";
  const fs::path other = tmpdir / "not-locksim";
  fs::create_directories(other);
  const pid_t running = start_live_diff(tmpdir);
  ASSERT_GT(running, 0);
  ASSERT_EQ(wait_for_server(running).size(), 1u);
  std::string live_dir;
  for (const auto& name : entries(tmpdir)) {
    if (name.rfind("locksim-redis-" + std::to_string(running) + "-", 0) == 0) live_dir = name;
  }
  EXPECT_FALSE(live_dir.empty());
  const auto next = locksim::testing::run_locksim("mutants --list", locksim::testing::Stderr::Merge,
                                                  "TMPDIR=" + tmpdir.string());
  EXPECT_EQ(next.exit_code, 0) << next.out;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(tmpdir / live_dir / "owner.lock")) << "swept a live run's dir";
  ::kill(running, SIGTERM);
  int status = 0;
  ::waitpid(running, &status, 0);
  EXPECT_FALSE(fs::exists(tmpdir / live_dir));
  fs::remove_all(tmpdir);
}

}  // namespace
