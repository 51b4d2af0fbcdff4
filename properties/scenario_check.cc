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

CheckConfig check_config_for(const Scenario& scenario) {
  return with_design(default_check_config(), scenario.design);
}

ScenarioVerdict check_scenario(const Scenario& scenario, const CheckConfig& config, EventSink* also) {
  validate_scenario(scenario);
  ModelBackendSource model(variant_from_name(scenario.model_variant).value_or(ModelVariant::Correct));
  return check_scenario_on(model, scenario, config, also);
}

ScenarioVerdict check_scenario_on(BackendSource& source, const Scenario& scenario, const CheckConfig& config,
                                  EventSink* also) {
  validate_scenario(scenario);
  Backend& backend = source.fresh(scenario);
  CheckerSuite suite(with_design(config, scenario.design));
  FanoutSink fanout;
  fanout.add(&suite);
  if (also != nullptr) fanout.add(also);
  Simulator sim(scenario, backend, fanout);
  ScenarioVerdict verdict;
  verdict.summary = sim.run();
  suite.finish(verdict.summary.end_true_us);
  verdict.violations = suite.violations();
  return verdict;
}

}  // namespace locksim
