#include "properties/exclusive_ownership.h"

#include <gtest/gtest.h>

#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

TEST(ExclusiveOwnership, TwoOwnerFieldsIsAViolation) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)});
  h.script(5, 2, "rlock_acquire", "nil", {owner_of(1), owner_of(2)});  // a broken acquire
  auto v = run_checker<ExclusiveOwnershipChecker>(h.events());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "exclusive_ownership");
  EXPECT_EQ(v[0].event_ids, std::vector<uint64_t>{1});
  EXPECT_EQ(v[0].owners.size(), 2u);
}

TEST(ExclusiveOwnership, HandOverPasses) {
  HistoryBuilder h;
  h.script(0, 1, "rlock_acquire", "nil", {owner_of(1)});
  h.script(5, 2, "rlock_acquire", "29995", {owner_of(1)});  // PTTL
  h.script(9, 1, "rlock_release", "1", {});
  h.script(12, 2, "rlock_acquire", "nil", {owner_of(2)});
  EXPECT_TRUE(run_checker<ExclusiveOwnershipChecker>(h.events()).empty());
  EXPECT_TRUE(check_history(h.events()).empty());
}

}  // namespace
}  // namespace locksim::testing
