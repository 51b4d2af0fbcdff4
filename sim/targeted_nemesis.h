// TargetedNemesis: the fault injector of a focused run (sim/focus.h). It
// sits in the run's event stream (an EventSink in front of the run's own),
// reads each event as it is emitted, and when the event is an opportunity
// for its trigger (a waiter refused, a renewal through, a release sent, a
// fair poll leaving its caller at the head of the line) it may schedule one
// fault on the World: a crash, a pause or a clock step of the client the
// trigger names, sized by the scenario's profile, a few moments later.
//
// Contract:
//  - Every event goes on to `next` first, unchanged and in order; the
//    nemesis adds nothing to the history itself: a fault it schedules is
//    applied by World::apply_fault (sim/world.h) and records its own Fault
//    event, as a planned one does.
//  - Deterministic: its draws come from `rng` alone, one per opportunity in
//    history order; the same history gives the same faults.
//  - It fires at most focus.max_faults times, never after the run's
//    operations end (duration_us), and never for HoldToRenewal (the
//    workload's, sim/workload.h).
//  - attach() gives it the World before the first event; a World outlives
//    its nemesis's use of it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "sim/focus.h"
#include "sim/profiles.h"
#include "sim/rng.h"
#include "traces/event_sink.h"

namespace locksim {

class World;

class TargetedNemesis final : public EventSink {
 public:
  // renew_period_us: the watchdog's period (PauseAcrossRenewal aims at the
  // renewal after the one it sees).
  TargetedNemesis(Focus focus, Profile profile, int64_t duration_us, int64_t renew_period_us, Rng rng,
                  EventSink& next);
  void attach(World* world) { world_ = world; }
  void on_event(const Event& e) override;
  int fired() const { return fired_; }

 private:
  // The client an opportunity names gets the trigger's fault `delay_us`
  // from now (if the draw says so and the budget allows).
  void maybe_fire(int client, int64_t now_us, int64_t delay_lo_us, int64_t delay_hi_us);
  // Whether a script event is a refused acquire (a waiter told to wait).
  static bool refused_acquire(const Event& e);

  Focus focus_;
  Profile profile_;
  int64_t duration_us_;
  int64_t renew_period_us_;
  Rng rng_;
  EventSink& next_;
  World* world_ = nullptr;
  int fired_ = 0;
  std::map<std::string, int> client_of_owner_;  // every owner seen -> its client
};

}  // namespace locksim
