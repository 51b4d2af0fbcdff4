// Model throughput: script executions per second on a warm in-memory store.
#include <benchmark/benchmark.h>

#include <string>

#include "model/scripts.h"
#include "sim/bench_scenarios.h"

namespace locksim {
namespace {

// One acquire + release pair per iteration (two script executions); the latch
// keys expire and are swept as simulated time advances.
void BM_RlockAcquireRelease(benchmark::State& state) {
  Store store;
  const ScriptCall acquire = bench_rlock_call(ScriptKind::RlockAcquire, "A:1", "");
  int64_t now_ms = 1'700'000'000'000;
  uint64_t n = 0;
  for (auto _ : state) {
    now_ms += 1;
    store.sweep_expired(now_ms);
    benchmark::DoNotOptimize(run_script(store, acquire, now_ms));
    const ScriptCall release = bench_rlock_call(ScriptKind::RlockRelease, "A:1", "r" + std::to_string(n++));
    benchmark::DoNotOptimize(run_script(store, release, now_ms));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 2);
}
BENCHMARK(BM_RlockAcquireRelease);

// Contended fair lock: a holder and `waiters` pollers, one poll per iteration.
void BM_FairAcquirePoll(benchmark::State& state) {
  Store store;
  const int waiters = static_cast<int>(state.range(0));
  int64_t now_ms = 1'700'000'000'000;
  ScriptCall c;
  c.kind = ScriptKind::FairAcquire;
  c.params.lock = "L";
  c.params.line = LockKeys::line("L");
  c.params.deadlines = LockKeys::deadlines("L");
  c.params.lease_ms = 1'000'000'000;
  c.params.wait_ms = 1'000'000'000;
  c.params.owner = "holder";
  c.params.now_ms = now_ms;
  run_script(store, c, now_ms);
  int i = 0;
  for (auto _ : state) {
    c.params.owner = "w" + std::to_string(i++ % waiters);
    benchmark::DoNotOptimize(run_script(store, c, now_ms));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_FairAcquirePoll)->Arg(1)->Arg(16);

}  // namespace
}  // namespace locksim

BENCHMARK_MAIN();
