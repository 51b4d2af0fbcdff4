// The checkers follow the lock's declared design (CheckConfig, with_design()):
// a polling lock publishes no wake-ups and its waiters come back within
// their interval (liveness), it is judged busy only above the pace its
// interval allows (busy_poll); a lock that is not reentrant keeps no latch
// and must leave a holder in place when a non-owner releases (reentrancy).
// A spin lock (with_scenario_locks()) is held to its back-off instead: a
// waiter on a free lock within its longest sleep, its attempts no sooner
// than its smallest sleeps allow (busy_poll).
// Each rule: a history the design allows passes, a broken one fails.
#include <gtest/gtest.h>

#include "properties/busy_poll.h"
#include "properties/liveness.h"
#include "properties/reentrancy.h"
#include "properties/scenario_check.h"
#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

LockDesign polling(int64_t interval_ms, int64_t jitter_ms = 0) {
  LockDesign d;
  d.holders = HolderRead::StringValue;
  d.reentrant = false;
  d.wake.mode = WakeMode::Poll;
  d.wake.interval_ms = interval_ms;
  d.wake.jitter_ms = jitter_ms;
  d.token = TokenMode::FreshPerAcquire;
  d.kinds = 0b0001;
  return d;
}

CheckConfig config_for(const LockDesign& d) { return with_design(default_check_config(), d); }

TEST(DesignChecks, WithDesignDerivesTheBoundsFromThePollInterval) {
  const CheckConfig ours = config_for(LockDesign{});
  EXPECT_EQ(ours.free_lock_bound_ms, default_check_config().free_lock_bound_ms);
  EXPECT_EQ(ours.max_polls_per_second, 20);
  const CheckConfig poll = config_for(polling(100, 50));
  EXPECT_FALSE(poll.reentrant);
  EXPECT_EQ(poll.free_lock_bound_ms, 100 + 50 + default_check_config().wait_slack_ms);
  EXPECT_EQ(poll.max_polls_per_second, 11);
  Scenario s;
  s.design = polling(100, 50);
  EXPECT_EQ(check_config_for(s).free_lock_bound_ms, poll.free_lock_bound_ms);
}

// A release that answers 1 and publishes nothing: a pub/sub lock's waiters
// then sleep until their poll; a polling lock's come back on their own.
TEST(DesignChecks, APollingLockNeedsNoWakeUp) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  Event& release = h.script(100, 1, "rlock_release", "1", {}, 2);
  release.published.clear();
  const auto pubsub = run_checker<LivenessChecker>(h.events(), config_for(LockDesign{}));
  ASSERT_EQ(pubsub.size(), 1u);
  EXPECT_NE(pubsub[0].message.find("published nothing instead of a wake-up"), std::string::npos);
  EXPECT_TRUE(run_checker<LivenessChecker>(h.events(), config_for(polling(100))).empty());
}

// A waiter on a lock the server shows free: a polling lock's waiter must
// try again within its interval (+ jitter + slack); a pub/sub one may sleep
// a lease when its wake-up is lost.
TEST(DesignChecks, APollingWaiterOnAFreeLockIsBoundByItsInterval) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.invoke(10, 2, "lock", 2);
  h.script(11, 2, "rlock_acquire", "-1", {owner_of(1)}, 2);
  h.script(500, 1, "rlock_release", "1", {}, 3).published.clear();
  // Time passes on another lock; client 2 never polls again.
  h.script(9000, 3, "rlock_acquire", "nil", {owner_of(3)}, 4, 30000, 0, "M");
  const auto poll = run_checker<LivenessChecker>(h.events(), config_for(polling(100, 50)));
  ASSERT_EQ(poll.size(), 1u);
  EXPECT_NE(poll[0].message.find("for a lock the server shows free"), std::string::npos) << poll[0].to_string();
  EXPECT_NE(poll[0].message.find("bound 7 150 ms"), std::string::npos) << poll[0].to_string();
  LockDesign pubsub_no_wake = polling(100, 50);
  pubsub_no_wake.wake = WakeUp{};
  for (const Violation& v : run_checker<LivenessChecker>(h.events(), config_for(pubsub_no_wake)))
    EXPECT_EQ(v.message.find("server shows free"), std::string::npos) << v.to_string();  // a lease is allowed
}

// A waiter polling every `period_ms` for three seconds.
std::vector<Event> polling_every(int64_t period_ms) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.invoke(100, 2, "lock", 2);
  for (int64_t t = 100; t <= 3100; t += period_ms) h.script(t, 2, "rlock_acquire", "-1", {owner_of(1)}, 2);
  return h.events();
}

