// The command line's edges (issue 55, "Elsewhere"): replies stored as
// {"hex": ...} are compared by replay and a malformed one is refused by
// every reader; a --corpus past its documented bounds is refused before the
// campaign starts; outputs the system refuses (a read-only file system, a
// full one) are exit 3 with the system's reason on every command that
// writes; a SIGKILLed campaign's staging directory goes with the next
// command that stages beside it; explore's '@' names a lock index.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::CliRun;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;
using locksim::testing::TempDir;

const fs::path kSource = LOCKSIM_SOURCE_DIR;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A lua trace whose rlock_acquire answers bytes that are not UTF-8 while
// the lock is held: its replies are stored as {"hex": ...}.
fs::path hex_reply_trace(const TempDir& dir) {
  const fs::path pack = dir / "hexpack";
  fs::copy(kSource / "impl" / "lua", pack);
  std::string acquire = read_file(pack / "rlock_acquire.lua");
  const std::string last = "return redis.call('pttl', lock)";
  const size_t at = acquire.rfind(last);
  EXPECT_NE(at, std::string::npos);
  acquire.insert(at, "if redis.call('pttl', lock) > 0 then return '\\255busy' end\n");
  write_file(pack / "rlock_acquire.lua", acquire);
  const fs::path trace = dir / "hex.jsonl";
  const CliRun r = run_locksim("run --seed 3 --backend lua --duration-s 5 --scripts " + pack.string() + " --trace " +
                               trace.string());
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out;
  return trace;
}

TEST(CliEdges, HexRepliesAreComparedAndMalformedOnesRefused) {
  TempDir dir;
  const fs::path trace = hex_reply_trace(dir);
  const std::string text = read_file(trace);
  const std::string stored = "\"r\":{\"hex\":\"22ff6275737922\"}";  // "\xffbusy", quoted as replies are
  ASSERT_TRUE(contains(text, stored)) << text.substr(0, 2000);
  EXPECT_EQ(run_locksim("replay " + trace.string()).exit_code, 0);
  auto with_reply = [&](const std::string& reply) {
    std::string changed = text;
    changed.replace(changed.find(stored), stored.size(), "\"r\":" + reply);
    const fs::path path = dir / "changed.jsonl";
    write_file(path, changed);
    return path.string();
  };
  // Another value: replay names the event that differs.
  const CliRun other = run_locksim("replay " + with_reply("{\"hex\":\"22fe6275737922\"}"));
  EXPECT_EQ(other.exit_code, 1) << other.out;
  EXPECT_TRUE(contains(other.out, "replay: first difference at event")) << other.out;
  // Malformed: odd-length hex, an object inside, a number out of range, a
  // line past the reader's bound: one line naming the file, exit 2, on
  // every command that reads traces.
  const std::string huge = "{\"hex\":\"" + std::string(65u << 20, 'a') + "\"}";
  for (const std::string& reply : {std::string("{\"hex\":\"22ff627573792\"}"), std::string("{\"hex\":{\"a\":1}}"),
                                   std::string("1e400"), std::string("{\"hex\":\"ZZ\"}"), huge}) {
    const std::string path = with_reply(reply);
    for (const std::string& command : {"replay " + path, "check " + path,
                                       "timeline " + path + " -o " + (dir / "t.svg").string()}) {
      const CliRun r = run_locksim(command);
      EXPECT_EQ(r.exit_code, 2) << command.substr(0, 60) << " with " << reply.substr(0, 40) << ": " << r.out.substr(0, 300);
      EXPECT_EQ(line_count(r.out), 1) << r.out.substr(0, 300);
      EXPECT_TRUE(contains(r.out, "changed.jsonl:")) << r.out.substr(0, 300);
    }
  }
}

