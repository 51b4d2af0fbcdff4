// ExplicitPlan <-> JSON: how a shrunk counterexample's trace carries the plan
// that produced it (the trace header's "plan", traces/trace_format.h), so
// that `locksim replay` re-runs exactly that plan (run_explicit) instead of
// the scenario's generated workload.
//
// Only what the shrinker changes is written: the fault actions, the tasks
// with their operations, and drain_ms. The link and clock setup are the
// scenario's own (scenario_fault_plan), rebuilt from the scenario on reading:
//   {"drain_ms":D,
//    "faults":[{"at_us":T,"kind":"pause","target":C,"duration_ms":M,"restart_after_ms":R},...],
//    "tasks":[{"client":C,"incarnation":I,"task":K,
//              "ops":[{"kind":"lock","lock":L,"wait_ms":W,"lease_ms":M,"delay_us":D},...]},...]
// (kinds: lock, try_lock, try_once, unlock, force_unlock, unlock_if_held)
//    [,"schedule":{"latency_us":L,
//                  "fates":[{"client":C,"message":I,"lost":B,"arrive_us":T},...],
//                  "picks":[{"tie":K,"pick":P},...]}]}
// "schedule" (an explored counterexample, sim/explicit_plan.h's Schedule) is
// written only when the plan has one; the link is then its fixed latency.
//    [,"losses":[{"client":C,"message":"reply rlock_acquire lsim:L0","ordinal":N},...]]
// "losses" (a shrunk counterexample's, sim/fault_plan.h LossScript) is
// written only when the plan pins its link losses to messages: the N-th
// message of that text on client C's link is lost, and no other (the
// link's random draws are still made, so delays are as without it). Never
// with a schedule.
// Every key is always written (byte-deterministic: same plan, same text).
// Reading is strict: a missing, unknown or mistyped key, an unknown kind, or
// an index outside the scenario (client, lock, fault target) throws
// ScenarioError naming it.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/explicit_plan.h"
#include "sim/scenario.h"

namespace locksim {

nlohmann::json explicit_plan_to_json(const ExplicitPlan& plan);
// The plan for `scenario` (the trace header's scenario) described by `j`.
ExplicitPlan explicit_plan_from_json(const Scenario& scenario, const nlohmann::json& j);

}  // namespace locksim
