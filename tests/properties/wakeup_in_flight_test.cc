// A wake-up that reaches a fair waiter while its poll is in flight. Client 1
// heads the line and polls again just before client 0 releases; the release's
// message arrives before that poll's reply. The client keeps the message
// (Redisson's semaphore permit) and polls again at once; the client of trace
// versions 1 to 4 (Scenario::lost_wakeups) dropped it and slept the poll's
// ttl (8 s) on a free lock, while client 0, queued behind it, polled the free
// lock about 900 times a second: RapidCheck's safe-scenario property found
// this plan (tests/properties/scenario_properties_test.cc), shrunk.
#include <gtest/gtest.h>

#include <algorithm>

#include "properties/scenario_check.h"
#include "sim/explicit_plan.h"
#include "sim/model_backend_source.h"

namespace locksim {
namespace {

ExplicitOp op(ExplicitOp::Kind kind, int64_t delay_us, int64_t lease_ms = -1) {
  ExplicitOp o;
  o.kind = kind;
  o.delay_us = delay_us;
  o.lease_ms = lease_ms;
  return o;
}

ExplicitPlan head_woken_while_polling(bool lost_wakeups) {
  using K = ExplicitOp::Kind;
  ExplicitPlan plan;
  plan.scenario.seed = 7;
  plan.scenario.clients = 2;
  plan.scenario.lock_kind = ScenarioLockKind::Fair;
  plan.scenario.profile = Profile::named("none");
  plan.scenario.lost_wakeups = lost_wakeups;
  plan.faults = scenario_fault_plan(plan.scenario, 1);
  plan.drain_ms = 40'000;
  plan.tasks.push_back(ExplicitTask{0, 0, 1,
                                    {op(K::Lock, 1'000, 9'191), op(K::Unlock, 965'000), op(K::Lock, 0),
                                     op(K::Unlock, 0)}});
  plan.tasks.push_back(ExplicitTask{1, 0, 1,
                                    {op(K::Lock, 0), op(K::Unlock, 100'000), op(K::Lock, 964'000),
                                     op(K::Unlock, 0)}});
  return plan;
}

struct Outcome {
  ScenarioVerdict verdict;
  std::vector<Event> events;
};

Outcome run(bool lost_wakeups) {
  ModelBackendSource model;
  VectorSink history;
  Outcome o;
  o.verdict = check_plan_on(model, head_woken_while_polling(lost_wakeups), default_check_config(), &history);
  o.events = history.events;
  return o;
}

// True time (µs) of the ok of client 1's second lock (its op 4).
int64_t second_acquire_of_client_1_us(const std::vector<Event>& events) {
  int oks = 0;
  for (const Event& e : events) {
    if (e.kind == EventKind::Ok && e.client == 1 && e.op == Op::Lock && ++oks == 2) return e.true_us;
  }
  return -1;
}

TEST(WakeupInFlight, AHeadWokenWhilePollingPollsAgainAtOnce) {
  const Outcome kept = run(false);
  EXPECT_TRUE(kept.verdict.violations.empty()) << kept.verdict.violations.front().to_string();
  const int64_t acquired_us = second_acquire_of_client_1_us(kept.events);
  ASSERT_GT(acquired_us, 0);
  EXPECT_LT(acquired_us, 1'100'000) << "client 1 slept on the free lock";
}

TEST(WakeupInFlight, TheClientThatDroppedItLeftTheLineSpinning) {
  const Outcome lost = run(true);
  ASSERT_FALSE(lost.verdict.violations.empty());
  EXPECT_EQ(lost.verdict.violations.front().property, "busy_poll") << lost.verdict.violations.front().to_string();
  EXPECT_GT(second_acquire_of_client_1_us(lost.events), 9'000'000);  // slept its 8 s ttl
}

}  // namespace
}  // namespace locksim
