// What the cause search's re-runs rely on (properties/cause_search.h): a
// Simulator given its scenario's own fault plan runs the same history; a
// loss pinned to its message (sim/fault_plan.h LossScript) can be spared
// while every other lost message is lost again; an explicit plan that balances holds releases
// what its tasks hold (sim/explicit_plan.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
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
  s.lock_kind = ScenarioLockKind::Rlock;
  s.profile = Profile::named("hostile");
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

// The keys of the losses a run recorded (LossScript::record), in order.
std::vector<std::string> loss_keys(const std::vector<Event>& events) {
  std::vector<std::string> out;
  for (const Event& e : events)
    if (e.kind == EventKind::Fault && e.op == Op::Lost) out.push_back(loss_key(e.client, e.lost.text(), e.value));
  return out;
}

// Recording the losses by message changes nothing but the ordinal each
// loss carries; losing exactly the recorded messages runs the same history;
// sparing one of them delivers it, leaves the run before it as it was, and
// loses every other recorded message and no other (the other clients' and
// the later draws do not move the losses to other messages).
TEST(CauseReruns, LossesPinnedToMessagesStayOnTheirMessagesWhenOneIsSpared) {
  const Scenario s = hostile_scenario();
  const std::vector<Event> original = run(s);
  FaultPlan faults = scenario_fault_plan(s, s.servers);
  faults.losses.record = true;
  const std::vector<Event> recorded = run(s, faults);
  ASSERT_EQ(recorded.size(), original.size());
  for (size_t i = 0; i < original.size(); ++i) {
    Event e = recorded[i];
    if (e.kind == EventKind::Fault && e.op == Op::Lost) {
      EXPECT_GE(e.value, 1) << "event " << i;
      e.value = original[i].value;
    }
    ASSERT_EQ(e, original[i]) << "event " << i;
  }
  const std::vector<std::string> keys = loss_keys(recorded);
  ASSERT_GE(keys.size(), 4u);
  const std::set<std::string> all(keys.begin(), keys.end());
  ASSERT_EQ(all.size(), keys.size()) << "each loss is its own message";

  faults.losses.lost = all;
  EXPECT_EQ(loss_keys(run(s, faults)), keys);

  // Spare the second loss: a reply or request whose delivery changes what
  // its client does next.
  size_t second = 0;
  for (int seen = 0; second < recorded.size(); ++second) {
    const Event& e = recorded[second];
    if (e.kind == EventKind::Fault && e.op == Op::Lost && ++seen == 2) break;
  }
  const std::string spared = loss_key(recorded[second].client, recorded[second].lost.text(), recorded[second].value);
  faults.losses.lost->erase(spared);
  const std::vector<Event> without = run(s, faults);
  ASSERT_GT(without.size(), second);
  for (size_t i = 0; i < second; ++i) ASSERT_EQ(without[i], recorded[i]) << "event " << i;
  EXPECT_NE(without[second], recorded[second]);  // no loss there
  const std::vector<std::string> lost_again = loss_keys(without);
  EXPECT_EQ(std::count(lost_again.begin(), lost_again.end(), spared), 0);
  for (const std::string& k : lost_again) EXPECT_EQ(faults.losses.lost->count(k), 1u) << "a new loss: " << k;
  // The run goes otherwise after the spared message, yet the other
  // clients' losses stay on their messages (a message no longer sent is
  // not lost, the others are).
  int others = 0, others_again = 0;
  const std::string own = std::to_string(recorded[second].client) + "|";
  for (const std::string& k : keys) others += k.rfind(own, 0) != 0;
  for (const std::string& k : lost_again) others_again += k.rfind(own, 0) != 0;
  EXPECT_GT(others_again, 0);
  EXPECT_LE(others_again, others);
  EXPECT_NE(without, recorded);
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
  s.profile = Profile::named("none");
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
      return e.kind == EventKind::Ok && e.client == 1 && e.op == Op::TryLock && e.value == 1;
    });
  };
  EXPECT_FALSE(client1_acquired(false));
  EXPECT_TRUE(client1_acquired(true));
}

}  // namespace
}  // namespace locksim
