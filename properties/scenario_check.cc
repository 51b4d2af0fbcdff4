#include "properties/scenario_check.h"

#include "impl/client_config.h"
#include "model/variant.h"
#include "properties/checker_suite.h"
#include "sim/model_backend_source.h"
#include "sim/node_clock.h"

namespace locksim {

CheckConfig default_check_config() {
  const ClientConfig client;
  CheckConfig c;
  c.default_lease_ms = client.watchdog_lease_ms;
  c.request_timeout_ms = client.request_timeout_ms;
  c.wait_slack_ms = 2 * client.request_timeout_ms + 1000;
  // A lost wake-up costs a waiter at most one lease of sleep before it polls.
  c.free_lock_bound_ms = client.watchdog_lease_ms + c.wait_slack_ms;
  c.renew_grace_ms = client.request_timeout_ms + 1000;
  c.clock_epoch_ms = kEpochUs / 1000;
  return c;
}

CheckConfig config_for_scenario(const CheckConfig& config, const Scenario& scenario) {
  return with_scenario_locks(config, scenario.design, scenario.lock_kind, scenario.backoff);
}

CheckConfig check_config_for(const Scenario& scenario) { return config_for_scenario(default_check_config(), scenario); }

ScenarioVerdict check_scenario(const Scenario& scenario, const CheckConfig& config, EventSink* also) {
  validate_scenario(scenario);
  ModelBackendSource model;  // the scenario's model_variant
  return check_scenario_on(model, scenario, config, also);
}

namespace {

// One run on `backend` (`run` plays it into the sink it is given) through
// the checkers and the coverage observer, and `also`.
template <typename Run>
ScenarioVerdict check_run(Backend& backend, const Scenario& scenario, const CheckConfig& config, EventSink* also,
                          const Run& run) {
  CheckerSuite suite(config_for_scenario(config, scenario));
  CoverageObserver observer(scenario.lock_kind);
  FanoutSink fanout;
  fanout.add(&suite);
  fanout.add(&observer);
  if (also != nullptr) fanout.add(also);
  ScenarioVerdict verdict;
  verdict.summary = run(fanout);
  suite.finish(verdict.summary.end_true_us);
  verdict.violations = suite.violations();
  verdict.coverage = run_coverage(observer, backend, scenario.lock_kind);
  return verdict;
}

}  // namespace

ScenarioVerdict check_scenario_on(BackendSource& source, const Scenario& scenario, const CheckConfig& config,
                                  EventSink* also) {
  validate_scenario(scenario);
  Backend& backend = source.fresh(scenario);
  return check_run(backend, scenario, config, also, [&](EventSink& sink) {
    Simulator sim(scenario, backend, sink);
    return sim.run();
  });
}

ScenarioVerdict check_plan_on(BackendSource& source, const ExplicitPlan& plan, const CheckConfig& config,
                              EventSink* also) {
  validate_scenario(plan.scenario);
  Backend& backend = source.fresh(plan.scenario);
  return check_run(backend, plan.scenario, config, also,
                   [&](EventSink& sink) { return run_explicit(plan, backend, sink); });
}

RunCoverage run_coverage(const CoverageObserver& observer, const Backend& backend, ScenarioLockKind lock_kind) {
  RunCoverage r = observer.result();
  std::vector<std::string> covered, universe;
  backend.script_coverage(lock_kind_scripts(lock_kind), &covered, &universe);
  for (const std::string& name : covered) r.items.push_back("script/" + name);
  for (const std::string& name : universe) r.universe.push_back("script/" + name);
  r.normalise();
  return r;
}

}  // namespace locksim
