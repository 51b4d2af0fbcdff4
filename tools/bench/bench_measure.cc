// The model, contention-64 and peak-RSS measurements, and run_bench().
#include "tools/bench/bench_measure.h"

#include <sys/resource.h>

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <utility>
#include <vector>

#include "model/variant.h"
#include "sim/bench_scenarios.h"
#include "sim/model_backend.h"
#include "sim/simulator.h"
#include "tools/bench/wall_timer.h"
#include "traces/event_sink.h"

namespace locksim {

namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

}  // namespace

void measure_model(const BenchSizes& sizes, BenchReport* report) {
  ModelBackend backend(1, ModelVariant::Correct);
  const WallTimer timer;
  const uint64_t scripts = run_rlock_pairs(backend, sizes.model_pairs, kBenchStartUs);
  const double wall_s = timer.elapsed_s();
  report->set("model_execs_per_s", static_cast<double>(scripts) / wall_s,
              format("model: %.0f rlock acquire+release scripts in %.2f s", static_cast<double>(scripts), wall_s));
}

void measure_contention(const BenchSizes& sizes, BenchReport* report) {
  const Scenario s = contention64_scenario(1, sizes.contention_ms);
  ModelBackend backend(s.servers, ModelVariant::Correct);
  CountingSink sink;
  Simulator sim(s, backend, sink);
  const WallTimer timer;
  const RunSummary summary = sim.run();
  const double wall_s = timer.elapsed_s();
  const double simulated_s = static_cast<double>(summary.end_true_us) / 1e6;
  report->set("sim_speedup", simulated_s / wall_s,
              format("contention-64 (64 clients, 4 locks mixed, hostile): %.0f simulated s in %.2f s, %.0f events",
                     simulated_s, wall_s, static_cast<double>(sink.events)));
}

double median(std::vector<double> v) {
  assert(!v.empty());
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 != 0 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

void measure_peak_rss(BenchReport* report) {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) {
    report->set_null("peak_rss_mb", "getrusage(RUSAGE_SELF) failed");
    return;
  }
  // Linux reports ru_maxrss in KiB.
  report->set("peak_rss_mb", static_cast<double>(usage.ru_maxrss) / 1024.0,
              "getrusage(RUSAGE_SELF).ru_maxrss of the whole bench run");
}

bool BenchSelection::includes(BenchPart part) const {
  switch (part) {
    case BenchPart::Model: return model;
    case BenchPart::Lua: return lua;
    case BenchPart::Contention: return contention;
    case BenchPart::Checker: return checker;
    case BenchPart::Live: return live;
    case BenchPart::Campaign: return campaign;
    case BenchPart::Explore: return explore;
    case BenchPart::Hunt: return hunt;
  }
  return false;
}

void BenchSelection::add(BenchPart part) {
  switch (part) {
    case BenchPart::Model: model = true; break;
    case BenchPart::Lua: lua = true; break;
    case BenchPart::Contention: contention = true; break;
    case BenchPart::Checker: checker = true; break;
    case BenchPart::Live: live = true; break;
    case BenchPart::Campaign: campaign = true; break;
    case BenchPart::Explore: explore = true; break;
    case BenchPart::Hunt: hunt = true; break;
  }
}

namespace {
constexpr std::pair<BenchPart, const char*> kPartNames[] = {{BenchPart::Model, "model"},
                                                            {BenchPart::Contention, "contention"},
                                                            {BenchPart::Checker, "checker"},
                                                            {BenchPart::Live, "live"},
                                                            {BenchPart::Lua, "lua"},
                                                            {BenchPart::Campaign, "campaign"},
                                                            {BenchPart::Explore, "explore"},
                                                            {BenchPart::Hunt, "hunt"}};
}  // namespace

bool bench_part_from_name(const std::string& name, BenchPart* out) {
  for (const auto& [part, part_name] : kPartNames) {
    if (name == part_name) {
      *out = part;
      return true;
    }
  }
  return false;
}

std::string bench_part_name(BenchPart part) {
  for (const auto& [p, part_name] : kPartNames)
    if (p == part) return part_name;
  return "?";
}

BenchReport run_bench(const BenchSizes& sizes, bool quick, const BenchProgress& progress,
                      const BenchSelection& selection) {
  BenchReport report(quick);
  struct Step {
    BenchPart part;
    const char* label;
    void (*measure)(const BenchSizes&, BenchReport*);
    std::vector<const char*> keys;
  };
  const Step steps[] = {
      {BenchPart::Model, "model", measure_model, {"model_execs_per_s"}},
      {BenchPart::Contention, "contention-64", measure_contention, {"sim_speedup"}},
      {BenchPart::Checker, "checker", measure_checker, {"checker_events_per_s", "trace_check_events_per_s"}},
      {BenchPart::Live,
       "live",
       measure_live,
       {"live_execs_per_s", "redis_benchmark_evalsha_per_s", "live_vs_redis_benchmark"}},
      {BenchPart::Campaign, "campaign", measure_campaign, {"campaign_seeds_per_s_1w", "campaign_seeds_per_s_2w"}},
      {BenchPart::Lua, "lua", measure_lua, {"lua_execs_per_s", "lua_vs_live_fair_campaign"}},
      {BenchPart::Explore, "explore", measure_explore, {"explore_states_per_s", "explore_states_per_s_2w", "explore_states_per_s_2x1w", "host_loop_2x1t",
        "host_page_touch_us"}},
      {BenchPart::Hunt, "hunt", measure_hunt, {"hunt_rare_runs_ratio", "hunt_rare_seconds_ratio", "hunt_worst_runs_ratio", "hunt_fair_ttl_focus_runs",
        "hunt_states_ratio"}},
  };
  for (const Step& step : steps) {
    if (!selection.includes(step.part)) {
      for (const char* key : step.keys) {
        report.set_null(key, step.part == BenchPart::Hunt
                                 ? "not measured (--only hunt measures it, in minutes)"
                                 : "not measured (--only without " + bench_part_name(step.part) + ")");
      }
      continue;
    }
    if (progress) progress(step.label);
    step.measure(sizes, &report);
  }
  measure_peak_rss(&report);
  return report;
}

}  // namespace locksim
