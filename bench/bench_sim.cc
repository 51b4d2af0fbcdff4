// Simulator throughput, reported as ratios measured in this one run:
//   sim_s_per_wall_s  simulated seconds per wall-clock second (a simulated
//                     hour of 64 clients on 4 locks under `hostile`)
//   scripts/s         script executions per wall second, model backend
// Nothing here asserts a speed: the numbers are for reading and comparing.
#include <benchmark/benchmark.h>

#include "model/variant.h"
#include "sim/bench_scenarios.h"
#include "sim/model_backend.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {
namespace {

void run_hour(benchmark::State& state, const std::string& profile, ScenarioLockKind lock_kind) {
  uint64_t seed = 1;
  double simulated_s = 0;
  uint64_t scripts = 0;
  uint64_t events = 0;
  for (auto _ : state) {
    const Scenario s =
        bench_contention_scenario(seed++, static_cast<int>(state.range(0)), Profile::named(profile), lock_kind,
                                  kBenchHourMs);
    ModelBackend backend(s.servers, ModelVariant::Correct);
    CountingSink sink;
    Simulator sim(s, backend, sink);
    const RunSummary summary = sim.run();
    simulated_s += static_cast<double>(summary.end_true_us) / 1e6;
    scripts += summary.scripts;
    events += sink.events;
  }
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(simulated_s, benchmark::Counter::kIsRate);
  state.counters["scripts/s"] = benchmark::Counter(static_cast<double>(scripts), benchmark::Counter::kIsRate);
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_SimulatedHourHostileMixed(benchmark::State& state) { run_hour(state, "hostile", ScenarioLockKind::Mixed); }
void BM_SimulatedHourSafeRlock(benchmark::State& state) { run_hour(state, "safe", ScenarioLockKind::Rlock); }
BENCHMARK(BM_SimulatedHourHostileMixed)->Arg(64)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_SimulatedHourSafeRlock)->Arg(64)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
}  // namespace locksim

BENCHMARK_MAIN();
