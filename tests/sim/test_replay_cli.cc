// Replay reproduces saved traces and detects tampered ones; `locksim run` and
// `locksim replay` exit codes; a long hostile run completes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/model_backend.h"
#include "sim/replay.h"
#include "sim/run.h"
#include "sim/simulator.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace locksim {
namespace {

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "locksim_test_sim";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

Scenario scenario(uint64_t seed, const std::string& profile) {
  Scenario s;
  s.seed = seed;
  s.clients = 4;
  s.locks = 2;
  s.lock_kind = ScenarioLockKind::Mixed;
  s.duration_ms = 5'000;
  s.profile = Profile::named(profile);
  return s;
}

void write_trace(const Scenario& s, const std::string& path) {
  ModelBackend backend(s.servers);
  TraceWriter writer(path, make_trace_header(s, "model"));
  Simulator sim(s, backend, writer);
  sim.run();
  writer.close();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::trunc);
  for (const auto& l : lines) out << l << "\n";
}

ReplayResult replay_file(const std::string& path) {
  TraceReader reader(path);
  ModelBackend backend(1);
  return replay_trace(reader, backend);
}

TEST(Replay, ReproducesSavedTraces) {
  const char* profiles[] = {"none", "safe", "pauses", "skew", "hostile"};
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const std::string path = temp_path("replay_ok.jsonl");
    write_trace(scenario(seed, profiles[seed % 5]), path);
    const ReplayResult r = replay_file(path);
    EXPECT_TRUE(r.identical()) << "seed " << seed << ": " << (r.mismatch ? r.mismatch->expected_line : "");
    EXPECT_EQ(r.events_compared + 1, read_lines(path).size());
  }
}

TEST(Replay, DetectsATamperedEvent) {
  const std::string path = temp_path("replay_tampered.jsonl");
  write_trace(scenario(3, "safe"), path);
  auto lines = read_lines(path);
  ASSERT_GT(lines.size(), 20u);
  // Change the reply of the first script event after line 10.
  size_t victim = 0;
  for (size_t i = 10; i < lines.size(); ++i) {
    const size_t at = lines[i].find("\"k\":\"script\"");
    if (at != std::string::npos && lines[i].find("\"sms\":") != std::string::npos) {
      victim = i;
      const size_t sms = lines[i].find("\"sms\":");
      lines[i].insert(sms + 6, "9");  // a different server time
      break;
    }
  }
  ASSERT_GT(victim, 0u);
  write_lines(path, lines);
  const ReplayResult r = replay_file(path);
  ASSERT_FALSE(r.identical());
  EXPECT_EQ(r.mismatch->index, victim - 1);  // line 0 is the header
  EXPECT_EQ(r.mismatch->expected_line, lines[victim]);
  EXPECT_NE(r.mismatch->actual_line, lines[victim]);
}

TEST(Replay, DetectsATruncatedTrace) {
  const std::string path = temp_path("replay_truncated.jsonl");
  write_trace(scenario(4, "none"), path);
  auto lines = read_lines(path);
  lines.resize(lines.size() - 3);
  write_lines(path, lines);
  const ReplayResult r = replay_file(path);
  ASSERT_FALSE(r.identical());
  EXPECT_EQ(r.mismatch->index, lines.size() - 1);
  EXPECT_EQ(r.mismatch->expected_line, "<end of trace>");
}

int cli(const std::string& args) {
  const std::string cmd = std::string(LOCKSIM_CLI_PATH) + " " + args + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Cli, RunThenReplay) {
  const std::string path = temp_path("cli_run.jsonl");
  EXPECT_EQ(cli("run --seed 9 --clients 3 --locks 2 --lock fair --duration-s 3 --profile safe --trace " + path), 0);
  EXPECT_EQ(cli("replay " + path), 0);
  auto lines = read_lines(path);
  ASSERT_GT(lines.size(), 5u);
  lines.erase(lines.begin() + 3);  // a missing event is a difference
  write_lines(path, lines);
  EXPECT_EQ(cli("replay " + path), 1);
  lines[3] = "{not json";  // an invalid trace
  write_lines(path, lines);
  EXPECT_EQ(cli("replay " + path), 2);
}

TEST(Cli, ReplayExitsOneOnADifferentEvent) {
  const std::string path = temp_path("cli_diff.jsonl");
  ASSERT_EQ(cli("run --seed 10 --clients 3 --duration-s 3 --trace " + path), 0);
  auto lines = read_lines(path);
  ASSERT_GT(lines.size(), 5u);
  const size_t at = lines[2].find("\"t\":");
  ASSERT_NE(at, std::string::npos);
  lines[2].insert(at + 4, "1");  // a different true time
  write_lines(path, lines);
  EXPECT_EQ(cli("replay " + path), 1);
}

