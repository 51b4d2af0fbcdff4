#include "sim/world_setup.h"

#include <cassert>

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
  for (const FaultAction& f : plan.actions) {
    world.at_planned(f.at_us, [&world, f] { apply_fault(world, f); });
  }
}

void apply_fault(World& world, const FaultAction& f) {
  switch (f.kind) {
    case FaultKind::Crash:
      if (!world.client_alive(f.target)) return;
      world.crash(f.target);
      if (f.restart_after_ms >= 0) {
        const int c = f.target;
        World* w = &world;
        world.at(world.now_us() + f.restart_after_ms * 1000, [w, c] { w->restart(c); });
      }
      return;
    case FaultKind::Pause: world.pause(f.target, f.duration_ms); return;
    case FaultKind::ClientClockJump: world.jump_client_clock(f.target, f.duration_ms); return;
    case FaultKind::ServerClockJump: world.jump_server_clock(f.target, f.duration_ms); return;
    case FaultKind::Partition: world.partition(f.target, f.duration_ms); return;
    case FaultKind::RedisRestart: world.redis_restart(f.target); return;
    case FaultKind::Failover: world.failover(f.target); return;
    case FaultKind::LostRequest:
    case FaultKind::LostReply:
    case FaultKind::LostMessage:
    case FaultKind::LostSubscribe:
    case FaultKind::RequestTimeout:
    case FaultKind::ClientClockSkew:
    case FaultKind::ServerClockDrift:
    case FaultKind::SlowLink:
      assert(false && "not a fault a plan's action injects (is_planned_fault)");
      return;
  }
}

}  // namespace locksim
