// Workload: the generator of client operations (Jepsen's "generator"). Each
// client runs 1-3 tasks (threads); each task loops until stop_us: pick a lock,
// then one of lock() / lock(lease) / tryLock(wait) / tryLock(wait, lease) /
// tryLock(); on success maybe re-enter 1-2 times (nested lock), hold for a
// random time (under lease/2 with an explicit lease, so that the lease is
// never outlived when nothing goes wrong; sometimes longer than the watchdog
// period otherwise), unlock as many times, think, repeat. After stop_us tasks
// finish what they hold and go idle. Randomness: one stream per (client,
// incarnation, task). With groups (multi-lock / RedLock), lock i means group
// i, run on the client's MultiLockClient, and there are no nested acquires;
// nor are there on a lock whose design is not reentrant.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "impl/client.h"
#include "sim/focus.h"
#include "sim/rng.h"
#include "sim/world.h"

namespace locksim {

// The world's task runner (World::set_task_runner): a task's sleeps are
// steps on the world's agenda, handed back to run_step.
class Workload final : public TaskRunner {
 public:
  // reentrant: whether the lock may be re-entered (the pack's design); if
  // not, no task ever re-enters (the draws are made all the same, so the
  // rest of a task's stream is as with re-entries).
  Workload(World& world, std::vector<LockSpec> locks, int64_t stop_us, const Rng& rng,
           std::vector<GroupRef> groups = {}, bool reentrant = true);
  // A focused run's HoldToRenewal (sim/focus.h): up to max_holds watchdog
  // holds, each with probability chance_pct / 100, end right at one of
  // their renewals (1 or 2 periods of renew_period_ms after the grant, give
  // or take 3 ms) instead of where the task's stream put them. Drawn from a
  // stream of its own: the tasks' streams are as without it.
  void hold_to_renewal(int chance_pct, int max_holds, int64_t renew_period_ms);
  // A focused run's operations (sim/focus.h): which kinds of acquire the
  // tasks draw (OpMix), and, with only_lock >= 0, that every operation is
  // on that lock.
  void focus_operations(OpMix mix, int only_lock);
  // Starts the tasks of client c's current incarnation.
  void start_client(int c);
  // True when no live client has a task that is still working.
  bool idle() const;
  uint64_t operations_started() const { return operations_; }
  void run_step(const TaskStep& step) override;

 private:
  struct Task {
    int client = 0;
    int task = 0;
    Rng rng{0};
    LockSpec lock;
    int group = -1;       // index into groups_, or -1
    int64_t lease_ms = -1;
    int depth = 0;        // holds to release
    int reentries = 0;    // nested acquires still to do
    bool busy = false;
  };
  using TaskPtr = std::shared_ptr<Task>;
  // What a step of a task does (TaskStep::step); TaskStep::task is the
  // task's index among its client's current tasks.
  enum class StepKind : uint32_t { Next, Release };
  void after(const TaskPtr& t, int64_t delay_ms, StepKind kind);

  void next(const TaskPtr& t);
  void after_acquire(const TaskPtr& t, AcquireResult result);
  void reenter_or_hold(const TaskPtr& t);
  void release(const TaskPtr& t);
  void think(const TaskPtr& t);

  World& world_;
  std::vector<LockSpec> locks_;
  std::vector<GroupRef> groups_;
  int64_t stop_us_;
  Rng rng_;
  bool reentrant_ = true;
  std::vector<uint64_t> incarnations_;          // per client: restarts seen
  std::vector<std::vector<TaskPtr>> tasks_;     // per client: current tasks
  uint64_t operations_ = 0;
  struct HoldFocus {
    int chance_pct = 0;  // 0: off
    int holds_left = 0;
    int64_t renew_period_ms = 0;
    Rng rng{0};
  };
  HoldFocus hold_focus_;
  OpMix mix_ = OpMix::Any;
  int only_lock_ = -1;
};

}  // namespace locksim
