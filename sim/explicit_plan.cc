#include "sim/explicit_plan.h"

#include <cassert>
#include <map>
#include <memory>
#include <tuple>

#include "impl/client_mutant.h"
#include "sim/profiles.h"
#include "sim/rng.h"
#include "sim/summary_sink.h"
#include "sim/world.h"
#include "sim/world_setup.h"

namespace locksim {

namespace {


// Plays the plan's tasks on the world.
class Driver {
 public:
  Driver(const ExplicitPlan& plan, World& world)
      : plan_(plan), world_(world), locks_(scenario_locks(plan.scenario)), groups_(scenario_groups(plan.scenario)),
        incarnation_(static_cast<size_t>(plan.scenario.clients), -1) {}

  void start_client(int c) {
    const int inc = ++incarnation_.at(static_cast<size_t>(c));
    for (const ExplicitTask& t : plan_.tasks) {
      if (t.client != c || t.incarnation != inc || t.ops.empty()) continue;
      auto run = std::make_shared<Run>(Run{&t, 0});
      active_++;
      schedule(run);
    }
    touch();
  }
  bool done() const { return active_ == 0; }
  int64_t last_activity_us() const { return last_activity_us_; }

 private:
  struct Run {
    const ExplicitTask* task;
    size_t next;
  };

  void touch() { last_activity_us_ = world_.now_us(); }

  void schedule(const std::shared_ptr<Run>& run) {
    const ExplicitOp& op = run->task->ops[run->next];
    world_.at_client(run->task->client, world_.now_us() + op.delay_us, [this, run] { start(run); });
  }

  void completed(const std::shared_ptr<Run>& run) {
    touch();
    if (run->next >= run->task->ops.size()) {
      active_--;
      return;
    }
    schedule(run);
  }

  void start(const std::shared_ptr<Run>& run) {
    const ExplicitTask& t = *run->task;
    const ExplicitOp& op = t.ops[run->next++];
    touch();
    assert(op.lock >= 0 && op.lock < static_cast<int>(locks_.size()));
    const LockRef& lock = locks_[static_cast<size_t>(op.lock)];
    auto on_acquire = [this, run](AcquireResult) { completed(run); };
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
        client.unlock(t.task, lock, [this, run](UnlockResult) { completed(run); });
        break;
      case ExplicitOp::Kind::ForceUnlock:
        client.force_unlock(t.task, lock, [this, run](bool) { completed(run); });
        break;
    }
  }

  const ExplicitPlan& plan_;
  World& world_;
  std::vector<LockRef> locks_;
  std::vector<GroupRef> groups_;
  std::vector<int> incarnation_;
  int active_ = 0;  // task runs not finished (a crashed incarnation's runs stay counted)
  int64_t last_activity_us_ = 0;
};

}  // namespace

FaultPlan scenario_fault_plan(const Scenario& s, int servers) {
  const Rng root(s.seed);
  return make_fault_plan(s.profile, s.clients, servers, s.duration_ms * 1000, root.split("faults"));
}

RunSummary run_explicit(const ExplicitPlan& plan, Backend& backend, EventSink& sink) {
  const Scenario& s = plan.scenario;
  validate_scenario(s);
  RunSummary summary;
  SummarySink counting(sink, summary);

  World world(world_config_for(s, plan.faults), backend, counting);

  Driver driver(plan, world);
  world.on_client_started = [&driver](int c) { driver.start_client(c); };
  for (int c = 0; c < s.clients; ++c) driver.start_client(c);

  schedule_faults(world, plan.faults);

  int64_t last_fault_us = 0;
  for (const FaultAction& f : plan.faults.actions) last_fault_us = std::max(last_fault_us, f.at_us);
  const int64_t drain_us = plan.drain_ms * 1000;
  uint64_t steps = 0;
  while (!world.idle() && steps < Simulator::kMaxActions) {
    const int64_t quiet_until_us = std::max(driver.last_activity_us(), last_fault_us) + drain_us;
    if (!world.step_before(quiet_until_us)) break;
    steps++;
  }
  summary.actions = world.stats().actions;
  summary.end_true_us = world.now_us();
  return summary;
}

ExplicitPlan plan_from_history(const Scenario& scenario, const std::vector<Event>& history) {
  ExplicitPlan plan;
  plan.scenario = scenario;
  plan.faults = scenario_fault_plan(scenario, scenario.servers);

  std::map<std::string, int> lock_index;
  const auto locks = scenario_locks(scenario);
  for (size_t i = 0; i < locks.size(); ++i) lock_index[locks[i].name] = static_cast<int>(i);

  using Key = std::tuple<int, int, int>;  // client, incarnation, task
  std::map<Key, size_t> task_of;
  std::map<Key, int64_t> ready_us;        // when the task's previous op completed
  std::map<uint64_t, Key> op_task;        // op_id -> task
  std::vector<int> incarnation(static_cast<size_t>(scenario.clients), 0);
  std::vector<int64_t> started_us(static_cast<size_t>(scenario.clients), 0);

  for (const Event& e : history) {
    if (e.kind == EventKind::Fault && e.op == "restart" && e.client >= 0) {
      incarnation.at(static_cast<size_t>(e.client))++;
      started_us.at(static_cast<size_t>(e.client)) = e.true_us;
      continue;
    }
    if (e.kind == EventKind::Invoke && e.client >= 0) {
      const auto colon = e.owner.rfind(':');
      auto li = lock_index.find(e.lock);
      if (colon == std::string::npos || li == lock_index.end()) continue;
      const int task = std::stoi(e.owner.substr(colon + 1));
      const Key key{e.client, incarnation.at(static_cast<size_t>(e.client)), task};
      ExplicitOp op;
      op.lock = li->second;
      if (e.op == "lock") {
        op.kind = ExplicitOp::Kind::Lock;
      } else if (e.op == "try_lock") {
        op.kind = e.detail == "once" ? ExplicitOp::Kind::TryOnce : ExplicitOp::Kind::TryLock;
        op.wait_ms = e.wait_ms;
      } else if (e.op == "unlock") {
        op.kind = ExplicitOp::Kind::Unlock;
      } else if (e.op == "force_unlock") {
        op.kind = ExplicitOp::Kind::ForceUnlock;
      } else {
        continue;
      }
      if (op.kind != ExplicitOp::Kind::Unlock && op.kind != ExplicitOp::Kind::ForceUnlock) op.lease_ms = e.lease_ms;
      auto [it, fresh] = task_of.try_emplace(key, plan.tasks.size());
      if (fresh) {
        plan.tasks.push_back(ExplicitTask{std::get<0>(key), std::get<1>(key), std::get<2>(key), {}});
      }
      auto r = ready_us.find(key);
      const int64_t since_us = r == ready_us.end() ? started_us.at(static_cast<size_t>(e.client)) : r->second;
      op.delay_us = std::max<int64_t>(0, e.true_us - since_us);
      plan.tasks[it->second].ops.push_back(op);
      op_task[e.op_id] = key;
      continue;
    }
    if ((e.kind == EventKind::Ok || e.kind == EventKind::Fail || e.kind == EventKind::Info) && e.op_id != 0) {
      auto t = op_task.find(e.op_id);
      if (t == op_task.end() || e.op == "acquire_failed") continue;
      ready_us[t->second] = e.true_us;
      op_task.erase(t);
    }
  }
  return plan;
}

}  // namespace locksim
