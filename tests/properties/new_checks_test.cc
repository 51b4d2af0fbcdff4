// The protocol checks added for the mutant suite: wake-up on release,
// PTTL consistency after a refresh, and a free fair lock refused although
// every waiter ahead was stale.
#include <gtest/gtest.h>

#include "properties/fifo_fairness.h"
#include "properties/liveness.h"
#include "properties/watchdog_expiry.h"
#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

std::vector<Event> release(bool publishes) {
  HistoryBuilder h;
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  Event& r = h.script(5, 1, "rlock_release", "1", {}, 2);
  r.request_id = "r1";
  if (!publishes) r.published.clear();
  Event& replay = h.script(9, 1, "rlock_release", "1", {}, 2);  // latch replay: publishes nothing
  replay.request_id = "r1";
  replay.published.clear();
  return h.events();
}

TEST(WakeUp, ReleaseWithoutPublishIsAViolation) {
  std::vector<Event> events = release(false);
  auto v = run_checker<LivenessChecker>(events);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("published nothing"), std::string::npos);
}

TEST(WakeUp, ReleaseThatPublishesAndLatchReplayPass) {
  std::vector<Event> events = release(true);
  EXPECT_TRUE(run_checker<LivenessChecker>(events).empty());
}

std::vector<Event> reentry(int64_t pttl_ms) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1, 10000);
  h.script(100, 1, "rlock_acquire", "nil", {owner_of(1)}, 2, 10000);  // reentry: expires at 10 100
  h.script(200, 2, "rlock_acquire", std::to_string(pttl_ms), {owner_of(1)}, 3, 10000);
  return h.events();
}

TEST(PttlConsistency, ExpiryNotResetOnReentryIsAViolation) {
  auto v = run_checker<WatchdogExpiryChecker>(reentry(9800));  // 10 000 - 200: not reset
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("not reset"), std::string::npos);
}

TEST(PttlConsistency, ResetExpiryPasses) {
  EXPECT_TRUE(run_checker<WatchdogExpiryChecker>(reentry(9900)).empty());
}

std::vector<Event> free_lock_poll(const std::string& reply) {
  HistoryBuilder h;
  h.script(0, 1, "fair_acquire", "nil", {owner_of(1)}, 1, 30000, 5000);
  h.invoke(10, 2, "try_lock", 2, "L", 5000);
  h.script(11, 2, "fair_acquire", "1000", {owner_of(1)}, 2, 30000, 5000);  // slot ends at 6 011
  h.invoke(20, 3, "lock", 3);
  h.script(21, 3, "fair_acquire", "5990", {owner_of(1)}, 3, 30000, 300000);
  h.script(30, 1, "fair_release", "1", {}, 4);
  // Client 2 vanished (no acquire_failed); at 9 000 its slot is long over.
  h.script(9000, 3, "fair_acquire", reply, reply == "nil" ? std::vector<std::string>{owner_of(3)}
                                                          : std::vector<std::string>{}, 3, 30000, 300000);
  return h.events();
}

TEST(StalePurge, FreeLockRefusedBehindStaleWaitersIsAViolation) {
  auto v = run_checker<FifoFairnessChecker>(free_lock_poll("0"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("stale waiters were not purged"), std::string::npos);
}

TEST(StalePurge, FreeLockGrantedAfterPurgePasses) {
  EXPECT_TRUE(run_checker<FifoFairnessChecker>(free_lock_poll("nil")).empty());
}

}  // namespace
}  // namespace locksim::testing
