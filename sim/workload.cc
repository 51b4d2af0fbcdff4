#include "sim/workload.h"

#include <cassert>

#include "sim/scenario.h"

namespace locksim {

Workload::Workload(World& world, std::vector<LockSpec> locks, int64_t stop_us, const Rng& rng,
                   std::vector<GroupRef> groups, bool reentrant)
    : world_(world), locks_(std::move(locks)), groups_(std::move(groups)), stop_us_(stop_us), rng_(rng),
      reentrant_(reentrant) {
  assert(!locks_.empty());
  assert(groups_.empty() || groups_.size() == locks_.size());
  incarnations_.assign(world_.client_count(), 0);
  tasks_.resize(world_.client_count());
  world_.set_task_runner(this);
}

void Workload::after(const TaskPtr& t, int64_t delay_ms, StepKind kind) {
  world_.after_step(delay_ms, TaskStep{t->client, static_cast<uint32_t>(kind), static_cast<uint64_t>(t->task - 1)});
}

void Workload::run_step(const TaskStep& step) {
  assert(step.client >= 0 && step.client < static_cast<int>(tasks_.size()));
  assert(step.task < tasks_[static_cast<size_t>(step.client)].size());
  // A step of a crashed incarnation's task never runs (the world drops it),
  // so the client's current tasks hold it.
  const TaskPtr t = tasks_[static_cast<size_t>(step.client)][step.task];
  switch (static_cast<StepKind>(step.step)) {
    case StepKind::Next: next(t); return;
    case StepKind::Release: release(t); return;
  }
  assert(false && "a step the workload never scheduled");
}

void Workload::hold_to_renewal(int chance_pct, int max_holds, int64_t renew_period_ms) {
  assert(chance_pct >= 1 && chance_pct <= 100 && max_holds >= 1 && renew_period_ms > 0);
  hold_focus_ = HoldFocus{chance_pct, max_holds, renew_period_ms, rng_.split("hold_to_renewal")};
}

void Workload::focus_operations(OpMix mix, int only_lock) {
  assert(only_lock < static_cast<int>(locks_.size()));
  mix_ = mix;
  only_lock_ = only_lock;
}

void Workload::start_client(int c) {
  assert(c >= 0 && c < world_.client_count());
  const uint64_t incarnation = incarnations_[c]++;
  const int task_count = 1 + static_cast<int>(rng_.split("tasks").split(static_cast<uint64_t>(c)).below(3));
  tasks_[c].clear();
  const Rng base = rng_.split("client").split(static_cast<uint64_t>(c)).split(incarnation);
  for (int i = 0; i < task_count; ++i) {
    auto t = std::make_shared<Task>();
    t->client = c;
    t->task = i + 1;
    t->rng = base.split(static_cast<uint64_t>(i));
    t->busy = true;
    tasks_[c].push_back(t);
    // Stagger the start a little so tasks do not all fire at one instant.
    after(t, t->rng.uniform(0, 500), StepKind::Next);
  }
}

bool Workload::idle() const {
  for (size_t c = 0; c < tasks_.size(); ++c) {
    if (!world_.client_alive(static_cast<int>(c))) continue;
    for (const auto& t : tasks_[c]) {
      if (t->busy) return false;
    }
  }
  return true;
}

void Workload::next(const TaskPtr& t) {
  if (world_.now_us() >= stop_us_) {
    t->busy = false;
    return;
  }
  Rng& r = t->rng;
  size_t index = r.below(locks_.size());
  if (only_lock_ >= 0) index = static_cast<size_t>(only_lock_);
  t->lock = operation_lock(locks_[index], t->client, t->task);
  t->depth = 0;
  t->lease_ms = -1;
  t->reentries = r.chance(mix_ == OpMix::Nested ? 0.8 : 0.2) ? 1 + static_cast<int>(r.below(2)) : 0;
  if (!reentrant_) t->reentries = 0;
  auto done = [this, t](AcquireResult result) { after_acquire(t, result); };
  operations_++;
  uint64_t pick = r.below(100);
  if (mix_ == OpMix::WaitOnly) pick %= 40;       // lock(), lock(lease)
  if (mix_ == OpMix::TryOnly) pick = 40 + pick % 60;  // tryLock(wait[, lease]), tryLock()
  if (!groups_.empty()) {
    t->group = static_cast<int>(index);
    t->reentries = 0;
    const GroupRef& g = groups_[index];
    MultiLockClient& multi = world_.group_client(t->client);
    if (pick < 25) {
      multi.lock(t->task, g, -1, done);
    } else if (pick < 40) {
      t->lease_ms = r.uniform(2'000, 10'000);
      multi.lock(t->task, g, t->lease_ms, done);
    } else if (pick < 65) {
      multi.try_lock(t->task, g, r.uniform(1, 5'000), -1, done);
    } else if (pick < 80) {
      t->lease_ms = r.uniform(2'000, 10'000);
      multi.try_lock(t->task, g, r.uniform(1, 5'000), t->lease_ms, done);
    } else {
      if (r.chance(0.5)) t->lease_ms = r.uniform(2'000, 10'000);
      multi.try_lock_once(t->task, g, t->lease_ms, done);
    }
    return;
  }
  LockClient& client = world_.client(t->client);
  if (pick < 25) {
    client.lock(t->task, t->lock, -1, done);
  } else if (pick < 40) {
    t->lease_ms = r.uniform(2'000, 10'000);
    client.lock(t->task, t->lock, t->lease_ms, done);
  } else if (pick < 65) {
    client.try_lock(t->task, t->lock, r.uniform(1, 5'000), -1, done);
  } else if (pick < 80) {
    t->lease_ms = r.uniform(2'000, 10'000);
    client.try_lock(t->task, t->lock, r.uniform(1, 5'000), t->lease_ms, done);
  } else {
    if (r.chance(0.5)) t->lease_ms = r.uniform(2'000, 10'000);
    client.try_lock_once(t->task, t->lock, t->lease_ms, done);
  }
}

void Workload::after_acquire(const TaskPtr& t, AcquireResult result) {
  if (result == AcquireResult::Acquired) {
    t->depth += 1;
    reenter_or_hold(t);
    return;
  }
  if (t->depth > 0) {  // a nested acquire failed: release what is held
    t->reentries = 0;
    reenter_or_hold(t);
    return;
  }
  think(t);
}

void Workload::reenter_or_hold(const TaskPtr& t) {
  if (t->reentries > 0) {
    t->reentries -= 1;
    operations_++;
    auto done = [this, t](AcquireResult result) { after_acquire(t, result); };
    LockClient& client = world_.client(t->client);
    if (mix_ == OpMix::TryOnly) {  // a focused run of tryLock re-enters with tryLock() too
      client.try_lock_once(t->task, t->lock, t->lease_ms, done);
    } else {
      client.lock(t->task, t->lock, t->lease_ms, done);
    }
    return;
  }
  Rng& r = t->rng;
  int64_t hold_ms = 0;
  if (t->lease_ms > 0) {
    hold_ms = r.uniform(0, t->lease_ms / 2);
  } else if (r.chance(0.9)) {
    hold_ms = r.uniform(0, 3'000);
  } else {
    hold_ms = r.uniform(10'000, 45'000);  // long enough for watchdog renewals
  }
  HoldFocus& f = hold_focus_;
  if (t->lease_ms <= 0 && f.chance_pct > 0 && f.holds_left > 0 && f.rng.uniform(1, 100) <= f.chance_pct) {
    f.holds_left -= 1;
    hold_ms = f.renew_period_ms * f.rng.uniform(1, 2) + f.rng.uniform(-3, 3);
  }
  after(t, hold_ms, StepKind::Release);
}

void Workload::release(const TaskPtr& t) {
  if (t->depth == 0) {
    think(t);
    return;
  }
  operations_++;
  if (t->group >= 0) {
    world_.group_client(t->client).unlock(t->task, groups_[static_cast<size_t>(t->group)], [this, t](bool) {
      t->depth -= 1;
      release(t);
    });
    return;
  }
  world_.client(t->client).unlock(t->task, t->lock, [this, t](UnlockResult) {
    t->depth -= 1;
    release(t);
  });
}

void Workload::think(const TaskPtr& t) {
  after(t, t->rng.uniform(0, 1'000), StepKind::Next);
}

}  // namespace locksim