// A corpus past the documented bounds of a --corpus (search/corpus.h): one
// line, exit 2, before the campaign runs a seed.
TEST(CliEdges, GuidedCorpusPastItsBoundsIsRefused) {
  TempDir dir;
  const std::string campaign = "campaign --guided --seeds 30 --profile safe --duration-s 5 --no-shrink";
  const CliRun made = run_locksim(campaign + " --out " + (dir / "g").string());
  ASSERT_TRUE(made.exit_code == 0 || made.exit_code == 1) << made.out;
  const std::string corpus = read_file(dir / "g" / "corpus.jsonl");
  const size_t first_nl = corpus.find('\n');
  const std::string header = corpus.substr(0, first_nl + 1);
  const std::string entry = corpus.substr(first_nl + 1, corpus.find('\n', first_nl + 1) - first_nl - 1);
  ASSERT_FALSE(entry.empty()) << corpus.substr(0, 500);
  // The corpus as written is accepted.
  const CliRun again = run_locksim(campaign + " --corpus " + (dir / "g" / "corpus.jsonl").string() + " --out " +
                                   (dir / "g2").string());
  EXPECT_TRUE(again.exit_code == 0 || again.exit_code == 1) << again.out;

  auto refused = [&](const fs::path& file, const std::string& says) {
    const auto started = std::chrono::steady_clock::now();
    const CliRun r = run_locksim(campaign + " --corpus " + file.string() + " --out " + (dir / "no").string());
    EXPECT_EQ(r.exit_code, 2) << file << ": " << r.out.substr(0, 400);
    EXPECT_EQ(line_count(r.out), 1) << r.out.substr(0, 400);
    EXPECT_TRUE(contains(r.out, "--corpus: ")) << r.out.substr(0, 400);
    EXPECT_TRUE(contains(r.out, says)) << r.out.substr(0, 400);
    EXPECT_FALSE(fs::exists(dir / "no"));
    return std::chrono::steady_clock::now() - started;
  };
  // Too many bytes: a sparse file of 129 MiB, refused by its size alone.
  const fs::path big = dir / "big.jsonl";
  write_file(big, header);
  fs::resize_file(big, (uint64_t{129} << 20));
  refused(big, "larger than 128 MiB");
  // Too many plans.
  {
    std::ofstream out(dir / "many.jsonl", std::ios::binary);
    out << header;
    for (int i = 0; i < 10'001; ++i) out << entry << "\n";
  }
  refused(dir / "many.jsonl", "more than 10000 plans");
  // A plan of too many tasks (the 10,000-task plan that made every run crawl).
  nlohmann::json j = nlohmann::json::parse(entry);
  ASSERT_FALSE(j["plan"]["tasks"].empty());
  const nlohmann::json task = j["plan"]["tasks"][0];
  for (int t = 0; t < 300; ++t) {
    nlohmann::json copy = task;
    copy["task"] = 100 + t;
    j["plan"]["tasks"].push_back(copy);
  }
  write_file(dir / "tasks.jsonl", header + j.dump() + "\n");
  refused(dir / "tasks.jsonl", "tasks (at most 256)");
}

// Runs `script` in a mount namespace of its own (unshare -m, as root), or
// returns false when there is none to have.
bool in_mount_namespace(const std::string& script, const fs::path& log) {
  const std::string command = "unshare -m sh -e -c '" + script + "' > " + log.string() + " 2>&1";
  return std::system(command.c_str()) == 0;
}

// Each case: a command that writes, where its output must go, and the reason
// the system gives.
struct Refused {
  std::string name;
  std::string args;
};

// The writing commands, each aimed at DIR (a directory on a read-only or a
// full file system, holding a copy of a runs directory `run`, a trace
// `t.jsonl` and two shards `s0`, `s1`).
std::vector<Refused> writing_commands(const std::string& in, const std::string& out_dir) {
  return {
      {"run", "run --seed 1 --trace " + out_dir + "/new.jsonl"},
      {"timeline", "timeline " + in + "/t.jsonl -o " + out_dir + "/t.svg"},
      {"report", "report " + out_dir + "/run"},
      {"index", "index " + out_dir},
      {"campaign", "campaign --seeds 2 --out " + out_dir + "/c"},
      {"merge", "merge " + in + "/s0 " + in + "/s1 --out " + out_dir + "/m"},
      {"shrink", "shrink " + in + "/f.jsonl -o " + out_dir + "/f.shrunk.jsonl"},
      {"explore", "explore --clients 2 --max-states 200 --out " + out_dir + "/e"},
  };
}

// The inputs every case reads, made here, copied onto each file system.
void make_inputs(const TempDir& dir) {
  fs::create_directories(dir / "in");
  ASSERT_EQ(run_locksim("campaign --seeds 2 --out " + (dir / "in" / "run").string()).exit_code, 0);
  ASSERT_EQ(run_locksim("run --seed 1 --duration-s 5 --trace " + (dir / "in" / "t.jsonl").string()).exit_code, 0);
  ASSERT_EQ(run_locksim("campaign --seeds 2 --shard 0/2 --out " + (dir / "in" / "s0").string()).exit_code, 0);
  ASSERT_EQ(run_locksim("campaign --seeds 2 --shard 1/2 --out " + (dir / "in" / "s1").string()).exit_code, 0);
  const CliRun failing = run_locksim("campaign --seeds 20 --mutant release_no_publish --no-shrink --out " +
                                     (dir / "in" / "fail").string());
  ASSERT_EQ(failing.exit_code, 1) << failing.out;
  for (const auto& e : fs::directory_iterator(dir / "in" / "fail" / "failures")) {
    fs::copy_file(e.path(), dir / "in" / "f.jsonl");
    break;
  }
}

// Runs each writing command against `out_dir`, its stderr and exit code kept.
std::map<std::string, std::pair<int, std::string>> run_all(const std::string& in, const std::string& out_dir,
                                                           const std::string& env, const TempDir& dir) {
  std::map<std::string, std::pair<int, std::string>> results;
  for (const Refused& c : writing_commands(in, out_dir)) {
    const fs::path err = dir / ("err-" + c.name);
    const std::string command = env + " " + std::string(LOCKSIM_CLI_PATH) + " " + c.args + " > /dev/null 2> " +
                                err.string();
    const int status = std::system(command.c_str());
    results[c.name] = {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(err)};
  }
  return results;
}

void expect_environment_refusals(const std::map<std::string, std::pair<int, std::string>>& results,
                                 const std::string& reason, const std::string& where) {
  for (const auto& [name, result] : results) {
    const auto& [code, err] = result;
    EXPECT_EQ(code, 3) << where << ": " << name << ": " << err;
    EXPECT_TRUE(contains(err, reason)) << where << ": " << name << " does not say '" << reason << "': " << err;
    EXPECT_FALSE(contains(err, "Warning")) << where << ": " << name << ": " << err;  // not a helper's (dot's)
    // One line of its own; the campaign-like commands also said their verdict on stdout.
    EXPECT_EQ(line_count(err), 1) << where << ": " << name << ": " << err;
  }
}

TEST(CliEdges, OutputsTheSystemRefusesAreExit3WithItsReason) {
  TempDir dir;
  make_inputs(dir);
  if (::geteuid() != 0) {
    // A directory without write permission stands for a read-only one.
    fs::create_directories(dir / "ro");
    fs::copy(dir / "in" / "run", dir / "ro" / "run", fs::copy_options::recursive);
    fs::permissions(dir / "ro" / "run", fs::perms::owner_write, fs::perm_options::remove);
    fs::permissions(dir / "ro", fs::perms::owner_write, fs::perm_options::remove);
    expect_environment_refusals(run_all((dir / "in").string(), (dir / "ro").string(), "", dir),
                                "Permission denied", "a directory without write permission");
    fs::permissions(dir / "ro", fs::perms::owner_write, fs::perm_options::add);
    fs::permissions(dir / "ro" / "run", fs::perms::owner_write, fs::perm_options::add);
    GTEST_SKIP() << "a read-only and a full file system need a mount namespace (root)";
  }
  // A read-only file system and a full one, each mounted in a namespace of
  // this test's own and holding the inputs; the commands run inside it.
  const std::string in = (dir / "in").string();
  const fs::path ro = dir / "ro";
  const fs::path full = dir / "full";
  fs::create_directories(ro);
  fs::create_directories(full);
  std::string script =
      "mount -t tmpfs -o size=8m none " + ro.string() + "; cp -a " + in + "/run " + ro.string() + "/; " +
      "mount -o remount,ro " + ro.string() + "; " +
      "mount -t tmpfs -o size=2m none " + full.string() + "; cp -a " + in + "/run " + full.string() + "/; " +
      "dd if=/dev/zero of=" + full.string() + "/filler bs=4k 2>/dev/null || true; ";
  for (const auto& [place, reason] : {std::pair<fs::path, std::string>{ro, "ro"}, {full, "full"}}) {
    for (const Refused& c : writing_commands(in, place.string())) {
      script += "rc=0; " + std::string(LOCKSIM_CLI_PATH) + " " + c.args + " > /dev/null 2> " + (dir / ("err-" + reason + "-" + c.name)).string() +
                " || rc=$?; echo $rc > " + (dir / ("rc-" + reason + "-" + c.name)).string() + "; ";
    }
  }
  if (!in_mount_namespace(script, dir / "namespace.log")) {
    GTEST_SKIP() << "no mount namespace here: " << read_file(dir / "namespace.log");
  }
  for (const auto& [reason, text] : {std::pair<std::string, std::string>{"ro", "Read-only file system"},
                                     {"full", "No space left on device"}}) {
    std::map<std::string, std::pair<int, std::string>> results;
    for (const Refused& c : writing_commands(in, reason)) {
      const std::string rc = read_file(dir / ("rc-" + reason + "-" + c.name));
      results[c.name] = {rc.empty() ? -1 : std::stoi(rc), read_file(dir / ("err-" + reason + "-" + c.name))};
    }
    expect_environment_refusals(results, text, reason == "ro" ? "a read-only file system" : "a full file system");
  }
  // A full disk behind a device: /dev/full for the commands that write a file.
  for (const std::string& args : std::vector<std::string>{"run --seed 1 --trace /dev/full", "timeline " + in + "/t.jsonl -o /dev/full --format svg",
                                  "shrink " + in + "/f.jsonl -o /dev/full"}) {
    const std::string command = std::string(LOCKSIM_CLI_PATH) + " " + args + " > /dev/null 2> " + (dir / "err").string();
    const int status = std::system(command.c_str());
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 3) << args << ": " << read_file(dir / "err");
    EXPECT_TRUE(contains(read_file(dir / "err"), "No space left on device")) << args << ": " << read_file(dir / "err");
    EXPECT_EQ(line_count(read_file(dir / "err")), 1) << args << ": " << read_file(dir / "err");
  }
}

