// Lua backend throughput: our pack's rlock acquire + release scripts run by
// the embedded Lua 5.1 interpreter on the model store (what `locksim bench`
// reports as lua_execs_per_s), here alone so that a profiler sees only it.
#include <benchmark/benchmark.h>

#include "impl/script_pack.h"
#include "sim/bench_scenarios.h"
#include "sim/lua_backend.h"

namespace locksim {
namespace {

void BM_LuaRlockPairs(benchmark::State& state) {
  LuaBackend backend(1, ScriptPack::load(ScriptPack::default_dir()));
  constexpr uint64_t kPairsPerIteration = 1000;
  int64_t start_us = 1'700'000'000'000'000;
  for (auto _ : state) {
    benchmark::DoNotOptimize(run_rlock_pairs(backend, kPairsPerIteration, start_us));
    start_us += static_cast<int64_t>(kPairsPerIteration) * 1000;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kPairsPerIteration * 2));
}
BENCHMARK(BM_LuaRlockPairs);

}  // namespace
}  // namespace locksim

BENCHMARK_MAIN();
