#include "properties/liveness.h"

#include <gtest/gtest.h>

#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

std::vector<Event> budget_history(int64_t returns_at_ms, int64_t pause_ms) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.invoke(0, 2, "try_lock", 2, "L", 5000);
  h.script(1, 2, "rlock_acquire", "29999", {owner_of(1)}, 2);
  if (pause_ms > 0) h.fault(1000, "pause", 2, pause_ms);
  h.fail(returns_at_ms, 2, "try_lock", 2, "wait budget exhausted");
  return h.events();
}

TEST(Liveness, WaiterOverItsBudgetIsAViolation) {
  auto v = run_checker<LivenessChecker>(budget_history(20000, 0));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "liveness");
  EXPECT_EQ(v[0].event_ids, (std::vector<uint64_t>{1, 3}));
}

TEST(Liveness, WaiterWithinBudgetOrPausedPasses) {
  EXPECT_TRUE(run_checker<LivenessChecker>(budget_history(5100, 0)).empty());
  EXPECT_TRUE(run_checker<LivenessChecker>(budget_history(20000, 15000)).empty());
}

TEST(Liveness, WaiterThatNeverReturnsIsReportedAtTheEnd) {
  HistoryBuilder h;
  h.invoke(0, 2, "try_lock", 2, "L", 1000);
  h.script(10000, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  EXPECT_EQ(run_checker<LivenessChecker>(h.events()).size(), 1u);
}

std::vector<Event> free_lock_history(bool woken) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.ok(2, 1, "lock", 1);
  h.invoke(10, 2, "lock", 2);
  h.script(11, 2, "rlock_acquire", "29990", {owner_of(1)}, 2);
  h.invoke(100, 1, "unlock", 3);
  h.script(101, 1, "rlock_release", "1", {}, 3).request_id = "r1";
  h.ok(102, 1, "unlock", 3, 1);
  if (woken) {
    h.script(150, 2, "rlock_acquire", "nil", {owner_of(2)}, 2);
    h.ok(151, 2, "lock", 2);
  }
  h.script(25000, 3, "rlock_acquire", "nil", {owner_of(3)}, 7, 30000, 0, "M");  // time passes
  return h.events();
}

TEST(Liveness, WaiterStuckOnAFreeLockIsAViolation) {
  auto v = run_checker<LivenessChecker>(free_lock_history(false));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("shows free"), std::string::npos);
}

TEST(Liveness, WaiterWokenOnReleasePasses) {
  EXPECT_TRUE(run_checker<LivenessChecker>(free_lock_history(true)).empty());
}

}  // namespace
}  // namespace locksim::testing
