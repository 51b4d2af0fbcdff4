// `locksim explore`: its help, bad input (one line, exit 2), a passing and a
// failing exploration with their runs directories, and counterexample traces
// that replay, check and draw, on the model and on a live redis-server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using locksim::testing::line_count;
using locksim::testing::read_file;
using locksim::testing::run_locksim;
using locksim::testing::Stderr;

class CliExplore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("locksim-explore-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CliExplore, HelpNamesTheOptions) {
  auto r = run_locksim("explore --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--ops", "--faults", "--max-faults", "--dfs", "--random-walk", "--workers",
                             "--max-states", "--max-memory-mb", "--max-depth", "--confirm-live", "--json", "--out"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
}

TEST_F(CliExplore, BadInputIsOneLineAndExitTwo) {
  // Each: the arguments, and what the line must say (the option it is about).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--ops grab", "locksim: --ops: unknown operation 'grab'"},
      {"--ops lock,,unlock", "locksim: --ops: an empty operation"},
      {"--ops 'lock;lock;lock'", "locksim: --ops: 3 lists for 2 clients"},
      {"--ops unlock@3", "locksim: --ops: operation 'unlock@3'"},
      {"--ops sleep:5", "locksim: --ops: 'sleep:5' ends with a sleep"},
      {"--faults crash,nope", "--faults"},
      {"--lock nope", "--lock"},
      {"--lock rlock --validity", "the validity check is a RedLock option"},
      {"--servers 6", "--servers"},
      {"--backend live", "--backend live"},
      {"--backend nope", "--backend"},
      {"--dfs --random-walk", "--dfs and --random-walk"},
      {"--clients 0", "--clients"},
      {"--clients 9", "--clients"},
      {"--max-faults -1", "--max-faults"},
      {"--mutant nope", "locksim: --mutant: unknown mutant 'nope'"},
      {"--workers 0", "--workers"},
      {"--persistence sometimes", "--persistence"},
      {"--scripts /nonexistent", "bad script pack: /nonexistent"},
  };
  for (const auto& [args, says] : cases) {
    auto r = run_locksim("explore " + args + " --out " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1) << args << ": " << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << args << ": no '" << says << "' in " << r.out;
    EXPECT_FALSE(fs::exists(dir_)) << args;
  }
}

