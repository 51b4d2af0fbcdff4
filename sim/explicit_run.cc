#include "sim/explicit_run.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "sim/schedule_replay.h"
#include "sim/summary_sink.h"
#include "sim/world.h"
#include "sim/world_setup.h"

namespace locksim {

// Plays the plan's tasks on the world.
// It is the world's task runner: TaskStep::task is a run's index in runs_.
class ExplicitRun::Driver final : public TaskRunner {
 public:
  Driver(const ExplicitPlan& plan, World& world)
      : plan_(plan), world_(world), locks_(scenario_locks(plan.scenario)), groups_(scenario_groups(plan.scenario)),
        incarnation_(static_cast<size_t>(plan.scenario.clients), -1) {
    world_.set_task_runner(this);
  }

  void run_step(const TaskStep& step) override {
    assert(step.task < runs_.size());
    Run* run = runs_[step.task].get();
    switch (static_cast<StepKind>(step.step)) {
      case StepKind::Start: start(run); return;
      case StepKind::Completed: completed(run); return;
    }
    assert(false && "a step the driver never scheduled");
  }

  void start_client(int c) {
    const int inc = ++incarnation_.at(static_cast<size_t>(c));
    for (size_t i = 0; i < plan_.tasks.size(); ++i) {
      const ExplicitTask& t = plan_.tasks[i];
      if (t.client != c || t.incarnation != inc || t.ops.empty()) continue;
      runs_.push_back(std::make_unique<Run>(Run{&t, i, runs_.size(), 0, 0, false, {}}));
      active_++;
      next_or_finish(runs_.back().get());
    }
    touch();
  }
  bool done() const { return active_ == 0; }
  int64_t last_activity_us() const { return last_activity_us_; }

  // Every run's progress, in start order.
  void digest(StateDigest* out) const {
    out->add(static_cast<uint64_t>(runs_.size()));
    for (const auto& run : runs_) {
      out->add(static_cast<uint64_t>(run->index));
      out->add(static_cast<uint64_t>(run->next));
      out->add(run->held);
      out->add(run->finished);
      if (!plan_.balance_holds) continue;
      for (const auto& [lock, held] : run->held_by_lock) {
        out->add(static_cast<uint64_t>(lock));
        out->add(static_cast<int64_t>(held));
      }
    }
  }
  // Some run of client c's current incarnation has an operation to start
  // or in progress.
  bool busy(int c) const {
    const int inc = incarnation_.at(static_cast<size_t>(c));
    for (const auto& run : runs_) {
      if (run->task->client == c && run->task->incarnation == inc && !run->finished) return true;
    }
    return false;
  }

 private:
  // What a step does (TaskStep::step).
  enum class StepKind : uint32_t { Start, Completed };
  struct Run {
    const ExplicitTask* task;
    size_t index;     // the task's place in the plan
    size_t started;   // its place in runs_
    size_t next;
    int64_t held;     // acquires that succeeded minus unlocks started, never below 0
    bool finished;
    std::map<int, int> held_by_lock;  // balance_holds: lock -> holds acquired and not yet released
  };

  void touch() { last_activity_us_ = world_.now_us(); }
  static TaskStep step_of(const Run* run, StepKind kind) {
    return TaskStep{run->task->client, static_cast<uint32_t>(kind), static_cast<uint64_t>(run->started)};
  }

  void schedule(Run* run) {
    const ExplicitOp& op = run->task->ops[run->next];
    // Named by the task and the operation's index, for the fingerprint.
    const uint64_t name = (static_cast<uint64_t>(run->index) << 32) | run->next;
    world_.at_operation(world_.now_us() + op.delay_us, step_of(run, StepKind::Start), name);
  }

  void completed(Run* run) {
    touch();
    next_or_finish(run);
  }

  // Schedules the run's next operation, passing over the UnlockIfHeld ones
  // while it holds nothing (they take no time), or ends the run.
  void next_or_finish(Run* run) {
    const std::vector<ExplicitOp>& ops = run->task->ops;
    while (run->next < ops.size() && ops[run->next].kind == ExplicitOp::Kind::UnlockIfHeld && run->held == 0) {
      run->next++;
    }
    if (run->next >= ops.size()) {
      run->finished = true;
      active_--;
      return;
    }
    schedule(run);
  }

