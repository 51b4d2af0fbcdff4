// merge and the runs directory, against hostile shards (hardening, round 2,
// items 1, 2, 4, 5, 6): merge runs as root over a shared volume, so a
// shard's summary.json and files are data that may be hostile.
//   1  names in a summary that point outside (absolute, "..") are refused;
//   2  links, FIFOs and devices under the names a campaign writes are never
//      followed or read;
//   4  a summary nested 100,000 levels deep is one line, not a crash;
//   5  every field is validated, with the file and field named, before
//      anything is written;
//   6  a runs directory appears complete or not at all, one writer at a
//      time, and a retried shard or merge replaces its own earlier run.
// Every refusal leaves the whole test tree exactly as it was (a snapshot of
// paths, kinds, modes, sizes and contents), and no --out.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;
using nlohmann::json;

// path -> kind, mode, size and (regular files) content, links not followed.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    std::string v = std::to_string(st.st_mode) + " " + std::to_string(st.st_size);
    if (S_ISREG(st.st_mode)) v += " " + read_file(it->path());
    if (S_ISLNK(st.st_mode)) v += " -> " + fs::read_symlink(it->path()).string();
    out[fs::relative(it->path(), root).string()] = v;
  }
  return out;
}

class MergeHostile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("locksim-merge-hostile-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "clean");
    for (int i = 0; i < 3; ++i) {
      const auto r = run_locksim("campaign --seeds 12 --mutant release_no_publish --keep-going --shard " +
                                 std::to_string(i) + "/3 --out " + (root_ / "clean" / ("s" + std::to_string(i))).string());
      ASSERT_EQ(r.exit_code, 1) << r.out;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  void SetUp() override {
    work_ = root_ / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(work_);
    fs::create_directories(work_);
    for (int i = 0; i < 3; ++i) {
      fs::copy(root_ / "clean" / ("s" + std::to_string(i)), work_ / ("s" + std::to_string(i)), fs::copy_options::recursive);
    }
    // What a hostile shard might aim at, outside every directory merge owns.
    std::ofstream(work_ / "victim") << "secret";
    fs::permissions(work_ / "victim", fs::perms::owner_read | fs::perms::owner_write);
  }
  std::string shard(int i) const { return (work_ / ("s" + std::to_string(i))).string(); }
  std::string merge_command() const {
    return "merge " + shard(0) + " " + shard(1) + " " + shard(2) + " --out " + (work_ / "m").string();
  }
  json summary(int i) const { return json::parse(read_file(fs::path(shard(i)) / "summary.json")); }
  void set_summary(int i, const json& s) const { std::ofstream(fs::path(shard(i)) / "summary.json") << s.dump(); }
  // The first failure's trace file of shard 0 (relative).
  std::string first_trace() const { return summary(0)["failures"][0]["trace"].get<std::string>(); }

  // merge is refused with one line holding `words`, and nothing changed.
  void expect_refused(const std::vector<std::string>& words) {
    const auto before = snapshot(work_);
    const auto r = run_locksim(merge_command());
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(line_count(r.out), 1) << r.out;
    for (const std::string& w : words) EXPECT_NE(r.out.find(w), std::string::npos) << w << " in " << r.out;
    EXPECT_EQ(r.out.find("secret"), std::string::npos) << r.out;
    EXPECT_EQ(snapshot(work_), before);
    EXPECT_FALSE(fs::exists(work_ / "m"));
  }

  static fs::path root_;
  fs::path work_;
};
fs::path MergeHostile::root_;

TEST_F(MergeHostile, CleanShardsMerge) {
  const auto r = run_locksim(merge_command());
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(fs::exists(work_ / "m" / "summary.json"));
  // Only the merged directory is new: no staging dir, no lock file left.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(work_)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"m", "s0", "s1", "s2", "victim"}));
}

TEST_F(MergeHostile, AbsoluteAndDotDotNamesAreRefused) {
  const json clean = summary(0);
  for (const std::string key : {"trace", "shrunk_trace", "timeline"}) {
    for (const std::string& name : {(work_ / "victim").string(), std::string("../victim"), std::string("../../x"),
                                    std::string("failures/../../victim"), std::string("/etc/shadow")}) {
      json s = clean;
      s["failures"][0][key] = name;
      set_summary(0, s);
      expect_refused({"summary.json", "failures[0]." + key});
    }
  }
  json s = clean;
  s["failures"][0]["counterexample"] = {{"trace", "../victim"}, {"events", 1}, {"violation", "v"}, {"event_ids", {1}}};
  set_summary(0, s);
  expect_refused({"failures[0].counterexample.trace"});
}

TEST_F(MergeHostile, LinksFifosAndDevicesAreNeverFollowedOrRead) {
  const fs::path file = fs::path(shard(0)) / first_trace();
  fs::remove(file);
  fs::create_symlink(work_ / "victim", file);
  expect_refused({"is a symbolic link"});
  fs::remove(file);
  fs::create_symlink("/dev/zero", file);
  expect_refused({"is a symbolic link"});
  fs::remove(file);
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  expect_refused({"is a FIFO"});  // at once: a FIFO is never waited on
  fs::remove(file);
  fs::create_directory(file);
  expect_refused({"is a directory"});
  fs::remove(file);
  // failures/ itself a link to a directory holding a file of that name.
  const fs::path elsewhere = work_ / "elsewhere";
  fs::create_directories(elsewhere);
  fs::rename(fs::path(shard(0)) / "failures", elsewhere / "failures");
  fs::create_directory_symlink(elsewhere / "failures", fs::path(shard(0)) / "failures");
  expect_refused({"failures/ is not a directory"});
  // summary.json a link.
  fs::remove(fs::path(shard(1)) / "summary.json");
  fs::create_symlink(work_ / "victim", fs::path(shard(1)) / "summary.json");
  expect_refused({"summary.json: is a symbolic link"});
}

TEST_F(MergeHostile, DeepAndBadSummariesAreOneLine) {
  std::ofstream(fs::path(shard(2)) / "summary.json") << std::string(100'000, '[') << std::string(100'000, ']');
  expect_refused({"s2/summary.json", "nested deeper"});
  std::ofstream(fs::path(shard(2)) / "summary.json") << "{\"format\": \"locksim-campaign-summary\", secret";
  expect_refused({"s2/summary.json", "not valid JSON"});
}

TEST_F(MergeHostile, EveryFieldIsValidatedWithTheFieldNamed) {
  const json clean = summary(0);
  struct Case {
    std::function<void(json&)> edit;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](json& s) { s["counts"]["seeds_run"] = -1; }, "counts.seeds_run"},
      {[](json& s) { s["counts"]["seeds_run"] = 1000; }, "counts.seeds_run"},
      {[](json& s) { s["counts"]["seeds_failed"] = 0; }, "counts.seeds_failed"},
      {[](json& s) { s["failures"][0]["seed"] = json::parse("1180591620717411303424"); }, "failures[0].seed"},
      {[](json& s) { s["failures"][0]["seed"] = -5; }, "failures[0].seed"},
      {[](json& s) { s["failures"][0]["seed"] = "22"; }, "failures[0].seed"},
      {[](json& s) { s["failures"][0]["seed"] = 2; }, "failures[0].seed"},  // shard 2/3's seed
      {[](json& s) { s["failures"][0]["seed"] = 100; }, "failures[0].seed"},  // not a seed of the campaign
      {[](json& s) { s["failures"][0]["trace"] = nullptr; }, "failures[0].trace"},
      {[](json& s) { s["failures"][0]["property"] = "bogus"; }, "failures[0].property"},
      {[](json& s) {
         s["failures"].push_back(s["failures"].back());
         s["counts"]["failures"] = s["failures"].size();
       },
       "failures"},
      {[](json& s) { s["shard"]["index"] = 5; }, "shard.index"},
      {[](json& s) { s["configuration"]["seeds"] = "12"; }, "configuration.seeds"},
      {[](json& s) { s["properties"]["liveness"]["violations"] = 1.5; }, "properties.liveness.violations"},
      {[](json& s) { s["advisories"]["busy_poll"] = {{"seeds", 1}}; }, "advisories.busy_poll"},
      {[](json& s) { s.erase("counts"); }, "counts"},
      {[](json& s) { s.erase("results"); }, "results"},
      {[](json& s) { s["results"]["explained_by_kind"]["pause"] = 1'000'000; }, "results.explained_by_kind"},
      {[](json& s) { s["results"]["unexplained_seeds"] = 1000; }, "results.unexplained_seeds"},
      {[](json& s) { s["failures"][0]["cause"] = {{"faults", 1}}; }, "failures[0].cause.confirmed"},
      {[](json& s) { s["failures"][0]["unexplained"] = 1000; }, "failures[0].unexplained"},
  };
  for (const Case& c : cases) {
    json s = clean;
    c.edit(s);
    set_summary(0, s);
    SCOPED_TRACE(c.field);
    expect_refused({"s0/summary.json: " + c.field});
  }
}

