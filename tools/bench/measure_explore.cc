// The explore measurement: distinct states per wall second of the README's
// rlock exploration (2 clients, each lock, unlock, lock, unlock; crash,
// pause and loss, at most 2 per schedule; our pack on the model), breadth
// first to completion, on one worker and on 2; and, as the ceiling for 2
// workers on this machine, two independent one-worker searches run at once
// on two threads (their distinct states together per wall second: no work
// shared or split, so what the host's two CPUs give two copies of this
// work; on a shared virtual machine the second CPU can give much less than
// the first). A search takes a third of a second, and on a shared machine
// one run differs from the next by up to a tenth and the host changes
// speed by a third between spells: each figure is the median of kRuns,
// and the three kinds alternate (one of each per round) so that they see
// the same spells; the first pays for fresh memory that the later ones
// reuse from the allocator. The detail gives every run. Each round also
// probes the host (tools/bench/host_probe.h): what two threads of a loop
// that touches no memory get over one (host_loop_2x1t) and the cost of a
// first write to a 4 KB page (host_page_touch_us), to read the explorer's
// figures against: a search is memory-bound, the loop is not.
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "search/explore.h"
#include "search/explore_setup.h"
#include "properties/scenario_check.h"
#include "sim/model_backend_source.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/host_probe.h"
#include "tools/bench/wall_timer.h"

namespace locksim {

namespace {

constexpr int kRuns = 3;

struct SearchRun {
  uint64_t distinct_states = 0;
  uint64_t transitions = 0;
  bool complete = false;
};

SearchRun search(const BenchSizes& sizes, int workers) {
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
  const ExploreResult r = run_explore(c, ptrs);
  return SearchRun{r.distinct_states, r.transitions, r.complete};
}

std::string describe(const BenchSizes& sizes, const char* how, const SearchRun& r, double wall_s) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "explore --lock rlock --clients 2 --ops %s --faults crash,pause,loss --max-faults 2 %s: "
                "%llu distinct states, %llu transitions, %s, %.2f s",
                sizes.explore_ops.c_str(), how, static_cast<unsigned long long>(r.distinct_states),
                static_cast<unsigned long long>(r.transitions), r.complete ? "complete" : "incomplete", wall_s);
  return buf;
}

// One search on `workers` workers: distinct states per second.
double states_per_s(const BenchSizes& sizes, int workers, std::string* detail) {
  const WallTimer timer;
  const SearchRun r = search(sizes, workers);
  const double wall_s = timer.elapsed_s();
  *detail = describe(sizes, workers == 1 ? "--workers 1" : "--workers 2", r, wall_s);
  return static_cast<double>(r.distinct_states) / wall_s;
}

// Two one-worker searches at once, each on a thread of its own: their
// distinct states together per second of the pair's wall time.
double pair_states_per_s(const BenchSizes& sizes, std::string* detail) {
  SearchRun runs[2];
  std::exception_ptr errors[2];
  const WallTimer timer;
  std::thread other([&] {
    try {
      runs[1] = search(sizes, 1);
    } catch (...) {
      errors[1] = std::current_exception();
    }
  });
  try {
    runs[0] = search(sizes, 1);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  other.join();
  const double wall_s = timer.elapsed_s();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  *detail = describe(sizes, "--workers 1, two at once on two threads", runs[0], wall_s);
  return static_cast<double>(runs[0].distinct_states + runs[1].distinct_states) / wall_s;
}

struct Series {
  const char* key;
  std::vector<double> runs;
  std::string detail;  // the last run's
  void note(BenchReport* report) const {
    std::string each;
    for (const double r : runs) each += (each.empty() ? "" : ", ") + bench_figure_text(r);
    report->set(key, median(runs),
                "median of " + std::to_string(runs.size()) + " runs (" + each + "); last: " + detail);
  }
};

}  // namespace

void measure_explore(const BenchSizes& sizes, BenchReport* report) {
  Series one{"explore_states_per_s", {}, {}};
  Series two{"explore_states_per_s_2w", {}, {}};
  Series pair{"explore_states_per_s_2x1w", {}, {}};
  // The probes are short: a loop of a quarter second per thread count, and
  // 32 MB of pages (8 MB and 0.05 s with --quick).
  const double loop_s = report->quick() ? 0.05 : 0.25;
  const size_t touch_bytes = (report->quick() ? size_t{8} : size_t{32}) << 20;
  char probe_detail[160];
  std::snprintf(probe_detail, sizeof probe_detail, "%.2f s of the loop on one thread, then on two at once", loop_s);
  Series loop{"host_loop_2x1t", {}, probe_detail};
  std::snprintf(probe_detail, sizeof probe_detail, "one write to each 4 KB page of a fresh %zu MB mapping",
                touch_bytes >> 20);
  Series touch{"host_page_touch_us", {}, probe_detail};
  for (int i = 0; i < kRuns; ++i) {
    one.runs.push_back(states_per_s(sizes, 1, &one.detail));
    two.runs.push_back(states_per_s(sizes, 2, &two.detail));
    pair.runs.push_back(pair_states_per_s(sizes, &pair.detail));
    loop.runs.push_back(register_loop_2x1t(loop_s));
    touch.runs.push_back(page_touch_us(touch_bytes));
  }
  one.note(report);
  two.note(report);
  pair.note(report);
  loop.note(report);
  touch.note(report);
}

}  // namespace locksim
