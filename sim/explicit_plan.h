// ExplicitPlan: a scenario spelled out instead of generated — the exact fault
// actions and, per client task, the exact list of lock operations — so that a
// counterexample can be shrunk by deleting operations and faults and running
// again. run_explicit() plays it on a World exactly as the Simulator plays a
// generated scenario (same link, clocks, client config, fault scheduling),
// but the operations come from the plan: each task runs its ops in order,
// starting each `delay_us` (true time; deferred while the client is paused) after the previous one
// completed (the first one after its incarnation started). Tasks belong to a
// client incarnation (0 = first start, k = k-th restart); a crash ends the
// incarnation's tasks. The run ends drain_ms after the last operation started
// or completed (or when nothing is left to do).
// plan_from_history() recovers such a plan from a generated run's history
// (its Invoke and Fault events) plus the scenario's own fault plan setup.
// A plan with a schedule (an explored counterexample, search/explore.h)
// runs in the World's schedule mode (sim/schedule_hook.h), the schedule
// replayed by sim/schedule_replay.h; faults then run first at their instant.
// sim/explicit_run.h runs a plan step by step.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/backend.h"
#include "sim/fault_plan.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "traces/event.h"
#include "traces/event_sink.h"

namespace locksim {

// UnlockIfHeld: an unlock that the task passes over, delay and all, when it
// holds nothing once the operation before it has completed (its acquires
// that succeeded, less its unlocks started, is 0): the next operation then
// follows after its own delay. How the workload releases only what it got
// (a guided campaign's plans, search/plan_mutation.h).
struct ExplicitOp {
  enum class Kind { Lock, TryLock, TryOnce, Unlock, ForceUnlock, UnlockIfHeld };
  Kind kind = Kind::Lock;
  int lock = 0;            // index into scenario_locks(scenario)
  int64_t wait_ms = -1;    // TryLock only
  int64_t lease_ms = -1;   // acquires: -1 watchdog
  int64_t delay_us = 0;    // true time after the previous op of the task completed
  bool operator==(const ExplicitOp&) const = default;
};

struct ExplicitTask {
  int client = 0;
  int incarnation = 0;
  int task = 0;
  std::vector<ExplicitOp> ops;
  bool operator==(const ExplicitTask&) const = default;
};

// An explored schedule (sim/schedule_hook.h): with one, the plan runs in
// the World's schedule mode on a link of exactly latency_us each way and
// no loss of its own; every message arrives on time but those `fates`
// names (by client and MessageInfo::index), and every pick among the
// actors due at one instant takes the first but those `picks` names (by
// the pick's ordinal in the run, from 0).
struct ScheduledFate {
  int client = 0;
  uint64_t message = 0;
  bool lost = false;
  int64_t arrive_us = -1;  // a late message's arrival (not lost)
  bool operator==(const ScheduledFate&) const = default;
};
struct ScheduledPick {
  uint64_t tie = 0;
  uint32_t pick = 0;  // > 0
  bool operator==(const ScheduledPick&) const = default;
};
struct Schedule {
  int64_t latency_us = 1'000;
  std::vector<ScheduledFate> fates;  // sorted by (client, message)
  std::vector<ScheduledPick> picks;  // sorted by tie
  bool operator==(const Schedule&) const = default;
};

struct ExplicitPlan {
  Scenario scenario;          // seed, clients, locks, lock kind, servers, mutant, variant
  FaultPlan faults;           // link, clocks and the exact fault actions
  std::vector<ExplicitTask> tasks;
  int64_t drain_ms = 60'000;  // quiet time (no op started/completed) that ends the run
  std::optional<Schedule> schedule;  // an explored schedule (faults.link is then the schedule's)
  // A plan run without some of its faults (properties/cause_search.h): an
  // acquire that failed in the recorded run may now succeed, or the other
  // way round, while the recorded unlocks match the recorded outcomes. With
  // balance_holds each task releases what it holds, as the workload would:
  // an unlock when the task holds nothing of that lock is skipped, and the
  // last unlock of a run of unlocks of one lock is repeated until the task
  // holds nothing of it. A plan recovered from a run it replays exactly
  // (plan_from_history) runs the same with or without it.
  bool balance_holds = false;
  // A plan run without some of its faults, with an explored schedule: the
  // schedule's choices are kept where the run still offers them, and a
  // choice it no longer offers (a pick beyond the candidates there are, a
  // late arrival no longer after the on-time one: the removed fault took
  // away a candidate or moved a message) becomes the nearest it does (the
  // last candidate; on time). Never written to a trace.
  bool loose_schedule = false;
};

// The fault plan the Simulator would use for `scenario` (profile + seed).
FaultPlan scenario_fault_plan(const Scenario& scenario, int servers);
// The fault plan a generated run of `scenario` followed, read from its
// history: the profile's, and for a focused run (sim/focus.h) the faults
// its nemesis injected (each client Fault event no planned action accounts
// for; a crash's restart from the restart that followed it), as actions.
FaultPlan run_fault_plan(const Scenario& scenario, int servers, const std::vector<Event>& history);

RunSummary run_explicit(const ExplicitPlan& plan, Backend& backend, EventSink& sink);

// Recovers the operations of every task from a history of `scenario`.
ExplicitPlan plan_from_history(const Scenario& scenario, const std::vector<Event>& history);

}  // namespace locksim