TEST_F(MergeHostile, ARetriedShardOrMergeReplacesItsOwnRun) {
  // The shard again into its own complete directory: the same run, replaced.
  const auto again = run_locksim("campaign --seeds 12 --mutant release_no_publish --keep-going --shard 0/3 --out " + shard(0));
  EXPECT_EQ(again.exit_code, 1) << again.out;
  EXPECT_NE(again.out.find("replacing the earlier run of this same campaign"), std::string::npos) << again.out;
  // Another campaign into it: refused, untouched.
  const auto before = snapshot(work_);
  const auto other = run_locksim("campaign --seeds 13 --mutant release_no_publish --keep-going --shard 0/3 --out " + shard(0));
  EXPECT_EQ(other.exit_code, 2) << other.out;
  EXPECT_NE(other.out.find("already holds a run"), std::string::npos) << other.out;
  EXPECT_EQ(snapshot(work_), before);
  ASSERT_EQ(run_locksim(merge_command()).exit_code, 1);
  const std::string merged = read_file(work_ / "m" / "summary.json");
  const auto retried = run_locksim(merge_command());
  EXPECT_EQ(retried.exit_code, 1) << retried.out;
  EXPECT_NE(retried.out.find("replacing the earlier merge"), std::string::npos) << retried.out;
  // Equal apart from the timings.
  json a = json::parse(merged), b = json::parse(read_file(work_ / "m" / "summary.json"));
  a.erase("timings");
  b.erase("timings");
  EXPECT_EQ(a, b);
}