// A campaign killed with SIGKILL leaves its staging directory; the next
// command that stages into that parent removes it, whether it writes the
// same --out (whose lock it then holds) or another one.
TEST(CliEdges, AKilledCampaignsStagingDirGoesWithTheNextCommand) {
  TempDir dir;
  auto staging_dirs = [&] {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir.path()))
      if (contains(e.path().filename().string(), ".locksim-staging-")) out.push_back(e.path().filename().string());
    return out;
  };
  for (const std::string& next_out : {std::string("out"), std::string("other")}) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::execl(LOCKSIM_CLI_PATH, "locksim", "campaign", "--seeds", "100000", "--profile", "safe", "--out",
              (dir / "out").c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (staging_dirs().empty() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_EQ(staging_dirs().size(), 1u) << "the killed campaign left no staging dir to sweep";
    const CliRun next = run_locksim("campaign --seeds 2 --out " + (dir / next_out).string());
    EXPECT_EQ(next.exit_code, 0) << next.out;
    EXPECT_TRUE(staging_dirs().empty()) << next_out << ": " << staging_dirs().front();
    fs::remove_all(dir / "out");
    fs::remove_all(dir / "other");
  }
}

TEST(CliEdges, ExploreAtNamesALockIndex) {
  for (const std::string ops : {"lock@L9", "lock@9,unlock@9"}) {
    const CliRun r = run_locksim("explore --ops '" + ops + "' --max-states 10");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(line_count(r.out), 1) << r.out;
    EXPECT_TRUE(contains(r.out, "lock index")) << r.out;
    EXPECT_TRUE(contains(r.out, "out of range")) << r.out;
    EXPECT_FALSE(contains(r.out, "whole number of ms")) << r.out;
  }
}

}  // namespace
