// Checker throughput: events per second through the whole CheckerSuite, on
// in-memory histories built once (the checker-10m workload of `locksim
// bench`, scaled down, and contention-64 under `hostile` faults, whose fair
// waiters poll). Google Benchmark reports CPU time beside wall time, which
// makes before/after comparisons on a busy machine steadier than the wall
// rates of `locksim bench`. Nothing here asserts a speed.
#include <benchmark/benchmark.h>

#include <vector>

#include "properties/busy_poll.h"
#include "properties/checker_suite.h"
#include "properties/exclusive_ownership.h"
#include "properties/fifo_fairness.h"
#include "properties/history_context.h"
#include "properties/liveness.h"
#include "properties/mutual_exclusion.h"
#include "properties/reentrancy.h"
#include "properties/watchdog_expiry.h"
#include "properties/scenario_check.h"
#include "sim/bench_scenarios.h"

namespace locksim {
namespace {

std::vector<Event> history_of(const Scenario& s, size_t limit) {
  std::vector<Event> events;
  events.reserve(limit);
  run_first_events(s, limit, [&events](const Event& e) { events.push_back(e); });
  return events;
}

void check_all(benchmark::State& state, const std::vector<Event>& history) {
  uint64_t events = 0;
  for (auto _ : state) {
    CheckerSuite suite(default_check_config());
    for (const Event& e : history) suite.on_event(e);
    suite.finish();
    benchmark::DoNotOptimize(suite.ok());
    events += history.size();
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_CheckNoFaultsMixed(benchmark::State& state) {
  static const std::vector<Event> history = history_of(checker_history_scenario(1), 300'000);
  check_all(state, history);
}
void BM_CheckHostileMixed(benchmark::State& state) {
  static const std::vector<Event> history = history_of(contention64_scenario(1, 600'000), 300'000);
  check_all(state, history);
}
BENCHMARK(BM_CheckNoFaultsMixed)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_CheckHostileMixed)->Unit(benchmark::kMillisecond)->Iterations(3);

// Where the suite's time goes, on the no-faults history: the shared context
// (fault log + fair-line mirror) alone, then the context and one checker
// (arg: the checker's position in the suite). A checker's own cost is its
// figure minus the context's.
std::unique_ptr<Checker> suite_checker(int index, const CheckConfig& config, const HistoryContext* shared) {
  switch (index) {
    case 0: return std::make_unique<ExclusiveOwnershipChecker>(config);
    case 1: return std::make_unique<MutualExclusionChecker>(config, shared);
    case 2: return std::make_unique<FifoFairnessChecker>(config, shared);
    case 3: return std::make_unique<WatchdogExpiryChecker>(config, shared);
    case 4: return std::make_unique<LivenessChecker>(config, shared);
    case 5: return std::make_unique<ReentrancyChecker>(config, shared);
    case 6: return std::make_unique<BusyPollChecker>(config, shared);
    default: return nullptr;
  }
}
void BM_ContextAndOneChecker(benchmark::State& state) {
  static const std::vector<Event> history = history_of(checker_history_scenario(1), 300'000);
  const CheckConfig config = default_check_config();
  uint64_t events = 0;
  for (auto _ : state) {
    HistoryContext context(config);
    std::unique_ptr<Checker> checker = suite_checker(static_cast<int>(state.range(0)), config, &context);
    for (const Event& e : history) {
      context.on_event(e);
      if (checker) checker->on_event(e);
    }
    if (checker) {
      checker->finish(history.back().true_us);
      benchmark::DoNotOptimize(checker->ok());
      state.SetLabel(std::string(checker->name()));
    } else {
      state.SetLabel("context only");
    }
    events += history.size();
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ContextAndOneChecker)->DenseRange(-1, 6)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace locksim

BENCHMARK_MAIN();
