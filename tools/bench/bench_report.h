// BenchReport: the figures of one `locksim bench` run. Every figure has a
// fixed key (the JSON key, e.g. "model_execs_per_s") and either a measured
// value or, when it could not be measured in this run, null and the reason
// (never an invented number). `detail` says in words what was measured
// (scenario, counts, wall seconds) for the text output.
//
// JSON: one object with every key of kBenchKeys (a number or null), "quick",
// "allocator" (the malloc measured with, tools/bench/allocator.h),
// "null_reasons": {key: reason} for each null figure, and each section a
// measurement added (e.g. "hunt": its rows).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim {

inline constexpr std::array<const char*, 22> kBenchKeys = {
    "model_execs_per_s",          "sim_speedup",        "checker_events_per_s",
    "trace_check_events_per_s",   "live_execs_per_s",   "redis_benchmark_evalsha_per_s",
    "live_vs_redis_benchmark",    "campaign_seeds_per_s_1w", "campaign_seeds_per_s_2w",
    "lua_execs_per_s",            "lua_vs_live_fair_campaign", "explore_states_per_s",
    "explore_states_per_s_2w",    "explore_states_per_s_2x1w", "host_loop_2x1t",     "host_page_touch_us",
    "hunt_rare_runs_ratio",  "hunt_rare_seconds_ratio",
    "hunt_worst_runs_ratio",      "hunt_fair_ttl_focus_runs", "hunt_states_ratio", "peak_rss_mb"};

struct BenchFigure {
  std::string key;                 // one of kBenchKeys
  std::optional<double> value;     // nullopt: not measured, see null_reason
  std::string null_reason;
  std::string detail;              // what was measured, for people
};

// A figure as the text output shows it: whole (rounded) from 100 up, two
// decimals below (ratios, microseconds).
std::string bench_figure_text(double value);

class BenchReport {
 public:
  explicit BenchReport(bool quick);

  void set(const std::string& key, double value, std::string detail);
  void set_null(const std::string& key, std::string reason);
  // A table a measurement adds: under `name` in the JSON (its rows), and its
  // text after the figures.
  void set_section(const std::string& name, nlohmann::json rows, std::string text);
  const BenchFigure& figure(const std::string& key) const;  // throws std::out_of_range
  bool quick() const { return quick_; }

  nlohmann::json to_json() const;
  // One line per figure: "key  value  (detail)" or "key  null  (reason)".
  std::string to_text() const;

 private:
  BenchFigure& at(const std::string& key);
  bool quick_;
  std::vector<BenchFigure> figures_;  // in kBenchKeys order
  nlohmann::json sections_ = nlohmann::json::object();
  std::string section_text_;
};

}  // namespace locksim
