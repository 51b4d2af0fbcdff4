// The hunt measurement: how fast focused campaigns (campaign --focus,
// sim/focus.h) find the bugs random seeds find rarely, against random, in
// one run, on the README main campaign's scenario (safe, mixed, 2 locks).
//
// Candidates: every suite mutant (search/mutant_suite.h, on the model) and
// every rare-schedule mutant of impl/hunt/ (a pack's own Lua, on the lua
// backend). Each is hunted from sizes.hunt_bases base seeds (1, 1001, ...):
// a campaign of at most hunt_budget runs on one worker that stops at the
// first run with a violation no recorded fault explains (--unexplained-only),
// not shrunk. A candidate random finds within its first kRareAfterRuns runs
// (median over the bases) is not rare and is listed only; the others are the
// table's rows, hunted by focused campaigns from the same base seeds too.
// Per row and side: the median runs and wall seconds to the first failure
// (a campaign that found nothing counts its whole budget; a median that is
// such a campaign is a lower bound), their spread (quartiles of the runs),
// how many bases found it, and whether a find also fails with the correct
// client and scripts; then the ratio of the medians, focused over random.
// Figures: hunt_rare_runs_ratio and hunt_rare_seconds_ratio (medians over
// the rows with a ratio), hunt_worst_runs_ratio (the largest row's),
// hunt_fair_ttl_focus_runs (focused median runs of fair_ttl_from_deadline)
// and hunt_states_ratio (distinct abstract states of hunt_states_runs
// focused runs over those of ten times as many random runs).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "impl/builtin_packs.h"
#include "impl/script_pack.h"
#include "model/variant.h"
#include "properties/cause_search.h"
#include "properties/scenario_check.h"
#include "search/mutant_suite.h"
#include "search/shrink.h"
#include "sim/lua_backend_source.h"
#include "sim/model_backend_source.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/wall_timer.h"

