// The explore measurement: distinct states per wall second of the README's
// rlock exploration (2 clients, each lock, unlock, lock, unlock; crash,
// pause and loss, at most 2 per schedule; our pack on the model), breadth
// first to completion, on one worker and on 2. A search takes a third of a
// second, and on a shared machine one run differs from the next by up to a
// tenth: each figure is the median of kRuns searches, one after the other in
// this process (the first pays for fresh memory that the later ones reuse
// from the allocator), and the detail gives every run.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "search/explore.h"
#include "search/explore_setup.h"
#include "properties/scenario_check.h"
#include "sim/model_backend_source.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/wall_timer.h"

namespace locksim {

namespace {

constexpr int kRuns = 3;

double states_per_s(const BenchSizes& sizes, int workers, std::string* detail) {
  Scenario s;
  s.clients = 2;
  s.lock_kind = ScenarioLockKind::Rlock;
  s.profile = Profile();
  ExploreConfig c;
  c.plan = explore_plan(s, sizes.explore_ops, 10, 1'000, 60'000);
  c.faults = {ExploreFault::Crash, ExploreFault::Pause, ExploreFault::Loss};
  c.max_faults = 2;
  c.workers = workers;
  c.check = default_check_config();
  std::vector<std::unique_ptr<ModelBackendSource>> sources;
  std::vector<BackendSource*> ptrs;
  for (int w = 0; w < workers; ++w) {
    sources.push_back(std::make_unique<ModelBackendSource>());
    ptrs.push_back(sources.back().get());
  }
  const WallTimer timer;
  const ExploreResult r = run_explore(c, ptrs);
  const double wall_s = timer.elapsed_s();
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "explore --lock rlock --clients 2 --ops %s --faults crash,pause,loss --max-faults 2 --workers %d: "
                "%llu distinct states, %llu transitions, %s, %.2f s",
                sizes.explore_ops.c_str(), workers, static_cast<unsigned long long>(r.distinct_states),
                static_cast<unsigned long long>(r.transitions), r.complete ? "complete" : "incomplete", wall_s);
  *detail = buf;
  return static_cast<double>(r.distinct_states) / wall_s;
}

// The median of kRuns searches on `workers` workers, into `key`.
void measure_median(const BenchSizes& sizes, int workers, const char* key, BenchReport* report) {
  std::vector<double> runs;
  std::string detail;
  for (int i = 0; i < kRuns; ++i) runs.push_back(states_per_s(sizes, workers, &detail));
  std::string each;
  for (const double r : runs) each += (each.empty() ? "" : ", ") + std::to_string(static_cast<long long>(r));
  report->set(key, median(runs), "median of " + std::to_string(kRuns) + " runs (" + each + "); last: " + detail);
}

}  // namespace

void measure_explore(const BenchSizes& sizes, BenchReport* report) {
  measure_median(sizes, 1, "explore_states_per_s", report);
  measure_median(sizes, 2, "explore_states_per_s_2w", report);
}

}  // namespace locksim