CheckConfig spin_config(BackoffKind backoff = BackoffKind::Exponential) {
  return with_scenario_locks(default_check_config(), LockDesign{}, ScenarioLockKind::Spin, backoff);
}

TEST(SpinChecks, WithScenarioLocksDerivesTheBoundsFromTheBackoff) {
  const CheckConfig slack = default_check_config();
  const CheckConfig exponential = spin_config();
  EXPECT_EQ(exponential.wake.mode, WakeMode::Backoff);
  EXPECT_EQ(exponential.free_lock_bound_ms, 128 + slack.wait_slack_ms);
  EXPECT_EQ(exponential.max_polls_per_second, 15);
  const CheckConfig constant = spin_config(BackoffKind::Constant);
  EXPECT_EQ(constant.wake.backoff, BackoffKind::Constant);
  EXPECT_EQ(constant.free_lock_bound_ms, 71 + slack.wait_slack_ms);
  EXPECT_EQ(constant.max_polls_per_second, 17);
  // Another lock kind keeps the design's bounds.
  const CheckConfig rlock =
      with_scenario_locks(default_check_config(), LockDesign{}, ScenarioLockKind::Rlock, BackoffKind::Exponential);
  EXPECT_EQ(rlock.wake.mode, WakeMode::PubSub);
  EXPECT_EQ(rlock.free_lock_bound_ms, slack.free_lock_bound_ms);
  Scenario s;
  s.lock_kind = ScenarioLockKind::Spin;
  EXPECT_EQ(check_config_for(s).wake.mode, WakeMode::Backoff);
}

// A spin lock's release publishes nothing and its waiter must come back on
// a free lock within its longest sleep (+ slack); a pub/sub lock's waiter
// may sleep a lease when its wake-up is lost, so the same history passes.
TEST(SpinChecks, ASpinWaiterOnAFreeLockIsBoundByItsBackoff) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.invoke(10, 2, "lock", 2);
  h.script(11, 2, "rlock_acquire", "-1", {owner_of(1)}, 2);
  h.script(500, 1, "spin_release", "1", {}, 3).published.clear();
  h.script(9000, 3, "rlock_acquire", "nil", {owner_of(3)}, 4, 30000, 0, "M");
  const auto spin = run_checker<LivenessChecker>(h.events(), spin_config());
  ASSERT_EQ(spin.size(), 1u);
  EXPECT_NE(spin[0].message.find("for a lock the server shows free"), std::string::npos) << spin[0].to_string();
  EXPECT_NE(spin[0].message.find("bound 7 128 ms"), std::string::npos) << spin[0].to_string();
  for (const Violation& v : run_checker<LivenessChecker>(h.events(), config_for(LockDesign{})))
    EXPECT_EQ(v.message.find("server shows free"), std::string::npos) << v.to_string();
  // Nothing is published, and for a spin lock that is no lost wake-up.
  for (const Violation& v : spin) EXPECT_EQ(v.message.find("published nothing"), std::string::npos);
}

// A spin waiter whose attempts follow its back-off's smallest sleeps (1, 2,
// 4, ... 128 ms, each after a 1 ms round trip) passes; one that polls every
// 2 ms is reported as soon as an attempt comes before a quarter of the
// sleeps its back-off owes (attempt 7: 63 ms owed, seen after 12 ms).
TEST(SpinChecks, BusyPollHoldsASpinWaiterToItsBackoff) {
  HistoryBuilder good;
  good.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  good.invoke(100, 2, "lock", 2);
  int64_t t_ms = 101;
  int64_t sleep_ms = 1;
  for (int k = 0; k < 30; ++k) {
    good.script(t_ms, 2, "rlock_acquire", "-1", {owner_of(1)}, 2);
    t_ms += sleep_ms + 1;
    sleep_ms = std::min<int64_t>(128, sleep_ms * 2);
  }
  EXPECT_TRUE(run_checker<BusyPollChecker>(good.events(), spin_config()).empty());
  const std::vector<Event> fast = polling_every(2);
  const auto caught = run_checker<BusyPollChecker>(fast, spin_config());
  ASSERT_GE(caught.size(), 1u);
  EXPECT_NE(caught[0].message.find("made its attempt 7 on the lock 0.012 s after its invoke; its exponential back-off "
                                   "sleeps at least 63 ms in all before attempt 7"),
            std::string::npos)
      << caught[0].to_string();
}

