// The measurements of `locksim bench`, one per scenario, each filling its
// figures of a BenchReport (tools/bench/bench_report.h). Rates are counts
// divided by wall seconds (steady clock) of the measured part only, on the
// calling thread (the 2-worker campaign on two). A measurement that cannot
// run (no redis-server, no redis-benchmark) sets its figures to null with
// the reason; it never invents a number.
//
// Scenarios (full size; BenchSizes::quick() scales them down for tests):
//   model         2,000,000 rlock acquire + release pairs on the model backend
//                 (sim/bench_scenarios.h): model_execs_per_s
//   contention-64 one simulated hour (sim/bench_scenarios.h), events only
//                 counted: sim_speedup = simulated s / wall s
//   checker-10m   64 clients, 4 mixed locks, no faults, run until
//                 10,000,000 events (sim/bench_scenarios.h); the history is
//                 checked in process by the CheckerSuite (only its time
//                 counts: checker_events_per_s) and written to a trace in a
//                 private temp dir, which is then read back and checked like
//                 `locksim check` (trace_check_events_per_s) and deleted
//   live          20,000 rlock pairs on our own redis-server in virtual time
//                 (live_execs_per_s), then redis-benchmark -c 1 EVALSHA of
//                 the rlock_acquire script on the same server
//                 (redis_benchmark_evalsha_per_s) and their ratio
//   campaign      300 seeds of the README's default campaign (safe, mixed,
//                 2 locks), no shrinking, on 1 and on 2 model workers:
//                 campaign_seeds_per_s_1w, campaign_seeds_per_s_2w
//   lua           1,000,000 rlock acquire + release pairs on the lua backend
//                 (our pack's Lua in process): lua_execs_per_s; then a safe
//                 fair campaign of our pack (seeds 1-6, 4 clients, 60 s),
//                 seed by seed, each seed on the lua backend and right after
//                 on live redis-servers (alternating, so both see the same
//                 load): lua_vs_live_fair_campaign = lua seeds/s over live
//                 seeds/s (live wall time over lua wall time, summed)
//   explore       the README's rlock exploration (2 clients x lock, unlock,
//                 lock, unlock; crash, pause, loss; at most 2 faults; our
//                 pack on the model), breadth first to completion, on 1 and
//                 on 2 workers: explore_states_per_s, explore_states_per_s_2w
//                 (distinct states per wall second); and two one-worker
//                 searches at once on two threads, the ceiling for 2
//                 workers on this host: explore_states_per_s_2x1w (their
//                 distinct states together per wall second); in the same
//                 rounds, probes of the host (tools/bench/host_probe.h):
//                 host_loop_2x1t, host_page_touch_us
//   hunt          (--only hunt) the rare bugs: every suite mutant and every
//                 rare-schedule mutant of impl/hunt/ on the README main
//                 campaign's scenario, hunted by random seeds from
//                 hunt_bases base seeds; those random does not find within
//                 its first 16 runs (median) are hunted by focused runs too
//                 (campaign --focus; tools/bench/measure_hunt.cc):
//                 hunt_rare_runs_ratio, hunt_rare_seconds_ratio,
//                 hunt_worst_runs_ratio, hunt_fair_ttl_focus_runs,
//                 hunt_states_ratio, and the table
//   peak RSS      getrusage(RUSAGE_SELF).ru_maxrss at the end: peak_rss_mb
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "search/campaign.h"
#include "tools/bench/bench_report.h"

namespace locksim {

struct BenchSizes {
  uint64_t model_pairs = 2'000'000;
  int64_t contention_ms = 3'600'000;
  uint64_t checker_events = 10'000'000;
  uint64_t live_pairs = 20'000;
  uint64_t redis_benchmark_requests = 100'000;
  int campaign_seeds = 300;
  uint64_t lua_pairs = 1'000'000;
  int lua_fair_seeds = 6;
  int64_t lua_fair_duration_ms = 60'000;
  std::string explore_ops = "lock,unlock,lock,unlock";  // each client's, on the rlock exploration
  int hunt_budget = 500;        // runs per hunt campaign
  int hunt_bases = 10;          // base seeds per mutant
  int hunt_states_runs = 300;   // the coverage comparison's budget (random also runs 10x as many)

  static BenchSizes full() { return BenchSizes{}; }
  static BenchSizes quick() {
    return BenchSizes{100'000, 300'000, 1'000'000, 2'000, 10'000, 5, 20'000, 1, 5'000, "lock,unlock", 16, 1, 16};
  }
};

// The measurements run_bench() can be limited to (`locksim bench --only`).
// Figures of a measurement left out are null with the reason "not measured
// (--only ...)".
// The hunt takes minutes (tens with the full sizes): only --only hunt runs it.
enum class BenchPart { Model, Contention, Checker, Live, Campaign, Lua, Explore, Hunt };
struct BenchSelection {
  bool model = true, contention = true, checker = true, live = true, campaign = true, lua = true, explore = true;
  bool hunt = false;
  bool includes(BenchPart part) const;
  static BenchSelection all() { return BenchSelection{}; }
  static BenchSelection none() { return BenchSelection{false, false, false, false, false, false, false, false}; }
  void add(BenchPart part);
};
// "model" | "contention" | "checker" | "live" | "campaign" | "lua" | "explore" | "hunt"; false otherwise.
bool bench_part_from_name(const std::string& name, BenchPart* out);
std::string bench_part_name(BenchPart part);

// Called with a short label before each measurement (progress output).
using BenchProgress = std::function<void(const std::string& what)>;

void measure_model(const BenchSizes& sizes, BenchReport* report);
void measure_contention(const BenchSizes& sizes, BenchReport* report);
void measure_checker(const BenchSizes& sizes, BenchReport* report);
void measure_live(const BenchSizes& sizes, BenchReport* report);
void measure_campaign(const BenchSizes& sizes, BenchReport* report);
void measure_lua(const BenchSizes& sizes, BenchReport* report);
void measure_explore(const BenchSizes& sizes, BenchReport* report);
void measure_hunt(const BenchSizes& sizes, BenchReport* report);
void measure_peak_rss(BenchReport* report);

// The README's default campaign (safe faults, mixed locks, 2 locks, 4
// clients, 60 s each), `seeds` seeds, every seed run (keep going, no
// shrinking).
CampaignOptions readme_campaign_options(int seeds);

// The median of a non-empty list (the mean of the middle two when even).
double median(std::vector<double> v);

// The selected measurements of the above, in that order; peak RSS always.
BenchReport run_bench(const BenchSizes& sizes, bool quick, const BenchProgress& progress = {},
                      const BenchSelection& selection = BenchSelection::all());

}  // namespace locksim
