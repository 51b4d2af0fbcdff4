#include "search/campaign.h"

#include "traces/byte_text.h"

#include <algorithm>
#include <cassert>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "impl/builtin_packs.h"
#include "impl/mutant.h"
#include "impl/script_pack.h"
#include "model/variant.h"
#include "properties/scenario_check.h"
#include "search/shrink.h"
#include "search/shrink_divergence.h"
#include "sim/model_backend_source.h"
#include "sim/run.h"
#include "sim/simulator.h"
#include "traces/trace_format.h"
#include "traces/event_detail.h"

namespace locksim {

Scenario campaign_template(const CampaignOptions& o) {
  Scenario s;
  s.seed = o.base_seed;
  s.clients = o.clients;
  s.locks = o.locks;
  s.servers = o.servers;
  s.persistence = o.persistence;
  s.restart_delay_ms = o.restart_delay_ms;
  s.validity = o.validity;
  s.fair_slot_ms = std::max<int64_t>(o.fair_slot_ms, 0);
  s.lock_kind = o.lock_kind;
  s.duration_ms = o.duration_ms;
  s.profile = o.profile;
  s.mutant = o.mutant.client();
  if (o.mutant.script() != ModelVariant::Correct) {
    s.model_variant = o.mutant.script();
    // Name the mutant's script pack too, so that a trace of this scenario
    // says which scripts ran and `locksim replay` resolves the same variant:
    // beside $LOCKSIM_SCRIPTS's pack if that has a mutants/ sibling holding
    // it, else the built-in one ("builtin:impl/mutants/<name>", the same
    // name on every host).
    const std::string ours = ScriptPack::default_dir();
    const std::string name = o.mutant.name();
    const std::filesystem::path beside = std::filesystem::path(ours).parent_path() / "mutants" / name;
    const std::string builtin = builtin_variant_pack(name, false);
    if (o.scripts.empty()) {
      if (!is_builtin_name(ours) && std::filesystem::is_directory(beside)) {
        s.scripts = beside.string();
      } else if (builtin_pack_exists(builtin)) {
        s.scripts = builtin;
      }
    }
  }
  if (!o.scripts.empty() || s.scripts.empty()) {
    // On the model (never the pack's Lua) the model must be able to stand
    // for the pack, exactly as for `locksim run --backend model`; lua, live
    // and both run the pack's own Lua. No --scripts: the default pack, which
    // $LOCKSIM_SCRIPTS may name, is held to the same rule.
    const ModelVariant mutant_variant = s.model_variant;
    s.scripts = o.scripts;
    try {
      resolve_scenario_scripts(&s, runs_model_only(o.backend) ? "model" : "lua");
    } catch (const ScriptPackError& e) {
      throw ScenarioError(std::string("bad script pack: ") + e.what());
    }
    if (mutant_variant != ModelVariant::Correct && s.model_variant != mutant_variant)
      throw ScenarioError("--scripts pack models '" + std::string(variant_name(s.model_variant)) + "' but --mutant is '" +
                          std::string(variant_name(mutant_variant)) + "'");
  }
  {
    // The pack's declared design, and (when not given) its manifest's fair slot.
    try {
      const ScriptPack pack = ScriptPack::load(s.scripts.empty() ? ScriptPack::default_dir() : s.scripts);
      if (o.fair_slot_ms < 0) s.fair_slot_ms = pack.settings().fair_slot_ms.value_or(0);
      s.design = pack.design();
    } catch (const ScriptPackError& e) {
      throw ScenarioError(std::string("bad script pack: ") + e.what());
    }
  }
  validate_scenario(s);
  return s;
}

namespace {

// What one seed gave: its verdict and, with a reference backend, the first
// difference of the histories; or the exception its run threw.
struct SeedOutcome {
  ScenarioVerdict verdict;
  std::optional<HistoryMismatch> divergence;
  std::exception_ptr error;
};

// The causes of the seed's violations the policy counts (none counted: no
// re-run), proven on the worker's checked backend: the seed is run again,
// recorded (properties/cause_search.h).
void explain_seed(CampaignWorker& worker, const Scenario& s, const CheckConfig& cfg, const CampaignOptions& o,
                  ScenarioVerdict* verdict) {
  auto counted = [&o](const Violation& v) { return o.policy.fail_on.count(v.property) != 0; };
  if (std::none_of(verdict->violations.begin(), verdict->violations.end(), counted)) return;
  VectorSink history;
  check_scenario_on(*worker.checked, s, cfg, &history);
  explain_violations(&verdict->violations, s, history.events, cfg, worker.checked.get(), o.cause_reruns, counted);
}

SeedOutcome run_seed(CampaignWorker& worker, const Scenario& s, const CheckConfig& cfg, const CampaignOptions& o) {
  SeedOutcome out;
  try {
    if (worker.reference == nullptr) {
      out.verdict = check_scenario_on(*worker.checked, s, cfg);
      explain_seed(worker, s, cfg, o, &out.verdict);
      return out;
    }
    VectorSink expected;
    {
      Simulator reference(s, worker.reference->fresh(s), expected);
      reference.run();
    }
    HistoryComparator comparator(expected.events);
    out.verdict = check_scenario_on(*worker.checked, s, cfg, &comparator);
    comparator.finish();
    explain_seed(worker, s, cfg, o, &out.verdict);
    out.divergence = comparator.mismatch();
    if (out.divergence) {
      out.divergence->expected_backend = worker.reference->kind();
      out.divergence->actual_backend = worker.checked->kind();
    }
  } catch (...) {
    out.error = std::current_exception();
  }
  return out;
}


// Hands out seed indexes to the workers and gives their outcomes back in
// seed order. Workers run at most kWindowPerWorker seeds each ahead of the
// next outcome taken, so memory stays bounded whatever the number of seeds
// (an outcome is a verdict: a few KB). The window is wide because seeds are
// uneven: one fair-lock poll storm can take as long as hundreds of other
// seeds, and a narrow window (it was 4 per worker) left the other workers
// idle behind it, so a second worker gained nothing. A seed that
// ends the campaign (`last`: it failed without keep_going, or its run threw)
// bounds the seeds still handed out to the ones before it; stop() makes the
// workers finish the seed they are running and take no more.
class SeedScheduler {
 public:
  static constexpr int kWindowPerWorker = 256;
  explicit SeedScheduler(int seeds, int workers) : limit_(seeds), window_(kWindowPerWorker * workers) {}

