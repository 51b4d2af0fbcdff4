// World setup: how a Scenario and its FaultPlan become a running World — the
// World's configuration (clients, links, clocks, client mutant) and the
// nemesis schedule (every fault action of the plan queued at its true time).
// Shared by the Simulator (generated workload) and run_explicit (explicit plans).
#pragma once

#include "sim/fault_plan.h"
#include "sim/scenario.h"
#include "sim/world.h"

namespace locksim {

WorldConfig world_config_for(const Scenario& scenario, const FaultPlan& plan);

// Queues every action of `plan` on `world` (World::plan_fault), each to be
// applied at its time by World::apply_fault: a crash of a dead client is a
// no-op; a crash with restart_after_ms >= 0 restarts the client that long
// after.
void schedule_faults(World& world, const FaultPlan& plan);

}  // namespace locksim
