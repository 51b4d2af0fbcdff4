// The explore measurement: distinct states per wall second of the README's
// rlock exploration (2 clients, each lock, unlock, lock, unlock; crash,
// pause and loss, at most 2 per schedule; our pack on the model), breadth
// first to completion, on one worker and on 2.
#include <cstdio>
#include <memory>
#include <vector>

#include "search/explore.h"
#include "search/explore_setup.h"
#include "properties/scenario_check.h"
#include "sim/model_backend_source.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/wall_timer.h"

namespace locksim {

namespace {

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

}  // namespace

void measure_explore(const BenchSizes& sizes, BenchReport* report) {
  std::string detail;
  const double one = states_per_s(sizes, 1, &detail);
  report->set("explore_states_per_s", one, detail);
  const double two = states_per_s(sizes, 2, &detail);
  report->set("explore_states_per_s_2w", two, detail);
}

}  // namespace locksim
