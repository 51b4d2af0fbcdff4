#include "properties/fifo_fairness.h"

#include <gtest/gtest.h>

#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

// Client 1 holds a fair lock; 2 then 3 join the line; the lock goes to 3
// while 2 is still waiting well inside its slot. Client 3's clock runs
// `skew_ms` ahead of true time.
std::vector<Event> fair_history(bool grant_in_order, int64_t skew_ms) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(1, 1, "fair_acquire", "nil", {owner_of(1)}, 1, 30000, 300000);
  h.ok(2, 1, "lock", 1);
  h.invoke(10, 2, "lock", 2);
  h.script(11, 2, "fair_acquire", "29990", {owner_of(1)}, 2, 30000, 300000);
  h.invoke(20, 3, "lock", 3).local_ms += skew_ms;
  h.script(21, 3, "fair_acquire", "330000", {owner_of(1)}, 3, 30000, 300000);
  h.invoke(100, 1, "unlock", 4);
  h.script(101, 1, "fair_release", "1", {}, 4);
  h.ok(102, 1, "unlock", 4, 1);
  const int first = grant_in_order ? 2 : 3;
  const int second = grant_in_order ? 3 : 2;
  h.script(110, first, "fair_acquire", "nil", {owner_of(first)}, static_cast<uint64_t>(first), 30000, 300000);
  h.ok(111, first, "lock", static_cast<uint64_t>(first));
  h.invoke(200, first, "unlock", 5);
  h.script(201, first, "fair_release", "1", {}, 5);
  h.ok(202, first, "unlock", 5, 1);
  h.script(210, second, "fair_acquire", "nil", {owner_of(second)}, static_cast<uint64_t>(second), 30000, 300000);
  h.ok(211, second, "lock", static_cast<uint64_t>(second));
  return h.events();
}

TEST(FifoFairness, OvertakingALiveWaiterIsAViolationExplainedBySkew) {
  auto v = run_checker<FifoFairnessChecker>(fair_history(false, 4000));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "fifo_fairness");
  EXPECT_EQ(v[0].owners, (std::vector<std::string>{owner_of(2), owner_of(3)}));
  EXPECT_EQ(v[0].event_ids, (std::vector<uint64_t>{4, 10}));
  EXPECT_EQ(v[0].blamed_fault, "client 3's clock is 4 000 ms ahead: its deadline purged client 2, who was still waiting");
}

TEST(FifoFairness, OvertakingWithoutSkewIsStillAViolation) {
  auto v = run_checker<FifoFairnessChecker>(fair_history(false, 0));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].blamed_fault, "");
}

TEST(FifoFairness, GrantsInLineOrderPass) {
  EXPECT_TRUE(run_checker<FifoFairnessChecker>(fair_history(true, 4000)).empty());
  EXPECT_TRUE(check_history(fair_history(true, 0)).empty());
}

TEST(FifoFairness, AWaiterPastItsSlotMayBeSkipped) {
  HistoryBuilder h;
  h.script(1, 1, "fair_acquire", "nil", {owner_of(1)}, 1, 30000, 5000);
  h.invoke(10, 2, "lock", 2);
  h.script(11, 2, "fair_acquire", "1000", {owner_of(1)}, 2, 30000, 5000);  // slot ends at 6011
  h.invoke(20, 3, "lock", 3);
  h.script(21, 3, "fair_acquire", "6000", {owner_of(1)}, 3, 30000, 5000);
  h.script(8000, 1, "fair_release", "1", {}, 4);
  h.script(8010, 3, "fair_acquire", "nil", {owner_of(3)}, 3, 30000, 5000);  // 2 was stale
  EXPECT_TRUE(run_checker<FifoFairnessChecker>(h.events()).empty());
}

}  // namespace
}  // namespace locksim::testing
