// What the cause search's re-runs rely on (properties/cause_search.h): a
// Simulator given its scenario's own fault plan runs the same history; a
// spared loss (sim/fault_plan.h SparedLoss) is delivered while everything
// before it stays as it was; an explicit plan that balances holds releases
// what its tasks hold (sim/explicit_plan.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/explicit_plan.h"
#include "sim/model_backend.h"
#include "sim/simulator.h"
#include "traces/event_sink.h"

namespace locksim {
namespace {

Scenario hostile_scenario() {  // client 2 loses 9 messages
  Scenario s;
  s.seed = 2;
  s.clients = 4;
  s.lock_kind = "rlock";
  s.profile = "hostile";
  return s;
}

std::vector<Event> run(const Scenario& s, std::optional<FaultPlan> faults = std::nullopt) {
  ModelBackend backend(s.servers);
  VectorSink sink;
  Simulator sim(s, backend, sink, std::move(faults));
  sim.run();
  return std::move(sink.events);
}

TEST(CauseReruns, TheProfilesOwnFaultPlanRunsTheSameHistory) {
  const Scenario s = hostile_scenario();
  EXPECT_EQ(run(s), run(s, scenario_fault_plan(s, s.servers)));
}

TEST(CauseReruns, ASparedLossIsDeliveredAndTheRunBeforeItIsUnchanged) {
  const Scenario s = hostile_scenario();
  const std::vector<Event> original = run(s);
  // The second random loss of the client that lost the most.
  std::map<int, int> losses;
  for (const Event& e : original)
    if (e.kind == EventKind::Fault && e.op == "lost") losses[e.client]++;
  ASSERT_FALSE(losses.empty());
  const int client = std::max_element(losses.begin(), losses.end(), [](const auto& a, const auto& b) {
                       return a.second < b.second;
                     })->first;
  ASSERT_GE(losses[client], 2);
  size_t second = 0;
  for (int seen = 0; second < original.size(); ++second) {
    const Event& e = original[second];
    if (e.kind == EventKind::Fault && e.op == "lost" && e.client == client && ++seen == 2) break;
  }
  FaultPlan faults = scenario_fault_plan(s, s.servers);
  faults.spared_losses = {SparedLoss{client, 2}};
  const std::vector<Event> spared = run(s, faults);
  ASSERT_GT(spared.size(), second);
  for (size_t i = 0; i < second; ++i) ASSERT_EQ(spared[i], original[i]) << "event " << i;
  EXPECT_NE(spared[second], original[second]);  // no loss there
  // Sparing a loss that never happens changes nothing.
  faults.spared_losses = {SparedLoss{client, 1'000'000}};
  EXPECT_EQ(run(s, faults), original);
}

ExplicitOp op(ExplicitOp::Kind kind, int64_t delay_ms) {
  ExplicitOp o;
  o.kind = kind;
  o.delay_us = delay_ms * 1000;
  o.lease_ms = kind == ExplicitOp::Kind::Unlock ? -1 : 5'000;
  o.wait_ms = 3'000;
  return o;
}

// Client 0 takes the lock twice (reentrant) but its plan unlocks once, as
// if the second acquire had failed when the plan was recorded; client 1
// then tries for 3 s. Balanced, client 0 releases both holds and client 1
// gets the lock; not balanced, client 0 still holds it.
TEST(CauseReruns, BalancedHoldsAreReleased) {
  Scenario s;
  s.seed = 3;
  s.clients = 2;
  s.profile = "none";
  ExplicitPlan plan;
  plan.scenario = s;
  plan.faults = scenario_fault_plan(s, s.servers);
  plan.drain_ms = 10'000;
  plan.tasks.push_back(ExplicitTask{0, 0, 1, {op(ExplicitOp::Kind::Lock, 0), op(ExplicitOp::Kind::Lock, 10),
                                              op(ExplicitOp::Kind::Unlock, 100)}});
  plan.tasks.push_back(ExplicitTask{1, 0, 1, {op(ExplicitOp::Kind::TryLock, 500)}});
  auto client1_acquired = [&](bool balance) {
    plan.balance_holds = balance;
    ModelBackend backend(1);
    VectorSink sink;
    run_explicit(plan, backend, sink);
    return std::any_of(sink.events.begin(), sink.events.end(), [](const Event& e) {
      return e.kind == EventKind::Ok && e.client == 1 && e.op == "try_lock" && e.value == 1;
    });
  };
  EXPECT_FALSE(client1_acquired(false));
  EXPECT_TRUE(client1_acquired(true));
}

}  // namespace
}  // namespace locksim
