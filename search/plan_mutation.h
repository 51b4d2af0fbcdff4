// Plan mutation: small changes to an explicit plan (sim/explicit_plan.h)
// for the guided campaign (search/guided_campaign.h), each a function of
// the plan, a random stream and what the parent's run showed, so that the
// same inputs give the same child. The faults a mutation adds or resizes
// are drawn from the scenario's own profile (sim/profiles.h: another draw
// of its fault plan), never invented: a mutated plan is one the profile
// could have produced, so its failures mean what a seed's would: every
// fault of a kind and size the profile draws, at a time within the run's
// operations (not in the drain after them), at most one failover per
// server (sim/profiles.h fault_outside_profile; a child that would leave
// it is not made). Two pauses of one client may overlap, as the profile's
// own draws may: the client resumes at the later end.
//
// The mutations:
//   add_fault       one more fault of the profile's, at a moment of the
//                   parent's run (where it first reached something rare,
//                   most often; or an acquire granted, a waiter told to
//                   wait, a release started, a wake-up delivered; within a
//                   third of a lease after it) on the client that acted
//                   there, or at a uniform time on a client the profile drew
//   remove_fault    one fault less
//   shift_fault     a fault earlier or later by 1 ms to 10 s
//   resize_fault    a fault's length or size redrawn from the profile
//   retime        a hold (an unlock's delay) redrawn as the workload
//                 would (under half an explicit lease, up to 45 s with the
//                 watchdog), often just at its deadline (the end of the
//                 allowed hold, a renewal); or the think time before an
//                 acquire set just before or after a deadline of the plan
//                 (a lease, half or a third of one, a wait), halved or doubled
//   swap_cycles   two neighbouring cycles of a task swapped (a cycle: an
//                 acquire, its nested lock()s, its unlocks)
//   repeat_cycle  a cycle done again after a think time
//   remove_cycle  a cycle removed (a task keeps one)
//   add_reentry   one more nested lock() and its unlock in a cycle
//   change_cycle  a cycle's acquire another kind (lock, tryLock(wait), one
//                 try), or the whole cycle on another lock
//   add_client      a new client running a copy of a task
//   add_task        a second task (thread, own owner id) on a client
//   reseed          another seed: the same operations and faults over
//                   another draw of the link's delays and losses and the
//                   clocks
// After each mutation the plan keeps the workload's contract (sim/
// workload.h): a nested lock() takes its cycle's lease, and a cycle with
// an explicit lease unlocks what it acquired within half that lease, so
// that a failure means what a seed's would and not a misused lock.
// A plan keeps its link and clocks equal to its scenario's
// (scenario_fault_plan), as a plan read back from a trace has them. Bounds:
// at most kMaxGuidedClients clients, kMaxTaskOps operations per task
// (a mutation that would pass it does not apply) and
// kMaxPlanFaults fault actions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/explicit_plan.h"
#include "sim/rng.h"

namespace locksim {

inline constexpr int kMaxGuidedClients = 16;
inline constexpr size_t kMaxTaskOps = 64;
inline constexpr size_t kMaxPlanTasks = 256;  // add_task adds none past it
inline constexpr size_t kMaxPlanFaults = 256;

// A moment of a run worth aiming a fault at: its true time and the client
// that acted; `rare`: the run reached there an item or a state few runs had
// (properties/coverage.h's firsts), aimed at more often.
struct PlanMoment {
  int64_t true_us = 0;
  int client = -1;
  bool rare = false;
  bool operator==(const PlanMoment&) const = default;
};

enum class PlanMutation : uint8_t {
  AddFault, RemoveFault, ShiftFault, ResizeFault, Retime, SwapCycles, RepeatCycle, RemoveCycle, AddReentry,
  ChangeCycle, AddClient, AddTask, Reseed
};
const char* plan_mutation_name(PlanMutation m);

// Applies one mutation drawn from `rng` to *plan (moments: the parent run's),
// a plan within its profile (and so is the child).
// Returns the mutation applied; a drawn mutation that cannot apply (no
// fault to remove, a profile without faults, a bound reached) is replaced
// by the next that can; Reseed always can.
PlanMutation mutate_plan(ExplicitPlan* plan, const std::vector<PlanMoment>& moments, Rng& rng);

}  // namespace locksim
