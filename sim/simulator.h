// Simulator: runs one Scenario on a Backend and streams the history into an
// EventSink. It builds the fault plan from the scenario's profile, the World
// (clients, clocks, network) and the Workload, schedules the faults, and runs
// the event loop: new operations start until duration_ms; then tasks finish
// what they hold (at most kDrainMs more), and the run ends when every live
// task is idle. Same scenario + same backend behaviour => same history, byte
// for byte. stop() (e.g. from a sink during replay) ends the run after the
// current action. With `faults`, the run uses that fault plan instead of the
// profile's (a cause's re-run without some of the profile's faults:
// properties/cause_search.h); the workload is the scenario's own.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/backend.h"
#include "sim/fault_plan.h"
#include "sim/scenario.h"
#include "traces/event_sink.h"

namespace locksim {

struct RunSummary {
  uint64_t events = 0;
  uint64_t scripts = 0;
  uint64_t invokes = 0;
  uint64_t oks = 0;
  uint64_t fails = 0;
  uint64_t infos = 0;
  uint64_t faults = 0;
  uint64_t script_errors = 0;  // script events whose reply is an error
  // Acquires that had to wait (ran their acquire script more than once):
  // their attempts after the first, and the time from the first attempt to
  // the acquire's end (or the run's, for one still pending), summed
  // (sim/summary_sink.h).
  uint64_t waiting_polls = 0;
  int64_t waiting_us = 0;
  uint64_t actions = 0;  // event-loop steps
  int64_t end_true_us = 0;
  bool stopped = false;  // ended by stop()
};

class Simulator {
 public:
  static constexpr int64_t kDrainMs = 120'000;
  static constexpr uint64_t kMaxActions = 2'000'000'000ULL;

  // Throws ScenarioError for an invalid scenario.
  Simulator(Scenario scenario, Backend& backend, EventSink& sink, std::optional<FaultPlan> faults = std::nullopt);
  RunSummary run();
  void stop() { stop_requested_ = true; }

 private:
  Scenario scenario_;
  Backend& backend_;
  EventSink& sink_;
  std::optional<FaultPlan> faults_;
  bool stop_requested_ = false;
};

}  // namespace locksim
