#include "search/guided_campaign.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <exception>
#include <optional>
#include <thread>

#include "properties/cause_search.h"
#include "properties/scenario_check.h"
#include "sim/profiles.h"
#include "traces/event_sink.h"

namespace locksim {

namespace {

constexpr size_t kMaxMoments = 256;

// Keeps what a run's plan and its moments need: for a fresh seed, the
// events plan_from_history reads (operations and faults); for every run,
// the moments worth aiming a fault at (an acquire granted, a waiter told to
// wait, a release started, a wake-up delivered), thinned to every second
// one whenever there are more than kMaxMoments.
class RunRecorder final : public EventSink {
 public:
  explicit RunRecorder(bool keep_history) : keep_history_(keep_history) {}
  void on_event(const Event& e) override {
    const bool operation = e.kind == EventKind::Invoke || e.kind == EventKind::Ok || e.kind == EventKind::Fail ||
                           e.kind == EventKind::Info || e.kind == EventKind::Fault;
    if (keep_history_ && operation) history.push_back(e);
    const bool granted = e.kind == EventKind::Ok && e.value == 1 && (e.op == Op::Lock || e.op == Op::TryLock);
    const bool told_to_wait = e.kind == EventKind::Script && (e.script == "rlock_acquire" || e.script == "fair_acquire") &&
                              !e.reply.is_nil() && !e.reply.is_error();
    const bool releasing = e.kind == EventKind::Invoke && e.op == Op::Unlock;
    if (!(granted || told_to_wait || releasing || e.kind == EventKind::Deliver)) return;
    if (++seen_ % stride_ != 0) return;
    moments.push_back(PlanMoment{e.true_us, e.client});
    if (moments.size() > kMaxMoments) {
      std::vector<PlanMoment> half;
      for (size_t i = 1; i < moments.size(); i += 2) half.push_back(moments[i]);
      moments = std::move(half);
      stride_ *= 2;
    }
  }
  std::vector<Event> history;
  std::vector<PlanMoment> moments;

