#include "sim/simulator.h"

#include <cassert>
#include <optional>

#include "impl/client_mutant.h"
#include "sim/profiles.h"
#include "sim/workload.h"
#include "sim/summary_sink.h"
#include "sim/targeted_nemesis.h"
#include "sim/world.h"
#include "sim/world_setup.h"

namespace locksim {

Simulator::Simulator(Scenario scenario, Backend& backend, EventSink& sink, std::optional<FaultPlan> faults)
    : scenario_(std::move(scenario)), backend_(backend), sink_(sink), faults_(std::move(faults)) {
  validate_scenario(scenario_);
  if (backend_.server_count() < scenario_.servers) {
    throw ScenarioError("backend has " + std::to_string(backend_.server_count()) +
                        " servers, scenario needs " + std::to_string(scenario_.servers));
  }
}

RunSummary Simulator::run() {
  RunSummary summary;
  SummarySink counting(sink_, summary);
  const Scenario& s = scenario_;
  const Rng root(s.seed);
  const int64_t duration_us = s.duration_ms * 1000;
  const FaultPlan plan = faults_ ? *faults_
                                 : make_fault_plan(s.profile, s.clients, backend_.server_count(), duration_us,
                                                   root.split("faults"));

  // A focused run's nemesis (sim/focus.h) reads the history in front of
  // the run's sink; not in a re-run with a given plan (its faults are in it).
  const WorldConfig config = world_config_for(s, plan);
  const int64_t renew_period_ms = config.client.watchdog_lease_ms / 3;
  std::optional<TargetedNemesis> nemesis;
  if (s.focus && !faults_ && focus_fault_kind(s.focus->trigger)) {
    nemesis.emplace(*s.focus, s.profile, duration_us, renew_period_ms * 1000, root.split("focus"), counting);
  }
  EventSink& history = nemesis ? static_cast<EventSink&>(*nemesis) : counting;
  World world(config, backend_, history);
  if (nemesis) nemesis->attach(&world);

  Workload workload(world, scenario_locks(s), duration_us, root.split("workload"), scenario_groups(s),
                    s.design.reentrant);
  if (s.focus && s.focus->trigger == FocusTrigger::HoldToRenewal) {
    workload.hold_to_renewal(s.focus->chance_pct, s.focus->max_faults, renew_period_ms);
  }
  if (s.focus) workload.focus_operations(s.focus->mix, s.focus->only_lock);
  world.on_client_started = [&workload](int c) { workload.start_client(c); };
  for (int c = 0; c < s.clients; ++c) workload.start_client(c);

  schedule_faults(world, plan);

  const int64_t hard_end_us = duration_us + kDrainMs * 1000;
  uint64_t steps = 0;
  while (!stop_requested_ && !world.idle()) {
    if (world.queued() > 0 && world.now_us() >= duration_us && (steps % 64 == 0) && workload.idle()) break;
    if (steps >= kMaxActions) break;
    if (!world.step_before(hard_end_us)) break;
    steps++;
  }
  summary.actions = world.stats().actions;
  summary.end_true_us = world.now_us();
  counting.add_pending_waits(summary.end_true_us, &summary);
  summary.stopped = stop_requested_;
  return summary;
}

}  // namespace locksim
