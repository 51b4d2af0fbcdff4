// The model, contention-64 and peak-RSS measurements, and run_bench().
#include "tools/bench/bench_measure.h"

#include <sys/resource.h>

#include <cstdio>

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

BenchReport run_bench(const BenchSizes& sizes, bool quick, const BenchProgress& progress) {
  BenchReport report(quick);
  auto step = [&](const char* what) {
    if (progress) progress(what);
  };
  step("model");
  measure_model(sizes, &report);
  step("contention-64");
  measure_contention(sizes, &report);
  step("checker");
  measure_checker(sizes, &report);
  step("live");
  measure_live(sizes, &report);
  step("campaign");
  measure_campaign(sizes, &report);
  measure_peak_rss(&report);
  return report;
}

}  // namespace locksim