TEST(DesignChecks, BusyPollComparesWithTheDeclaredInterval) {
  // 33 polls a second: too many for a pub/sub lock (20) and for one that
  // declares 100 ms, not for one that declares 30 ms.
  EXPECT_EQ(run_checker<BusyPollChecker>(polling_every(30), config_for(LockDesign{})).size(), 1u);
  const auto slow = run_checker<BusyPollChecker>(polling_every(30), config_for(polling(100)));
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0].message.find("the declared poll interval being 100 ms"), std::string::npos) << slow[0].to_string();
  EXPECT_TRUE(run_checker<BusyPollChecker>(polling_every(30), config_for(polling(30))).empty());
  EXPECT_TRUE(run_checker<BusyPollChecker>(polling_every(100), config_for(polling(100, 50))).empty());
}

// A RedLock waiter polls three members, each on its own server, 10 times a
// second each: 30 scripts a second for the operation, none too many for a
// server. One member polled 30 times a second is.
TEST(DesignChecks, BusyPollJudgesEachMemberOfAGroupApart) {
  auto group_polls = [](int members, int64_t period_ms) {
    HistoryBuilder h;
    h.invoke(100, 2, "lock", 2, "G");
    for (int64_t t = 100; t <= 3100; t += period_ms) {
      for (int m = 0; m < members; ++m) {
        Event& e = h.script(t, 2, "rlock_acquire", "-1", {owner_of(1)}, 2, 30000, 0, "G@" + std::to_string(m));
        e.server = m;
      }
    }
    return h.events();
  };
  const CheckConfig cfg = config_for(polling(100));
  EXPECT_TRUE(run_checker<BusyPollChecker>(group_polls(3, 100), cfg).empty());
  const auto storm = run_checker<BusyPollChecker>(group_polls(1, 33), cfg);
  ASSERT_EQ(storm.size(), 1u);
  EXPECT_NE(storm[0].message.find("polled its member G@0"), std::string::npos) << storm[0].to_string();
  EXPECT_EQ(storm[0].lock, "G");
}

// Client 1 holds; client 2 (whose hold ran out) releases. The design says
// a non-owner's release changes nothing.
std::vector<Event> non_owner_release(const std::string& reply, std::vector<std::string> after) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  Event& r = h.script(50, 2, "rlock_release", reply, std::move(after), 2);
  r.request_id = "c2-1";
  r.published.clear();
  return h.events();
}

TEST(DesignChecks, ANonOwnerReleaseOfANonReentrantLockChangesNothing) {
  const CheckConfig cfg = config_for(polling(100));
  EXPECT_TRUE(run_checker<ReentrancyChecker>(non_owner_release("nil", {owner_of(1)}), cfg).empty());
  const auto deleted = run_checker<ReentrancyChecker>(non_owner_release("1", {}), cfg);
  ASSERT_EQ(deleted.size(), 2u);
  EXPECT_NE(deleted[0].message.find("answered 1 instead of nil (not owned)"), std::string::npos)
      << deleted[0].to_string();
  EXPECT_NE(deleted[1].message.find("removed " + owner_of(1) + ", which held the lock"), std::string::npos)
      << deleted[1].to_string();
  // Answering "not owned" does not excuse removing the holder.
  const auto quiet = run_checker<ReentrancyChecker>(non_owner_release("nil", {}), cfg);
  ASSERT_EQ(quiet.size(), 1u);
  EXPECT_NE(quiet[0].message.find("removed"), std::string::npos) << quiet[0].to_string();
}

// A release retried after a lost reply: the first deleted the key, the
// retry answers "not owned". Our lock's latch answers the same twice; a
// lock that is not reentrant promises no latch.
TEST(DesignChecks, ARetriedReleaseOfANonReentrantLockNeedNotRepeatItsAnswer) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.script(50, 1, "rlock_release", "1", {}, 2).request_id = "c1-1";
  Event& retry = h.script(3100, 1, "rlock_release", "nil", {}, 2);
  retry.request_id = "c1-1";
  const auto ours = run_checker<ReentrancyChecker>(h.events(), config_for(LockDesign{}));
  ASSERT_EQ(ours.size(), 1u);
  EXPECT_NE(ours[0].message.find("retried release c1-1 answered nil but the first answered 1"), std::string::npos);
  EXPECT_TRUE(run_checker<ReentrancyChecker>(h.events(), config_for(polling(100))).empty());
}

}  // namespace
}  // namespace locksim::testing