  // Worker side: the next seed index to run, or nothing when done.
  std::optional<int> claim() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || next_claim_ >= limit_ || next_claim_ < next_take_ + window_; });
    if (stopped_ || next_claim_ >= limit_) return std::nullopt;
    return next_claim_++;
  }
  void deliver(int index, SeedOutcome outcome, bool last) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (last) limit_ = std::min(limit_, index + 1);
    done_.emplace(index, std::move(outcome));
    changed_.notify_all();
  }
  // Campaign side: the outcome of seed `index` (the next in order).
  SeedOutcome take(int index) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return done_.count(index) != 0; });
    SeedOutcome out = std::move(done_.at(index));
    done_.erase(index);
    next_take_ = index + 1;
    changed_.notify_all();
    return out;
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }

 private:
  int limit_;  // seeds [0, limit_) may be handed out
  const int window_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int next_claim_ = 0;
  int next_take_ = 0;
  bool stopped_ = false;
  std::map<int, SeedOutcome> done_;
};

}  // namespace

CampaignResult run_campaign(const Scenario& tmpl, const CampaignOptions& options, const CampaignProgress& progress,
                            const CheckConfig* config) {
  std::vector<CampaignWorker> workers(static_cast<size_t>(std::max(1, options.workers)));
  for (CampaignWorker& w : workers) w.checked = std::make_unique<ModelBackendSource>();
  return run_campaign(tmpl, options, workers, progress, config);
}

