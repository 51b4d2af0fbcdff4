// Campaign: many seeded scenarios from one template, each checked by the
// CheckerSuite while it streams (nothing stored). A seed fails when it shows
// a violation its VerdictPolicy fails on (the causes of a seed's counted
// violations are searched first, on its worker: properties/cause_search.h);
// the campaign stops at the first failing seed unless keep_going, and then
// lists every failing seed. Every
// property each of the first `shrink_seeds` failing seeds (seed order)
// violates is shrunk on its own (search/shrink.h) to a short
// counterexample that still violates it.
// Shards: shard I of N runs the seed indexes i (seed = base_seed + i,
// 0 <= i < seeds) with i % N == I, in order. Which seeds fail and how depends
// only on the seed, so the failures of shards 0..N-1 together are those of
// the unsharded campaign (with keep_going), and the first `shrink_seeds`
// failing seeds of the whole campaign are among the first `shrink_seeds` of
// their shard: a merge can keep exactly the counterexamples the unsharded
// campaign has.
// Advisory properties the policy does not fail on (busy_poll) are counted in
// the result's advisories, never hidden.
// The mutant (impl/mutant.h) is a client mutant (impl/client_mutant.h) or a
// script mutant (model/variant.h, run as its ModelVariant on the model
// backend); a script pack dir contributes the ModelVariant its manifest names.
// Backends (search/campaign_backend.h): the seeds run on the workers'
// BackendSources (search/campaign_worker.h), J seeds at a time on J
// workers; results are taken in seed order, so the result does not depend on
// J. `--backend both` also runs each seed on a reference backend and fails
// it, as a divergence, at the first event where the histories differ.
// Coverage: every seed's (properties/coverage.h), on the checked backend,
// numbered by its seed.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "impl/mutant.h"
#include "impl/script_pack.h"
#include "properties/cause_search.h"
#include "properties/check_config.h"
#include "properties/coverage.h"
#include "properties/scenario_check.h"
#include "properties/verdict_policy.h"
#include "properties/violation.h"
#include "search/campaign_backend.h"
#include "search/campaign_worker.h"
#include "search/shard_split.h"
#include "sim/explicit_plan.h"
#include "sim/history_comparator.h"
#include "sim/scenario.h"
#include "traces/event.h"

