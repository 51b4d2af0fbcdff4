// ChainMarks (search/chain_marks.h): which run-on stops at a state that
// another one passed, stale marks, clear(), and marks kept through the
// table's growth.
#include <gtest/gtest.h>

#include <cstdint>

#include "search/chain_marks.h"

namespace locksim {
namespace {

TEST(ChainMarks, AStateFirstPassedAtALowerDepthStopsTheLaterRunOn) {
  ChainMarks marks;
  marks.new_chunk(3);
  EXPECT_FALSE(marks.stop_at(42, 7, 4));  // the first run-on to pass it
  EXPECT_TRUE(marks.stop_at(42, 8, 5));   // reached deeper: the first one's state is merged first
  EXPECT_TRUE(marks.stop_at(42, 9, 4));
}

TEST(ChainMarks, AtTheSameDepthTheDeeperHolderGoesOn) {
  ChainMarks marks;
  marks.new_chunk(3);
  EXPECT_FALSE(marks.stop_at(42, 7, 4));
  EXPECT_TRUE(marks.stop_at(42, 7, 4));   // a holder as deep: merged after the first one
  EXPECT_FALSE(marks.stop_at(42, 7, 5));  // a deeper holder's line is merged first: it takes the mark
  EXPECT_TRUE(marks.stop_at(42, 7, 4));   // and the first one now stops there
  EXPECT_FALSE(marks.stop_at(42, 6, 4));  // reached at a lower depth: goes on
  EXPECT_TRUE(marks.stop_at(42, 7, 9));
}

TEST(ChainMarks, MarksAtTheChunksDepthOrAboveAreStale) {
  ChainMarks marks;
  marks.new_chunk(3);
  EXPECT_FALSE(marks.stop_at(42, 7, 4));
  EXPECT_FALSE(marks.stop_at(43, 8, 4));
  marks.new_chunk(7);
  EXPECT_FALSE(marks.stop_at(42, 9, 8));  // its mark (depth 7) is merged or lost by now
  EXPECT_TRUE(marks.stop_at(43, 9, 8));   // depth 8 is still ahead
  EXPECT_TRUE(marks.stop_at(42, 10, 8));  // the new mark holds
}

TEST(ChainMarks, ClearForgetsEveryMark) {
  ChainMarks marks;
  marks.new_chunk(0);
  EXPECT_FALSE(marks.stop_at(42, 7, 4));
  marks.clear();
  EXPECT_FALSE(marks.stop_at(42, 8, 4));
  EXPECT_TRUE(marks.stop_at(42, 9, 4));
}

TEST(ChainMarks, MarksSurviveGrowthAndStaleOnesAreDropped) {
  ChainMarks marks;
  marks.new_chunk(0);
  constexpr uint64_t kMarks = 5000;  // past several doublings of 1024 slots
  for (uint64_t d = 1; d <= kMarks; ++d) EXPECT_FALSE(marks.stop_at(d * 0x9e3779b97f4a7c15ull, 10, 1));
  for (uint64_t d = 1; d <= kMarks; ++d) EXPECT_TRUE(marks.stop_at(d * 0x9e3779b97f4a7c15ull, 11, 1));
  marks.new_chunk(10);  // all stale now; new ones rebuild the table without them
  for (uint64_t d = 1; d <= kMarks; ++d) EXPECT_FALSE(marks.stop_at(d * 0x51afd7ed558ccd1dull, 12, 11));
  for (uint64_t d = 1; d <= kMarks; ++d) EXPECT_FALSE(marks.stop_at(d * 0x9e3779b97f4a7c15ull, 12, 11));
  EXPECT_TRUE(marks.stop_at(0x51afd7ed558ccd1dull, 13, 11));
  EXPECT_FALSE(marks.stop_at(0, 15, 11));  // 0 is a digest like any other
  EXPECT_TRUE(marks.stop_at(0, 16, 11));
}

}  // namespace
}  // namespace locksim
