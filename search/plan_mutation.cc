#include "search/plan_mutation.h"

#include <algorithm>
#include <array>
#include <cassert>

#include "impl/client_config.h"
#include "sim/profiles.h"

namespace locksim {

namespace {

constexpr std::array<const char*, 13> kNames = {"add_fault",    "remove_fault", "shift_fault",  "resize_fault",
                                                "retime",       "swap_cycles",  "repeat_cycle", "remove_cycle",
                                                "add_reentry",  "change_cycle", "add_client",   "add_task",
                                                "reseed"};
// How often each is drawn (the fault and timing ones most).
constexpr std::array<int, 13> kWeights = {4, 1, 2, 1, 3, 1, 2, 1, 2, 1, 3, 2, 1};

bool sized_fault(FaultKind k) {
  return k == FaultKind::Pause || k == FaultKind::Partition || k == FaultKind::ClientClockJump ||
         k == FaultKind::ServerClockJump;
}

size_t below(Rng& rng, size_t n) {
  assert(n > 0);
  return static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(n) - 1));
}

// The link, clocks and replicas of the plan's scenario, as a plan read back
// from a trace gets them; the fault actions stay.
void refresh_environment(ExplicitPlan* plan) {
  FaultPlan env = scenario_fault_plan(plan->scenario, plan->scenario.servers);
  env.actions = std::move(plan->faults.actions);
  plan->faults = std::move(env);
}

// A fault's time within the run's operations, where the profile draws them
// (a fault in the drain that follows would be one no seed has).
int64_t within_run_us(const ExplicitPlan& plan, int64_t at_us) {
  return std::clamp<int64_t>(at_us, 0, std::max<int64_t>(0, plan.scenario.duration_ms * 1000 - 1));
}

std::string outside_profile(const ExplicitPlan& plan) {
  const Scenario& s = plan.scenario;
  return fault_outside_profile(s.profile, plan.faults.actions, s.clients, s.servers, s.duration_ms * 1000);
}

void sort_faults(ExplicitPlan* plan) {
  std::stable_sort(plan->faults.actions.begin(), plan->faults.actions.end(),
                   [](const FaultAction& a, const FaultAction& b) { return a.at_us < b.at_us; });
}

// Another draw of the profile's faults; empty for a profile without any.
std::vector<FaultAction> donor_faults(const ExplicitPlan& plan, Rng& rng) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const Scenario& s = plan.scenario;
    FaultPlan donor = make_fault_plan(s.profile, s.clients, s.servers, s.duration_ms * 1000,
                                      rng.split("donor").split(static_cast<uint64_t>(attempt)));
    if (!donor.actions.empty()) return donor.actions;
  }
  return {};
}

bool is_unlock(const ExplicitOp& op) {
  return op.kind == ExplicitOp::Kind::Unlock || op.kind == ExplicitOp::Kind::UnlockIfHeld;
}

bool is_acquire(const ExplicitOp& op) {
  return op.kind == ExplicitOp::Kind::Lock || op.kind == ExplicitOp::Kind::TryLock ||
         op.kind == ExplicitOp::Kind::TryOnce;
}

bool add_fault(ExplicitPlan* plan, const std::vector<PlanMoment>& moments, Rng& rng) {
  if (plan->faults.actions.size() >= kMaxPlanFaults) return false;
  const std::vector<FaultAction> donor = donor_faults(*plan, rng);
  if (donor.empty()) return false;
  FaultAction a = donor[below(rng, donor.size())];
  if (!moments.empty() && rng.chance(0.75)) {
    std::vector<const PlanMoment*> rare;
    for (const PlanMoment& m : moments)
      if (m.rare) rare.push_back(&m);
    const PlanMoment& m = !rare.empty() && rng.chance(0.6) ? *rare[below(rng, rare.size())]
                                                           : moments[below(rng, moments.size())];
    const int64_t third_lease_us = ClientConfig{}.watchdog_lease_ms * 1000 / 3;
    a.at_us = within_run_us(*plan, m.true_us + rng.uniform(0, third_lease_us));
    if (is_client_fault(a.kind) && m.client >= 0 && m.client < plan->scenario.clients) a.target = m.client;
  }
  plan->faults.actions.push_back(a);
  sort_faults(plan);
  return true;
}

