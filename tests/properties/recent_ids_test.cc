// RecentIds: a window of the latest distinct ids, found by hash, forgotten
// oldest first.
#include <gtest/gtest.h>

#include <string>

#include "properties/recent_ids.h"

namespace locksim {
namespace {

TEST(RecentIds, RemembersTheLatestCapacityIdsAndForgetsTheOldestFirst) {
  RecentIds<int> ids(3);
  for (int i = 0; i < 5; ++i) ids.add("r" + std::to_string(i), i * 10);
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids.find("r0"), nullptr);
  EXPECT_EQ(ids.find("r1"), nullptr);
  ASSERT_NE(ids.find("r2"), nullptr);
  EXPECT_EQ(*ids.find("r2"), 20);
  EXPECT_EQ(*ids.find("r4"), 40);
}

TEST(RecentIds, SeenBeforeRemembersNewIdsOnly) {
  RecentIds<> ids(2);
  EXPECT_FALSE(ids.seen_before("a"));
  EXPECT_TRUE(ids.seen_before("a"));  // not added twice: "a" keeps its age
  EXPECT_FALSE(ids.seen_before("b"));
  EXPECT_FALSE(ids.seen_before("c"));  // forgets "a"
  EXPECT_FALSE(ids.seen_before("a"));
  EXPECT_TRUE(ids.seen_before("c"));
  EXPECT_EQ(ids.size(), 2u);
}

TEST(RecentIds, SurvivesRehashing) {
  RecentIds<size_t> ids(1000);
  for (size_t i = 0; i < 5000; ++i) ids.add(std::to_string(i), i);
  EXPECT_EQ(ids.size(), 1000u);
  EXPECT_EQ(ids.find("3999"), nullptr);
  ASSERT_NE(ids.find("4000"), nullptr);
  EXPECT_EQ(*ids.find("4999"), 4999u);
}

}  // namespace
}  // namespace locksim
