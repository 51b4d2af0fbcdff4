// locksim campaign: runs N seeded scenarios (seed i = --base-seed + i) on the
// model, on live redis-servers running the pack's own Lua, or on both
// (--backend; default: the model when it stands for the pack, else live),
// --workers at a time, checks each history with the CheckerSuite as it streams, and
// stops at the first failing seed (--keep-going: goes on and lists every
// failing seed): prints every violation of the seed and, for each violated
// property, its shrunk counterexample (properties/shrink.h). What fails is
// the VerdictPolicy: every non-advisory property, plus --fail-on names, minus
// violations with a cause under --unexplained-only. Advisory reports
// (busy_poll) are summarised either way. Progress goes to stderr.
// --mutant takes a client mutant (impl/client_mutant.h) or a script mutant
// (model/variant.h, run as its ModelVariant); --scripts DIR takes a script
// pack: the model runs the ModelVariant its manifest names (refused, exit 2,
// when the model cannot stand for the pack); live and both run its Lua, one
// set of redis-servers per worker, reused (flushed) across seeds; both also
// runs every seed on the correct model and fails a seed, as a divergence, at
// the first event where the live history differs. A live seed that cannot
// complete (a script that never answers) stops the campaign with exit 2,
// naming the seed and the script. Shrinking and traces use the backend the
// seeds were checked on.
// --out DIR writes DIR/report.html, DIR/timeline.svg (a sample of the first
// seed, or the shrunk counterexample with its evidence highlighted) and, on a
// failure, DIR/seed-<N>.jsonl: the failing seed's full trace, replayable with
// `locksim replay`.
// Exit: 0 no property failed, 1 a property failed, 2 bad input.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <algorithm>
#include <set>
#include <vector>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "properties/campaign.h"
#include "properties/scenario_check.h"
#include "reports/campaign_report.h"
#include "reports/timeline.h"
#include "sim/model_backend_source.h"
#include "sim/run.h"
#include "tools/cli/commands.h"
#include "tools/cli/live_backend_source.h"
#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim::cli {

namespace {

struct CampaignArgs {
  CampaignOptions options;
  std::string backend;  // as typed
  bool backend_given = false;  // else: the default for the pack
  bool match_variant = false;  // both: compare with the pack's model variant
  bool json = false;
  bool no_shrink = false;
  std::string persistence = "none";  // as typed
  std::string out_dir;
  std::vector<std::string> fail_on;
};

// Keeps the first `limit` events of a run (for the sample timeline).
class FirstEventsSink final : public EventSink {
 public:
  explicit FirstEventsSink(size_t limit) : limit_(limit) {}
  void on_event(const Event& e) override {
    if (events.size() < limit_) events.push_back(e);
  }
  std::vector<Event> events;

