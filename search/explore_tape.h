// ExploreTape: the explorer's ScheduleHook (sim/schedule_hook.h) and its
// node faults (search/explore.h): every choice point of one run, in
// the order the run meets them, as a list of option indexes (a path). A
// run follows a given path, then takes the first option at each new choice
// point (the explorer comes back for the others) or, on a random walk, a
// random one. The tape records how many options each choice point had and
// what each choice meant (a fault at its instant, a lost or late message,
// a pick), from which plan() builds the ExplicitPlan that replays the run.
// Option 0 is always "nothing happens": no fault, on time, the first actor.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "search/explore.h"
#include "sim/explicit_run.h"
#include "sim/rng.h"
#include "sim/schedule_hook.h"

namespace locksim {

class ExploreTape final : public ScheduleHook {
 public:
  static constexpr size_t kMaxOptions = 255;  // a path holds one byte per choice

  explicit ExploreTape(const ExploreConfig& config) : config_(config) {}

  // A new run: follow `prefix` (null: none), then first options, or random
  // ones from `random` (not null).
  void start(const std::vector<uint8_t>* prefix, Rng* random);
  // The same run goes on (its copy was restored: search/explore.h):
  // follow `prefix` from the choices already taken, which it must begin
  // with, then first options.
  void follow(const std::vector<uint8_t>* prefix) {
    prefix_ = prefix;
    random_ = nullptr;
  }

  MessageFate message_fate(const World& world, const MessageInfo& message) override;
  size_t pick(const World& world, size_t candidates) override;
  // At the start of instant at_us, before its actions: for each client with
  // something left to do and each server, no fault or one allowed fault.
  // Returns how many faults it applied.
  int node_faults(ExplicitRun& run, int64_t at_us);
  // Whether node_faults(run, ...) at a new instant would offer a choice.
  bool fault_choice_possible(const ExplicitRun& run) const;

  // Every choice so far, and how many options each had.
  const std::vector<uint8_t>& taken() const { return taken_; }
  const std::vector<uint8_t>& options() const { return options_; }
  int faults_used() const { return faults_used_; }
  // The plan that replays this run: `base` with the faults, fates and
  // picks chosen so far.
  ExplicitPlan plan(const ExplicitPlan& base) const;

 private:
  size_t decide(size_t options);
  // The faults allowed on `node` (the clients, then the servers) in this
  // state, into *kinds; how many.
  size_t faults_on(const ExplicitRun& run, int node, std::array<FaultKind, 3>* kinds) const;
  bool budget_left() const { return faults_used_ < config_.max_faults; }
  bool allowed(ExploreFault fault) const;

  const ExploreConfig& config_;
  const std::vector<uint8_t>* prefix_ = nullptr;
  Rng* random_ = nullptr;
  std::vector<uint8_t> taken_;
  std::vector<uint8_t> options_;
  int faults_used_ = 0;
  uint64_t picks_ = 0;
  std::vector<FaultAction> fault_actions_;
  std::vector<ScheduledFate> fates_;
  std::vector<ScheduledPick> chosen_picks_;
};

}  // namespace locksim
