#include "search/explore_tape.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <stdexcept>
#include <string>

#include "sim/world.h"
#include "sim/world_setup.h"

namespace locksim {

void ExploreTape::start(const std::vector<uint8_t>* prefix, Rng* random) {
  prefix_ = prefix;
  random_ = random;
  taken_.clear();
  options_.clear();
  faults_used_ = 0;
  picks_ = 0;
  fault_actions_.clear();
  fates_.clear();
  chosen_picks_.clear();
}

size_t ExploreTape::decide(size_t options) {
  assert(options >= 1);
  if (options > kMaxOptions) {
    throw std::invalid_argument("explore: a choice point with " + std::to_string(options) + " options (at most " +
                                std::to_string(kMaxOptions) + "): the configuration is too large");
  }
  const size_t at = taken_.size();
  size_t choice = 0;
  if (prefix_ != nullptr && at < prefix_->size()) {
    choice = (*prefix_)[at];
    if (choice >= options) {
      throw std::logic_error("explore: a replayed path does not fit its run (choice " + std::to_string(at) +
                             ": option " + std::to_string(choice) + " of " + std::to_string(options) + ")");
    }
  } else if (random_ != nullptr) {
    choice = static_cast<size_t>(random_->below(options));
  }
  taken_.push_back(static_cast<uint8_t>(choice));
  options_.push_back(static_cast<uint8_t>(options));
  return choice;
}

bool ExploreTape::allowed(ExploreFault fault) const {
  return std::find(config_.faults.begin(), config_.faults.end(), fault) != config_.faults.end();
}

MessageFate ExploreTape::message_fate(const World& world, const MessageInfo& m) {
  if (!budget_left() || !world.client_alive(m.client)) return MessageFate::on_time();
  const bool lose = allowed(ExploreFault::Loss);
  int64_t late_us = -1;
  if (allowed(ExploreFault::Delay)) {
    const int64_t deadline_us = world.next_deadline_after(m.on_time_us);
    if (deadline_us >= 0) late_us = deadline_us + 1;
  }
  const size_t options = 1 + (lose ? 1 : 0) + (late_us >= 0 ? 1 : 0);
  if (options == 1) return MessageFate::on_time();
  const size_t choice = decide(options);
  if (choice == 0) return MessageFate::on_time();
  faults_used_++;
  if (lose && choice == 1) {
    fates_.push_back(ScheduledFate{m.client, m.index, true, -1});
    return MessageFate::lost();
  }
  fates_.push_back(ScheduledFate{m.client, m.index, false, late_us});
  return MessageFate::late(late_us);
}

size_t ExploreTape::pick(const World& /*world*/, size_t candidates) {
  const uint64_t tie = picks_++;
  const size_t choice = decide(candidates);
  if (choice != 0) chosen_picks_.push_back(ScheduledPick{tie, static_cast<uint32_t>(choice)});
  return choice;
}

size_t ExploreTape::faults_on(const ExplicitRun& run, int node, std::array<FaultKind, 3>* kinds) const {
  const World& world = run.world();
  const int clients = world.client_count();
  size_t n = 0;
  if (node < clients) {
    if (!world.client_alive(node) || run.client_idle(node)) return 0;
    if (allowed(ExploreFault::Crash)) (*kinds)[n++] = FaultKind::Crash;
    if (allowed(ExploreFault::Pause) && !world.client_paused(node)) (*kinds)[n++] = FaultKind::Pause;
    if (allowed(ExploreFault::ClientClock)) (*kinds)[n++] = FaultKind::ClientClockJump;
  } else {
    if (allowed(ExploreFault::Restart)) (*kinds)[n++] = FaultKind::RedisRestart;
    if (allowed(ExploreFault::ServerClock)) (*kinds)[n++] = FaultKind::ServerClockJump;
  }
  return n;
}

int ExploreTape::node_faults(ExplicitRun& run, int64_t at_us) {
  World& world = run.world();
  const int before = faults_used_;
  const int clients = world.client_count();
  std::array<FaultKind, 3> kinds{};
  // The clients first, then the servers.
  for (int node = 0; node < clients + world.server_count() && budget_left(); ++node) {
    const size_t n = faults_on(run, node, &kinds);
    if (n == 0) continue;
    const size_t choice = decide(1 + n);
    if (choice == 0) continue;
    faults_used_++;
    FaultAction f;
    f.at_us = at_us;
    f.kind = kinds[choice - 1];
    f.target = node < clients ? node : node - clients;
    if (f.kind == FaultKind::Pause) f.duration_ms = config_.pause_ms;
    if (f.kind == FaultKind::ClientClockJump || f.kind == FaultKind::ServerClockJump) f.duration_ms = config_.jump_ms;
    world.apply_fault(f);  // as a plan's action is applied when replayed
    fault_actions_.push_back(f);
    run.note_fault(at_us);
  }
  return faults_used_ - before;
}

bool ExploreTape::fault_choice_possible(const ExplicitRun& run) const {
  if (!budget_left()) return false;
  const World& world = run.world();
  std::array<FaultKind, 3> kinds{};
  for (int node = 0; node < world.client_count() + world.server_count(); ++node) {
    if (faults_on(run, node, &kinds) > 0) return true;
  }
  return false;
}

ExplicitPlan ExploreTape::plan(const ExplicitPlan& base) const {
  ExplicitPlan plan = base;
  assert(plan.schedule.has_value());
  plan.faults.actions = fault_actions_;  // in time order: chosen as the run went
  Schedule& schedule = *plan.schedule;
  schedule.fates = fates_;
  std::sort(schedule.fates.begin(), schedule.fates.end(), [](const ScheduledFate& a, const ScheduledFate& b) {
    return std::make_pair(a.client, a.message) < std::make_pair(b.client, b.message);
  });
  schedule.picks = chosen_picks_;
  return plan;
}

}  // namespace locksim