 private:
  size_t limit_;
};

constexpr size_t kSampleTimelineEvents = 120;

// The files a campaign reads (its --scripts pack): never an output.
std::vector<std::string> campaign_input_files(const CampaignOptions& o) {
  if (o.scripts.empty()) return {};
  try {
    return ScriptPack::load(o.scripts).files();
  } catch (const ScriptPackError&) {
    return {};  // campaign_template() reports a bad pack
  }
}

// Writes report.html, timeline.svg and (on a failure) the failing seed's trace.
void write_outputs(const CampaignArgs& args, const Scenario& tmpl, const CampaignResult& r, double wall_s,
                   BackendSource& source) {
  namespace fs = std::filesystem;
  const fs::path dir(args.out_dir);
  CampaignReport report;
  const CampaignOptions& o = args.options;
  report.command_line = "locksim campaign --seeds " + std::to_string(o.seeds) + " --base-seed " +
                        std::to_string(o.base_seed) + " --profile " + o.profile + " --lock " + o.lock_kind +
                        " --clients " + std::to_string(o.clients) + " --locks " + std::to_string(o.locks) +
                        " --duration-ms " + std::to_string(o.duration_ms) +
                        (o.mutant != "none" && !o.mutant.empty() ? " --mutant " + o.mutant : "") +
                        (o.scripts.empty() ? "" : " --scripts " + o.scripts) + " --backend " +
                        std::string(campaign_backend_name(o.backend));
  report.profile = tmpl.profile;
  report.lock_kind = tmpl.lock_kind;
  report.mutant = tmpl.mutant != "none" ? tmpl.mutant : (tmpl.model_variant != "correct" ? tmpl.model_variant : "");
  report.first_seed = tmpl.seed;
  report.seeds_run = static_cast<uint64_t>(r.seeds_run);
  report.seeds_failed = 0;
  report.events_checked = r.events_checked;
  report.wall_s = wall_s;
  report.timeline_file = "timeline.svg";
  TimelineOptions timeline;
  std::vector<Event> drawn;
  if (r.failed()) {
    const SeedFailure& first = r.failures.front();
    Scenario failing = tmpl;
    failing.seed = first.seed;
    const std::string trace_name = "seed-" + std::to_string(failing.seed) + ".jsonl";
    refuse_output_over_input((dir / trace_name).string(), campaign_input_files(args.options));
    TraceWriter writer((dir / trace_name).string(), make_trace_header(failing, source.kind()));
    check_scenario_on(source, failing, default_check_config(), &writer);
    writer.close();
    report.failing_trace_file = trace_name;
    report.seeds_failed = r.failures.size();
    for (const SeedFailure& sf : r.failures) {
      if (sf.divergence) {
        CampaignFailure f;
        f.seed = sf.seed;
        f.property = "divergence";
        f.explanation = "event " + std::to_string(sf.divergence->index) + ": model " +
                        sf.divergence->expected_line + " vs live " + sf.divergence->actual_line;
        report.failures.push_back(std::move(f));
      }
      for (const Violation& v : sf.violations) {
        CampaignFailure f;
        f.seed = sf.seed;
        f.property = v.property;
        f.explanation = v.to_string();
        for (const Counterexample& cx : sf.shrunk) {
          if (cx.violation.property != v.property) continue;
          f.explanation = cx.violation.to_string();
          f.counterexample = cx.events;
        }
        // One entry per property and seed.
        const bool dup = std::any_of(report.failures.begin(), report.failures.end(), [&](const CampaignFailure& g) {
          return g.seed == f.seed && g.property == f.property;
        });
        if (!dup) report.failures.push_back(std::move(f));
      }
    }
    if (!report.failures.empty()) report.failures.front().timeline_file = "timeline.svg";
    if (first.violations.empty()) {  // a divergence only
      timeline.title = "seed " + std::to_string(failing.seed) + ": divergence at event " +
                       std::to_string(first.divergence->index) + " (first events of the live run)";
    } else {
      const Violation& v = first.shrunk.empty() ? first.violations.front() : first.shrunk.front().violation;
      timeline.title = "seed " + std::to_string(failing.seed) + ": " + v.property +
                       (first.shrunk.empty() ? " (first events)" : " (shrunk counterexample)");
      timeline.highlight_ids.insert(v.event_ids.begin(), v.event_ids.end());
    }
    if (!first.shrunk.empty()) {
      drawn = first.shrunk.front().events;
    } else {
      FirstEventsSink sample(kSampleTimelineEvents);
      check_scenario_on(source, failing, default_check_config(), &sample);
      drawn = sample.events;
    }
    report.timeline_file.clear();  // drawn with the failure instead
  } else {
    FirstEventsSink sample(kSampleTimelineEvents);
    check_scenario_on(source, tmpl, default_check_config(), &sample);
    drawn = sample.events;
    timeline.title = "seed " + std::to_string(tmpl.seed) + ", first " + std::to_string(drawn.size()) + " events";
  }
  render_timeline(timeline_dot(drawn, timeline), (dir / "timeline.svg").string(), "svg");
  write_campaign_report(report, (dir / "report.html").string());
  std::fprintf(stderr, "campaign: wrote %s\n", (dir / "report.html").string().c_str());
}

// The default backend: the model when it stands for the pack (or there is
// none), else live. A pack that does not load is left to campaign_template().
CampaignBackend default_backend(const CampaignOptions& o) {
  if (o.scripts.empty()) return CampaignBackend::Model;
  Scenario probe;
  probe.scripts = o.scripts;
  try {
    resolve_scenario_scripts(&probe, "model");
  } catch (const ScenarioError&) {
    return CampaignBackend::Live;
  } catch (const ScriptPackError&) {
    return CampaignBackend::Model;
  }
  return CampaignBackend::Model;
}

// One worker per --workers: model sources, or live servers started here
// (before any seed runs, so a script Redis rejects is exit 2 at once).
std::vector<CampaignWorker> make_workers(const CampaignOptions& o, const Scenario& tmpl, bool match_variant) {
  std::vector<CampaignWorker> workers(static_cast<size_t>(o.workers));
  if (!runs_live(o.backend)) {
    for (CampaignWorker& w : workers) w.checked = std::make_unique<ModelBackendSource>();
    return workers;
  }
  const std::string dir = tmpl.scripts.empty() ? ScriptPack::default_dir() : tmpl.scripts;
  try {
    const ScriptPack pack = ScriptPack::load(dir);
    for (CampaignWorker& w : workers) {
      auto live = std::make_unique<LiveBackendSource>(pack);
      live->start(tmpl.servers);
      w.checked = std::move(live);
      // both: the pack against the correct model, as `locksim diff` does
      // (--match-variant: against the model variant the pack names).
      if (o.backend == CampaignBackend::Both) {
        w.reference = match_variant ? std::make_unique<ModelBackendSource>()
                                    : std::make_unique<ModelBackendSource>(ModelVariant::Correct);
      }
    }
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  } catch (const RedisError& e) {
    throw UsageError(std::string("cannot start the live backend: ") + e.what());
  }
  return workers;
}

int run_campaign_command(CampaignArgs& args) {
  CampaignOptions& o = args.options;
  if (o.seeds < 1 || o.seeds > 100'000'000) throw UsageError("--seeds must be between 1 and 100000000");
  if (o.base_seed > std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(o.seeds - 1)) {
    throw UsageError("--base-seed " + std::to_string(o.base_seed) + " + --seeds " + std::to_string(o.seeds) +
                     " passes the largest seed, 18446744073709551615 (seeds would wrap around to 0)");
  }
  if (args.no_shrink) o.shrink = false;
  if (auto p = persistence_from_name(args.persistence)) {
    o.persistence = *p;
  } else {
    throw UsageError("--persistence: unknown value '" + args.persistence + "' (none, always)");
  }
  if (!args.backend_given) {
    o.backend = default_backend(o);
  } else if (auto backend = campaign_backend_from_name(args.backend)) {
    o.backend = *backend;
  } else {
    throw UsageError("--backend: unknown backend '" + args.backend + "' (model, live, both)");
  }
  try {
    apply_fail_on(&o.policy, args.fail_on);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  Scenario tmpl;
  try {
    tmpl = campaign_template(o);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  if (args.match_variant && o.backend != CampaignBackend::Both) {
    throw UsageError("--match-variant only goes with --backend both");
  }
  std::vector<CampaignWorker> workers = make_workers(o, tmpl, args.match_variant);
  if (!args.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out_dir, ec);
    if (ec || !std::filesystem::is_directory(args.out_dir)) {
      throw UsageError("cannot create output directory '" + args.out_dir + "': " + ec.message());
    }
    const std::filesystem::path dir(args.out_dir);
    try {
      for (const char* name : {"report.html", "timeline.svg"}) {
        refuse_output_over_input((dir / name).string(), campaign_input_files(o));
      }
    } catch (const OutputError& e) {
      throw UsageError(e.what());
    }
  }
  const auto started = std::chrono::steady_clock::now();
  // Progress bar on a terminal only; logs and pipes get just the result.
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  int last_percent = -1;
  const auto on_progress = [&](int done, int total) {
    if (!tty) return;
    const int percent = static_cast<int>(100LL * done / total);
    if (percent == last_percent && done != total) return;
    last_percent = percent;
    const double elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    constexpr int kBarWidth = 30;
    const int filled = percent * kBarWidth / 100;
    std::fprintf(stderr, "\rcampaign [%.*s%*s] %3d%% %d/%d seeds, %.1f s", filled,
                 "##############################", kBarWidth - filled, "", percent, done, total, elapsed_s);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
  CampaignResult r;
  try {
    r = run_campaign(tmpl, o, workers, on_progress);
  } catch (const CampaignSeedError& e) {
    if (tty) std::fprintf(stderr, "\n");
    throw UsageError(std::string("campaign cut short on the ") + std::string(campaign_backend_name(o.backend)) +
                     " backend: " + e.what() + "; no verdict, no outputs written");
  }
  if (tty && r.seeds_run < o.seeds) std::fprintf(stderr, "\n");
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The verdict first: whatever happens to the outputs, it is never lost.
  if (args.json) {
    std::printf("%s\n", campaign_result_to_json(r).dump().c_str());
  } else {
    std::printf("%s", format_campaign_result(r).c_str());
  }
  std::fflush(stdout);
  const int verdict_code = r.failed() ? 1 : 0;
  if (!args.out_dir.empty()) {
    try {
      write_outputs(args, tmpl, r, wall_s, *workers.front().checked);
    } catch (const std::exception& e) {
      // Each output is complete or absent (OutputFile); say which verdict stands.
      std::fprintf(stderr,
                   "locksim: cannot write the campaign outputs: %s (the campaign itself %s, as printed above; "
                   "exit 2 for the outputs)\n",
                   e.what(), r.failed() ? "FAILED" : "passed");
      return 2;
    }
  }
  return verdict_code;
}

}  // namespace

void add_campaign_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CampaignArgs>();
  CLI::App* cmd =
      app.add_subcommand("campaign", "Run seeded scenarios on the model or live Redis and check every property");
  cmd->add_option("--seeds", args->options.seeds, "number of seeds to run")->required()->check(integer_in(1, 100'000'000));
  cmd->add_option("--profile", args->options.profile,
                  "fault profile: none, safe, pauses, skew, hostile, restarts, failover, server-clock, or a "
                  "'+' combination (pauses+restarts)")->capture_default_str();
  cmd->add_option("--lock", args->options.lock_kind,
                  "lock kind: rlock, fair, mixed, multi (multi-lock: one member per server, all needed), redlock "
                  "(RedLock: a majority of the servers)")->capture_default_str();
  cmd->add_option("--servers", args->options.servers,
                  "Redis servers per scenario (lock i lives on server i % servers; a multi/redlock group has "
                  "one member on each)")->capture_default_str()->check(integer_in(1, kMaxServers));
  cmd->add_option("--persistence", args->persistence,
                  "what a server restart keeps: none (all data lost) or always (append-only, fsync on every "
                  "write: all kept)")->capture_default_str();
  cmd->add_option("--restart-delay-ms", args->options.restart_delay_ms,
                  "a restarted server stays down this long (requests meanwhile are refused)")
      ->capture_default_str()->check(integer_in(int64_t{0}, kMaxRestartDelayMs));
  cmd->add_option("--fair-slot-ms", args->options.fair_slot_ms,
                  "Fair lock: every slot this long whatever the caller's wait (older versions: 5000); 0: the wait")
      ->capture_default_str()->check(integer_in(int64_t{0}, kMaxFairSlotMs));
  cmd->add_flag("--validity", args->options.validity,
                "RedLock: check the validity (lease - elapsed - drift) and believe the hold only until it ends");
  cmd->add_option("--mutant", args->options.mutant, "client or script mutant to run (see locksim mutants --list)")->capture_default_str();
  cmd->add_option("--scripts", args->options.scripts,
                  "script pack dir (on the model: its model_variant; live: its own Lua)")->capture_default_str();
  cmd->add_option("--backend", args->backend,
                  "model, live (the pack's Lua on redis-servers in virtual time) or both (live, and every history "
                  "compared event by event with the correct model's). Default: model, or live for a pack the "
                  "model cannot stand for")
      ->each([args](const std::string&) { args->backend_given = true; });
  cmd->add_flag("--match-variant", args->match_variant,
                "with --backend both: compare with the model variant the pack names instead of the correct model");
  cmd->add_option("--workers", args->options.workers,
                  "seeds run at once, one backend (live: one set of redis-servers) each; the result is the same "
                  "for any number")
      ->capture_default_str()->check(integer_in(1, kMaxCampaignWorkers));
  cmd->add_option("--base-seed", args->options.base_seed, "seed of the first run")->capture_default_str()->check(non_negative_integer());
  cmd->add_option("--clients", args->options.clients, "clients per scenario")
      ->capture_default_str()->check(integer_in(1, kMaxClients));
  cmd->add_option("--locks", args->options.locks, "locks per scenario")->capture_default_str()->check(integer_in(1, kMaxLocks));
  cmd->add_option("--duration-ms", args->options.duration_ms, "workload duration per scenario")
      ->capture_default_str()->check(integer_in(int64_t{0}, kMaxDurationMs));
  cmd->add_flag("--no-shrink", args->no_shrink, "report the failing seed without shrinking");
  cmd->add_flag("--keep-going", args->options.keep_going,
                "go on past failing seeds and list every one (only the first is shrunk)");
  cmd->add_option("--fail-on", args->fail_on,
                  "also fail on these properties (comma-separated or repeated; e.g. busy_poll, or all). "
                  "Default: every property except the advisory busy_poll");
  cmd->add_flag("--unexplained-only", args->options.policy.unexplained_only,
                "ignore violations whose cause is a fault the profile permits (non-empty blamed fault)");
  cmd->add_flag("--json", args->json, "print the result as JSON");
  cmd->add_option("--out", args->out_dir,
                  "write report.html, timeline.svg and the failing seed's trace into this directory");
  cmd->callback([args, exit_code] { *exit_code = run_campaign_command(*args); });
}

}  // namespace locksim::cli