bool remove_fault(ExplicitPlan* plan, Rng& rng) {
  auto& actions = plan->faults.actions;
  if (actions.empty()) return false;
  actions.erase(actions.begin() + static_cast<std::ptrdiff_t>(below(rng, actions.size())));
  return true;
}

bool shift_fault(ExplicitPlan* plan, Rng& rng) {
  auto& actions = plan->faults.actions;
  if (actions.empty()) return false;
  static constexpr std::array<int64_t, 4> kScaleUs = {1'000, 100'000, 1'000'000, 10'000'000};
  const int64_t scale = kScaleUs[below(rng, kScaleUs.size())];
  FaultAction& a = actions[below(rng, actions.size())];
  a.at_us = within_run_us(*plan, a.at_us + rng.uniform(-scale, scale));
  sort_faults(plan);
  return true;
}

bool resize_fault(ExplicitPlan* plan, Rng& rng) {
  std::vector<FaultAction*> sized;
  for (FaultAction& a : plan->faults.actions)
    if (sized_fault(a.kind)) sized.push_back(&a);
  if (sized.empty()) return false;
  FaultAction& a = *sized[below(rng, sized.size())];
  std::vector<int64_t> sizes;
  for (const FaultAction& d : donor_faults(*plan, rng))
    if (d.kind == a.kind) sizes.push_back(d.duration_ms);
  if (sizes.empty()) return false;
  a.duration_ms = sizes[below(rng, sizes.size())];
  return true;
}

// A task's operations as the workload makes them: cycles of an acquire,
// its nested lock()s (same lock, at once), then its unlocks.
struct Cycle {
  size_t begin = 0;     // the acquire
  size_t unlocks = 0;   // index of the first unlock (== end when none)
  size_t end = 0;
};

std::vector<Cycle> cycles_of(const std::vector<ExplicitOp>& ops) {
  std::vector<Cycle> out;
  size_t i = 0;
  while (i < ops.size()) {
    if (!is_acquire(ops[i])) {
      ++i;
      continue;
    }
    Cycle c;
    c.begin = i;
    size_t j = i + 1;
    while (j < ops.size() && ops[j].kind == ExplicitOp::Kind::Lock && ops[j].lock == ops[i].lock &&
           ops[j].delay_us < 1'000) {
      ++j;
    }
    c.unlocks = j;
    while (j < ops.size() && is_unlock(ops[j]) && ops[j].lock == ops[i].lock) ++j;
    c.end = j;
    out.push_back(c);
    i = j;
  }
  return out;
}

// A random cycle of a random task that has one (null when none).
ExplicitTask* some_cycle(ExplicitPlan* plan, Rng& rng, Cycle* out, size_t min_cycles = 1) {
  std::vector<std::pair<ExplicitTask*, std::vector<Cycle>>> fit;
  for (ExplicitTask& t : plan->tasks) {
    std::vector<Cycle> cs = cycles_of(t.ops);
    if (cs.size() >= min_cycles) fit.emplace_back(&t, std::move(cs));
  }
  if (fit.empty()) return nullptr;
  auto& [task, cs] = fit[below(rng, fit.size())];
  *out = cs[below(rng, cs.size())];
  return task;
}

