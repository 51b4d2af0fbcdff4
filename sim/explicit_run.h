// ExplicitRun: one run of an ExplicitPlan (sim/explicit_plan.h), step by
// step; run_explicit() runs one to its end. The world is set up as the
// Simulator sets it up (same link, clocks, client config, fault
// scheduling); each task runs its ops in order, each starting `delay_us`
// after the previous one completed (deferred while its client is paused).
// The run is over when nothing is left to do or nothing is due before the
// quiet time: drain_ms after the last operation started or completed, or
// after the last fault.
// Schedule mode (sim/schedule_hook.h): with `hook`, the world runs in it and
// the hook makes the choices (the explorer, search/explore.h, which then
// applies faults itself between steps and reports them with note_fault());
// without one, a plan with a schedule replays it (sim/schedule_replay.h).
#pragma once

#include <cstdint>
#include <memory>

#include "sim/backend.h"
#include "sim/digest_scratch.h"
#include "sim/explicit_plan.h"
#include "sim/queue_census.h"
#include "sim/schedule_hook.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {

class World;

class ExplicitRun {
 public:
  // Throws ScenarioError for an invalid scenario.
  ExplicitRun(const ExplicitPlan& plan, Backend& backend, EventSink& sink, ScheduleHook* hook = nullptr);
  ~ExplicitRun();
  ExplicitRun(const ExplicitRun&) = delete;
  ExplicitRun& operator=(const ExplicitRun&) = delete;

  World& world();
  const World& world() const;
  // Runs one World step unless the run is over; false once it is.
  bool step();
  // Actions due after this true time do not run: the run is over.
  int64_t quiet_until_us() const;
  // The caller applied a fault at `at_us` (schedule mode with its own hook).
  void note_fault(int64_t at_us);
  // Schedule mode: the fingerprint of the world (World::digest), of every
  // task's progress and believed holds, and of the quiet time left; the
  // world's queue census (QueueCensus). It only reads; *scratch holds the
  // buffers (sim/digest_scratch.h).
  QueueCensus digest(StateDigest* out, DigestScratch* scratch) const;
  // Client c has nothing left to do: no task of its current incarnation
  // has an operation to start or in progress, and nothing queued concerns
  // it (World::client_has_pending). A fault on it can change nothing.
  bool client_idle(int c) const;
  RunSummary summary() const;

 private:
  class Driver;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace locksim
