// Mutant suite: every deliberate bug the harness knows — the lock client's
// mutants (impl/client_mutant.h) and the scripts' (model/variant.h, run as
// ModelVariants on the model backend) — each with the scenario template that
// exposes it (lock kind, fault profile, clients). A mutant is *caught* on the
// first seed whose history shows a violation that no fault explains (re-runs
// without its faults do not confirm a cause: properties/cause_search.h), so
// failures the profile causes by itself (a pause longer than the lease) do
// not count. The caught run is shrunk and the shrunk counterexample's cause
// searched again (it must stay unexplained); the result reports the
// property, seeds needed, wall time and counterexample length.
// A candidate (the caught run, and every shrink step) counts only if the same
// plan with the correct client and scripts does not fail the same way.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/campaign.h"
#include "sim/explicit_plan.h"

namespace locksim {

struct MutantSpec {
  std::string name;        // client mutant or model variant name
  bool client = false;     // true: client mutant; false: script mutant
  CampaignOptions tmpl;    // lock kind, profile, clients, duration (seeds = budget)
  // Optional: a small randomised explicit workload (seed -> plan, with tmpl's
  // scenario and profile link/clocks) used instead of the generated workload
  // when the bug needs a pattern the generic workload rarely makes short
  // (fair_no_stale_purge: a waiter that dies in the line).
  std::function<ExplicitPlan(const Scenario&)> plan_template;
};

struct MutantResult {
  std::string name;
  bool caught = false;
  std::string property;
  int seeds = 0;                    // seeds run (until caught, or the budget)
  double wall_s = 0;                // wall time, measured by the caller (reports only)
  size_t counterexample_events = 0;
  std::string violation;            // the shrunk counterexample's violation
  std::optional<Counterexample> counterexample;
};

// All mutants in a stable order: client mutants, then script mutants.
std::vector<MutantSpec> mutant_specs();

MutantResult run_mutant(const MutantSpec& spec, int max_seeds, bool shrink = true);

nlohmann::json mutant_results_to_json(const std::vector<MutantResult>& results);

}  // namespace locksim
