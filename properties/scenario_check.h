// Scenario checks: run one Scenario on the model backend (its model_variant
// selects mutant scripts), or on any BackendSource (sim/backend_source.h:
// live redis-servers), and stream the history through a CheckerSuite,
// without storing it. Optionally the history also goes to `also` (a trace
// writer, or a VectorSink for shrinking). The checker configuration follows
// the client's defaults (impl/client_config.h) and, whatever the caller
// passes, the scenario's lock design (with_design()). Every check also
// measures the run's coverage (properties/coverage_observer.h, and the
// backend's script coverage under "script/").
#pragma once

#include <vector>

#include "properties/check_config.h"
#include "properties/coverage.h"
#include "properties/coverage_observer.h"
#include "properties/violation.h"
#include "sim/backend_source.h"
#include "sim/explicit_plan.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {

struct ScenarioVerdict {
  RunSummary summary;
  std::vector<Violation> violations;  // in history order, advisory ones included
  RunCoverage coverage;               // what the run exercised
  // No violation of a property that fails by default (advisory ones aside).
  bool ok() const {
    for (const Violation& v : violations)
      if (!is_advisory_property(v.property)) return false;
    return true;
  }
};

// CheckConfig matching ClientConfig's defaults.
CheckConfig default_check_config();
// The same for the scenario's declared lock design (with_design()): for a
// history of that scenario (a trace's header names it).
CheckConfig check_config_for(const Scenario& scenario);
// `config` for the scenario's locks: its design's bounds, a spin lock's
// back-off (with_scenario_locks(), properties/check_config.h).
CheckConfig config_for_scenario(const CheckConfig& config, const Scenario& scenario);

// Throws ScenarioError on an invalid scenario.
ScenarioVerdict check_scenario(const Scenario& scenario, const CheckConfig& config = default_check_config(),
                               EventSink* also = nullptr);
// The same on a backend from `source` (fresh for this run). Transport errors
// of a live backend (RedisError) pass through.
ScenarioVerdict check_scenario_on(BackendSource& source, const Scenario& scenario, const CheckConfig& config,
                                  EventSink* also = nullptr);

// The same for an explicit plan (sim/explicit_plan.h), run by run_explicit
// on a backend from `source` (fresh for this run, for plan.scenario).
ScenarioVerdict check_plan_on(BackendSource& source, const ExplicitPlan& plan, const CheckConfig& config,
                              EventSink* also = nullptr);

// A run's coverage: the observer's, plus `backend`'s script coverage of the
// lock kind's scripts as "script/<name>" items.
RunCoverage run_coverage(const CoverageObserver& observer, const Backend& backend, ScenarioLockKind lock_kind);

}  // namespace locksim
