// Issue 13 items 4 and 5, end to end:
//   4  `timeline` never hangs in Graphviz: 2,000 events of a 4-client trace
//      and the default window of a 4,096-client trace draw in seconds; a
//      `dot` that does not finish is stopped at --dot-time-limit-s (exit 2,
//      one line); killed mid-drawing, locksim leaves no file and no `dot`.
//   5  an output that resolves to an input is refused (exit 2, the input
//      untouched); `-o ''` is one line.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;

class CliOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("locksim-cli-outputs-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    trace_ = (dir_ / "c.jsonl").string();
    const auto r = run_locksim("run --seed 1 --duration-s 20 --trace " + trace_);
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A `dot` on PATH that never finishes (it is the process itself: exec).
  std::string hanging_dot_path() const {
    const fs::path bin = dir_ / "bin";
    fs::create_directories(bin);
    // A length of this test process's own, so the check below finds this
    // dot and no one else's sleep (ctest -j runs the other hanging-dot test
    // beside this one).
    std::ofstream(bin / "dot") << "#!/bin/sh\nexec " << hanging_sleep() << "\n";
    fs::permissions(bin / "dot", fs::perms::owner_all);
    return "PATH=" + bin.string() + ":$PATH";
  }
  static std::string hanging_sleep() { return "sleep 300.0" + std::to_string(::getpid()); }
  size_t entries(const fs::path& d) const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
    return n;
  }
  static void expect_one_line_exit2(const locksim::testing::CliRun& r, const std::string& words) {
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(line_count(r.out), 1) << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << r.out;
  }
  fs::path dir_;
  std::string trace_;
};

TEST_F(CliOutputs, TimelineOverItsInputIsRefused) {
  const std::string before = read_file(trace_);
  fs::create_symlink(trace_, dir_ / "link.jsonl");
  for (const std::string& out : {trace_, (dir_ / "link.jsonl").string(), (dir_ / "." / "c.jsonl").string()}) {
    expect_one_line_exit2(run_locksim("timeline " + trace_ + " -o " + out + " --format svg"),
                          "refusing to write " + out + ": it is an input of this command");
  }
  expect_one_line_exit2(run_locksim("timeline " + trace_ + " -o " + trace_), "refusing to write");
  EXPECT_EQ(read_file(trace_), before);
}

TEST_F(CliOutputs, RunOverAScriptOfItsPackIsRefused) {
  const fs::path pack = dir_ / "pk";
  fs::create_directories(pack);
  for (const auto& entry : fs::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua")) {
    fs::copy_file(entry.path(), pack / entry.path().filename());
  }
  std::string manifest = read_file(pack / "manifest.json");
  manifest.insert(manifest.find('{') + 1, "\"model_variant\": \"correct\",");  // runs on the model
  std::ofstream(pack / "manifest.json") << manifest;
  const std::string script = read_file(pack / "rlock_acquire.lua");
  expect_one_line_exit2(run_locksim("run --seed 1 --scripts " + pack.string() + " --trace " +
                                    (pack / "rlock_acquire.lua").string()),
                        "it is an input of this command");
  // The default pack ($LOCKSIM_SCRIPTS here) is an input too.
  expect_one_line_exit2(run_locksim("run --seed 1 --trace " + (pack / "manifest.json").string(), locksim::testing::Stderr::Merge,
                                    "LOCKSIM_SCRIPTS=" + pack.string()),
                        "it is an input of this command");
  EXPECT_EQ(read_file(pack / "rlock_acquire.lua"), script);
  EXPECT_EQ(read_file(pack / "manifest.json"), manifest);
  // A campaign whose report would land on a script of its pack.
  fs::rename(pack / "rlock_acquire.lua", pack / "report.html");
  std::string m = manifest;
  const std::string from = "\"rlock_acquire.lua\"";
  m.replace(m.find(from), from.size(), "\"report.html\"");
  std::ofstream(pack / "manifest.json") << m;
  expect_one_line_exit2(run_locksim("campaign --seeds 1 --scripts " + pack.string() + " --out " + pack.string()),
                        "is not empty");
  EXPECT_EQ(read_file(pack / "report.html"), script);
}

TEST_F(CliOutputs, EmptyOutputNameIsOneLine) {
  expect_one_line_exit2(run_locksim("timeline " + trace_ + " -o ''"), "-o/--out is empty");
  expect_one_line_exit2(run_locksim("timeline " + trace_ + " -o '' --format svg"), "-o/--out is empty");
  expect_one_line_exit2(run_locksim("timeline " + trace_ + " -o " + (dir_ / "none" / "x.svg").string()),
                        "cannot create the file");
}

