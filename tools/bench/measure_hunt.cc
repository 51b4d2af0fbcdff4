// The hunt measurement: time to find each mutant, guided (campaign
// --guided, search/guided_campaign.h) against random (a plain campaign),
// in one run. Every mutant the harness knows (search/mutant_suite.h:
// the client mutants and the script mutants, each on its own scenario
// template) and the rare-schedule mutants of impl/hunt/ (a pack's own Lua,
// on the lua backend), each from several base seeds: a campaign of at most
// `hunt_budget` runs on one worker, stopping at the first run with a
// violation no recorded fault explains (--unexplained-only), not shrunk.
// Per mutant: the median over the base seeds of the runs and wall seconds
// to the first failure (a campaign that found nothing counts its whole
// budget, and a median that is such a campaign is a lower bound), random
// and guided, how many base seeds found it, whether a find also fails with
// the correct client and scripts, and the ratio of the medians, guided
// over random (below 1: guided found it sooner): exact, an upper bound
// (random's median found nothing), a lower bound (guided's did), or none
// (neither found it in half the bases). Figures: hunt_median_ratio (the
// median of the ratios, bounds as their values, over every mutant with
// one), hunt_rare_median_ratio (over the rare-schedule ones) and
// hunt_states_ratio (distinct abstract states of the README's main
// campaign, guided over random, in the same budget of runs).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "impl/builtin_packs.h"
#include "impl/script_pack.h"
#include "model/variant.h"
#include "properties/cause_search.h"
#include "search/mutant_suite.h"
#include "properties/scenario_check.h"
#include "search/shrink.h"
#include "search/guided_campaign.h"
#include "sim/lua_backend_source.h"
#include "sim/model_backend_source.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/wall_timer.h"

