#include "sim/explicit_plan.h"

#include <cassert>
#include <map>
#include <memory>
#include <tuple>

#include "impl/client_mutant.h"
#include "sim/explicit_run.h"
#include "sim/profiles.h"
#include "sim/rng.h"
#include "sim/summary_sink.h"
#include "sim/world.h"
#include "sim/world_setup.h"

namespace locksim {

FaultPlan scenario_fault_plan(const Scenario& s, int servers) {
  const Rng root(s.seed);
  return make_fault_plan(s.profile, s.clients, servers, s.duration_ms * 1000, root.split("faults"));
}

RunSummary run_explicit(const ExplicitPlan& plan, Backend& backend, EventSink& sink) {
  ExplicitRun run(plan, backend, sink);
  while (run.step()) {
  }
  return run.summary();
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
    if (e.kind == EventKind::Fault && e.op == Op::Restart && e.client >= 0) {
      incarnation.at(static_cast<size_t>(e.client))++;
      started_us.at(static_cast<size_t>(e.client)) = e.true_us;
      continue;
    }
    if (e.kind == EventKind::Invoke && e.client >= 0) {
      const std::optional<int> task = e.owner.task();
      auto li = lock_index.find(e.lock);
      if (!task || li == lock_index.end()) continue;
      const Key key{e.client, incarnation.at(static_cast<size_t>(e.client)), *task};
      ExplicitOp op;
      op.lock = li->second;
      if (e.op == Op::Lock) {
        op.kind = ExplicitOp::Kind::Lock;
      } else if (e.op == Op::TryLock) {
        op.kind = e.once ? ExplicitOp::Kind::TryOnce : ExplicitOp::Kind::TryLock;
        op.wait_ms = e.wait_ms;
      } else if (e.op == Op::Unlock) {
        op.kind = ExplicitOp::Kind::Unlock;
      } else if (e.op == Op::ForceUnlock) {
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
      if (t == op_task.end() || e.op == Op::AcquireFailed) continue;
      ready_us[t->second] = e.true_us;
      op_task.erase(t);
    }
  }
  return plan;
}

}  // namespace locksim