  // balance_holds: whether the unlock at `index` ends a run of unlocks of
  // its lock (the task's next op is no unlock of it).
  static bool ends_unlocks(const ExplicitTask& t, size_t index) {
    const ExplicitOp& op = t.ops[index];
    if (index + 1 >= t.ops.size()) return true;
    const ExplicitOp& next = t.ops[index + 1];
    return next.kind != op.kind || next.lock != op.lock;
  }

  // balance_holds: after an unlock (Kind::Unlock; a force unlock is
  // another matter), unlocks again at once while the task still holds the
  // lock and the unlock ended a run of unlocks.
  void unlocked(Run* run, const ExplicitOp& op, bool last) {
    int& held = run->held_by_lock[op.lock];
    if (plan_.balance_holds && last && held > 0) {
      held--;
      if (run->held > 0) run->held--;
      release(run, op, last);
      return;
    }
    completed(run);
  }

  void release(Run* run, const ExplicitOp& op, bool last) {
    const ExplicitTask& t = *run->task;
    if (!groups_.empty()) {
      world_.group_client(t.client).unlock(t.task, groups_[static_cast<size_t>(op.lock)],
                                           [this, run, &op, last](bool) { unlocked(run, op, last); });
      return;
    }
    world_.client(t.client).unlock(t.task, operation_lock(locks_[static_cast<size_t>(op.lock)], t.client, t.task),
                                   [this, run, &op, last](UnlockResult) { unlocked(run, op, last); });
  }

  void start(Run* run) {
    const ExplicitTask& t = *run->task;
    const size_t index = run->next++;
    const ExplicitOp& op = t.ops[index];
    touch();
    assert(op.lock >= 0 && op.lock < static_cast<int>(locks_.size()));
    const LockSpec lock = operation_lock(locks_[static_cast<size_t>(op.lock)], t.client, t.task);
    auto on_acquire = [this, run, lock_index = op.lock](AcquireResult result) {
      if (result == AcquireResult::Acquired) {
        run->held++;
        run->held_by_lock[lock_index]++;
      }
      completed(run);
    };
    const bool releases = op.kind == ExplicitOp::Kind::Unlock || op.kind == ExplicitOp::Kind::ForceUnlock ||
                          op.kind == ExplicitOp::Kind::UnlockIfHeld;
    if (plan_.balance_holds && op.kind == ExplicitOp::Kind::Unlock) {
      int& held = run->held_by_lock[op.lock];
      if (held == 0) {  // nothing to release: skipped (completes at once, as its own action)
        world_.at_step(world_.now_us(), step_of(run, StepKind::Completed));
        return;
      }
      held--;
      if (run->held > 0) run->held--;
      release(run, op, ends_unlocks(t, index));
      return;
    }
    if (releases && run->held > 0) run->held--;
    if (releases && run->held_by_lock[op.lock] > 0) run->held_by_lock[op.lock]--;
    if (!groups_.empty()) {
      const GroupRef& g = groups_[static_cast<size_t>(op.lock)];
      MultiLockClient& multi = world_.group_client(t.client);
      switch (op.kind) {
        case ExplicitOp::Kind::Lock: multi.lock(t.task, g, op.lease_ms, on_acquire); break;
        case ExplicitOp::Kind::TryLock:
          multi.try_lock(t.task, g, op.wait_ms < 0 ? 0 : op.wait_ms, op.lease_ms, on_acquire);
          break;
        case ExplicitOp::Kind::TryOnce: multi.try_lock_once(t.task, g, op.lease_ms, on_acquire); break;
        case ExplicitOp::Kind::Unlock:
        case ExplicitOp::Kind::UnlockIfHeld:
        case ExplicitOp::Kind::ForceUnlock:  // a group has no force unlock: released like unlock
          multi.unlock(t.task, g, [this, run](bool) { completed(run); });
          break;
      }
      return;
    }
    LockClient& client = world_.client(t.client);
    switch (op.kind) {
      case ExplicitOp::Kind::Lock: client.lock(t.task, lock, op.lease_ms, on_acquire); break;
      case ExplicitOp::Kind::TryLock:
        client.try_lock(t.task, lock, op.wait_ms < 0 ? 0 : op.wait_ms, op.lease_ms, on_acquire);
        break;
      case ExplicitOp::Kind::TryOnce: client.try_lock_once(t.task, lock, op.lease_ms, on_acquire); break;
      case ExplicitOp::Kind::Unlock:
      case ExplicitOp::Kind::UnlockIfHeld:
        client.unlock(t.task, lock, [this, run](UnlockResult) { completed(run); });
        break;
      case ExplicitOp::Kind::ForceUnlock:
        client.force_unlock(t.task, lock, [this, run](bool) { completed(run); });
        break;
    }
  }