namespace locksim {

namespace {

constexpr int kRareAfterRuns = 16;

struct HuntMutant {
  std::string name;
  CampaignOptions options;  // the README main scenario with the mutant; seeds and base seed set per hunt
  std::string pack;         // a rare-schedule mutant's built-in pack (lua backend); empty: the model
};

// The rare-schedule mutants (impl/hunt/, each a pack's own Lua; its
// scripts' comments say what each gets wrong and when it shows).
const char* const kHuntPacks[] = {
    "fair_stale_ttl_crashed_holder", "rlock_renew_adds_lease", "rlock_renew_recreates", "fair_purge_only_when_held",
};

std::vector<HuntMutant> hunt_candidates() {
  std::vector<HuntMutant> out;
  for (const MutantSpec& spec : mutant_specs()) {
    // The README's scenario runs reentrant locks: a spin lock's mutant
    // (backoff_no_growth, spin_watchdog_not_cancelled) has nothing to break there.
    if (spec.tmpl.scenario.lock_kind == ScenarioLockKind::Spin) continue;
    CampaignOptions o = readme_campaign_options(1);
    o.scenario.mutant = spec.tmpl.scenario.mutant;
    o.scenario.model_variant = spec.tmpl.scenario.model_variant;
    out.push_back(HuntMutant{spec.name, o, ""});
  }
  for (const char* name : kHuntPacks) {
    HuntMutant m{name, readme_campaign_options(1), std::string(kBuiltinPrefix) + "impl/hunt/" + name};
    m.options.scenario.scripts = m.pack;
    m.options.backend = CampaignBackend{BackendKind::Lua, std::nullopt};
    out.push_back(std::move(m));
  }
  return out;
}

struct Find {
  bool found = false;
  int runs = 0;       // to the first failure (the budget when not found)
  double wall_s = 0;  // of the whole campaign (to the first failure)
  bool baseline_failed = false;  // the failing run fails with the correct client and scripts too
};

// Whether the failing run also fails with the correct client and scripts
// (on the model): a find that is not the mutant's. The plan the failing
// run followed (a focused run's injected faults included) is re-run.
bool baseline_fails(const CampaignResult& r, const CampaignOptions& o) {
  const SeedFailure& f = r.failures.front();
  ModelBackendSource correct(ModelVariant::Correct);
  const CheckConfig config = default_check_config();
  auto counted = [&o](const Violation& x) { return o.policy.fail_on.count(x.property) != 0; };
  ScenarioVerdict v;
  VectorSink history;
  Scenario s = f.scenario_of(r.scenario);
  s.mutant = ClientMutant::None;
  s.model_variant = ModelVariant::Correct;
  s.scripts.clear();
  // Causes proven as the campaign proves them (re-runs), or every
  // violation of the correct lock would count as unexplained.
  v = check_scenario_on(correct, s, config, &history);
  explain_violations(&v.violations, s, history.events, config, &correct, o.cause_reruns, counted);
  return !failing_violations(v.violations, o.policy).empty();
}

Find hunt_once(const HuntMutant& m, uint64_t base_seed, int budget, bool focus) {
  CampaignOptions o = m.options;
  o.seeds = budget;
  o.scenario.seed = base_seed;
  o.keep_going = false;
  o.shrink = false;
  o.workers = 1;
  o.focus = focus;
  o.policy.unexplained_only = true;
  const Scenario tmpl = campaign_template(o);
  std::vector<CampaignWorker> workers(1);
  if (m.pack.empty()) {
    workers[0].checked = std::make_unique<ModelBackendSource>();
  } else {
    workers[0].checked = std::make_unique<LuaBackendSource>(ScriptPack::load(m.pack));
  }
  const WallTimer timer;
  const CampaignResult r = run_campaign(tmpl, o, workers);
  Find f;
  f.wall_s = timer.elapsed_s();
  f.found = !r.failures.empty();
  f.runs = f.found ? static_cast<int>(r.failures.front().seed - base_seed) + 1 : budget;
  if (f.found) f.baseline_failed = baseline_fails(r, o);
  return f;
}

struct Side {
  double runs = 0;
  double wall_s = 0;
  double runs_q1 = 0, runs_q3 = 0;  // the spread: quartiles of the runs
  int found = 0;
  int baseline_failed = 0;
  bool censored = false;  // the median is a campaign that found nothing: a lower bound
};

// The q-quantile (0..1) of a non-empty list, by the nearest rank.
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

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
  s.runs_q1 = quantile(runs, 0.25);
  s.runs_q3 = quantile(runs, 0.75);
  s.censored = 2 * s.found <= static_cast<int>(finds.size());  // the middle one (or one of the two) found nothing
  return s;
}

// The ratio of the medians, focused over random, and what it is: "=" both
// medians are finds; "<=" only random's is censored (focused is at least
// that much faster); ">=" only focused's is; "?" neither found it in half
// the bases (no ratio).
struct Ratio {
  double runs = 0;
  double seconds = 0;
  std::string kind;
};

Ratio ratio_of(const Side& random, const Side& focus) {
  Ratio r;
  r.runs = random.runs > 0 ? focus.runs / random.runs : 0;
  r.seconds = random.wall_s > 0 ? focus.wall_s / random.wall_s : 0;
  if (random.censored && focus.censored) {
    r.kind = "?";
  } else if (random.censored) {
    r.kind = "<=";
  } else if (focus.censored) {
    r.kind = ">=";
  } else {
    r.kind = "=";
  }
  return r;
}

std::string side_text(const Side& s, int bases) {
  char out[96];
  const char* bound = s.censored ? ">=" : "  ";
  std::snprintf(out, sizeof out, "%2s%5.0f %4.0f-%-4.0f %2s%7.2f %3d/%-2d", bound, s.runs, s.runs_q1, s.runs_q3, bound,
                s.wall_s, s.found, bases);
  return out;
}

std::string row_text(const std::string& name, const Side& random, const Side& focus, int bases, const Ratio& r) {
  char ratio[48];
  if (r.kind == "?") {
    std::snprintf(ratio, sizeof ratio, "%8s %8s", "-", "-");
  } else {
    const char* k = r.kind == "=" ? "" : r.kind.c_str();
    std::snprintf(ratio, sizeof ratio, "%2s%6.2f %2s%6.2f", k, r.runs, k, r.seconds);
  }
  char line[300];
  std::snprintf(line, sizeof line, "  %-36s %s   %s  %s\n", name.c_str(), side_text(random, bases).c_str(),
                side_text(focus, bases).c_str(), ratio);
  return line;
}

nlohmann::json side_json(const Side& s) {
  return {{"runs", s.runs},     {"runs_q1", s.runs_q1}, {"runs_q3", s.runs_q3}, {"seconds", s.wall_s},
          {"found", s.found},   {"censored", s.censored}};
}

// Distinct abstract states and covered items of `runs` runs of the README
// main campaign, focused or random.
std::pair<size_t, size_t> coverage_of(int runs, bool focus) {
  CampaignOptions o = readme_campaign_options(runs);
  o.focus = focus;
  std::vector<CampaignWorker> workers(1);
  workers[0].checked = std::make_unique<ModelBackendSource>();
  const CampaignResult r = run_campaign(campaign_template(o), o, workers);
  return {r.coverage.states().size(), r.coverage.items().size()};
}

}  // namespace

