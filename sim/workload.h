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
#include "sim/rng.h"
#include "sim/world.h"

namespace locksim {

class Workload {
 public:
  // reentrant: whether the lock may be re-entered (the pack's design); if
  // not, no task ever re-enters (the draws are made all the same, so the
  // rest of a task's stream is as with re-entries).
  Workload(World& world, std::vector<LockSpec> locks, int64_t stop_us, const Rng& rng,
           std::vector<GroupRef> groups = {}, bool reentrant = true);
  // Starts the tasks of client c's current incarnation.
  void start_client(int c);
  // True when no live client has a task that is still working.
  bool idle() const;
  uint64_t operations_started() const { return operations_; }

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
};

}  // namespace locksim