std::string exception_text(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

std::string counterexample_extent(const Counterexample& cx) {
  const std::string shown = std::to_string(cx.events.size());
  if (cx.trace_events <= cx.events.size()) return shown + " trace events";
  return "the first " + shown + " of its trace's " + std::to_string(cx.trace_events) + " events";
}

// The failures spread over the workers' checked backends (failure j on
// worker j % J); each shrink is deterministic, so the result does not
// depend on J.
void shrink_campaign_failures(CampaignResult* r, const CampaignOptions& options, const CheckConfig& cfg,
                              std::vector<CampaignWorker>& workers, const CampaignProgress& progress) {
  assert(!workers.empty());
  std::mutex progress_mutex;
  CampaignProgressInfo info{r->seeds_run, r->seeds_run, static_cast<int>(r->failures.size()), r->simulated_us, {}};
  auto observer_for = [&](uint64_t seed) -> ShrinkObserver {
    if (!progress) return {};
    return [&, seed](const ShrinkProgress& p) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      info.shrinking = p;
      info.shrinking->seed = seed;
      progress(info);
    };
  };
  std::vector<SeedFailure*> to_shrink;
  for (size_t j = 0; j < r->failures.size() && j < static_cast<size_t>(std::max(0, options.shrink_seeds)); ++j)
    to_shrink.push_back(&r->failures[j]);
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(workers.size());
  for (size_t w = 0; w < workers.size() && w < to_shrink.size(); ++w) {
    threads.emplace_back([&, w] {
      try {
        for (size_t j = w; j < to_shrink.size(); j += workers.size()) {
          SeedFailure& f = *to_shrink[j];
          Scenario s = r->scenario;
          s.seed = f.seed;
          std::set<std::string> shrunk_properties;
          for (const Violation& v : f.violations) {
            if (!shrunk_properties.insert(v.property).second) continue;
            if (f.plan) {
              ExplicitPlan plan = *f.plan;
              f.shrunk.push_back(shrink_plan(&plan, cfg, violation_signature(v), false, workers[w].checked.get(),
                                             observer_for(f.seed)));
            } else {
              f.shrunk.push_back(shrink_scenario(s, v, cfg, false, workers[w].checked.get(), observer_for(f.seed)));
            }
          }
          // A divergence (--backend both) too: smaller plans whose live and
          // model histories still differ.
          if (f.divergence && workers[w].reference != nullptr) {
            f.shrunk.push_back(shrink_divergence(s, *f.divergence, *workers[w].checked, *workers[w].reference));
          }
        }
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

bool add_seed_result(CampaignResult* r, const CampaignOptions& options, uint64_t run_number, int seeds_run,
                     ScenarioVerdict verdict, std::optional<HistoryMismatch> divergence,
                     std::optional<ExplicitPlan> plan) {
  r->seeds_run = seeds_run;
  r->events_checked += verdict.summary.events;
  r->simulated_us += verdict.summary.end_true_us;
  r->operations_ok += verdict.summary.oks;
  r->script_errors += verdict.summary.script_errors;
  r->waiting_polls += verdict.summary.waiting_polls;
  r->waiting_us += verdict.summary.waiting_us;
  r->coverage.add(verdict.coverage, run_number);
  ResultTally seed_tally;
  for (const Violation& v : verdict.violations) {
    const bool counted = options.policy.fail_on.count(v.property) != 0;
    if (counted || is_advisory_property(v.property)) tally_violation(&seed_tally, v, !counted);
  }
  r->tally.add(seed_tally);
  r->unexplained_seeds += seed_tally.unexplained > 0;
  r->explained_seeds += seed_tally.explained > 0;
  std::set<std::string> advisory_seen;
  for (const Violation& v : verdict.violations) {
    if (options.policy.fail_on.count(v.property) != 0 || !is_advisory_property(v.property)) continue;
    AdvisoryCount& a = r->advisories[v.property];
    if (advisory_seen.insert(v.property).second) ++a.seeds;
    if (a.reports++ == 0) {
      a.first_seed = run_number;
      a.first_report = v.to_string();
    }
  }
  std::vector<Violation> failing = failing_violations(verdict.violations, options.policy);
  const bool fails = !failing.empty() || divergence;
  if (fails) {
    SeedFailure f;
    f.seed = run_number;
    f.events = verdict.summary.events;
    f.plan = std::move(plan);
    f.violations = std::move(failing);
    f.divergence = std::move(divergence);
    r->failures.push_back(std::move(f));
  }
  return fails;
}

CampaignResult run_campaign(const Scenario& tmpl, const CampaignOptions& options, std::vector<CampaignWorker>& workers,
                            const CampaignProgress& progress, const CheckConfig* config) {
  assert(!workers.empty());
  assert(options.shard_count >= 1 && options.shard_index >= 0 && options.shard_index < options.shard_count);
  CheckConfig cfg = config ? *config : default_check_config();
  cfg.properties = options.properties;
  CampaignResult r;
  r.scenario = tmpl;
  r.backend = workers.front().reference != nullptr
                  ? backend_pair_name(workers.front().checked->kind(), workers.front().reference->kind())
                  : workers.front().checked->kind();
  const int seeds = shard_seed_count(options.seeds, options.shard_index, options.shard_count);
  r.seeds_planned = seeds;
  // The k-th seed of this shard: seed index shard_index + k * shard_count.
  auto seed_scenario = [&tmpl, &options](int k) {
    Scenario s = tmpl;
    s.seed = tmpl.seed + static_cast<uint64_t>(options.shard_index) +
             static_cast<uint64_t>(k) * static_cast<uint64_t>(options.shard_count);
    return s;
  };
  SeedScheduler scheduler(seeds, static_cast<int>(workers.size()));
  std::vector<std::thread> threads;
  threads.reserve(workers.size());
  for (CampaignWorker& worker : workers) {
    threads.emplace_back([&scheduler, &worker, &cfg, &seed_scenario, &options] {
      while (auto index = scheduler.claim()) {
        SeedOutcome outcome = run_seed(worker, seed_scenario(*index), cfg, options);
        const bool fails = outcome.divergence || !failing_violations(outcome.verdict.violations, options.policy).empty();
        const bool last = outcome.error || (fails && !options.keep_going);
        scheduler.deliver(*index, std::move(outcome), last);
      }
    });
  }
  auto join_all = [&] {
    scheduler.stop();
    for (std::thread& t : threads) t.join();
    threads.clear();
  };
  struct JoinOnExit {  // also when the loop below throws
    std::function<void()> join;
    ~JoinOnExit() { join(); }
  } join_on_exit{join_all};
  for (int i = 0; i < seeds; ++i) {
    const Scenario s = seed_scenario(i);
    SeedOutcome outcome = scheduler.take(i);
    if (outcome.error) {
      join_all();
      throw CampaignSeedError(s.seed, "seed " + std::to_string(s.seed) + " could not run: " +
                                          exception_text(outcome.error));
    }
    const bool fails = add_seed_result(&r, options, s.seed, i + 1, std::move(outcome.verdict),
                                       std::move(outcome.divergence), std::nullopt);
    if (progress) progress({i + 1, seeds, static_cast<int>(r.failures.size()), r.simulated_us, {}});
    if (fails && !options.keep_going) break;
  }
  join_all();
  r.vacuous_fails = r.vacuous() && options.policy.fail_vacuous;
  r.unexplained_only = options.policy.unexplained_only;
  // The first shrink_seeds failing seeds, on the workers' checked backends
  // (the seed threads are done).
  if (options.shrink) shrink_campaign_failures(&r, options, cfg, workers, progress);
  return r;
}

std::string format_event(const Event& e) {
  char head[64];
  std::snprintf(head, sizeof head, "#%-4llu %10.3fs ", static_cast<unsigned long long>(e.id),
                static_cast<double>(e.true_us) / 1e6);
  std::string out = head;
  out += std::string(event_kind_name(e.kind));
  if (e.client >= 0) out += " c" + std::to_string(e.client);
  if (e.kind == EventKind::Fault) {
    out += " " + std::string(op_name(e.op)) + " target=" + std::to_string(e.target);
    if (e.duration_ms != 0) out += " " + format_ms(e.duration_ms);
    return visible_text(out);
  }
  if (e.op != Op::None && e.kind != EventKind::Script) out += " " + std::string(op_name(e.op));
  if (e.kind == EventKind::Script) out += " " + e.script + " -> " + e.reply.to_text();
  if (!e.owner.empty()) out += " owner=" + e.owner.str();
  if (!e.lock.empty()) out += " lock=" + e.lock.name();
  if (e.op_id != 0) out += " op=" + std::to_string(e.op_id);
  if (e.kind == EventKind::Invoke) {
    if (e.wait_ms >= 0) out += " wait=" + std::to_string(e.wait_ms);
    if (e.lease_ms >= 0) out += " lease=" + std::to_string(e.lease_ms);
  }
  if (e.kind == EventKind::Ok || e.kind == EventKind::Fail) out += " value=" + std::to_string(e.value);
  if (e.kind == EventKind::Script) {
    out += " holders=[";
    for (size_t i = 0; i < e.holders_after.size(); ++i) out += (i ? "," : "") + e.holders_after[i];
    out += "]";
  }
  if (has_detail_text(e)) out += " (" + detail_text(e) + ")";
  return visible_text(out);
}

namespace {

nlohmann::json counterexample_to_json(const Counterexample& cx) {
  nlohmann::json events = nlohmann::json::array();
  for (const Event& e : cx.events) events.push_back(format_event(e));
  return {{"events", cx.events.size()},
          {"trace_events", cx.trace_events},
          {"property", cx.violation.property},
          {"other_violations", cx.other_violations},
          {"other_properties", cx.other_properties},
          {"violation", cx.violation.to_string()},
          {"blamed_fault", cx.violation.blamed_fault},
          {"history", events}};
}

// format_event without its id and time: equal for repeated identical events.
std::string event_shape(const Event& e) {
  const std::string full = format_event(e);
  const size_t kind_at = full.find("s ");
  return kind_at == std::string::npos ? full : full.substr(kind_at + 2);
}

// Long counterexamples: runs of identical events (a poll storm) collapse to
// their first and last event; then the first and last 30 lines are shown,
// plus every event the violation cites.
void append_counterexample(std::string& out, const Counterexample& cx) {
  const auto& events = cx.events;
  out += "  shrunk counterexample for " + cx.violation.property + " (" + counterexample_extent(cx) + "):\n";
  if (cx.other_violations > 0) {
    std::string props;
    for (const std::string& p : cx.other_properties) props += (props.empty() ? "" : ", ") + p;
    out += "    (its plan, run to its end, also violates " + props + ": " + std::to_string(cx.other_violations) +
           " violation(s) that shrinking could not separate from it)\n";
  }
  const auto& evidence = cx.violation.event_ids;
  auto cited = [&](const Event& e) { return std::find(evidence.begin(), evidence.end(), e.id) != evidence.end(); };
  // Display lines: an event index, or a collapsed run [first, last].
  struct Line {
    size_t index = 0;
    size_t run_count = 0;  // > 0: a collapsed run of this many events
    uint64_t from_id = 0, to_id = 0;
  };
  std::vector<Line> lines;
  constexpr size_t kMinRun = 4;
  for (size_t i = 0; i < events.size();) {
    const std::string shape = event_shape(events[i]);
    size_t j = i + 1;
    while (j < events.size() && event_shape(events[j]) == shape) ++j;
    if (j - i < kMinRun) {
      for (size_t k = i; k < j; ++k) lines.push_back({k, 0, 0, 0});
    } else {
      lines.push_back({i, 0, 0, 0});
      size_t hidden = 0;
      uint64_t from = 0, to = 0;
      for (size_t k = i + 1; k + 1 < j; ++k) {
        if (cited(events[k])) {
          if (hidden > 0) lines.push_back({k, hidden, from, to});
          hidden = 0;
          lines.push_back({k, 0, 0, 0});
          continue;
        }
        if (hidden == 0) from = events[k].id;
        to = events[k].id;
        ++hidden;
      }
      if (hidden > 0) lines.push_back({j - 1, hidden, from, to});
      lines.push_back({j - 1, 0, 0, 0});
    }
    i = j;
  }
  size_t elided = 0;
  for (size_t n = 0; n < lines.size(); ++n) {
    const Line& line = lines[n];
    const bool edge = n < 30 || n + 30 >= lines.size();
    if (!edge && (line.run_count > 0 || !cited(events[line.index]))) {
      elided += line.run_count > 0 ? line.run_count : 1;
      continue;
    }
    if (elided > 0) { out += "    ... " + std::to_string(elided) + " events elided ...\n"; elided = 0; }
    if (line.run_count > 0) {
      out += "    ... " + std::to_string(line.run_count) + " more of the same (#" + std::to_string(line.from_id) +
             " to #" + std::to_string(line.to_id) + ") ...\n";
    } else {
      out += "    " + format_event(events[line.index]) + "\n";
    }
  }
  if (elided > 0) out += "    ... " + std::to_string(elided) + " events elided ...\n";
  out += "  violation: " + cx.violation.to_string() + "\n";
}

}  // namespace

nlohmann::json result_tally_to_json(const CampaignResult& r) {
  return {{"unexplained", r.tally.unexplained},
          {"unexplained_seeds", r.unexplained_seeds},
          {"explained", r.tally.explained},
          {"explained_seeds", r.explained_seeds},
          {"explained_by_kind", r.tally.explained_by_kind},
          {"advisory", r.tally.advisory},
          {"set_aside", r.unexplained_only ? r.tally.explained : 0}};
}

nlohmann::json seed_failure_to_json(const SeedFailure& f) {
  nlohmann::json j;
  j["seed"] = f.seed;
  j["events"] = f.events;
  j["violations"] = nlohmann::json::array();
  for (const Violation& v : f.violations) j["violations"].push_back(violation_to_json(v));
  if (f.divergence) {
    j["divergence"] = {{"event", f.divergence->index},
                       {f.divergence->expected_backend, f.divergence->expected_line},
                       {f.divergence->actual_backend, f.divergence->actual_line}};
  }
  if (!f.shrunk.empty()) {
    j["counterexamples"] = nlohmann::json::array();
    for (const Counterexample& cx : f.shrunk) j["counterexamples"].push_back(counterexample_to_json(cx));
  }
  return j;
}

nlohmann::json campaign_result_to_json(const CampaignResult& r) {
  nlohmann::json j;
  j["scenario"] = scenario_to_json(r.scenario);
  j["backend"] = r.backend;
  j["seeds_run"] = r.seeds_run;
  j["events_checked"] = r.events_checked;
  j["operations_ok"] = r.operations_ok;
  j["script_errors"] = r.script_errors;
  // How waiters waited: the polls of acquires that had to wait, per second of their waiting.
  j["waiting"] = {{"polls", r.waiting_polls},
                  {"seconds", static_cast<double>(r.waiting_us) / 1e6},
                  {"polls_per_second", r.waiting_us > 0 ? static_cast<double>(r.waiting_polls) * 1e6 /
                                                               static_cast<double>(r.waiting_us)
                                                         : 0.0}};
  j["vacuous"] = r.vacuous();
  j["ok"] = !r.failed();
  j["failures"] = nlohmann::json::array();
  for (const SeedFailure& f : r.failures) j["failures"].push_back(seed_failure_to_json(f));
  j["advisories"] = nlohmann::json::object();
  for (const auto& [name, a] : r.advisories)
    j["advisories"][name] = {{"seeds", a.seeds}, {"reports", a.reports}, {"first_seed", a.first_seed},
                             {"first_report", a.first_report}};
  j["results"] = result_tally_to_json(r);
  return j;
}

std::string format_result_tally(const CampaignResult& r) {
  const ResultTally& t = r.tally;
  std::string out = "results: " + std::to_string(t.unexplained) + " unexplained violation(s) in " +
                    std::to_string(r.unexplained_seeds) + " seed(s); " + std::to_string(t.explained) +
                    " explained in " + std::to_string(r.explained_seeds) + " seed(s)" +
                    (t.explained > 0 ? " (" + t.kinds_text() + ")" : std::string()) + "; " +
                    std::to_string(t.advisory) + " advisory report(s)\n";
  if (r.unexplained_only && t.explained > 0) {
    out += "--unexplained-only set aside " + std::to_string(t.explained) + " explained violation(s) in " +
           std::to_string(r.explained_seeds) +
           " seed(s): re-runs showed each needs a fault the property permits (" + t.kinds_text() + ")\n";
  }
  return out;
}

std::string format_campaign_result(const CampaignResult& r) {
  std::string out;
  for (const auto& [name, a] : r.advisories) {
    out += name + " (advisory, not failing; --fail-on " + name + " makes it fail): " + std::to_string(a.reports) +
           " report(s) in " + std::to_string(a.seeds) + " seed(s); first at seed " + std::to_string(a.first_seed) +
           ": " + a.first_report + "\n";
  }
  if (r.script_errors > 0) {
    out += "script errors: " + std::to_string(r.script_errors) + " script execution(s) answered an error\n";
  }
  if (r.vacuous()) {
    out += std::string(r.vacuous_fails ? "VACUOUS" : "vacuous (accepted by --allow-vacuous)") +
           ": no operation succeeded in any of the " + std::to_string(r.seeds_run) +
           " seed(s) (every acquire failed or errored): nothing was checked\n";
  }
  if (!r.failed()) {
    out += format_result_tally(r);
    out += "ok: " + std::to_string(r.seeds_run) + " seeds, " + std::to_string(r.events_checked) +
           " events, no property failed" + (r.tally.explained > 0 && r.unexplained_only ? " unexplained" : "") +
           "\n";
    return out;
  }
  for (const SeedFailure& f : r.failures) {
    out += "FAILED at seed " + std::to_string(f.seed) + " (" + std::to_string(f.events) + " trace events): " +
           (f.divergence ? "the " + f.divergence->actual_backend + " history diverges from the " +
                               f.divergence->expected_backend + "'s, "
                         : std::string()) +
           std::to_string(f.violations.size()) + " violation(s)\n";
    if (f.divergence) {
      const int64_t apart_ms = divergence_size_ms(*f.divergence);
      out += "  divergence at event " + std::to_string(f.divergence->index) + " (first event where the histories differ" +
             (apart_ms > 0 ? "; apart by " + format_ms(apart_ms) : std::string()) + "):\n";
      out += "    " + f.divergence->expected_backend + ": " + f.divergence->expected_line + "\n";
      out += "    " + f.divergence->actual_backend + ":  " + f.divergence->actual_line + "\n";
    }
    for (const Violation& v : f.violations) out += "  violation: " + v.to_string() + "\n";
    for (const Counterexample& cx : f.shrunk) append_counterexample(out, cx);
  }
  out += format_result_tally(r);
  if (!r.failures.empty()) {
    out += "failed: " + std::to_string(r.failures.size()) + " of " + std::to_string(r.seeds_run) + " seeds (" +
           std::to_string(r.tally.unexplained) + " unexplained violation(s), " + std::to_string(r.tally.explained) +
           " explained)\n";
  } else {
    out += "failed: the campaign is vacuous\n";
  }
  return out;
}

}  // namespace locksim