void measure_hunt(const BenchSizes& sizes, BenchReport* report) {
  std::vector<uint64_t> bases;
  for (int i = 0; i < sizes.hunt_bases; ++i) bases.push_back(1 + 1000 * static_cast<uint64_t>(i));
  const int nbases = static_cast<int>(bases.size());
  std::vector<double> runs_ratios, seconds_ratios;
  double worst = 0;
  std::optional<double> fair_ttl_runs;
  std::vector<std::string> not_rare;
  nlohmann::json rows = nlohmann::json::array();
  std::string table;
  for (const HuntMutant& m : hunt_candidates()) {
    std::vector<Find> random;
    for (uint64_t base : bases) random.push_back(hunt_once(m, base, sizes.hunt_budget, false));
    const Side r = summarise(random);
    if (!r.censored && r.runs <= kRareAfterRuns) {
      not_rare.push_back(m.name);
      continue;
    }
    std::vector<Find> focused;
    for (uint64_t base : bases) focused.push_back(hunt_once(m, base, sizes.hunt_budget, true));
    const Side f = summarise(focused);
    const Ratio ratio = ratio_of(r, f);
    if (ratio.kind != "?") {
      runs_ratios.push_back(ratio.runs);
      seconds_ratios.push_back(ratio.seconds);
      worst = std::max(worst, ratio.runs);
    }
    if (m.name == "fair_ttl_from_deadline" && !f.censored) fair_ttl_runs = f.runs;
    table += row_text(m.name + (m.pack.empty() ? "" : " (lua)"), r, f, nbases, ratio);
    if (r.baseline_failed + f.baseline_failed > 0) {
      table += "    (" + std::to_string(r.baseline_failed + f.baseline_failed) +
               " find(s) fail with the correct client and scripts too)\n";
    }
    rows.push_back({{"mutant", m.name},
                    {"pack", !m.pack.empty()},
                    {"bases", nbases},
                    {"random", side_json(r)},
                    {"focus", side_json(f)},
                    {"runs_ratio", ratio.kind == "?" ? nlohmann::json() : nlohmann::json(ratio.runs)},
                    {"seconds_ratio", ratio.kind == "?" ? nlohmann::json() : nlohmann::json(ratio.seconds)},
                    {"ratio_kind", ratio.kind},
                    {"finds_failing_the_correct_lock_too", r.baseline_failed + f.baseline_failed}});
  }
  std::string text = "hunt: the rare bugs of the README main campaign's scenario (campaign --profile safe --lock mixed "
                     "--locks 2), runs and wall seconds to the first unexplained failure, random seeds against focused "
                     "runs (--focus); medians over " +
                     std::to_string(nbases) + " base seeds, budget " + std::to_string(sizes.hunt_budget) +
                     " runs (>= a median that found nothing), runs' quartiles; ratio = focused / random (<= or >= a "
                     "bound, - neither found it)\n";
  char head[240];
  std::snprintf(head, sizeof head, "  %-36s %7s %9s %9s %5s   %7s %9s %9s %5s  %8s %8s\n", "mutant", "random", "spread",
                "s", "found", "focused", "spread", "s", "found", "runs", "s");
  text += head + table;
  std::string listed;
  for (const std::string& n : not_rare) listed += (listed.empty() ? "" : ", ") + n;
  text += "  not rare (random's median within " + std::to_string(kRareAfterRuns) + " runs): " + listed + "\n";

  auto set_median = [report](const char* key, const std::vector<double>& values, const std::string& detail) {
    if (values.empty()) {
      report->set_null(key, "no rare row was found by either side in half its base seeds");
    } else {
      report->set(key, median(values), detail);
    }
  };
  set_median("hunt_rare_runs_ratio", runs_ratios,
             "median over " + std::to_string(runs_ratios.size()) + " rare rows of focused / random runs to the first "
             "failure (bounds as values; rows neither side found in half the bases left out)");
  set_median("hunt_rare_seconds_ratio", seconds_ratios,
             "the same in wall seconds, over " + std::to_string(seconds_ratios.size()) + " rows");
  if (runs_ratios.empty()) {
    report->set_null("hunt_worst_runs_ratio", "no rare row with a ratio");
  } else {
    report->set("hunt_worst_runs_ratio", worst, "the largest focused / random runs ratio of a rare row");
  }
  if (fair_ttl_runs) {
    report->set("hunt_fair_ttl_focus_runs", *fair_ttl_runs,
                "focused median runs to the first failure of fair_ttl_from_deadline over " + std::to_string(nbases) +
                    " base seeds");
  } else {
    report->set_null("hunt_fair_ttl_focus_runs",
                     "fair_ttl_from_deadline not a rare row here, or focused runs did not find it in half the bases");
  }
  const auto focused = coverage_of(sizes.hunt_states_runs, true);
  const auto random = coverage_of(sizes.hunt_states_runs, false);
  const auto random10 = coverage_of(10 * sizes.hunt_states_runs, false);
  char detail[300];
  std::snprintf(detail, sizeof detail,
                "abstract states of %d focused runs (%zu; %zu items) over those of %d random runs (%zu; %zu items); "
                "%d random runs: %zu states, %zu items",
                sizes.hunt_states_runs, focused.first, focused.second, 10 * sizes.hunt_states_runs, random10.first,
                random10.second, sizes.hunt_states_runs, random.first, random.second);
  report->set("hunt_states_ratio",
              random10.first > 0 ? static_cast<double>(focused.first) / static_cast<double>(random10.first) : 0,
              detail);
  text += std::string("  coverage: ") + detail + "\n";
  report->set_section("hunt", std::move(rows), text);
}

}  // namespace locksim