TEST_F(MergeHostile, OneWriterAtATime) {
  // Another locksim holds --out's lock: refused at once, nothing written.
  const fs::path out = work_ / "busy";
  const int fd = ::open((work_ / ".busy.locksim-lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const auto r = run_locksim("campaign --seeds 3 --out " + out.string());
  EXPECT_EQ(r.exit_code, 3) << r.out;  // the environment: it may succeed later
  EXPECT_NE(r.out.find("another locksim is writing"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  ::close(fd);
  fs::remove(work_ / ".busy.locksim-lock");
  // Two campaigns started together on one --out: one writes its whole run,
  // the other is refused (busy: exit 3, or its run already there: exit 2),
  // never a mix.
  const std::string cmd = std::string(LOCKSIM_CLI_PATH) + " campaign --seeds 40 --mutant release_no_publish --keep-going --out " +
                          (work_ / "both").string() + " > /dev/null 2>&1";
  const std::string both = "(" + cmd + "; echo a$? > " + (work_ / "a").string() + ") & (" +
                           std::string(LOCKSIM_CLI_PATH) + " campaign --seeds 41 --out " + (work_ / "both").string() +
                           " > /dev/null 2>&1; echo b$? > " + (work_ / "b").string() + ") & wait";
  ASSERT_EQ(std::system(("bash -c '" + both + "'").c_str()), 0);
  const std::string a = read_file(work_ / "a"), b = read_file(work_ / "b");
  const bool a_wrote = a == "a1\n", b_wrote = b == "b0\n";
  EXPECT_TRUE(a_wrote != b_wrote) << a << b;
  EXPECT_TRUE(a == "a2\n" || a == "a3\n" || b == "b2\n" || b == "b3\n") << a << b;
  const json s = json::parse(read_file(work_ / "both" / "summary.json"));
  EXPECT_EQ(s["configuration"]["seeds"], a_wrote ? 40 : 41);
}

// Killed at any moment (SIGKILL or SIGTERM), a campaign leaves either its
// complete run or nothing; a killed run's leftovers are swept by the next
// campaign writing beside it.
TEST_F(MergeHostile, KilledCampaignsLeaveTheWholeRunOrNothing) {
  const fs::path parent = work_ / "killed";
  fs::create_directories(parent);
  const std::string campaign = "campaign --seeds 40 --mutant release_no_publish --keep-going --out ";
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(run_locksim(campaign + (parent / "whole").string()).exit_code, 1);
  const auto whole_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  constexpr int kTrials = 24;
  int complete = 0, absent = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const fs::path out = parent / ("run" + std::to_string(trial));
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int null_fd = ::open("/dev/null", O_WRONLY);
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
      ::execl(LOCKSIM_CLI_PATH, "locksim", "campaign", "--seeds", "40", "--mutant", "release_no_publish", "--keep-going",
              "--out", out.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Spread over the whole run and a little past it; the last trial is
    // not killed (a complete run is always among the outcomes).
    std::this_thread::sleep_for(std::chrono::milliseconds(whole_ms * 5 * trial / (4 * kTrials)));
    if (trial < kTrials - 1) ::kill(pid, trial % 2 == 0 ? SIGKILL : SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!fs::exists(out)) {
      ++absent;
      continue;
    }
    ASSERT_TRUE(fs::exists(out / "summary.json")) << "trial " << trial << ": a run without its summary";
    ++complete;
    const json s = json::parse(read_file(out / "summary.json"));
    for (const json& f : s["failures"]) EXPECT_TRUE(fs::exists(out / f["trace"].get<std::string>())) << trial;
    EXPECT_TRUE(fs::exists(out / "report.html")) << trial;
  }
  EXPECT_GT(absent, 0);  // the first trial is killed at once
  EXPECT_GT(complete, 0);
  // One more campaign beside them sweeps what the SIGKILLed ones left.
  ASSERT_EQ(run_locksim("campaign --seeds 2 --out " + (parent / "sweeper").string()).exit_code, 0);
  for (const auto& e : fs::directory_iterator(parent)) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".locksim-"), std::string::npos) << name;
  }
}

}  // namespace
