// locksim explore: every schedule of a small configuration
// (search/explore.h): each client runs its --ops; the link has one fixed
// latency; at each instant any client with something left to do may suffer
// one of the --faults, and every message may be lost or delayed past the
// next deadline (loss, delay), within --max-faults; actions due at the same
// instant run in every order. States are fingerprinted and merged. Breadth
// first by default (the first counterexample of each property is a shortest
// one), --dfs, or --random-walk.
// Prints the counts (states, distinct states, transitions, depth, states/s,
// peak RSS), whether the search completed ("every schedule of this
// configuration") or which limit stopped it, and each failing property's
// first counterexample. --json prints the result as one JSON object
// (search/explore_json.h) plus the backend, command and timings.
// Runs directory (--out DIR, else runs/<UTC time>-explore-<lock>/, linked
// from runs/latest): summary.json, report.html, failures/<property>.jsonl
// (the counterexample's trace: its plan in the header, so replay, check and
// timeline read it, and replay --backend live runs it on redis-server) and
// timelines/<property>.svg. --confirm-live runs every counterexample on a
// live redis-server too and says whether the history and the violation are
// the same.
// Exit: 0 no failing violation (complete or not: the output says which),
// 1 a property failed, 2 bad input, 3 the environment (the runs directory
// cannot be written or another locksim writes it, redis-server cannot be
// started for --confirm-live).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/campaign_text.h"
#include "impl/redis_conn.h"
#include "impl/script_pack.h"
#include "redis/lua_scripting.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "reports/explore_report.h"
#include "reports/run_artifacts.h"
#include "reports/timeline.h"
#include "search/campaign.h"
#include "search/explore.h"
#include "search/explore_json.h"
#include "search/explore_setup.h"
#include "sim/explicit_plan_json.h"
#include "sim/lua_backend_source.h"
#include "sim/model_backend_source.h"
#include "sim/run.h"
#include "impl/builtin_packs.h"
#include "tools/cli/cmd_explore.h"
#include "tools/cli/memory_limit_option.h"
#include "tools/cli/commands.h"
#include "tools/cli/progress_line.h"
#include "tools/cli/run_backend.h"
#include "tools/cli/runs_dir.h"
#include "tools/cli/scenario_flags.h"
#include "tools/cli/staged_run_dir.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim::cli {

