#include "sim/explicit_plan.h"

#include <cassert>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
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

namespace {

// The FaultKind a history's client Fault event records, if it is one a
// focused run's nemesis injects.
std::optional<FaultKind> targeted_kind(const Event& e) {
  if (e.kind != EventKind::Fault || e.client < 0) return std::nullopt;
  if (e.op == Op::Crash) return FaultKind::Crash;
  if (e.op == Op::Pause) return FaultKind::Pause;
  if (e.op == Op::ClockJump) return FaultKind::ClientClockJump;
  return std::nullopt;
}

}  // namespace

FaultPlan run_fault_plan(const Scenario& s, int servers, const std::vector<Event>& history) {
  FaultPlan plan = scenario_fault_plan(s, servers);
  if (!s.focus) return plan;
  // The planned client faults not yet matched by an event, by (time, kind,
  // target, size): a Fault event none of them accounts for is the nemesis's.
  using Key = std::tuple<int64_t, int, int, int64_t>;
  std::multiset<Key> planned;
  for (const FaultAction& a : plan.actions)
    if (is_client_fault(a.kind)) planned.insert(Key{a.at_us, static_cast<int>(a.kind), a.target, a.duration_ms});
  std::vector<FaultAction> targeted;
  for (size_t i = 0; i < history.size(); ++i) {
    const Event& e = history[i];
    const std::optional<FaultKind> kind = targeted_kind(e);
    if (!kind) continue;
    const int64_t size = *kind == FaultKind::Crash ? 0 : e.duration_ms;
    const auto it = planned.find(Key{e.true_us, static_cast<int>(*kind), e.client, size});
    if (it != planned.end()) {
      planned.erase(it);
      continue;
    }
    FaultAction a{e.true_us, *kind, e.client, size, -1};
    if (*kind == FaultKind::Crash) {  // its restart, if the run reached it
      for (size_t j = i + 1; j < history.size(); ++j) {
        const Event& r = history[j];
        if (r.kind == EventKind::Fault && r.op == Op::Restart && r.client == e.client) {
          a.restart_after_ms = (r.true_us - e.true_us) / 1000;
          break;
        }
      }
    }
    targeted.push_back(a);
  }
  plan.actions.insert(plan.actions.end(), targeted.begin(), targeted.end());
  std::stable_sort(plan.actions.begin(), plan.actions.end(),
                   [](const FaultAction& a, const FaultAction& b) { return a.at_us < b.at_us; });
  return plan;
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
  plan.faults = run_fault_plan(scenario, scenario.servers, history);

  std::map<std::string, int> lock_index;
  const auto locks = scenario_locks(scenario);
  for (size_t i = 0; i < locks.size(); ++i) lock_index[locks[i].name] = static_cast<int>(i);

  using Key = std::tuple<int, int, int>;  // client, incarnation, task
  std::map<Key, size_t> task_of;
  std::map<Key, int64_t> ready_us;        // when the task's previous op completed
  std::map<uint64_t, Key> op_task;        // op_id -> task
  std::vector<int> incarnation(static_cast<size_t>(scenario.clients), 0);
  std::vector<int64_t> started_us(static_cast<size_t>(scenario.clients), 0);

  // A faster multi-lock's operation is one Invoke per value of its window,
  // one after the other: the first (its group's lock) stands for it.
  const size_t window = scenario.lock_kind == ScenarioLockKind::FasterMulti
                            ? operation_values(scenario.values, 0, 1).size()
                            : 1;
  const Event* operation_first = nullptr;  // the current operation's first value Invoke
  size_t operation_values_seen = 0;
  uint64_t last_invoke_id = 0;
  for (const Event& e : history) {
    if (e.kind == EventKind::Invoke && window > 1 && e.lock.is_member()) {
      const bool same_operation = operation_first != nullptr && operation_values_seen < window &&
                                  last_invoke_id + 1 == e.id && operation_first->client == e.client &&
                                  operation_first->owner == e.owner && operation_first->true_us == e.true_us &&
                                  operation_first->op == e.op;
      last_invoke_id = e.id;
      if (same_operation) {
        ++operation_values_seen;
        continue;
      }
      operation_first = &e;
      operation_values_seen = 1;
    }
    if (e.kind == EventKind::Fault && e.op == Op::Restart && e.client >= 0) {
      incarnation.at(static_cast<size_t>(e.client))++;
      started_us.at(static_cast<size_t>(e.client)) = e.true_us;
      continue;
    }
    if (e.kind == EventKind::Invoke && e.client >= 0) {
      const std::optional<int> task = e.owner.task();
      auto li = lock_index.find(std::string(scenario.lock_kind == ScenarioLockKind::FasterMulti ? e.lock.group()
                                                                                                : e.lock.name()));
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