  const ExplicitPlan& plan_;
  World& world_;
  std::vector<LockSpec> locks_;
  std::vector<GroupRef> groups_;
  std::vector<int> incarnation_;
  std::vector<std::unique_ptr<Run>> runs_;  // every run started, in start order
  int active_ = 0;  // task runs not finished (a crashed incarnation's runs stay counted)
  int64_t last_activity_us_ = 0;
};

namespace {
// The plan's fault plan, with a schedule's fixed link.
FaultPlan faults_of(const ExplicitPlan& plan) {
  FaultPlan faults = plan.faults;
  if (plan.schedule) faults.link = LinkProfile{plan.schedule->latency_us, plan.schedule->latency_us, 0.0, 0, 0.0};
  return faults;
}
}  // namespace

struct ExplicitRun::State {
  State(const ExplicitPlan& plan_, Backend& backend, EventSink& sink)
      : plan(plan_), counting(sink, summary), world(world_config_for(plan.scenario, faults_of(plan)), backend, counting),
        driver(plan, world) {}
  const ExplicitPlan& plan;
  RunSummary summary;
  SummarySink counting;
  World world;
  Driver driver;
  std::optional<ScheduleReplay> replay;
  int64_t last_fault_us = 0;
  uint64_t steps = 0;
};

ExplicitRun::ExplicitRun(const ExplicitPlan& plan, Backend& backend, EventSink& sink, ScheduleHook* hook) {
  validate_scenario(plan.scenario);
  state_ = std::make_unique<State>(plan, backend, sink);
  State& st = *state_;
  if (hook != nullptr) {
    st.world.set_schedule(hook);
  } else if (plan.schedule) {
    st.replay.emplace(*plan.schedule, plan.loose_schedule);
    st.world.set_schedule(&*st.replay);
  }
  st.world.on_client_started = [&st](int c) { st.driver.start_client(c); };
  for (int c = 0; c < plan.scenario.clients; ++c) st.driver.start_client(c);
  schedule_faults(st.world, plan.faults);
  for (const FaultAction& f : plan.faults.actions) st.last_fault_us = std::max(st.last_fault_us, f.at_us);
}

ExplicitRun::~ExplicitRun() = default;

World& ExplicitRun::world() { return state_->world; }
const World& ExplicitRun::world() const { return state_->world; }

int64_t ExplicitRun::quiet_until_us() const {
  return std::max(state_->driver.last_activity_us(), state_->last_fault_us) + state_->plan.drain_ms * 1000;
}

bool ExplicitRun::step() {
  State& st = *state_;
  if (st.world.idle() || st.steps >= Simulator::kMaxActions) return false;
  if (!st.world.step_before(quiet_until_us())) return false;
  st.steps++;
  return true;
}

void ExplicitRun::note_fault(int64_t at_us) { state_->last_fault_us = std::max(state_->last_fault_us, at_us); }

QueueCensus ExplicitRun::digest(StateDigest* out, DigestScratch* scratch) const {
  const State& st = *state_;
  const QueueCensus census = st.world.digest(out, scratch);
  st.driver.digest(out);
  out->add(quiet_until_us() - st.world.now_us());
  return census;
}

bool ExplicitRun::client_idle(int c) const {
  return !state_->driver.busy(c) && !state_->world.client_has_pending(c);
}

RunSummary ExplicitRun::summary() const {
  RunSummary summary = state_->summary;
  summary.actions = state_->world.stats().actions;
  summary.end_true_us = state_->world.now_us();
  state_->counting.add_pending_waits(summary.end_true_us, &summary);
  return summary;
}

}  // namespace locksim