namespace {

constexpr int kMaxExploreClients = 4;
constexpr int kMaxExploreLocks = 4;
constexpr int kMaxExploreServers = 5;  // a RedLock of five
constexpr int kMaxExploreWorkers = 64;


std::vector<ExploreFault> parse_faults(const std::string& text) {
  std::vector<ExploreFault> out;
  if (text == "none") return out;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto fault = explore_fault_from_name(name);
    if (!fault) {
      std::string known;
      for (const ExploreFault f : all_explore_faults()) known += std::string(known.empty() ? "" : ", ") + explore_fault_name(f);
      throw UsageError("--faults: unknown fault '" + name + "' (" + known + ", or none)");
    }
    if (std::find(out.begin(), out.end(), *fault) == out.end()) out.push_back(*fault);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// The command that runs this exploration again (without --out and --workers:
// the result is the same for any number of workers).
std::string explore_command_line(const ExploreArgs& a, const std::string& backend, const ProgramName& program) {
  std::string c = program.anywhere + " explore --lock " + shell_word(a.lock) + " --clients " + std::to_string(a.clients);
  if (a.locks != 1) c += " --locks " + std::to_string(a.locks);
  if (a.servers != 1) c += " --servers " + std::to_string(a.servers);
  c += " --ops " + shell_word(a.ops) + " --faults " + shell_word(a.faults) + " --max-faults " + std::to_string(a.max_faults);
  if (a.hold_ms != ExploreArgs{}.hold_ms) c += " --hold-ms " + std::to_string(a.hold_ms);
  if (a.latency_us != ExploreArgs{}.latency_us) c += " --latency-us " + std::to_string(a.latency_us);
  if (a.drain_ms != ExploreArgs{}.drain_ms) c += " --drain-ms " + std::to_string(a.drain_ms);
  if (a.pause_ms != ExploreArgs{}.pause_ms) c += " --pause-ms " + std::to_string(a.pause_ms);
  if (a.jump_ms != ExploreArgs{}.jump_ms) c += " --jump-ms " + std::to_string(a.jump_ms);
  if (a.persistence != "none") c += " --persistence " + shell_word(a.persistence);
  if (a.restart_delay_ms != 0) c += " --restart-delay-ms " + std::to_string(a.restart_delay_ms);
  if (a.fair_slot_ms >= 0) c += " --fair-slot-ms " + std::to_string(a.fair_slot_ms);
  if (a.validity) c += " --validity";
  if (a.backoff != ExploreArgs{}.backoff) c += " --backoff " + shell_word(a.backoff);
  if (a.values >= 0) c += " --values " + std::to_string(a.values);
  if (!a.scripts.empty())
    c += " --scripts " + shell_word(is_builtin_name(a.scripts) ? a.scripts : absolute_path_text(a.scripts));
  if (!a.mutant.empty() && a.mutant != "none") c += " --mutant " + shell_word(a.mutant);
  c += " --backend " + backend;
  if (a.dfs) c += " --dfs";
  if (a.random_walk) c += " --random-walk --walks " + std::to_string(a.walks) + " --seed " + std::to_string(a.seed);
  if (a.max_depth != ExploreArgs{}.max_depth) c += " --max-depth " + std::to_string(a.max_depth);
  if (a.max_states != ExploreArgs{}.max_states) c += " --max-states " + std::to_string(a.max_states);
  if (a.max_memory_mb != ExploreArgs{}.max_memory_mb) c += " --max-memory-mb " + std::to_string(a.max_memory_mb);
  if (a.memory_limit.given) c += " --memory-limit " + shell_word(a.memory_limit.text);
  for (const std::string& f : a.fail_on) c += " --fail-on " + shell_word(f);
  if (a.unexplained_only) c += " --unexplained-only";
  return c;
}

// "failures/<property>.jsonl", "timelines/<property>.svg".
std::string explore_trace_file(const std::string& property) { return "failures/" + property + ".jsonl"; }
std::string explore_timeline_file(const std::string& property) { return "timelines/" + property + ".svg"; }

double peak_rss_mb() {
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Explore progress (tools/cli/progress_line.h): distinct states,
// transitions, depth and states/s so far.
void show_progress(ProgressLine& line, const ExploreResult& r) {
  if (!line.due()) return;
  const double elapsed_s = line.elapsed_s();
  char text[200];
  std::snprintf(text, sizeof text, "explore: %llu distinct states, %llu transitions, depth %llu, %.0f states/s",
                static_cast<unsigned long long>(r.distinct_states), static_cast<unsigned long long>(r.transitions),
                static_cast<unsigned long long>(r.max_depth),
                elapsed_s > 0 ? static_cast<double>(r.distinct_states) / elapsed_s : 0.0);
  line.print(text);
}

// A counterexample run again on a live redis-server: the same history up
// to the violation, and the same property violated there.
struct LiveConfirmation {
  bool same_history = false;
  bool same_violation = false;
  std::string difference;  // the first differing event, when not the same
};

LiveConfirmation confirm_on_live(const ExploreCounterexample& cx) {
  Scenario scenario = cx.plan.scenario;
  RunBackend live = make_run_backend(BackendKind::Live, &scenario);
  ExplicitPlan plan = cx.plan;
  plan.scenario = scenario;
  CheckerSuite suite(check_config_for(scenario));
  VectorSink history;
  FanoutSink fan;
  fan.add(&suite);
  fan.add(&history);
  const RunSummary summary = run_explicit(plan, *live.backend, fan);
  suite.finish(summary.end_true_us);
  LiveConfirmation out;
  out.same_history = true;
  for (size_t i = 0; i < cx.events.size(); ++i) {
    if (i >= history.events.size() || !(history.events[i] == cx.events[i])) {
      out.same_history = false;
      out.difference = "event " + std::to_string(i) + ": explored " + format_event(cx.events[i]) + "; live " +
                       (i < history.events.size() ? format_event(history.events[i]) : std::string("<end of run>"));
      break;
    }
  }
  for (const Violation& v : suite.violations()) {
    if (v.property == cx.violation.property && v.detected_at_event == cx.violation.detected_at_event) {
      out.same_violation = true;
    }
  }
  return out;
}

std::string format_result(const ExploreArgs& a, const ExploreConfig& c, const ExploreResult& r,
                          const std::string& backend, double wall_s) {
  std::string s;
  char line[512];
  std::string faults;
  for (const ExploreFault f : c.faults) faults += std::string(faults.empty() ? "" : ",") + explore_fault_name(f);
  std::snprintf(line, sizeof line,
                "explore: %s, %d client(s) x %s, %d lock(s), %d server(s); faults %s (at most %d); %s; %s backend; "
                "%d worker(s)\n",
                a.lock.c_str(), a.clients, a.ops.c_str(), a.locks, a.servers, faults.empty() ? "none" : faults.c_str(),
                c.max_faults, explore_order_name(c.order), backend.c_str(), c.workers);
  s += line;
  std::snprintf(line, sizeof line,
                "states: %llu distinct, %llu transitions (%llu ending a run), depth %llu; %.1f s, %.0f distinct "
                "states/s, %.0f transitions/s; peak RSS %.0f MB\n",
                static_cast<unsigned long long>(r.distinct_states), static_cast<unsigned long long>(r.transitions),
                static_cast<unsigned long long>(r.terminal_transitions), static_cast<unsigned long long>(r.max_depth), wall_s,
                wall_s > 0 ? static_cast<double>(r.distinct_states) / wall_s : 0.0,
                wall_s > 0 ? static_cast<double>(r.transitions) / wall_s : 0.0, peak_rss_mb());
  s += line;
  if (r.complete) {
    if (r.violations.empty()) {
      s += "COMPLETE: no violation in " + std::to_string(r.distinct_states) +
           " distinct states: every schedule of this configuration\n";
    } else {
      s += "COMPLETE: every schedule of this configuration explored (paths past a violation excepted)\n";
    }
  } else if (r.limit == "walks") {
    s += "INCOMPLETE: " + std::to_string(c.walks) + " random walks (a sample, not every schedule)\n";
  } else {
    s += "INCOMPLETE: stopped at --" + r.limit + " (not every schedule was explored)\n";
  }
  for (const auto& [property, count] : r.advisories) {
    s += "advisory: " + property + " reported on " + std::to_string(count) + " transition(s)\n";
  }
  for (const auto& [property, count] : r.explained) {
    s += "explained (--unexplained-only, re-runs confirmed a cause): " + property + " on " + std::to_string(count) +
         " transition(s)\n";
  }
  if (r.violations.empty()) return s;
  s += "VIOLATIONS (" + std::to_string(r.violations.size()) + " propert" + (r.violations.size() == 1 ? "y" : "ies") +
       "):\n";
  for (const ExploreCounterexample& cx : r.violations) {
    std::snprintf(line, sizeof line,
                  "  %s: first at depth %llu, after %llu distinct states; %llu violating transition(s) found\n",
                  cx.violation.property.c_str(), static_cast<unsigned long long>(cx.depth),
                  static_cast<unsigned long long>(cx.distinct_before), static_cast<unsigned long long>(cx.paths));
    s += line;
    s += "    " + cx.violation.to_string() + "\n";
    s += "    counterexample (" + std::to_string(cx.events.size()) + " events):\n";
    for (const Event& e : cx.events) s += "      " + format_event(e) + "\n";
  }
  return s;
}

// Writes the runs directory into its staging dir, then puts it in place.
void write_outputs(const std::string& out_dir, const ExploreResult& r, nlohmann::json summary, BackendSource& source,
                   StagedRunDir& staged, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  const fs::path dir(staged.path());
  if (!r.violations.empty()) {
    fs::create_directories(dir / "failures");
  }
  for (size_t i = 0; i < r.violations.size(); ++i) {
    const ExploreCounterexample& cx = r.violations[i];
    const std::string trace = explore_trace_file(cx.violation.property);
    const std::string svg = explore_timeline_file(cx.violation.property);
    refuse_output_over_input((dir / trace).string(), inputs);
    refuse_output_over_input((dir / svg).string(), inputs);
    TraceHeader header = make_trace_header(cx.plan.scenario, source.kind());
    header.plan = explicit_plan_to_json(cx.plan);
    TraceWriter writer((dir / trace).string(), header);
    run_explicit(cx.plan, source.fresh(cx.plan.scenario), writer);
    writer.close();
    TimelineOptions timeline = timeline_options_for(cx.plan.scenario);
    timeline.title = "explore: " + cx.violation.property + " (counterexample, " + std::to_string(cx.events.size()) +
                     " events, depth " + std::to_string(cx.depth) + ")";
    bool drawn = !summary.contains("timelines_not_drawn");
    if (drawn) {
      try {
        fs::create_directories(dir / "timelines");
        // The violation in focus: its title in words, its explanation, its evidence.
        render_timeline(violation_timeline_dot(cx.events, cx.violation, timeline), (dir / svg).string(), "svg");
      } catch (const DotNotFound&) {
        fs::remove(dir / "timelines");  // the first drawing failed: it is empty
        summary["timelines_not_drawn"] = kDotMissingReason;
        std::fprintf(stderr, "explore: no timeline drawn: %s\n", kDotMissingReason);
        drawn = false;
      }
    }
    summary["violations"][i]["trace"] = trace;
    summary["violations"][i]["timeline"] = drawn ? nlohmann::json(svg) : nlohmann::json();
  }
  OutputFile out((dir / kExploreSummaryFile).string());
  out.write(summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  out.commit();
  write_explore_report(staged.path(), summary);
  staged.publish();
  const bool drawn = !summary.contains("timelines_not_drawn");
  std::fprintf(stderr, "explore: wrote %s (summary.json, report.html%s)\n", out_dir.c_str(),
               r.violations.empty() ? "" : (drawn ? ", failures/, timelines/" : ", failures/"));
}

// The exploration, resolved: the pack loaded once, the backend, the
// configuration with its plan, a backend source per worker.
struct ExploreSetup {
  ExploreConfig config;
  BackendKind backend = BackendKind::Model;
  std::vector<std::unique_ptr<BackendSource>> sources;
  std::vector<std::string> inputs;  // the pack's files: never an output
  size_t lua_memory_bytes = 0;      // --memory-limit
};

ExploreSetup set_up(const ExploreRequest& q) {
  ExploreSetup out;
  Scenario named = q.campaign.scenario;
  named.scripts = campaign_scripts(q.campaign);
  std::optional<ScriptPack> pack;
  try {
    pack = load_scenario_pack(named);
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  }
  out.backend = q.backend.value_or(default_backend_for(named, *pack));
  CampaignOptions o = q.campaign;
  o.backend = CampaignBackend{out.backend, std::nullopt};
  try {
    const Scenario scenario = campaign_template(o, *pack);
    out.config.plan = explore_plan(scenario, q.args.ops, q.args.hold_ms, q.args.latency_us, q.args.drain_ms);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  const ExploreArgs& a = q.args;
  out.config.faults = q.faults;
  out.config.max_faults = a.max_faults;
  out.config.pause_ms = a.pause_ms;
  out.config.jump_ms = a.jump_ms;
  out.config.order = a.random_walk ? ExploreOrder::RandomWalk : (a.dfs ? ExploreOrder::DepthFirst : ExploreOrder::BreadthFirst);
  out.config.walks = a.walks;
  out.config.walk_seed = a.seed;
  out.config.max_depth = a.max_depth;
  out.config.max_states = a.max_states;
  out.config.max_memory_bytes = a.max_memory_mb << 20;
  out.config.workers = a.workers;
  out.config.check = default_check_config();
  out.config.policy = q.policy;
  out.lua_memory_bytes = q.lua_limits.memory_bytes;
  try {
    if (out.backend == BackendKind::Lua) out.inputs = pack->files();
    // One source a worker, and with --unexplained-only one for the causes.
    const int sources = a.workers + (q.policy.unexplained_only ? 1 : 0);
    for (int w = 0; w < sources; ++w) {
      if (out.backend == BackendKind::Lua) {
        out.sources.push_back(std::make_unique<LuaBackendSource>(*pack, q.lua_limits));
      } else {
        out.sources.push_back(std::make_unique<ModelBackendSource>());
      }
    }
  } catch (const ScriptPackError& e) {
    throw UsageError(std::string("bad script pack: ") + e.what());
  }
  return out;
}

// The search itself, with its progress line.
ExploreResult explore_with_progress(ExploreSetup& setup) {
  std::vector<BackendSource*> source_ptrs;
  for (auto& s : setup.sources) source_ptrs.push_back(s.get());
  ProgressLine progress;
  try {
    ExploreResult r = run_explore(setup.config, source_ptrs, [&progress](const ExploreResult& p) { show_progress(progress, p); });
    progress.end();
    return r;
  } catch (const LuaScriptAbort& e) {
    progress.end();
    std::string why = e.what();
    // Explore runs the pack's Lua in copyable runs, which hold less than a
    // larger --memory-limit (sim/lua_backend_source.h): say which limit it was.
    if (why.find(" MiB of memory") != std::string::npos &&
        setup.lua_memory_bytes > LuaBackendSource::kCopyableMemoryBytes) {
      why += " (explore's copies of a run hold at most " +
             std::to_string(LuaBackendSource::kCopyableMemoryBytes >> 20) + " MiB, whatever --memory-limit says)";
    }
    throw UsageError("explore stopped on the lua backend: " + why);
  } catch (const std::invalid_argument& e) {
    progress.end();
    throw UsageError(e.what());
  }
}

// summary.json's object: the result, the build, the backend, the command,
// the timings and each counterexample's live confirmation.
nlohmann::json explore_summary(const ExploreSetup& setup, const ExploreResult& r, const std::string& backend,
                               const std::string& command, double wall_s,
                               const std::vector<std::optional<LiveConfirmation>>& confirmations) {
  nlohmann::json summary = explore_result_json(setup.config, r);
  summary["build"] = std::string(trace_build_id());
  summary["backend"] = backend;
  summary["command"] = command;
  summary["timings"] = {{"wall_s", wall_s},
                        {"distinct_states_per_s", wall_s > 0 ? static_cast<double>(r.distinct_states) / wall_s : 0.0},
                        {"transitions_per_s", wall_s > 0 ? static_cast<double>(r.transitions) / wall_s : 0.0},
                        {"peak_rss_mb", peak_rss_mb()},
                        {"memory_mb", static_cast<double>(r.memory_bytes) / (1 << 20)},
                        {"workers", setup.config.workers}};
  for (size_t i = 0; i < r.violations.size(); ++i) {
    nlohmann::json live;
    if (confirmations[i]) {
      live = {{"same_history", confirmations[i]->same_history},
              {"same_violation", confirmations[i]->same_violation},
              {"difference", confirmations[i]->difference}};
    }
    summary["violations"][i]["live"] = live;
    summary["violations"][i]["trace"] = nullptr;
    summary["violations"][i]["timeline"] = nullptr;
  }
  return summary;
}

void print_result(const ExploreRequest& q, const ExploreSetup& setup, const ExploreResult& r,
                  const nlohmann::json& summary, const std::string& backend, double wall_s,
                  const std::vector<std::optional<LiveConfirmation>>& confirmations) {
  if (q.args.json) {
    std::printf("%s\n", summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  std::printf("%s", format_result(q.args, setup.config, r, backend, wall_s).c_str());
  for (size_t i = 0; i < r.violations.size(); ++i) {
    if (!confirmations[i]) continue;
    const LiveConfirmation& live = *confirmations[i];
    std::printf("  %s on live redis-server: %s\n", r.violations[i].violation.property.c_str(),
                live.same_history && live.same_violation
                    ? "confirmed (the same history up to the violation, the same violation)"
                    : (live.same_history ? "the same history, but the violation is not the same"
                                         : ("a different history: " + live.difference).c_str()));
  }
}

}  // namespace

ExploreRequest validate_explore(const ExploreArgs& a) {
  if (a.random_walk && a.dfs) throw UsageError("--dfs and --random-walk: choose one search order");
  ExploreRequest q;
  q.args = a;
  if (a.backend == "live") {
    throw UsageError("--backend live: explore runs on model or lua; live only confirms counterexamples "
                     "(--confirm-live, or locksim replay --backend live FILE)");
  }
  if (!a.backend.empty()) {
    q.backend = backend_kind_from_name(a.backend);
    if (!q.backend) throw UsageError("--backend: unknown backend '" + a.backend + "' (model, lua)");
  }
  Scenario& s = q.campaign.scenario;
  s.seed = 1;
  s.profile = Profile();  // none: the explorer makes the faults
  s.clients = a.clients;
  s.locks = a.locks;
  s.servers = a.servers;
  s.lock_kind = lock_kind_option(a.lock);
  s.restart_delay_ms = a.restart_delay_ms;
  s.validity = a.validity;
  s.backoff = backoff_option(a.backoff);
  if (s.lock_kind == ScenarioLockKind::FasterMulti) {
    s.values = a.values >= 0 ? a.values : kDefaultValues;
  } else if (a.values >= 0) {
    throw UsageError("--values is a faster multi-lock option (--lock faster_multi), not --lock " + a.lock);
  }
  // Not given: the pack's settings decide, as for a campaign (search/campaign.h).
  s.fair_slot_ms = std::max<int64_t>(a.fair_slot_ms, 0);
  q.campaign.fair_slot_given = a.fair_slot_ms >= 0;
  s.scripts = a.scripts;
  const Mutant mutant = mutant_option(a.mutant);
  s.mutant = mutant.client();
  s.model_variant = mutant.script();
  s.persistence = persistence_option(a.persistence);
  q.faults = parse_faults(a.faults);
  q.policy.unexplained_only = a.unexplained_only;
  try {
    apply_fail_on(&q.policy, a.fail_on);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  q.lua_limits = validate_memory_limit(a.memory_limit);
  return q;
}

int run_explore_command(const ExploreRequest& q, const ProgramName& program) {
  ExploreSetup setup = set_up(q);
  const std::string backend(backend_kind_name(setup.backend));
  const std::string command = explore_command_line(q.args, backend, program);
  std::string out_dir = q.args.out_dir;
  const bool default_dir = out_dir.empty();
  if (default_dir) out_dir = new_run_dir("explore-" + q.args.lock);
  const nlohmann::json configuration = explore_configuration_json(setup.config);
  StagedRunDir staged(out_dir, [&](const nlohmann::json& old) {
    return old.value("build", nlohmann::json()) == std::string(trace_build_id()) &&
           old.value("format", nlohmann::json()) == kExploreFormat && old["configuration"] == configuration &&
           old.value("backend", nlohmann::json()) == backend;
  });
  const auto started = std::chrono::steady_clock::now();
  const ExploreResult r = explore_with_progress(setup);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::vector<std::optional<LiveConfirmation>> confirmations(r.violations.size());
  if (q.args.confirm_live) {
    try {
      for (size_t i = 0; i < r.violations.size(); ++i) confirmations[i] = confirm_on_live(r.violations[i]);
    } catch (const RedisError& e) {
      throw EnvironmentError(std::string("--confirm-live: the live backend failed: ") + e.what());
    }
  }
  const nlohmann::json summary = explore_summary(setup, r, backend, command, wall_s, confirmations);
  print_result(q, setup, r, summary, backend, wall_s, confirmations);
  std::fflush(stdout);
  try {
    write_outputs(out_dir, r, summary, *setup.sources.front(), staged, setup.inputs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locksim: cannot write the explore outputs: %s (the result stands as printed above; "
                 "nothing written to %s; exit 3 for the outputs)\n", e.what(), out_dir.c_str());
    return kExitEnvironment;
  }
  if (default_dir) point_latest_at(out_dir, "explore");
  FILE* reproduce = q.args.json ? stderr : stdout;
  for (const ExploreCounterexample& cx : r.violations) {
    std::fprintf(reproduce, "reproduce %s: %s replay %s\n", cx.violation.property.c_str(), program.as_invoked.c_str(),
                 shell_word((std::filesystem::path(out_dir) / explore_trace_file(cx.violation.property)).string()).c_str());
  }
  return r.failed() ? 1 : 0;
}

void add_explore_command(CLI::App& app, CliContext* ctx) {
  auto a = std::make_shared<ExploreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explore", "Explore every schedule of a small configuration (breadth first, states merged) and check every property");
  cmd->add_option("--lock", a->lock,
                  "Lock kind: rlock, fair, mixed, multi or redlock (a group of one member per server), spin, or "
                  "faster_multi (one server)")
      ->capture_default_str();
  cmd->add_option("--clients", a->clients, "Client processes")->capture_default_str()->transform(integer_in(1, kMaxExploreClients));
  cmd->add_option("--locks", a->locks, "Locks (lock i lives on server i % servers)")
      ->capture_default_str()->transform(integer_in(1, kMaxExploreLocks));
  cmd->add_option("--servers", a->servers, "Redis servers")->capture_default_str()->transform(integer_in(1, kMaxExploreServers));
  cmd->add_option("--ops", a->ops,
                  "Each client's operations, in order: lock[:LEASE], trylock:WAIT[:LEASE], tryonce[:LEASE], unlock, "
                  "forceunlock, each with an optional @LOCK, and sleep:MS before an operation (comma-separated; one list for every client, or one "
                  "per client separated by ';'; '/' between the tasks (threads) of one client)")
      ->capture_default_str();
  cmd->add_option("--hold-ms", a->hold_ms, "A client starts its next operation this long after the previous one completed")
      ->capture_default_str()->transform(integer_in(int64_t{0}, int64_t{3'600'000}));
  cmd->add_option("--latency-us", a->latency_us, "The link's one latency, each way (every message takes exactly this)")
      ->capture_default_str()->transform(integer_in(int64_t{1}, int64_t{10'000'000}));
  cmd->add_option("--drain-ms", a->drain_ms, "A run ends when nothing is due this long after the last operation started or completed, or the last fault")
      ->capture_default_str()->transform(integer_in(int64_t{0}, int64_t{86'400'000}));
  cmd->add_option("--faults", a->faults,
                  "Faults to explore (comma-separated): crash (a client dies for good), pause (a client stops for "
                  "--pause-ms), clock (a client's clock jumps --jump-ms forward), restart (a server restarts, "
                  "--persistence says what it keeps), server_clock (a server's clock jumps --jump-ms forward), "
                  "loss (a message is lost), delay (a message arrives 1 us after the next deadline); or none")
      ->capture_default_str();
  cmd->add_option("--max-faults", a->max_faults, "At most this many faults per schedule")
      ->capture_default_str()->transform(integer_in(0, 16));
  cmd->add_option("--pause-ms", a->pause_ms, "A pause's length (default: longer than the 30 s lease)")
      ->capture_default_str()->transform(integer_in(int64_t{0}, int64_t{86'400'000}));
  cmd->add_option("--jump-ms", a->jump_ms, "A clock jump's size, forward")
      ->capture_default_str()->transform(integer_in(int64_t{0}, int64_t{86'400'000}));
  cmd->add_option("--persistence", a->persistence, "What a server restart keeps: none or always")->capture_default_str();
  cmd->add_option("--restart-delay-ms", a->restart_delay_ms, "A restarted server stays down this long")
      ->capture_default_str()->transform(integer_in(int64_t{0}, kMaxRestartDelayMs));
  cmd->add_option("--fair-slot-ms", a->fair_slot_ms,
                  "Fair lock: every slot this long whatever the caller's wait; 0: the wait. "
                  "Default: the pack's \"settings\": {\"fair_slot_ms\": S} in its manifest, else 0")
      ->transform(integer_in(int64_t{0}, kMaxFairSlotMs));
  cmd->add_option("--scripts", a->scripts,
                  "Script pack directory (on the model its model_variant stands for it; lua runs its own Lua)");
  cmd->add_option("--mutant", a->mutant, "Client or script mutant to run (see locksim mutants --list)")->capture_default_str();
  add_memory_limit_option(cmd, &a->memory_limit);
  cmd->add_option("--backend", a->backend,
                  "model, or lua (the pack's own Lua in process). Default: model, or lua for a pack the model cannot "
                  "stand for");
  cmd->add_option("--backoff", a->backoff,
                  "Spin lock: how a refused waiter sleeps: exponential (1 ms, doubling plus a small random "
                  "amount, up to 128 ms) or constant (64 ms plus a small random amount)")
      ->capture_default_str();
  cmd->add_option("--values", a->values, "Faster multi-lock: values per group (default 3)")
      ->transform(integer_in(1, kMaxValues));
  cmd->add_flag("--validity", a->validity,
                "RedLock: check the validity (lease - elapsed - drift) and believe the hold only until it ends");
  cmd->add_flag("--dfs", a->dfs, "Depth first instead of breadth first");
  cmd->add_flag("--random-walk", a->random_walk, "Random walks from the start (a sample: never complete)");
  cmd->add_option("--walks", a->walks, "--random-walk: how many walks")->capture_default_str()->transform(integer_in(uint64_t{1}, uint64_t{1'000'000'000}));
  cmd->add_option("--seed", a->seed, "--random-walk: the walks' random seed")->capture_default_str()->transform(non_negative_integer());
  cmd->add_option("--max-depth", a->max_depth, "Transitions from the start beyond which no state is expanded")
      ->capture_default_str()->transform(integer_in(int64_t{1}, int64_t{10'000'000}));
  cmd->add_option("--max-states", a->max_states, "Stop after this many distinct states")
      ->capture_default_str()->transform(integer_in(uint64_t{1}, uint64_t{1} << 40));
  cmd->add_option("--max-memory-mb", a->max_memory_mb, "Stop before the visited set and the frontier pass this much (copies of states are kept only within it too)")
      ->capture_default_str()->transform(integer_in(uint64_t{1}, uint64_t{1} << 30));
  cmd->add_option("--workers", a->workers, "Threads expanding the frontier (the result is the same for any number)")
      ->capture_default_str()->transform(integer_in(1, kMaxExploreWorkers));
  cmd->add_option("--fail-on", a->fail_on,
                  "Also fail on these properties (comma-separated or repeated; e.g. busy_poll, or all)");
  cmd->add_flag("--unexplained-only", a->unexplained_only,
                "Ignore violations whose checker names a fault that made them possible (non-empty blamed fault)");
  cmd->add_flag("--confirm-live", a->confirm_live,
                "Run every counterexample on a live redis-server too and say whether it shows the same history and violation");
  cmd->add_flag("--json", a->json, "Print the result as JSON");
  cmd->add_option("--out", a->out_dir,
                  "Runs directory to write: summary.json, report.html, failures/<property>.jsonl, "
                  "timelines/<property>.svg (default: a new runs/<UTC time>-explore-<lock>/, linked from "
                  "runs/latest; $LOCKSIM_RUNS_DIR replaces runs/)");
  cmd->callback([a, ctx] { ctx->exit_code = run_explore_command(validate_explore(*a), ctx->program); });
}

}  // namespace locksim::cli