 private:
  bool keep_history_;
  uint64_t seen_ = 0;
  uint64_t stride_ = 1;
};

struct Job {
  uint64_t run = 0;
  std::optional<ExplicitPlan> plan;  // none: the fresh seed `run`
};

struct JobOutcome {
  ScenarioVerdict verdict;
  ExplicitPlan plan;  // what ran (a fresh seed's recovered from its history)
  std::vector<PlanMoment> moments;
  std::exception_ptr error;
};

JobOutcome run_job(BackendSource& source, const Scenario& tmpl, const Job& job, const CheckConfig& cfg,
                   const CampaignOptions& options) {
  JobOutcome out;
  try {
    RunRecorder recorder(!job.plan);
    if (job.plan) {
      out.verdict = check_plan_on(source, *job.plan, cfg, &recorder);
      out.plan = *job.plan;
    } else {
      Scenario s = tmpl;
      s.seed = job.run;
      out.verdict = check_scenario_on(source, s, cfg, &recorder);
      out.plan = plan_from_history(s, recorder.history);
    }
    out.moments = std::move(recorder.moments);
    // The causes of the violations the policy counts, proven by re-runs of
    // the plan that ran, as a campaign proves a seed's
    // (properties/cause_search.h): a mutated plan's profile-permitted
    // failure is explained like any other.
    auto counted = [&options](const Violation& v) { return options.policy.fail_on.count(v.property) != 0; };
    if (std::any_of(out.verdict.violations.begin(), out.verdict.violations.end(), counted)) {
      VectorSink history;
      if (job.plan) {
        check_plan_on(source, *job.plan, cfg, &history);
        explain_violations(&out.verdict.violations, *job.plan, history.events, cfg, &source, options.cause_reruns,
                           counted);
      } else {
        Scenario s = tmpl;
        s.seed = job.run;
        check_scenario_on(source, s, cfg, &history);
        explain_violations(&out.verdict.violations, s, history.events, cfg, &source, options.cause_reruns, counted);
      }
    }
  } catch (...) {
    out.error = std::current_exception();
  }
  return out;
}

// Runs the batch's jobs on the workers (each claims the next job), the
// outcomes by job index. Without keep_going, a job that fails (or cannot
// run) ends the batch: no later job is claimed; every earlier one was
// claimed before it, so it completes (the outcomes up to the first failing
// job do not depend on the workers).
std::vector<JobOutcome> run_batch(const std::vector<Job>& jobs, const Scenario& tmpl,
                                  std::vector<CampaignWorker>& workers, const CheckConfig& cfg,
                                  const CampaignOptions& options) {
  std::vector<JobOutcome> outcomes(jobs.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> limit{jobs.size()};
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers.size() && w < jobs.size(); ++w) {
    threads.emplace_back([&, w] {
      for (size_t j = next++; j < jobs.size() && j < limit; j = next++) {
        outcomes[j] = run_job(*workers[w].checked, tmpl, jobs[j], cfg, options);
        const bool ends = outcomes[j].error ||
                          (!options.keep_going && !failing_violations(outcomes[j].verdict.violations, options.policy).empty());
        if (!ends) continue;
        size_t seen = limit.load();
        while (j + 1 < seen && !limit.compare_exchange_weak(seen, j + 1)) {
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return outcomes;
}

// Something no run before had.
bool reaches_new(const RunCoverage& run, const Coverage& seen) {
  for (const std::string& item : run.items)
    if (seen.items().count(item) == 0) return true;
  for (const std::string& state : run.states)
    if (seen.states().count(state) == 0) return true;
  return false;
}

// Where the run first reached what few runs before it had (at most
// kRareRuns), ahead of its other moments (search/plan_mutation.h).
constexpr uint64_t kRareRuns = 2;
constexpr size_t kMaxRareMoments = 64;

std::vector<PlanMoment> aim(const RunCoverage& run, const Coverage& seen, std::vector<PlanMoment> moments) {
  std::vector<PlanMoment> out;
  for (const CoverageFirst& f : run.firsts) {
    const auto& known = seen.items().count(f.name) != 0 ? seen.items() : seen.states();
    const auto it = known.find(f.name);
    if (it != known.end() && it->second.runs > kRareRuns) continue;
    if (out.size() >= kMaxRareMoments) break;
    out.push_back(PlanMoment{f.true_us, f.client, true});
  }
  out.insert(out.end(), moments.begin(), moments.end());
  return out;
}

// 1, 2, 4 or 8 mutations, a quarter of the time each: small steps from a
// parent and larger jumps.
int mutation_count(Rng& rng) {
  const double u = rng.unit();
  return u < 0.25 ? 1 : u < 0.5 ? 2 : u < 0.75 ? 4 : 8;
}

}  // namespace

bool corpus_entry_fits(const Scenario& tmpl, const Scenario& entry) {
  Scenario a = entry;
  a.seed = tmpl.seed;
  if (a.clients < tmpl.clients) return false;
  a.clients = tmpl.clients;
  return a == tmpl;
}

GuidedResult run_guided_campaign(const Scenario& tmpl, const CampaignOptions& options,
                                 std::vector<CampaignWorker>& workers, const Corpus& start,
                                 const CampaignProgress& progress, const CheckConfig* config) {
  assert(!workers.empty());
  assert(options.shard_count >= 1 && options.shard_index >= 0 && options.shard_index < options.shard_count);
  for (const CampaignWorker& w : workers) {
    if (w.reference != nullptr) throw std::invalid_argument("--guided runs are checked on one backend, not compared");
  }
  for (const CorpusEntry& e : start.entries()) {
    if (!corpus_entry_fits(tmpl, e.plan.scenario)) {
      throw std::invalid_argument("corpus entry of run " + std::to_string(e.run) +
                                  " is another campaign's (its scenario differs in more than the seed and clients)");
    }
    const Scenario& es = e.plan.scenario;
    const std::string outside =
        fault_outside_profile(es.profile, e.plan.faults.actions, es.clients, es.servers, es.duration_ms * 1000);
    if (!outside.empty()) {
      throw std::invalid_argument("corpus entry of run " + std::to_string(e.run) + " is outside its profile: " + outside);
    }
  }
  const CheckConfig cfg = config ? *config : default_check_config();
  GuidedResult g;
  CampaignResult& r = g.result;
  r.scenario = tmpl;
  r.backend = workers.front().checked->kind();
  g.corpus = start;
  Coverage seen;  // every run so far, the start corpus's entries included
  for (const CorpusEntry& e : start.entries()) seen.add(RunCoverage{e.items, e.states, {}, {}}, e.run);
  const int seeds = shard_seed_count(options.seeds, options.shard_index, options.shard_count);
  r.seeds_planned = seeds;
  auto run_number = [&](int k) {
    return tmpl.seed + static_cast<uint64_t>(options.shard_index) +
           static_cast<uint64_t>(k) * static_cast<uint64_t>(options.shard_count);
  };
  const Rng root = Rng(tmpl.seed).split("guided").split(static_cast<uint64_t>(options.shard_index));
  bool stop = false;
  for (int first = 0; first < seeds && !stop; first += kGuidedBatch) {
    const int count = std::min(kGuidedBatch, seeds - first);
    const Rng batch_rng = root.split(static_cast<uint64_t>(first / kGuidedBatch));
    const std::vector<double> weights = g.corpus.empty() ? std::vector<double>{} : g.corpus.weights(seen);
    std::vector<Job> jobs(static_cast<size_t>(count));
    for (int j = 0; j < count; ++j) {
      Job& job = jobs[static_cast<size_t>(j)];
      job.run = run_number(first + j);
      Rng rng = batch_rng.split(static_cast<uint64_t>(j));
      if (g.corpus.empty() || rng.chance(kFreshShare)) continue;
      const CorpusEntry& parent = g.corpus.entries()[Corpus::pick(weights, rng)];
      ExplicitPlan plan = parent.plan;
      for (int m = mutation_count(rng); m > 0; --m) g.mutations[plan_mutation_name(mutate_plan(&plan, parent.moments, rng))]++;
      job.plan = std::move(plan);
    }
    std::vector<JobOutcome> outcomes = run_batch(jobs, tmpl, workers, cfg, options);
    for (int j = 0; j < count; ++j) {
      JobOutcome& out = outcomes[static_cast<size_t>(j)];
      const Job& job = jobs[static_cast<size_t>(j)];
      if (out.error) {
        throw CampaignSeedError(job.run, (job.plan ? "run " : "seed ") + std::to_string(job.run) +
                                             " could not run: " + exception_text(out.error));
      }
      (job.plan ? g.mutated_runs : g.fresh_runs)++;
      if (reaches_new(out.verdict.coverage, seen)) {
        if (job.plan) g.corpus_from_mutations++;
        g.corpus.add(CorpusEntry{job.run, out.plan, out.verdict.coverage.items, out.verdict.coverage.states,
                                 aim(out.verdict.coverage, seen, std::move(out.moments))});
      }
      seen.add(out.verdict.coverage, job.run);
      const bool fails = add_seed_result(&r, options, job.run, first + j + 1, std::move(out.verdict), std::nullopt,
                                         job.plan);
      if (progress) progress({first + j + 1, seeds, static_cast<int>(r.failures.size()), r.simulated_us, {}});
      if (fails && !options.keep_going) {
        stop = true;
        break;
      }
    }
  }
  r.vacuous_fails = r.vacuous() && options.policy.fail_vacuous;
  if (options.shrink) shrink_campaign_failures(&r, options, cfg, workers, progress);
  return g;
}

}  // namespace locksim