// A hold time the workload could draw (sim/workload.cc: under half an
// explicit lease; with the watchdog, up to 45 s), here often just at a
// deadline: the end of the allowed hold, a watchdog renewal or its lease.
int64_t hold_us(int64_t lease_ms, Rng& rng) {
  if (lease_ms > 0) {
    const int64_t limit_us = lease_ms * 1000 / 2;
    return rng.chance(0.5) ? rng.uniform(0, limit_us) : std::max<int64_t>(0, limit_us - rng.uniform(0, 2'000));
  }
  const int64_t watchdog_ms = ClientConfig{}.watchdog_lease_ms;
  switch (below(rng, 4)) {
    case 0: return rng.uniform(0, 3'000) * 1000;
    case 1: return rng.uniform(10'000, 45'000) * 1000;
    default: {
      const int64_t k = 1 + static_cast<int64_t>(below(rng, 3));  // 1/3, 2/3, 3/3 of the lease
      return std::max<int64_t>(0, k * watchdog_ms * 1000 / 3 + rng.uniform(-2'000, 2'000));
    }
  }
}

// Every task back to the workload's contract: a nested lock() takes its
// cycle's lease; a cycle releases what it acquired (an unlock per acquire,
// each skipped when nothing is held: UnlockIfHeld), with an explicit lease
// within half of it. A cycle whose unlocks would not fit in kMaxTaskOps is
// cut off with the rest of its task.
void normalise_cycles(ExplicitPlan* plan, Rng& rng) {
  for (ExplicitTask& t : plan->tasks) {
    for (size_t i = 0; i < t.ops.size();) {
      std::vector<Cycle> cs = cycles_of(std::vector<ExplicitOp>(t.ops.begin() + static_cast<std::ptrdiff_t>(i), t.ops.end()));
      if (cs.empty()) break;
      Cycle c = cs.front();
      c.begin += i;
      c.unlocks += i;
      c.end += i;
      const ExplicitOp first = t.ops[c.begin];
      for (size_t k = c.begin + 1; k < c.unlocks; ++k) t.ops[k].lease_ms = first.lease_ms;
      for (size_t k = c.unlocks; k < c.end; ++k) t.ops[k].kind = ExplicitOp::Kind::UnlockIfHeld;
      const size_t acquires = c.unlocks - c.begin;
      const size_t released = c.end - c.unlocks;
      if (acquires > released && t.ops.size() + (acquires - released) > kMaxTaskOps && c.begin > 0) {
        // Its unlocks do not fit in the task: the cycle and what follows go,
        // rather than an acquire that is never released (a later cycle on
        // that lock would then be a re-entry with another lease).
        t.ops.resize(c.begin);
        break;
      }
      ExplicitOp unlock;
      unlock.kind = ExplicitOp::Kind::UnlockIfHeld;
      unlock.lock = first.lock;
      for (size_t n = c.end - c.unlocks; n < acquires && t.ops.size() < kMaxTaskOps; ++n) {
        unlock.delay_us = n == 0 ? hold_us(first.lease_ms, rng) : 0;
        t.ops.insert(t.ops.begin() + static_cast<std::ptrdiff_t>(c.end), unlock);
        ++c.end;
      }
      if (first.lease_ms > 0 && c.unlocks < c.end && t.ops[c.unlocks].delay_us > first.lease_ms * 1000 / 2) {
        t.ops[c.unlocks].delay_us = hold_us(first.lease_ms, rng);
      }
      i = c.end;
    }
  }
}

bool retime(ExplicitPlan* plan, Rng& rng) {
  Cycle c;
  ExplicitTask* t = some_cycle(plan, rng, &c);
  if (t == nullptr) return false;
  if (c.unlocks < c.end && rng.chance(0.5)) {  // the hold
    t->ops[c.unlocks].delay_us = hold_us(t->ops[c.begin].lease_ms, rng);
    return true;
  }
  ExplicitOp& op = t->ops[c.begin];  // the think time before the acquire
  if (rng.chance(0.3)) {
    op.delay_us = rng.chance(0.5) ? op.delay_us / 2 : std::min<int64_t>(std::max<int64_t>(op.delay_us, 1'000) * 2, 60'000'000);
    return true;
  }
  // Just before or after a deadline of the plan: a lease, a third of one, a wait.
  const int64_t lease_ms = ClientConfig{}.watchdog_lease_ms;
  std::vector<int64_t> deadlines_ms = {lease_ms, lease_ms / 3};
  for (const ExplicitTask& task : plan->tasks) {
    for (const ExplicitOp& o : task.ops) {
      if (o.lease_ms > 0) deadlines_ms.insert(deadlines_ms.end(), {o.lease_ms, o.lease_ms / 2});
      if (o.kind == ExplicitOp::Kind::TryLock && o.wait_ms > 0) deadlines_ms.push_back(o.wait_ms);
    }
  }
  const int64_t d_ms = deadlines_ms[below(rng, deadlines_ms.size())];
  op.delay_us = std::max<int64_t>(0, d_ms * 1000 + rng.uniform(-2'000, 2'000));
  return true;
}

bool swap_cycles(ExplicitPlan* plan, Rng& rng) {
  Cycle c;
  ExplicitTask* t = some_cycle(plan, rng, &c, 2);
  if (t == nullptr) return false;
  const std::vector<Cycle> cs = cycles_of(t->ops);
  size_t k = 0;
  while (k + 1 < cs.size() && cs[k].begin != c.begin) ++k;
  if (k + 1 >= cs.size()) k = cs.size() - 2;
  const Cycle a = cs[k], b = cs[k + 1];
  std::vector<ExplicitOp> first(t->ops.begin() + static_cast<std::ptrdiff_t>(a.begin), t->ops.begin() + static_cast<std::ptrdiff_t>(a.end));
  std::vector<ExplicitOp> second(t->ops.begin() + static_cast<std::ptrdiff_t>(b.begin), t->ops.begin() + static_cast<std::ptrdiff_t>(b.end));
  std::swap(first.front().delay_us, second.front().delay_us);  // the think times stay where they were
  std::vector<ExplicitOp> ops(t->ops.begin(), t->ops.begin() + static_cast<std::ptrdiff_t>(a.begin));
  ops.insert(ops.end(), second.begin(), second.end());
  ops.insert(ops.end(), t->ops.begin() + static_cast<std::ptrdiff_t>(a.end), t->ops.begin() + static_cast<std::ptrdiff_t>(b.begin));
  ops.insert(ops.end(), first.begin(), first.end());
  ops.insert(ops.end(), t->ops.begin() + static_cast<std::ptrdiff_t>(b.end), t->ops.end());
  t->ops = std::move(ops);
  return true;
}

bool repeat_cycle(ExplicitPlan* plan, Rng& rng) {
  Cycle c;
  ExplicitTask* t = some_cycle(plan, rng, &c);
  if (t == nullptr || t->ops.size() + (c.end - c.begin) > kMaxTaskOps) return false;
  std::vector<ExplicitOp> again(t->ops.begin() + static_cast<std::ptrdiff_t>(c.begin), t->ops.begin() + static_cast<std::ptrdiff_t>(c.end));
  again.front().delay_us = rng.uniform(0, 1'000) * 1000;  // a think time
  t->ops.insert(t->ops.begin() + static_cast<std::ptrdiff_t>(c.end), again.begin(), again.end());
  return true;
}

bool remove_cycle(ExplicitPlan* plan, Rng& rng) {
  Cycle c;
  ExplicitTask* t = some_cycle(plan, rng, &c, 2);
  if (t == nullptr) return false;
  t->ops.erase(t->ops.begin() + static_cast<std::ptrdiff_t>(c.begin), t->ops.begin() + static_cast<std::ptrdiff_t>(c.end));
  return true;
}

bool add_reentry(ExplicitPlan* plan, Rng& rng) {
  Cycle c;
  ExplicitTask* t = some_cycle(plan, rng, &c);
  if (t == nullptr || c.unlocks == c.end || t->ops.size() + 2 > kMaxTaskOps) return false;
  ExplicitOp nested;
  nested.kind = ExplicitOp::Kind::Lock;
  nested.lock = t->ops[c.begin].lock;
  nested.lease_ms = t->ops[c.begin].lease_ms;
  ExplicitOp unlock;
  unlock.kind = ExplicitOp::Kind::UnlockIfHeld;
  unlock.lock = nested.lock;
  t->ops.insert(t->ops.begin() + static_cast<std::ptrdiff_t>(c.end), unlock);
  t->ops.insert(t->ops.begin() + static_cast<std::ptrdiff_t>(c.unlocks), nested);
  return true;
}

bool change_cycle(ExplicitPlan* plan, Rng& rng) {
  Cycle c;
  ExplicitTask* t = some_cycle(plan, rng, &c);
  if (t == nullptr) return false;
  const int locks = static_cast<int>(scenario_locks(plan->scenario).size());
  if (locks > 1 && rng.chance(0.4)) {  // the whole cycle to another lock
    const int to = (t->ops[c.begin].lock + 1 + static_cast<int>(below(rng, static_cast<size_t>(locks - 1)))) % locks;
    for (size_t k = c.begin; k < c.end; ++k) t->ops[k].lock = to;
    return true;
  }
  ExplicitOp& op = t->ops[c.begin];
  switch (below(rng, 3)) {
    case 0: op.kind = ExplicitOp::Kind::Lock; op.wait_ms = -1; break;
    case 1: op.kind = ExplicitOp::Kind::TryLock; op.wait_ms = rng.uniform(1, 5'000); break;
    default: op.kind = ExplicitOp::Kind::TryOnce; op.wait_ms = -1; break;
  }
  return true;
}

bool add_client(ExplicitPlan* plan, Rng& rng) {
  if (plan->scenario.clients >= kMaxGuidedClients || plan->tasks.empty()) return false;
  ExplicitTask copy = plan->tasks[below(rng, plan->tasks.size())];
  copy.client = plan->scenario.clients;
  copy.incarnation = 0;
  plan->scenario.clients += 1;
  plan->tasks.push_back(std::move(copy));
  refresh_environment(plan);
  return true;
}

bool add_task(ExplicitPlan* plan, Rng& rng) {
  if (plan->tasks.empty() || plan->tasks.size() >= kMaxPlanTasks) return false;
  ExplicitTask* t = &plan->tasks[below(rng, plan->tasks.size())];
  if (t->ops.empty()) return false;
  ExplicitTask copy = *t;
  for (const ExplicitTask& other : plan->tasks)
    if (other.client == copy.client) copy.task = std::max(copy.task, other.task + 1);
  copy.ops.front().delay_us += rng.uniform(0, 1'000'000);
  plan->tasks.push_back(std::move(copy));
  return true;
}

void reseed(ExplicitPlan* plan, Rng& rng) {
  plan->scenario.seed = rng.next_u64() >> 2;
  refresh_environment(plan);
}

bool apply(PlanMutation m, ExplicitPlan* plan, const std::vector<PlanMoment>& moments, Rng& rng) {
  switch (m) {
    case PlanMutation::AddFault: return add_fault(plan, moments, rng);
    case PlanMutation::RemoveFault: return remove_fault(plan, rng);
    case PlanMutation::ShiftFault: return shift_fault(plan, rng);
    case PlanMutation::ResizeFault: return resize_fault(plan, rng);
    case PlanMutation::Retime: return retime(plan, rng);
    case PlanMutation::SwapCycles: return swap_cycles(plan, rng);
    case PlanMutation::RepeatCycle: return repeat_cycle(plan, rng);
    case PlanMutation::RemoveCycle: return remove_cycle(plan, rng);
    case PlanMutation::AddReentry: return add_reentry(plan, rng);
    case PlanMutation::ChangeCycle: return change_cycle(plan, rng);
    case PlanMutation::AddClient: return add_client(plan, rng);
    case PlanMutation::AddTask: return add_task(plan, rng);
    case PlanMutation::Reseed: reseed(plan, rng); return true;
  }
  return false;
}

}  // namespace

const char* plan_mutation_name(PlanMutation m) {
  const auto i = static_cast<size_t>(m);
  assert(i < kNames.size());
  return kNames[i];
}

PlanMutation mutate_plan(ExplicitPlan* plan, const std::vector<PlanMoment>& moments, Rng& rng) {
  assert(plan != nullptr);
  int total = 0;
  for (int w : kWeights) total += w;
  int pick = static_cast<int>(rng.uniform(0, total - 1));
  size_t first = 0;
  while (pick >= kWeights[first]) pick -= kWeights[first++];
  assert(outside_profile(*plan).empty() && "a parent within its profile");
  for (size_t k = 0; k < kNames.size(); ++k) {
    const auto m = static_cast<PlanMutation>((first + k) % kNames.size());
    ExplicitPlan candidate = *plan;
    // A child the profile could not have drawn (a second failover of a
    // server) does not apply: its failures would not mean what a seed's do.
    if (apply(m, &candidate, moments, rng) && outside_profile(candidate).empty()) {
      normalise_cycles(&candidate, rng);
      *plan = std::move(candidate);
      return m;
    }
  }
  assert(false && "reseed always applies");
  return PlanMutation::Reseed;
}

}  // namespace locksim
