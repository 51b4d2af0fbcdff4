// locksim bench: --quick --json reports every key of the issue, each a
// positive number or null with a reason, and leaves nothing in TMPDIR; the
// redis-benchmark CSV parser and BenchReport's null rule. No timing is
// asserted anywhere: speeds are reported, never tested.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/redis_benchmark.h"

namespace locksim {
namespace {

using testing::run_locksim;
using testing::Stderr;

TEST(CliBench, QuickJsonHasEveryKeyPositiveOrNullWithReason) {
  char tmp[] = "/tmp/locksim-bench-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmp), nullptr);
  const testing::CliRun r = run_locksim("bench --quick --json", Stderr::Discard, std::string("TMPDIR=") + tmp);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("quick"), true);
  for (const char* key : kBenchKeys) {
    ASSERT_TRUE(j.contains(key)) << key;
    if (j[key].is_null()) {
      ASSERT_TRUE(j.at("null_reasons").contains(key)) << key << " is null without a reason";
      EXPECT_FALSE(j["null_reasons"][key].get<std::string>().empty()) << key;
    } else {
      ASSERT_TRUE(j[key].is_number()) << key;
      EXPECT_GT(j[key].get<double>(), 0) << key;
    }
  }
  // Measured on every machine the tests run on (the model needs nothing).
  for (const char* key : {"model_execs_per_s", "sim_speedup", "checker_events_per_s", "trace_check_events_per_s",
                          "campaign_seeds_per_s_1w", "campaign_seeds_per_s_2w", "explore_states_per_s",
                          "explore_states_per_s_2w", "explore_states_per_s_2x1w", "host_loop_2x1t",
                          "host_page_touch_us", "peak_rss_mb"}) {
    EXPECT_TRUE(j[key].is_number()) << key;
  }
  // The saved trace and the server dirs are gone.
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
  std::filesystem::remove_all(tmp);
}

TEST(CliBench, OnlyMeasuresTheNamedPartsAndSaysWhyTheOthersAreNull) {
  const testing::CliRun r = run_locksim("bench --quick --json --only model,contention", Stderr::Discard);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.at("model_execs_per_s").is_number());
  EXPECT_TRUE(j.at("sim_speedup").is_number());
  EXPECT_TRUE(j.at("peak_rss_mb").is_number());
  for (const char* key : {"checker_events_per_s", "trace_check_events_per_s", "live_execs_per_s",
                          "campaign_seeds_per_s_1w", "campaign_seeds_per_s_2w", "explore_states_per_s"}) {
    EXPECT_TRUE(j.at(key).is_null()) << key;
    EXPECT_NE(j.at("null_reasons").at(key).get<std::string>().find("--only"), std::string::npos) << key;
  }
}

// The allocator the figures were measured with is named, and it is the one
// the build asked for (a jemalloc link that did not take is caught here).
TEST(CliBench, NamesTheAllocatorTheBuildAskedFor) {
  const testing::CliRun r = run_locksim("bench --quick --json --only model", Stderr::Discard);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string allocator = nlohmann::json::parse(r.out).at("allocator").get<std::string>();
  if (LOCKSIM_EXPECT_JEMALLOC) {
    EXPECT_EQ(allocator.rfind("jemalloc ", 0), 0u) << allocator;
  } else {
    EXPECT_EQ(allocator, "glibc malloc");
  }
  const testing::CliRun text = run_locksim("bench --quick --only model", Stderr::Discard);
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find(allocator), std::string::npos) << text.out;
}

// The hunt runs only when named, and then gives its table: a row per
// mutant (the rare-schedule ones marked; every suite mutant also on the
// README main campaign's scenario), the random and guided sides with
// how many base seeds found it, and no find that the correct lock fails too.
TEST(CliBench, HuntOnlyWhenNamedWithItsTable) {
  const testing::CliRun plain = run_locksim("bench --quick --json --only model", Stderr::Discard);
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  const nlohmann::json p = nlohmann::json::parse(plain.out);
  EXPECT_TRUE(p.at("hunt_rare_runs_ratio").is_null());
  EXPECT_FALSE(p.contains("hunt"));
  const testing::CliRun r = run_locksim("bench --quick --json --only hunt", Stderr::Discard);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("hunt")) << r.out;
  // With --quick, one base seed and a budget of 16 runs: a row is a
  // candidate random did not find within its 16 runs, so its random side is
  // the whole budget, and every row was hunted by focused runs too.
  ASSERT_GT(j["hunt"].size(), 0u) << r.out;
  for (const nlohmann::json& row : j["hunt"]) {
    EXPECT_EQ(row["bases"], 1) << row;
    EXPECT_EQ(row["random"]["runs"], 16) << row;
    EXPECT_EQ(row["random"]["found"], 0) << row;
    EXPECT_GT(row["focus"]["runs"].get<double>(), 0) << row;
    EXPECT_EQ(row["finds_failing_the_correct_lock_too"], 0) << row;
  }
  EXPECT_TRUE(j["hunt_states_ratio"].is_number()) << j["null_reasons"];
  EXPECT_TRUE(j.contains("hunt_rare_runs_ratio"));
  EXPECT_TRUE(j.contains("hunt_worst_runs_ratio"));
}

TEST(CliBench, OnlyWithAnUnknownNameIsExit2) {
  const testing::CliRun r = run_locksim("bench --quick --only model,speed");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown measurement 'speed'"), std::string::npos) << r.out;
}

TEST(CliBench, RedisBenchmarkCsvRate) {
  const std::string csv =
      "\"test\",\"rps\",\"avg_latency_ms\"\n"
      "\"EVALSHA 2bab 1 k\",\"29850.75\",\"0.034\"\n";
  EXPECT_EQ(parse_redis_benchmark_csv(csv), 29850.75);
  EXPECT_EQ(parse_redis_benchmark_csv("Could not connect to Redis\n"), std::nullopt);
  EXPECT_EQ(parse_redis_benchmark_csv("\"test\",\"rps\"\n\"X\",\"fast\"\n"), std::nullopt);
}

TEST(CliBench, ReportNeverShowsANonPositiveRate) {
  BenchReport report(true);
  report.set("sim_speedup", 0.0, "nothing simulated");
  EXPECT_FALSE(report.figure("sim_speedup").value.has_value());
  report.set("model_execs_per_s", 12.5, "x");
  const nlohmann::json j = report.to_json();
  EXPECT_EQ(j["model_execs_per_s"], 12.5);
  EXPECT_TRUE(j["sim_speedup"].is_null());
  EXPECT_FALSE(j["null_reasons"]["sim_speedup"].get<std::string>().empty());
  EXPECT_TRUE(j["live_execs_per_s"].is_null());  // never set: "not measured"
  EXPECT_THROW(report.set("no_such_key", 1, ""), std::out_of_range);
}

}  // namespace
}  // namespace locksim