TEST_F(CliExplore, PassingExplorationSaysCompleteAndWritesItsDirectory) {
  auto r = run_locksim("explore --lock rlock --clients 2 --ops lock,unlock --faults crash,loss --max-faults 1 --out " +
                       dir_.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("COMPLETE: no violation in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("every schedule of this configuration"), std::string::npos);
  const auto summary = nlohmann::json::parse(read_file(dir_ / "summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_EQ(summary["format"], "locksim-explore");
  EXPECT_EQ(summary["complete"], true);
  EXPECT_TRUE(summary["limit"].is_null());
  EXPECT_GT(summary["counts"]["distinct_states"].get<uint64_t>(), 10u);
  EXPECT_TRUE(summary["violations"].empty());
  EXPECT_NE(read_file(dir_ / "report.html").find("PASS"), std::string::npos);
}

TEST_F(CliExplore, LimitIsNamed) {
  auto r = run_locksim("explore --clients 2 --ops lock,unlock --faults pause,loss --max-faults 2 --max-states 20 --json "
                       "--out " + dir_.string(), Stderr::Discard);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["limit"], "max-states");
}

TEST_F(CliExplore, FailingExplorationWritesReplayableCounterexamples) {
  auto r = run_locksim("explore --lock rlock --clients 2 --ops lock,unlock --faults pause --max-faults 1 --json --out " +
                           dir_.string(), Stderr::Discard);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["complete"], true);
  ASSERT_FALSE(j["violations"].empty());
  const auto& v = j["violations"][0];
  EXPECT_EQ(v["property"], "mutual_exclusion");
  EXPECT_GT(v["events"].get<int>(), 0);
  const auto summary = nlohmann::json::parse(read_file(dir_ / "summary.json"), nullptr, false);
  const std::string trace = (dir_ / summary["violations"][0]["trace"].get<std::string>()).string();
  EXPECT_TRUE(fs::exists(dir_ / summary["violations"][0]["timeline"].get<std::string>()));
  const std::string html = read_file(dir_ / "report.html");
  EXPECT_NE(html.find("FAIL"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);

  auto replay = run_locksim("replay " + trace);
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_NE(replay.out.find("reproduced identically"), std::string::npos);
  EXPECT_NE(replay.out.find("mutual_exclusion"), std::string::npos);
  auto on_lua = run_locksim("replay --backend lua " + trace);
  EXPECT_EQ(on_lua.exit_code, 0) << on_lua.out;
  auto check = run_locksim("check " + trace);
  EXPECT_NE(check.out.find("mutual_exclusion"), std::string::npos) << check.out;
  auto timeline = run_locksim("timeline " + trace + " -o " + (dir_ / "t.svg").string());
  EXPECT_EQ(timeline.exit_code, 0) << timeline.out;
}

// A pack's "settings" apply to explore as to a campaign: a pack declaring
// fair_slot_ms 5000 (tests/impl/packs/fair_slot_5s, our scripts) gives
// every queued waiter a deadline 5 s past the holder's lease, as the trace's
// line says; --fair-slot-ms 0 still overrides it (the caller's 300 s wait).
TEST_F(CliExplore, APacksFairSlotIsHonoured) {
  const std::string pack = std::string(LOCKSIM_SOURCE_DIR) + "/tests/impl/packs/fair_slot_5s";
  // The line's widest deadline past the caller's clock, over the trace's
  // fair scripts (-1: no deadline in any line), and the header's slot.
  auto explore = [&](const std::string& extra, const std::string& name) {
    const fs::path out = dir_ / name;
    auto r = run_locksim("explore --lock fair --clients 2 --ops lock,unlock --faults pause --max-faults 1 --scripts " +
                         pack + extra + " --out " + out.string(), Stderr::Discard);
    EXPECT_EQ(r.exit_code, 1) << r.out;  // the pause past the lease: an overlap, with its trace
    std::ifstream in(out / "failures" / "mutual_exclusion.jsonl");
    std::string line;
    std::getline(in, line);
    const auto header = nlohmann::json::parse(line, nullptr, false);
    const int64_t slot = header.is_object() ? header["scenario"].value("fair_slot_ms", int64_t{0}) : -1;
    int64_t widest = -1;
    while (std::getline(in, line)) {
      const auto e = nlohmann::json::parse(line, nullptr, false);
      if (!e.is_object() || !e.contains("ln") || !e.contains("lms")) continue;
      for (const auto& entry : e["ln"])
        if (entry.size() == 2 && entry[1].is_number())
          widest = std::max(widest, entry[1].get<int64_t>() - e["lms"].get<int64_t>() - e.value("lease", int64_t{0}));
    }
    return std::make_pair(slot, widest);
  };
  const auto [slot, past_lease_ms] = explore("", "pack");
  EXPECT_EQ(slot, 5000);
  EXPECT_EQ(past_lease_ms, 5000);
  const auto [given, given_past_lease_ms] = explore(" --fair-slot-ms 0", "given");
  EXPECT_EQ(given, 0);
  EXPECT_EQ(given_past_lease_ms, 300'000);
}

// The same counterexample on a live redis-server (in virtual time): the same
// history, the same violation.
TEST_F(CliExplore, CounterexampleIsConfirmedOnLive) {
  auto r = run_locksim("explore --lock rlock --clients 2 --ops lock,unlock --faults pause --max-faults 1 "
                       "--confirm-live --out " + dir_.string());
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("mutual_exclusion on live redis-server: confirmed"), std::string::npos) << r.out;
  const auto summary = nlohmann::json::parse(read_file(dir_ / "summary.json"), nullptr, false);
  EXPECT_EQ(summary["violations"][0]["live"]["same_history"], true);
  EXPECT_EQ(summary["violations"][0]["live"]["same_violation"], true);
  auto replay = run_locksim("replay --backend live " + (dir_ / "failures" / "mutual_exclusion.jsonl").string());
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_NE(replay.out.find("on the live backend"), std::string::npos) << replay.out;
}

// Every row of docs/exploring.md's mutant table: the mutant is found with those
// flags, first as the property named, in that many events, and the correct
// pack does not fail that property with the same flags. With
// --unexplained-only the mutant still fails it, and the correct pack fails
// nothing, but for the rows the page names as holding a lock past its
// explicit lease on purpose, which fail mutual_exclusion only.
TEST_F(CliExplore, MutantTableIsTrue) {
  std::ifstream readme(std::string(LOCKSIM_SOURCE_DIR) + "/docs/exploring.md");
  ASSERT_TRUE(readme.good());
  const std::regex row(R"(^\| `([a-z_]+)` \| `([^`]+)` \| ([a-z_]+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$)");
  const std::regex past_lease(R"(^Rows whose workload holds a lock past its explicit lease: (.*)\.$)");
  std::string line;
  std::set<std::string> holds_past_lease;
  while (std::getline(readme, line)) {
    std::smatch m;
    if (std::regex_match(line, m, past_lease)) {
      const std::string names = m[1];
      const std::regex name(R"(`([a-z_]+)`)");
      for (auto it = std::sregex_iterator(names.begin(), names.end(), name); it != std::sregex_iterator(); ++it)
        holds_past_lease.insert((*it)[1]);
    }
  }
  EXPECT_EQ(holds_past_lease.size(), 2u);
  readme.clear();
  readme.seekg(0);
  int rows = 0;
  while (std::getline(readme, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    ++rows;
    const std::string mutant = m[1], flags = m[2], property = m[3];
    SCOPED_TRACE(mutant);
    auto found = run_locksim("explore --mutant " + mutant + " " + flags + " --json --out " + dir_.string(),
                             Stderr::Discard);
    fs::remove_all(dir_);
    ASSERT_EQ(found.exit_code, 1) << found.out;
    const auto j = nlohmann::json::parse(found.out);
    EXPECT_EQ(j["complete"], true);
    auto correct = run_locksim("explore " + flags + " --json --out " + dir_.string(), Stderr::Discard);
    fs::remove_all(dir_);
    const auto c = nlohmann::json::parse(correct.out);
    for (const auto& v : c["violations"]) EXPECT_NE(v["property"], property) << "the correct pack fails it too";
    bool seen = false;
    for (const auto& v : j["violations"]) {
      if (v["property"] != property) continue;
      seen = true;
      EXPECT_EQ(v["distinct_before"].get<int>(), std::stoi(m[4]));
      EXPECT_EQ(v["depth"].get<int>(), std::stoi(m[5]));
      EXPECT_EQ(v["events"].get<int>(), std::stoi(m[6]));
    }
    EXPECT_TRUE(seen) << found.out;
    // Judged as a campaign judges: the mutant's violation stays unexplained.
    const std::string judged = flags.find("--unexplained-only") == std::string::npos ? " --unexplained-only" : "";
    auto mutant_judged = run_locksim("explore --mutant " + mutant + " " + flags + judged + " --json --out " +
                                     dir_.string(), Stderr::Discard);
    fs::remove_all(dir_);
    const auto mj = nlohmann::json::parse(mutant_judged.out);
    bool still = false;
    for (const auto& v : mj["violations"]) still = still || v["property"] == property;
    EXPECT_TRUE(still) << mutant_judged.out;
    auto ours_judged = run_locksim("explore " + flags + judged + " --json --out " + dir_.string(), Stderr::Discard);
    fs::remove_all(dir_);
    const auto oj = nlohmann::json::parse(ours_judged.out);
    for (const auto& v : oj["violations"]) {
      EXPECT_TRUE(holds_past_lease.count(mutant) != 0 && v["property"] == "mutual_exclusion")
          << "our pack fails " << v["property"] << " under --unexplained-only";
    }
    if (holds_past_lease.count(mutant) != 0) {
      EXPECT_FALSE(oj["violations"].empty()) << "the page says it holds past its lease";
    }
  }
  EXPECT_EQ(rows, 19);  // every script and client mutant (the client mutant watchdog_not_cancelled twice: rlock, spin)
}

}  // namespace
