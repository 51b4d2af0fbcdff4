#include "sim/world_setup.h"

#include "impl/client_mutant.h"

namespace locksim {

WorldConfig world_config_for(const Scenario& s, const FaultPlan& plan) {
  WorldConfig wc;
  wc.seed = s.seed;
  wc.clients = s.clients;
  wc.link = plan.link;
  wc.client_clocks = plan.client_clocks;
  wc.server_clocks = plan.server_clocks;
  wc.client.mutant = s.mutant;
  wc.client.fair_slot_fixed_ms = s.fair_slot_ms;
  wc.client.wake = s.design.wake;
  wc.client.token = s.design.token;
  wc.client.reentrant = s.design.reentrant;
  wc.client.spin_backoff = s.backoff;
  wc.client.remember_wakeups = !s.lost_wakeups;
  wc.server_faults.persistence = s.persistence;
  wc.server_faults.restart_delay_ms = s.restart_delay_ms;
  wc.server_faults.replica_lag_ms = plan.replica_lag_ms;
  wc.losses = plan.losses;
  wc.steady_links = plan.steady_links;
  wc.groups = is_group_kind(s.lock_kind);
  wc.group_options.validity = s.validity;
  return wc;
}

void schedule_faults(World& world, const FaultPlan& plan) {
  for (const FaultAction& f : plan.actions) world.plan_fault(f);
}

}  // namespace locksim
