// Checker throughput: events per second through the whole CheckerSuite, on
// in-memory histories built once (the checker-10m workload of `locksim
// bench`, scaled down, and contention-64 under `hostile` faults, whose fair
// waiters poll). Google Benchmark reports CPU time beside wall time, which
// makes before/after comparisons on a busy machine steadier than the wall
// rates of `locksim bench`. Nothing here asserts a speed.
#include <benchmark/benchmark.h>

#include <vector>

#include "model/variant.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "sim/bench_scenarios.h"
#include "sim/model_backend.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {
namespace {

// Keeps the first `limit` events of a run and stops it there.
class HistorySink final : public EventSink {
 public:
  explicit HistorySink(size_t limit) : limit_(limit) { events.reserve(limit); }
  void attach(Simulator* sim) { sim_ = sim; }
  void on_event(const Event& e) override {
    if (events.size() == limit_) return;
    events.push_back(e);
    if (events.size() == limit_ && sim_ != nullptr) sim_->stop();
  }
  std::vector<Event> events;

 private:
  size_t limit_;
  Simulator* sim_ = nullptr;
};

std::vector<Event> history_of(const Scenario& s, size_t limit) {
  ModelBackend backend(s.servers, ModelVariant::Correct);
  HistorySink sink(limit);
  Simulator sim(s, backend, sink);
  sink.attach(&sim);
  sim.run();
  return std::move(sink.events);
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

}  // namespace
}  // namespace locksim

BENCHMARK_MAIN();
