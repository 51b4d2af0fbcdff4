#include "properties/watchdog_expiry.h"

#include <gtest/gtest.h>

#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

std::vector<Event> crashed_holder(bool lock_freed) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.ok(2, 1, "lock", 1);
  h.script(10001, 1, "rlock_renew", "1", {owner_of(1)}, 50);  // last renewal: expires at 40 001
  h.fault(12000, "crash", 1);
  h.invoke(40000, 2, "lock", 2);
  if (lock_freed) {
    h.script(40002, 2, "rlock_acquire", "nil", {owner_of(2)}, 2);
    h.ok(40003, 2, "lock", 2);
  } else {
    h.script(40002, 2, "rlock_acquire", "20000", {owner_of(1)}, 2);
  }
  return h.events();
}

TEST(WatchdogExpiry, CrashedHoldersLockMustExpireWithinTheLease) {
  auto v = run_checker<WatchdogExpiryChecker>(crashed_holder(false));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("crashed holder"), std::string::npos);
  EXPECT_EQ(v[0].event_ids, (std::vector<uint64_t>{3, 6}));
}

TEST(WatchdogExpiry, CrashedHoldersLockFreedInTimePasses) {
  EXPECT_TRUE(run_checker<WatchdogExpiryChecker>(crashed_holder(true)).empty());
}

TEST(WatchdogExpiry, RenewalForANonHolderMustNotSucceed) {
  HistoryBuilder h;
  h.script(1, 2, "rlock_acquire", "nil", {owner_of(2)}, 1);
  h.script(5, 1, "rlock_renew", "1", {owner_of(2)}, 2);
  auto v = run_checker<WatchdogExpiryChecker>(h.events());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("does not hold"), std::string::npos);
}

std::vector<Event> lost_hold(bool paused) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.ok(2, 1, "lock", 1);
  if (paused) h.fault(1000, "pause", 1, 35000);
  h.script(36010, 1, "rlock_renew", "0", {}, 9);
  h.info(36020, 1, "hold_lost", 0);
  return h.events();
}

TEST(WatchdogExpiry, LiveUnfaultedHolderMustNotLoseItsLock) {
  auto v = run_checker<WatchdogExpiryChecker>(lost_hold(false));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("no fault hit it"), std::string::npos);
}

TEST(WatchdogExpiry, PausedHolderMayLoseItsLock) {
  EXPECT_TRUE(run_checker<WatchdogExpiryChecker>(lost_hold(true)).empty());
}

// The client is paused past the lease while its acquire's reply waits (the
// server granted at 1 ms, the Ok is read at 35 s): the hold begins stale,
// and its first renewal finds the lock gone. The pause explains it, though
// it ended before the hold began; without it the same loss is a violation.
std::vector<Event> stale_at_its_ok(bool paused) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  if (paused) h.fault(2, "pause", 1, 35000);
  h.ok(35002, 1, "lock", 1);
  h.script(45003, 1, "rlock_renew", "0", {}, 9);
  h.info(45004, 1, "hold_lost", 0);
  return h.events();
}

// A pause while the acquire still waits, before the server grants it,
// cannot leave the hold stale: a loss after that grant is a violation.
TEST(WatchdogExpiry, APauseBeforeTheGrantDoesNotExplainALaterLoss) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.fault(100, "pause", 1, 35000);
  h.script(36000, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.ok(36001, 1, "lock", 1);
  h.script(46002, 1, "rlock_renew", "0", {}, 9);
  h.info(46003, 1, "hold_lost", 0);
  auto v = run_checker<WatchdogExpiryChecker>(h.events());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("no fault hit it"), std::string::npos);
}

TEST(WatchdogExpiry, APauseWhileTheAcquiresReplyWaitsExplainsALaterLoss) {
  EXPECT_TRUE(run_checker<WatchdogExpiryChecker>(stale_at_its_ok(true)).empty());
  auto v = run_checker<WatchdogExpiryChecker>(stale_at_its_ok(false));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("no fault hit it"), std::string::npos);
}

// The renewal's op_id tells when it was started: `started_after_release`
// gives it an id newer than the release; otherwise it was started before.
std::vector<Event> renew_after_release(bool started_after_release) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.ok(2, 1, "lock", 1);
  h.invoke(5000, 1, "unlock", 3);
  h.script(5001, 1, "rlock_release", "1", {}, 3).request_id = "r1";
  h.ok(5002, 1, "unlock", 3, 1);
  h.script(started_after_release ? 15002 : 5200, 1, "rlock_renew", "0", {}, started_after_release ? 9 : 2);
  return h.events();
}

TEST(WatchdogExpiry, RenewalStartedAfterFinalReleaseMeansWatchdogNotCancelled) {
  auto v = run_checker<WatchdogExpiryChecker>(renew_after_release(true));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("not cancelled"), std::string::npos);
}

TEST(WatchdogExpiry, RenewalInFlightAtReleasePasses) {
  EXPECT_TRUE(run_checker<WatchdogExpiryChecker>(renew_after_release(false)).empty());
}

std::vector<Event> explicit_lease(bool renewed) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1, "L", -1, 10000);
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1, 10000);
  h.ok(2, 1, "lock", 1);
  if (renewed) h.script(3400, 1, "rlock_renew", "1", {owner_of(1)}, 9, 10000);
  h.invoke(5000, 1, "unlock", 2);
  h.script(5001, 1, "rlock_release", "1", {}, 2, 10000).request_id = "r1";
  h.ok(5002, 1, "unlock", 2, 1);
  return h.events();
}

TEST(WatchdogExpiry, ExplicitLeaseMustNeverBeRenewed) {
  auto v = run_checker<WatchdogExpiryChecker>(explicit_lease(true));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("explicit lease"), std::string::npos);
}

TEST(WatchdogExpiry, ExplicitLeaseHoldReleasedPasses) {
  EXPECT_TRUE(run_checker<WatchdogExpiryChecker>(explicit_lease(false)).empty());
  EXPECT_TRUE(check_history(explicit_lease(false)).empty());
}

TEST(WatchdogExpiry, ExplicitLeaseLostEarlyIsAViolation) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1, "L", -1, 10000);
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1, 10);  // lease sent in the wrong unit
  h.ok(2, 1, "lock", 1);
  h.invoke(5000, 1, "unlock", 2);
  h.script(5001, 1, "rlock_release", "nil", {}, 2, 10).request_id = "r1";
  h.fail(5002, 1, "unlock", 2, "illegal monitor state");
  auto v = run_checker<WatchdogExpiryChecker>(h.events());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("explicit lease"), std::string::npos);
}

}  // namespace
}  // namespace locksim::testing
