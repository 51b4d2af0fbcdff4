#include "properties/reentrancy.h"

#include <gtest/gtest.h>

#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

std::vector<Event> nested(int64_t first_unlock_reply) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.ok(2, 1, "lock", 1);
  h.invoke(3, 1, "lock", 2);
  h.script(4, 1, "rlock_acquire", "nil", {owner_of(1)}, 2);
  h.ok(5, 1, "lock", 2);
  h.invoke(6, 1, "unlock", 3);
  h.script(7, 1, "rlock_release", std::to_string(first_unlock_reply),
           first_unlock_reply == 0 ? std::vector<std::string>{owner_of(1)} : std::vector<std::string>{}, 3)
      .request_id = "r1";
  h.ok(8, 1, "unlock", 3, first_unlock_reply);
  if (first_unlock_reply == 0) {
    h.invoke(9, 1, "unlock", 4);
    h.script(10, 1, "rlock_release", "1", {}, 4).request_id = "r2";
    h.ok(11, 1, "unlock", 4, 1);
  }
  return h.events();
}

TEST(Reentrancy, NestedHoldReleasedByOneUnlockIsAViolation) {
  auto v = run_checker<ReentrancyChecker>(nested(1));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("nested 2 deep"), std::string::npos);
}

TEST(Reentrancy, NestedLockUnlockPasses) {
  EXPECT_TRUE(run_checker<ReentrancyChecker>(nested(0)).empty());
  EXPECT_TRUE(check_history(nested(0)).empty());
}

std::vector<Event> non_owner_release(bool release_checks_owner) {
  HistoryBuilder h;
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.invoke(5, 2, "unlock", 2);
  if (release_checks_owner) {
    h.script(6, 2, "rlock_release", "nil", {owner_of(1)}, 2).request_id = "r9";
    h.fail(7, 2, "unlock", 2, "illegal monitor state");
  } else {
    h.script(6, 2, "rlock_release", "1", {}, 2).request_id = "r9";
    h.ok(7, 2, "unlock", 2, 1);
  }
  return h.events();
}

TEST(Reentrancy, ReleaseByNonOwnerMustChangeNothing) {
  auto v = run_checker<ReentrancyChecker>(non_owner_release(false));
  ASSERT_EQ(v.size(), 2u);  // server answered 1; the client saw success
  EXPECT_NE(v[0].message.find("non-owner"), std::string::npos);
  EXPECT_NE(v[1].message.find("holds nothing"), std::string::npos);
}

TEST(Reentrancy, ReleaseByNonOwnerAnsweringNilPasses) {
  EXPECT_TRUE(run_checker<ReentrancyChecker>(non_owner_release(true)).empty());
}

std::vector<Event> retried_release(const std::string& retry_reply) {
  HistoryBuilder h;
  h.script(1, 1, "rlock_acquire", "nil", {owner_of(1)}, 1);
  h.script(2, 1, "rlock_acquire", "nil", {owner_of(1)}, 2);
  h.script(3, 1, "rlock_release", "0", {owner_of(1)}, 3).request_id = "r1";
  h.script(1003, 1, "rlock_release", retry_reply, {owner_of(1)}, 3).request_id = "r1";
  return h.events();
}

TEST(Reentrancy, RetriedReleaseMustAnswerTheSame) {
  auto v = run_checker<ReentrancyChecker>(retried_release("1"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("retried release r1"), std::string::npos);
}

TEST(Reentrancy, IdempotentRetryPasses) {
  EXPECT_TRUE(run_checker<ReentrancyChecker>(retried_release("0")).empty());
}

}  // namespace
}  // namespace locksim::testing