namespace locksim {

// The scenario a campaign starts from when none is named: the command
// line's defaults (Scenario's, with the safe profile).
inline Scenario campaign_default_scenario() {
  Scenario s;
  s.profile = Profile::named("safe");
  return s;
}

struct CampaignOptions {
  // The scenario every seed runs, as named: seed i of the campaign (0 <= i <
  // seeds) runs it with seed scenario.seed + i (the base seed). A client
  // mutant is its `mutant`, a script mutant its `model_variant`. Its script
  // pack (`scripts`; empty: the default pack, or the script mutant's) is
  // resolved by campaign_template(), which sets the design, the model
  // variant and, unless fair_slot_given, the fair slot from the pack.
  Scenario scenario = campaign_default_scenario();
  bool fair_slot_given = false;  // scenario.fair_slot_ms as given; else the pack's settings, else 0
  int seeds = 100;
  bool shrink = true;
  int shrink_seeds = 3;     // shrink the first this many failing seeds (seed order)
  bool keep_going = false;  // go on past failing seeds, list them all
  int shard_index = 0;      // this shard's index I in [0, shard_count)
  int shard_count = 1;      // N: the seed indexes i with i % N == I run here
  CampaignBackend backend;  // the model alone
  // A script pack the reference backend runs instead of the checked pack
  // (--reference; empty: the reference is the correct model or the pack itself).
  std::string reference_scripts;
  int workers = 1;          // seeds run at once (one backend source each)
  // Re-runs per counted violation of a failing seed to prove its cause
  // (properties/cause_search.h); 0: none, every violation unexplained.
  int cause_reruns = kDefaultCauseReruns;
  PropertySelection properties;  // the properties checked (the others' checkers do not run)
  VerdictPolicy policy;
  // A guided campaign (search/guided_campaign.h) and the digest of the
  // corpus it started from (empty: none).
  bool guided = false;
  std::string guided_corpus_digest;
  // A focused campaign: each seed runs with the focus draw_focus() gives it
  // (sim/focus.h): one trigger of faults at the instants a lock is fragile,
  // or none (a plain seed, a quarter of them).
  bool focus = false;
};

inline constexpr int kMaxCampaignWorkers = 64;
inline constexpr int kMaxCampaignShards = 1'000'000;
inline constexpr int kMaxShrinkSeeds = 10'000;

// shard_seed_count(): search/shard_split.h.

struct Counterexample {
  std::vector<Event> events;   // the shrunk history, up to the violation's detection
  size_t trace_events = 0;     // its whole run's (the trace's) events: events are its first ones
  Violation violation;         // as found in it
  // The explicit plan whose run gives `events` (then goes on to its end);
  // absent when the failing seed could not be reproduced as a plan (events
  // are then the seed's own history).
  std::optional<ExplicitPlan> plan;
  // What else the plan's full run violates (search/shrink.h): how many
  // counted (not advisory) violations of another property, and those
  // properties, sorted. A shrunk counterexample shows one thing when 0.
  size_t other_violations = 0;
  std::vector<std::string> other_properties;
  // Holds with an explicit lease, granted before the violation was
  // detected, that the plan's full run keeps past what the workload does
  // ("owner|lock", sorted; their owner's operations stay on that lock until
  // it is fully released, within half the lease; a crash, pause or lost
  // message of its client excuses it): shrinking may add none the first
  // counterexample did not have (search/shrink.cc). And their number.
  std::vector<std::string> overrun_holds;
  size_t leased_holds_overrun = 0;
};

// Where a shrink is, after each try (search/shrink.h): for a progress line.
struct ShrinkProgress {
  uint64_t seed = 0;         // the failing seed (set by the campaign; 0 elsewhere)
  std::string property;      // the property being shrunk for
  size_t best_events = 0;    // the shortest counterexample so far, in trace events
  int tries = 0;             // runs tried so far
  int max_tries = 0;         // the bound on tries (kMaxShrinkRuns)
};

// "6 trace events", or "the first 6 of its trace's 11 events" when the
// trace (the plan run to its end) goes on after the violation's detection.
std::string counterexample_extent(const Counterexample& cx);

struct SeedFailure {
  uint64_t seed = 0;                    // a guided campaign's run number (search/guided_campaign.h)
  uint64_t events = 0;                  // length of the seed's history
  // A guided campaign's run of an explicit plan instead of the seed's
  // generated scenario: this plan is what failed (its trace replays it).
  std::optional<ExplicitPlan> plan;
  std::vector<Violation> violations;    // every failing violation, history order
  // --backend both: the first event where the checked (live) history
  // differs from the reference (model) one; expected = reference.
  std::optional<HistoryMismatch> divergence;
  // The first CampaignOptions::shrink_seeds failing seeds only (when
  // shrinking): one counterexample per violated property, in the order of
  // `violations`' first occurrences; then, for a divergence, one whose
  // violation.property is "divergence" (search/shrink_divergence.h).
  std::vector<Counterexample> shrunk;
  // A focused campaign's seed (CampaignOptions::focus): the focus it was
  // drawn (sim/focus.h); none for a plain seed.
  std::optional<Focus> focus;
  // The scenario this seed ran: the campaign's template with its seed and focus.
  Scenario scenario_of(const Scenario& tmpl) const {
    Scenario s = tmpl;
    s.seed = seed;
    s.focus = focus;
    return s;
  }
};

// An advisory property the policy does not fail on, summed over the seeds.
struct AdvisoryCount {
  int seeds = 0;                        // seeds with at least one report
  int reports = 0;
  uint64_t first_seed = 0;
  std::string first_report;             // Violation::to_string() of the first
};

struct CampaignResult {
  Scenario scenario;                    // the template (seed = base seed)
  std::string backend = "model";        // "model", "lua", "live", "both" or "<checked>,<reference>"
  int seeds_run = 0;                    // of this shard
  int seeds_planned = 0;                // of this shard (shard_seed_count)
  uint64_t events_checked = 0;
  int64_t simulated_us = 0;             // true time simulated, summed over the seeds
  uint64_t operations_ok = 0;           // Ok events (operations that succeeded), summed
  uint64_t script_errors = 0;           // script events that answered an error, summed
  uint64_t waiting_polls = 0;           // RunSummary's, summed: attempts of acquires that waited
  int64_t waiting_us = 0;               // and their waiting time
  std::vector<SeedFailure> failures;    // in seed order
  std::map<std::string, AdvisoryCount> advisories;  // property -> counts
  Coverage coverage;                    // what the seeds run exercised (properties/coverage.h), runs = seeds
  // Every violation of the seeds run, by kind of result: unexplained and
  // explained ones of the properties the policy counts (fail_on), advisory
  // reports of the others; and the seeds with an unexplained or an
  // explained one. Under unexplained_only the explained ones fail nothing:
  // they are set aside, and counted here.
  ResultTally tally;
  int unexplained_seeds = 0;
  int explained_seeds = 0;
  bool unexplained_only = false;        // the policy set explained violations aside
  bool vacuous_fails = false;           // vacuous() and the policy fails on it
  // No operation succeeded in any seed run: nothing was checked.
  bool vacuous() const { return seeds_run > 0 && operations_ok == 0; }
  bool failed() const { return !failures.empty() || vacuous_fails; }
};

// The mutant the options name (the scenario's client mutant or script
// mutant variant), for a command line.
Mutant campaign_mutant(const CampaignOptions& options);
// The scripts a campaign's scenario names: --scripts; else a script
// mutant's pack (beside $LOCKSIM_SCRIPTS's pack when it has a mutants/
// sibling holding it, else the built-in one); else "" (the default pack).
std::string campaign_scripts(const CampaignOptions& options);
// Resolves the options into a scenario template with `pack` (the pack
// campaign_scripts() names, loaded once by the caller); throws
// ScenarioError naming the bad option.
Scenario campaign_template(const CampaignOptions& options, const ScriptPack& pack);
// The same, loading the pack itself (ScenarioError for one that does not load).
Scenario campaign_template(const CampaignOptions& options);

// A seed whose run could not complete (a live script that never answers, a
// server that died): the campaign stops there. what() names the seed.
struct CampaignSeedError : std::runtime_error {
  CampaignSeedError(uint64_t seed_, const std::string& what) : std::runtime_error(what), seed(seed_) {}
  uint64_t seed;
};

// Progress, after each seed taken (in seed order): seeds done of total in
// this shard, failing seeds so far, and the true time simulated so far.
struct CampaignProgressInfo {
  int done = 0;
  int total = 0;
  int failed = 0;
  int64_t simulated_us = 0;
  // Once every seed ran: the failures being shrunk, this one's latest try.
  std::optional<ShrinkProgress> shrinking;
};
using CampaignProgress = std::function<void(const CampaignProgressInfo&)>;
// On options.workers model workers (options.backend is not consulted).
CampaignResult run_campaign(const Scenario& tmpl, const CampaignOptions& options,
                            const CampaignProgress& progress = {},
                            const CheckConfig* config = nullptr);
// On the given workers (at least one), one thread each. Throws
// CampaignSeedError for the first seed, in seed order, whose run threw.
CampaignResult run_campaign(const Scenario& tmpl, const CampaignOptions& options,
                            std::vector<CampaignWorker>& workers, const CampaignProgress& progress = {},
                            const CheckConfig* config = nullptr);

// A verdict never contradicts its own evidence: each violation of `f` the
// seed's re-runs explained whose shrunk counterexample in f->shrunk (the
// one for its property) re-runs left unexplained becomes unexplained (its
// cause Unconfirmed, its note naming both), and r's counts move with it.
// shrink_campaign_failures() calls it for every failure it shrinks.
void agree_with_counterexamples(CampaignResult* r, SeedFailure* f);

// One seed's (or run's) verdict added to `r` in order: counts, coverage
// (numbered `run_number`), advisories and, when it fails by the policy, a
// SeedFailure (with `plan` when the run was a plan). Returns whether it
// failed. `seeds_run` is what r.seeds_run becomes.
bool add_seed_result(CampaignResult* r, const CampaignOptions& options, uint64_t run_number, int seeds_run,
                     ScenarioVerdict verdict, std::optional<HistoryMismatch> divergence,
                     std::optional<ExplicitPlan> plan);
// Shrinks the first options.shrink_seeds failures of `r` (each property
// they violate; a divergence too), spread over the workers' checked
// backends; a failure with a plan shrinks that plan, one without reruns
// its seed (r->scenario with its seed). Deterministic for any number of
// workers. `progress` (if set) hears of every try, one call at a time.
void shrink_campaign_failures(CampaignResult* r, const CampaignOptions& options, const CheckConfig& config,
                              std::vector<CampaignWorker>& workers, const CampaignProgress& progress = {});

// An exception's what() ("unknown error" for one that is not a
// std::exception): how a seed that could not run is named.
std::string exception_text(const std::exception_ptr& error);

// Its text and JSON (what `campaign` prints, summary.json's "results"):
// reports/campaign_text.h.

}  // namespace locksim