TEST(Cli, BadInputExitsTwo) {
  const std::string path = temp_path("cli_bad.jsonl");
  EXPECT_EQ(cli("run --seed 1 --profile nope --trace " + path), 2);
  EXPECT_EQ(cli("run --seed 1 --lock nope --trace " + path), 2);
  EXPECT_EQ(cli("run --seed 1 --backend nope --trace " + path), 2);
  EXPECT_EQ(cli("run --seed 1 --mutant nope --trace " + path), 2);
  EXPECT_EQ(cli("run --seed 1 --clients 0 --trace " + path), 2);
  EXPECT_EQ(cli("run --seed 1 --trace /nonexistent-dir/x.jsonl"), 2);
  EXPECT_EQ(cli("replay /nonexistent-dir/x.jsonl"), 2);
  // A pack without model_variant runs on the model only if it is our
  // scripts, script for script (a copy of impl/lua is); any other runs only
  // its own Lua: refused on the model; without --backend it runs on lua.
  const auto pack = std::filesystem::temp_directory_path() / "locksim_test_sim" / "liveonly";
  std::filesystem::create_directories(pack);
  for (const auto& e : std::filesystem::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/impl/lua")) {
    std::filesystem::copy_file(e.path(), pack / e.path().filename(),
                               std::filesystem::copy_options::overwrite_existing);
  }
  EXPECT_EQ(cli("run --seed 1 --duration-s 1 --backend model --scripts " + pack.string() + " --trace " + path), 0);
  EXPECT_EQ(cli("run --seed 1 --duration-s 1 --scripts " + pack.string() + " --trace " + path), 0);
  EXPECT_NE(read_lines(path)[0].find("\"backend\":\"model\""), std::string::npos) << read_lines(path)[0];
  std::ofstream(pack / "rlock_renew.lua", std::ios::app) << "-- no longer ours\n";
  EXPECT_EQ(cli("run --seed 1 --duration-s 1 --backend model --scripts " + pack.string() + " --trace " + path), 2);
  EXPECT_EQ(cli("run --seed 1 --duration-s 1 --scripts " + pack.string() + " --trace " + path), 0);
  EXPECT_NE(read_lines(path)[0].find("\"backend\":\"lua\""), std::string::npos) << read_lines(path)[0];
  EXPECT_EQ(cli("run --seed 1 --duration-s 1 --scripts " + std::string(LOCKSIM_SOURCE_DIR) +
                "/impl/mutants/release_no_publish --trace " + path), 1);  // the mutant's run fails liveness
}

TEST(Cli, MutantIsSelectable) {
  const std::string path = temp_path("cli_mutant.jsonl");
  EXPECT_LE(cli("run --seed 2 --duration-s 2 --mutant lease_unit_seconds --trace " + path), 1);  // 1: the mutant fails a property
  const auto lines = read_lines(path);
  EXPECT_NE(lines[0].find("\"mutant\":\"lease_unit_seconds\""), std::string::npos);
}

class NullSink final : public EventSink {
 public:
  void on_event(const Event&) override { ++count; }
  uint64_t count = 0;
};

TEST(LongRun, SixtyFourClientsFourLocksOneHourHostileCompletes) {
  Scenario s;
  s.seed = 2024;
  s.clients = 64;
  s.locks = 4;
  s.lock_kind = ScenarioLockKind::Mixed;
  s.duration_ms = 3'600'000;
  s.profile = Profile::named("hostile");
  ModelBackend backend(1);
  NullSink sink;
  Simulator sim(s, backend, sink);
  const RunSummary summary = sim.run();
  EXPECT_EQ(summary.events, sink.count);
  EXPECT_GT(summary.oks, 1000u);
  EXPECT_GT(summary.faults, 100u);
  EXPECT_GE(summary.end_true_us, s.duration_ms * 1000);
}

TEST(Scenario, JsonRoundTripAndValidation) {
  Scenario s = scenario(77, "skew");
  s.mutant = ClientMutant::UnlockNoWake;
  EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s);
  auto j = scenario_to_json(s);
  j["profile"] = "nope";
  EXPECT_THROW(scenario_from_json(j), ScenarioError);
  j = scenario_to_json(s);
  j.erase("clients");
  EXPECT_THROW(scenario_from_json(j), ScenarioError);
}

}  // namespace
}  // namespace locksim