TEST_F(CliOutputs, LongAndWideTimelinesDrawInSeconds) {
  const std::string long_trace = (dir_ / "long.jsonl").string();
  ASSERT_EQ(run_locksim("run --seed 1 --duration-s 300 --profile safe --trace " + long_trace).exit_code, 0);
  const std::string wide_trace = (dir_ / "wide.jsonl").string();
  ASSERT_EQ(run_locksim("run --seed 1 --clients 4096 --duration-s 1 --trace " + wide_trace).exit_code, 0);
  for (const std::string& args : {"timeline " + long_trace + " --max-events 2000 -o " + (dir_ / "out/l.svg").string(),
                                  "timeline " + wide_trace + " -o " + (dir_ / "out/w.svg").string()}) {
    const auto started = std::chrono::steady_clock::now();
    const auto r = run_locksim(args + " --dot-time-limit-s 60");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.out;
    EXPECT_LT(s, 30) << args;  // minutes before the explicit layout
  }
  EXPECT_NE(read_file(dir_ / "out/l.svg").find("time since the run began"), std::string::npos);  // the review view (default)
  // The sequence view names every event of the window, the last one too.
  ASSERT_EQ(run_locksim("timeline " + long_trace + " --max-events 2000 --view sequence -o " +
                        (dir_ / "out/l.dot").string()).exit_code, 0);
  EXPECT_NE(read_file(dir_ / "out/l.dot").find("#1999 "), std::string::npos);
  EXPECT_EQ(entries(dir_ / "out"), 3u);
}

TEST_F(CliOutputs, HangingDotIsStoppedAtTheTimeLimit) {
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_locksim("timeline " + trace_ + " -o " + (dir_ / "out/x.svg").string() + " --dot-time-limit-s 1",
                             locksim::testing::Stderr::Merge, hanging_dot_path());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  expect_one_line_exit2(r, "did not finish drawing");
  EXPECT_NE(r.out.find("within 1 s"), std::string::npos) << r.out;
  EXPECT_LT(s, 10);
  EXPECT_EQ(entries(dir_ / "out"), 0u);  // no OUT.svg, no OUT.dot.tmp
}

TEST_F(CliOutputs, KilledWhileDrawingLeavesNothing) {
  for (int sig : {SIGINT, SIGTERM, SIGKILL}) {
    const std::string command = hanging_dot_path() + " exec " + std::string(LOCKSIM_CLI_PATH) + " timeline " + trace_ +
                                " -o " + (dir_ / "out/k.svg").string();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // dot is running by now
    ::kill(pid, sig);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status)) << "signal " << sig;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(entries(dir_ / "out"), 0u) << "signal " << sig;
    // The hanging dot died with its parent (PR_SET_PDEATHSIG).
    const auto r = run_locksim("", locksim::testing::Stderr::Discard,
                               "pgrep -xf '" + hanging_sleep() + "' >/dev/null && echo ALIVE; true ||");
    EXPECT_EQ(r.out.find("ALIVE"), std::string::npos) << "signal " << sig;
  }
}

// Issue 34: a machine without Graphviz still runs a whole campaign. The
// verdict, the exit code, the traces, the summary and the report are all
// there; the summary and the report say why no timeline was drawn.
TEST_F(CliOutputs, CampaignWithoutDotWritesEverythingElse) {
  const std::string no_dot = "PATH=" + (dir_ / "empty-bin").string();
  fs::create_directories(dir_ / "empty-bin");
  const fs::path failing = dir_ / "out/failing";
  const auto r = run_locksim("campaign --seeds 20 --profile pauses --mutant renew_no_owner_check --out " + failing.string(),
                             locksim::testing::Stderr::Merge, no_dot);
  EXPECT_EQ(r.exit_code, 1) << r.out;  // the verdict, not an error
  EXPECT_NE(r.out.find("campaign: no timeline drawn: Graphviz's dot could not be run"), std::string::npos) << r.out;
  const std::string summary = read_file(failing / "summary.json");
  EXPECT_NE(summary.find("\"timelines_not_drawn\""), std::string::npos);
  EXPECT_EQ(summary.find(".svg"), std::string::npos) << "a summary names no picture that was not drawn";
  EXPECT_GT(entries(failing / "failures"), 0u);
  EXPECT_NE(read_file(failing / "report.html").find("No timeline drawn"), std::string::npos);
  if (fs::exists(failing / "timelines")) {
    for (const auto& e : fs::directory_iterator(failing / "timelines")) EXPECT_NE(e.path().extension(), ".svg") << e.path();
  }
  // A passing campaign passes.
  const auto ok = run_locksim("campaign --seeds 2 --out " + (dir_ / "out/ok").string(), locksim::testing::Stderr::Merge, no_dot);
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(read_file(dir_ / "out/ok/summary.json").find("\"timelines_not_drawn\""), std::string::npos);
  // So does explore, with its counterexample's trace.
  const fs::path explored = dir_ / "out/explored";
  const auto e = run_locksim("explore --lock fair --clients 2 --ops 'lock;trylock:0' --mutant fair_giveup_no_acquire_failed "
                             "--out " + explored.string(), locksim::testing::Stderr::Merge, no_dot);
  EXPECT_EQ(e.exit_code, 1) << e.out;
  EXPECT_NE(e.out.find("explore: no timeline drawn"), std::string::npos) << e.out;
  EXPECT_TRUE(fs::exists(explored / "failures/ghost_waiter.jsonl"));
  EXPECT_FALSE(fs::exists(explored / "timelines"));
  EXPECT_NE(read_file(explored / "summary.json").find("\"timelines_not_drawn\""), std::string::npos);
  // `timeline`, whose one output is the picture, fails with the reason.
  expect_one_line_exit2(run_locksim("timeline " + trace_ + " -o " + (dir_ / "out/t.svg").string(),
                                    locksim::testing::Stderr::Merge, no_dot),
                        "is graphviz installed");
}

}  // namespace
