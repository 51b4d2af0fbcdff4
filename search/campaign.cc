#include "search/campaign.h"

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

namespace locksim {

Mutant campaign_mutant(const CampaignOptions& o) {
  if (o.scenario.mutant != ClientMutant::None) return Mutant::of(o.scenario.mutant);
  if (o.scenario.model_variant != ModelVariant::Correct) return Mutant::of(o.scenario.model_variant);
  return Mutant{};
}

std::string campaign_scripts(const CampaignOptions& o) {
  if (!o.scenario.scripts.empty() || o.scenario.model_variant == ModelVariant::Correct) return o.scenario.scripts;
  // A script mutant's pack, so that a trace of this scenario says which
  // scripts ran and `locksim replay` resolves the same variant: beside
  // $LOCKSIM_SCRIPTS's pack if that has a mutants/ sibling holding it, else
  // the built-in one ("builtin:impl/mutants/<name>", the same name on every
  // host).
  const std::string ours = ScriptPack::default_dir();
  const std::string name(variant_name(o.scenario.model_variant));
  const std::filesystem::path beside = std::filesystem::path(ours).parent_path() / "mutants" / name;
  const std::string builtin = builtin_variant_pack(name, false);
  if (!is_builtin_name(ours) && std::filesystem::is_directory(beside)) return beside.string();
  if (builtin_pack_exists(builtin)) return builtin;
  return "";
}

Scenario campaign_template(const CampaignOptions& o, const ScriptPack& pack) {
  Scenario s = o.scenario;
  s.scripts = campaign_scripts(o);
  const ModelVariant mutant_variant = o.scenario.model_variant;
  if (!o.scenario.scripts.empty() || mutant_variant == ModelVariant::Correct || s.scripts.empty()) {
    // On the model (never the pack's Lua) the model must be able to stand
    // for the pack, exactly as for `locksim run --backend model`; lua, live
    // and both run the pack's own Lua. No --scripts: the default pack, which
    // $LOCKSIM_SCRIPTS may name, is held to the same rule.
    apply_scenario_pack(&s, pack, runs_model_only(o.backend) ? BackendKind::Model : BackendKind::Lua);
    if (mutant_variant != ModelVariant::Correct && s.model_variant != mutant_variant)
      throw ScenarioError("--scripts pack models '" + std::string(variant_name(s.model_variant)) + "' but --mutant is '" +
                          std::string(variant_name(mutant_variant)) + "'");
  }
  // The pack's declared design, and (when not given) its manifest's fair slot.
  if (!o.fair_slot_given) s.fair_slot_ms = pack.settings().fair_slot_ms.value_or(0);
  s.design = pack.design();
  validate_scenario(s);
  return s;
}

Scenario campaign_template(const CampaignOptions& o) {
  CampaignOptions named = o;
  named.scenario.scripts = campaign_scripts(o);
  std::optional<ScriptPack> pack;
  try {
    pack = load_scenario_pack(named.scenario);
  } catch (const ScriptPackError& e) {
    throw ScenarioError(std::string("bad script pack: ") + e.what());
  }
  return campaign_template(o, *pack);
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

// A verdict never contradicts its own evidence: a seed's violation the
// seed's re-runs explained, whose shrunk counterexample (a plan the re-runs
// also judged) is unexplained, is unexplained too. Its cause then says so
// in its one line, and the campaign's counts move it.
void agree_with_counterexamples(CampaignResult* r, SeedFailure* f) {
  for (const Counterexample& cx : f->shrunk) {
    const Cause& shrunk = cx.violation.cause;
    if (shrunk.status == CauseStatus::NotSearched || shrunk.confirmed()) continue;
    auto v = std::find_if(f->violations.begin(), f->violations.end(),
                          [&](const Violation& x) { return x.property == cx.violation.property; });
    if (v == f->violations.end() || !v->explained()) continue;
    const bool seed_had_unexplained =
        std::any_of(f->violations.begin(), f->violations.end(), [](const Violation& x) { return !x.explained(); });
    const std::string kind = v->cause.kind();
    v->cause = Cause{CauseStatus::Unconfirmed, {}, v->cause.reruns + shrunk.reruns,
                     "the seed's re-runs proved " + kind + ", but its shrunk counterexample (" +
                         counterexample_extent(cx) + ") is " + shrunk.text()};
    if (r->tally.explained > 0) --r->tally.explained;
    ++r->tally.unexplained;
    if (auto k = r->tally.explained_by_kind.find(kind); k != r->tally.explained_by_kind.end() && --k->second == 0)
      r->tally.explained_by_kind.erase(k);
    if (!seed_had_unexplained) ++r->unexplained_seeds;
    const bool seed_has_explained =
        std::any_of(f->violations.begin(), f->violations.end(), [](const Violation& x) { return x.explained(); });
    if (!seed_has_explained && r->explained_seeds > 0) --r->explained_seeds;
  }
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
          const Scenario s = f.scenario_of(r->scenario);
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
            // An explained violation's counterexample is judged too: the
            // verdict must not contradict it (agree_with_counterexamples).
            if (v.explained() && options.cause_reruns > 0)
              explain_counterexample(&f.shrunk.back(), cfg, workers[w].checked.get(), options.cause_reruns);
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
  for (SeedFailure* f : to_shrink) agree_with_counterexamples(r, f);
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
    if (options.focus) s.focus = draw_focus(s.seed, s.profile, s.lock_kind, s.locks);
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
    if (fails) r.failures.back().focus = s.focus;
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

}  // namespace locksim
