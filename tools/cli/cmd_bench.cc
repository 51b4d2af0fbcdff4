// locksim bench [--json] [--quick]: runs the fixed, documented scenarios of
// tools/bench/bench_measure.h in this one process and reports model script
// executions/s, simulated-time speed-up, checker and trace-check events/s,
// live executions/s beside redis-benchmark's EVALSHA rate, campaign seeds/s,
// lua backend executions/s and its fair-campaign speed over live, and peak
// RSS; with --only hunt (only then: it takes minutes), the time to find
// every mutant, guided campaigns against random ones, as a table and
// median ratios (tools/bench/measure_hunt.cc). A figure that cannot be measured here is null with its
// reason (JSON: "null_reasons"). --quick scales every scenario down (seconds,
// for tests). Speeds are reported, never judged: exit 0 when the run
// completed, 2 on an environment error.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tools/bench/allocator.h"
#include "tools/bench/bench_measure.h"
#include "tools/cli/commands.h"

namespace locksim::cli {

namespace {

struct BenchArgs {
  bool json = false;
  bool quick = false;
  std::vector<std::string> only;  // measurement names; empty: all
};

// The 1-minute load average (/proc/loadavg), "?" where there is none: wall
// rates on a shared machine mean little without it.
std::string load_average_1m() {
  std::ifstream in("/proc/loadavg");
  std::string first;
  return in >> first ? first : "?";
}

int bench_command(const BenchArgs& args) {
  const std::string load_before = load_average_1m();
  const BenchSizes sizes = args.quick ? BenchSizes::quick() : BenchSizes::full();
  BenchSelection selection = BenchSelection::all();
  if (!args.only.empty()) {
    selection = BenchSelection::none();
    for (const std::string& name : args.only) {
      BenchPart part{};
      if (!bench_part_from_name(name, &part)) {
        std::fprintf(stderr, "locksim bench: --only: unknown measurement '%s' (model, contention, checker, live, campaign, lua, explore, hunt)\n",
                     name.c_str());
        return 2;
      }
      selection.add(part);
    }
  }
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  const BenchReport report = run_bench(sizes, args.quick, [tty](const std::string& what) {
    if (tty) std::fprintf(stderr, "bench: %s...\n", what.c_str());
  }, selection);
  if (args.json) {
    std::printf("%s\n", report.to_json().dump().c_str());
  } else {
    std::printf("%s", report.to_text().c_str());
    std::printf("  (wall-clock rates; %ld CPUs, %s, 1-minute load average %s at the start, %s at the end)\n",
                ::sysconf(_SC_NPROCESSORS_ONLN), allocator_in_use().c_str(), load_before.c_str(),
                load_average_1m().c_str());
  }
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, CliContext* ctx) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Measure speed on fixed scenarios: model execs/s, contention-64 speed-up, checker-10m, live vs "
      "redis-benchmark, campaign seeds/s, lua execs/s, explore states/s (beside probes of the host), peak RSS; --only hunt: guided against random time to find every mutant");
  cmd->add_flag("--json", args->json,
                "print one JSON object (model_execs_per_s, sim_speedup, checker_events_per_s, "
                "trace_check_events_per_s, live_execs_per_s, redis_benchmark_evalsha_per_s, "
                "live_vs_redis_benchmark, campaign_seeds_per_s_1w, campaign_seeds_per_s_2w, lua_execs_per_s, "
                "lua_vs_live_fair_campaign, explore_states_per_s, explore_states_per_s_2w, explore_states_per_s_2x1w, host_loop_2x1t, host_page_touch_us, "
                "hunt_median_ratio, "
                "hunt_rare_median_ratio, hunt_main_median_ratio, hunt_beyond_batch_median_ratio, hunt_states_ratio, peak_rss_mb; null_reasons for nulls; quick; allocator: "
                "the malloc the run used; hunt: the hunt's table)");
  cmd->add_flag("--quick", args->quick,
                "scaled-down scenarios (1M-event checker history, 5 simulated minutes, fewer scripts and seeds)");
  cmd->add_option("--only", args->only,
                  "run only these measurements (comma-separated or repeated: model, contention, checker, live, "
                  "campaign, lua, explore, hunt); the others' figures are null. Peak RSS is always reported. hunt "
                  "(time to find every mutant, guided against random: minutes) runs only when named here")
      ->delimiter(',');
  cmd->callback([args, ctx] { ctx->exit_code = bench_command(*args); });
}

}  // namespace locksim::cli
