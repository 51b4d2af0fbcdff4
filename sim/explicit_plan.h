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
#pragma once

#include <cstdint>
#include <vector>

#include "sim/backend.h"
#include "sim/fault_plan.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "traces/event.h"
#include "traces/event_sink.h"

namespace locksim {

struct ExplicitOp {
  enum class Kind { Lock, TryLock, TryOnce, Unlock, ForceUnlock };
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

struct ExplicitPlan {
  Scenario scenario;          // seed, clients, locks, lock kind, servers, mutant, variant
  FaultPlan faults;           // link, clocks and the exact fault actions
  std::vector<ExplicitTask> tasks;
  int64_t drain_ms = 60'000;  // quiet time (no op started/completed) that ends the run
};

// The fault plan the Simulator would use for `scenario` (profile + seed).
FaultPlan scenario_fault_plan(const Scenario& scenario, int servers);

RunSummary run_explicit(const ExplicitPlan& plan, Backend& backend, EventSink& sink);

// Recovers the operations of every task from a history of `scenario`.
ExplicitPlan plan_from_history(const Scenario& scenario, const std::vector<Event>& history);

}  // namespace locksim