namespace locksim {

namespace {

struct HuntMutant {
  std::string name;
  bool rare = false;
  bool main = false;  // on the README main campaign's scenario instead of the mutant's own
  CampaignOptions options;  // the scenario template; seeds and base seed set per hunt
  std::string pack;         // rare-schedule mutants: their built-in pack (lua backend)
};

HuntMutant rare_mutant(const std::string& name, ScenarioLockKind lock_kind, const std::string& profile) {
  HuntMutant m;
  m.name = name;
  m.rare = true;
  m.options.scenario.lock_kind = lock_kind;
  m.options.scenario.profile = Profile::named(profile);
  m.options.scenario.clients = 4;
  m.pack = std::string(kBuiltinPrefix) + "impl/hunt/" + name;
  m.options.scenario.scripts = m.pack;
  m.options.backend = CampaignBackend{BackendKind::Lua, std::nullopt};
  return m;
}

// The rare-schedule mutants (impl/hunt/, each a pack's own Lua):
//   fair_stale_ttl_crashed_holder  answers a waiter already in line the
//     older, possibly negative estimate only while the lock's holder has
//     stopped renewing: a crashed fair-lock holder and a live waiter at
//     once, under the safe profile's rare crashes
//   rlock_steal_unrenewed  takes over a lock whose holder has skipped its
//     renewals for half a lease: a holder paused for more than half a
//     lease yet less than a whole one, with a contender right then
//     (hostile: its pauses are mostly shorter)
std::vector<HuntMutant> hunt_mutants() {
  std::vector<HuntMutant> out;
  const std::vector<MutantSpec> specs = mutant_specs();
  for (const MutantSpec& spec : specs) out.push_back(HuntMutant{spec.name, false, false, spec.tmpl, ""});
  out.push_back(rare_mutant("fair_stale_ttl_crashed_holder", ScenarioLockKind::Fair, "safe"));
  out.push_back(rare_mutant("rlock_steal_unrenewed", ScenarioLockKind::Rlock, "hostile"));
  // Every suite mutant again on the README main campaign's scenario (safe,
  // mixed, 2 locks): a campaign not tuned to expose it.
  for (const MutantSpec& spec : specs) {
    CampaignOptions o = readme_campaign_options(spec.tmpl.seeds);
    o.scenario.mutant = spec.tmpl.scenario.mutant;
    o.scenario.model_variant = spec.tmpl.scenario.model_variant;
    out.push_back(HuntMutant{spec.name, false, true, o, ""});
  }
  return out;
}

struct Find {
  bool found = false;
  int runs = 0;       // to the first failure (the budget when not found)
  double wall_s = 0;  // of the whole campaign (to the first failure)
  bool baseline_failed = false;  // the failing run fails with the correct client and scripts too
};

// Whether the failing run also fails, the same way, with the correct client
// and scripts (on the model): a find that is not the mutant's.
bool baseline_fails(const CampaignResult& r, const CampaignOptions& o) {
  const SeedFailure& f = r.failures.front();
  ModelBackendSource correct(ModelVariant::Correct);
  const CheckConfig config = default_check_config();
  auto counted = [&o](const Violation& x) { return o.policy.fail_on.count(x.property) != 0; };
  // Causes proven as the campaign proves them (re-runs), or every violation
  // of the correct lock would count as unexplained.
  ScenarioVerdict v;
  VectorSink history;
  if (f.plan) {
    const ExplicitPlan plan = baseline_plan(*f.plan);
    v = check_plan_on(correct, plan, config, &history);
    explain_violations(&v.violations, plan, history.events, config, &correct, o.cause_reruns, counted);
  } else {
    Scenario s = r.scenario;
    s.seed = f.seed;
    s.mutant = ClientMutant::None;
    s.model_variant = ModelVariant::Correct;
    s.scripts.clear();
    v = check_scenario_on(correct, s, config, &history);
    explain_violations(&v.violations, s, history.events, config, &correct, o.cause_reruns, counted);
  }
  return !failing_violations(v.violations, o.policy).empty();
}

Find hunt_once(const HuntMutant& m, uint64_t base_seed, int budget, bool guided) {
  CampaignOptions o = m.options;
  o.seeds = budget;
  o.scenario.seed = base_seed;
  o.keep_going = false;
  o.shrink = false;
  o.workers = 1;
  o.guided = guided;
  o.policy.unexplained_only = true;
  const Scenario tmpl = campaign_template(o);
  std::vector<CampaignWorker> workers(1);
  if (m.pack.empty()) {
    workers[0].checked = std::make_unique<ModelBackendSource>();
  } else {
    workers[0].checked = std::make_unique<LuaBackendSource>(ScriptPack::load(m.pack));
  }
  const WallTimer timer;
  const CampaignResult r = guided ? run_guided_campaign(tmpl, o, workers).result : run_campaign(tmpl, o, workers);
  Find f;
  f.wall_s = timer.elapsed_s();
  f.found = !r.failures.empty();
  f.runs = f.found ? static_cast<int>((r.failures.front().seed - base_seed) / static_cast<uint64_t>(o.shard_count)) + 1
                   : budget;
  if (f.found) f.baseline_failed = baseline_fails(r, o);
  return f;
}

struct Side {
  double runs = 0;
  double wall_s = 0;
  int found = 0;
  int baseline_failed = 0;
  bool censored = false;  // the median is a campaign that found nothing: a lower bound
};

Side summarise(const std::vector<Find>& finds) {
  std::vector<double> runs, wall;
  Side s;
  for (const Find& f : finds) {
    runs.push_back(f.runs);
    wall.push_back(f.wall_s);
    s.found += f.found;
    s.baseline_failed += f.baseline_failed;
  }
  s.runs = median(runs);
  s.wall_s = median(wall);
  s.censored = 2 * s.found <= static_cast<int>(finds.size());  // the middle one (or one of the two) found nothing
  return s;
}

// The ratio of the medians, guided over random, and what it is: "=" both
// medians are finds; "<=" only random's is censored (guided is at least
// that much faster); ">=" only guided's is; "?" neither found it in half
// the bases (no ratio).
struct Ratio {
  double value = 0;
  std::string kind;
};

Ratio ratio_of(const Side& random, const Side& guided) {
  Ratio r;
  r.value = random.wall_s > 0 ? guided.wall_s / random.wall_s : 0;
  if (random.censored && guided.censored) {
    r.kind = "?";
  } else if (random.censored) {
    r.kind = "<=";
  } else if (guided.censored) {
    r.kind = ">=";
  } else {
    r.kind = "=";
  }
  return r;
}

std::string format_row(const std::string& name, const char* tag, const Side& random, const Side& guided, int bases,
                       const Ratio& ratio) {
  char line[260];
  auto at_least = [](bool censored) { return censored ? ">=" : "  "; };
  char value[32];
  if (ratio.kind == "?") {
    std::snprintf(value, sizeof value, "%9s", "-");
  } else {
    std::snprintf(value, sizeof value, "%2s%7.2f", ratio.kind == "=" ? "" : ratio.kind.c_str(), ratio.value);
  }
  std::snprintf(line, sizeof line, "  %-30s %-4s %2s%6.0f %2s%8.2f %3d/%-2d %2s%6.0f %2s%8.2f %3d/%-2d %s\n", name.c_str(),
                tag, at_least(random.censored), random.runs, at_least(random.censored), random.wall_s,
                random.found, bases, at_least(guided.censored), guided.runs, at_least(guided.censored), guided.wall_s,
                guided.found, bases, value);
  return line;
}

}  // namespace

void measure_hunt(const BenchSizes& sizes, BenchReport* report) {
  std::vector<uint64_t> bases;
  for (int i = 0; i < sizes.hunt_bases; ++i) bases.push_back(1 + 1000 * static_cast<uint64_t>(i));
  std::vector<double> ratios, rare_ratios, main_ratios, beyond_ratios;
  int undecided = 0;
  nlohmann::json rows = nlohmann::json::array();
  std::string text;
  char head[240];
  std::snprintf(head, sizeof head, "  %-30s %-4s %8s %10s %6s %8s %10s %6s %9s\n", "mutant", "", "random", "random s",
                "found", "guided", "guided s", "found", "ratio");
  text += "hunt: runs and wall seconds to the first failure, medians over " + std::to_string(bases.size()) +
          " base seeds (budget " + std::to_string(sizes.hunt_budget) +
          " runs; >= a median that found nothing; ratio = guided s / random s, <= or >= a bound, - neither found "
          "it)\n" + head;
  bool main_heading = false;
  for (const HuntMutant& m : hunt_mutants()) {
    std::vector<Find> random, guided;
    for (uint64_t base : bases) {
      random.push_back(hunt_once(m, base, sizes.hunt_budget, false));
      guided.push_back(hunt_once(m, base, sizes.hunt_budget, true));
    }
    const Side r = summarise(random), g = summarise(guided);
    const Ratio ratio = ratio_of(r, g);
    if (ratio.kind == "?") {
      if (!m.main) ++undecided;
    } else {
      if (m.main) {
        main_ratios.push_back(ratio.value);
      } else {
        ratios.push_back(ratio.value);
      }
      if (m.rare) rare_ratios.push_back(ratio.value);
      // Beyond the first batch (a guided campaign's first batch is the
      // random campaign's seeds): where guidance can act at all.
      if (r.runs > kGuidedBatch) beyond_ratios.push_back(ratio.value);
    }
    if (m.main && !main_heading) {
      text += "  on the README main campaign's scenario (campaign --profile safe --lock mixed --locks 2 --mutant NAME):\n";
      main_heading = true;
    }
    text += format_row(m.name, m.rare ? "rare" : m.main ? "main" : "", r, g, static_cast<int>(bases.size()), ratio);
    if (r.baseline_failed + g.baseline_failed > 0) {
      text += "    (" + std::to_string(r.baseline_failed + g.baseline_failed) +
              " find(s) fail with the correct client and scripts too)\n";
    }
    nlohmann::json row = {{"mutant", m.name},        {"rare", m.rare},        {"main_scenario", m.main},
                          {"random_runs", r.runs},
                          {"random_s", r.wall_s},    {"random_found", r.found}, {"guided_runs", g.runs},
                          {"guided_s", g.wall_s},    {"guided_found", g.found}, {"bases", bases.size()},
                          {"random_censored", r.censored}, {"guided_censored", g.censored},
                          {"ratio", ratio.kind == "?" ? nlohmann::json() : nlohmann::json(ratio.value)},
                          {"ratio_kind", ratio.kind},
                          {"finds_failing_the_correct_lock_too", r.baseline_failed + g.baseline_failed}};
    rows.push_back(std::move(row));
  }
  // The median of `ratios` as `key`, or null with `none` when there is none.
  auto set_median = [report](const char* key, const std::vector<double>& values, const std::string& detail,
                             const char* none) {
    if (values.empty()) {
      report->set_null(key, none);
    } else {
      report->set(key, median(values), detail);
    }
  };
  set_median("hunt_median_ratio", ratios,
             "median over " + std::to_string(ratios.size()) +
                 " mutants of guided s / random s to the first failure (bounds as values; " +
                 std::to_string(undecided) + " mutant(s) neither found in half the bases left out)",
             "no mutant was found by either side in half its base seeds");
  set_median("hunt_rare_median_ratio", rare_ratios,
             "the same over the " + std::to_string(rare_ratios.size()) + " rare-schedule mutant(s) of impl/hunt/",
             "no rare-schedule mutant found by either side in half its base seeds");
  set_median("hunt_main_median_ratio", main_ratios,
             "the same over the " + std::to_string(main_ratios.size()) +
                 " suite mutant(s) with a ratio on the README main campaign's scenario",
             "no mutant found by either side in half its base seeds there");
  set_median("hunt_beyond_batch_median_ratio", beyond_ratios,
             "the same over the " + std::to_string(beyond_ratios.size()) +
                 " row(s) of either scenario whose random median needs more than the first batch (" +
                 std::to_string(kGuidedBatch) + " runs)",
             "no row's random median needs more than the first batch");
  char detail[240];
  // Distinct abstract states in one budget: the README's main campaign.
  CampaignOptions o = readme_campaign_options(sizes.hunt_states_runs);
  size_t states[2] = {0, 0};
  for (int guided = 0; guided < 2; ++guided) {
    o.guided = guided != 0;
    std::vector<CampaignWorker> workers(1);
    workers[0].checked = std::make_unique<ModelBackendSource>();
    const Scenario tmpl = campaign_template(o);
    const CampaignResult r = o.guided ? run_guided_campaign(tmpl, o, workers).result : run_campaign(tmpl, o, workers);
    states[guided] = r.coverage.states().size();
  }
  std::snprintf(detail, sizeof detail, "campaign --seeds %d --profile safe --lock mixed --locks 2: %zu distinct states guided, %zu random",
                sizes.hunt_states_runs, states[1], states[0]);
  report->set("hunt_states_ratio", states[0] > 0 ? static_cast<double>(states[1]) / static_cast<double>(states[0]) : 0,
              detail);
  report->set_section("hunt", std::move(rows), text);
}

}  // namespace locksim
