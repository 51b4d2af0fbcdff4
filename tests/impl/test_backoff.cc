// The spin lock's back-off (impl/backoff.h, lock-semantics.md section 4b):
// the exponential sequence starts at 1 ms, doubles with a draw in [0, sleeps
// so far) added, reaches 128 ms and stays there; the constant one is 64 ms
// plus a draw in [0, 8); the busy_poll bounds they give.
#include <gtest/gtest.h>

#include <set>

#include "impl/backoff.h"

namespace locksim {
namespace {

TEST(Backoff, ExponentialStartsAtOneDoublesWithItsDrawAndStaysAtItsCap) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    BackoffState s;
    int64_t previous_ms = 0;
    for (int i = 0; i < 40; ++i) {
      const int64_t sleeps_before = s.sleeps;
      const int64_t sleep_ms = next_backoff_ms(BackoffKind::Exponential, &s, seed * 1000 + static_cast<uint64_t>(i));
      if (i == 0) {
        EXPECT_EQ(sleep_ms, 1);
      } else {
        // min(128, previous * 2 + r), r in [0, sleeps so far)
        EXPECT_GE(sleep_ms, std::min<int64_t>(128, previous_ms * 2));
        EXPECT_LE(sleep_ms, std::min<int64_t>(128, previous_ms * 2 + sleeps_before - 1));
      }
      if (previous_ms == 128) {
        EXPECT_EQ(sleep_ms, 128);
      }
      EXPECT_EQ(s.last_ms, sleep_ms);
      EXPECT_EQ(s.sleeps, sleeps_before + 1);
      previous_ms = sleep_ms;
    }
    EXPECT_EQ(previous_ms, 128);
    EXPECT_TRUE(s.saturated(BackoffKind::Exponential));
  }
}

TEST(Backoff, ExponentialDrawsDifferAcrossDrawsAndRepeatForTheSameDraw) {
  std::set<int64_t> fourth_sleeps;
  for (uint64_t draw = 0; draw < 64; ++draw) {
    BackoffState a, b;
    int64_t last_a = 0, last_b = 0;
    for (int i = 0; i < 4; ++i) {
      last_a = next_backoff_ms(BackoffKind::Exponential, &a, draw + static_cast<uint64_t>(i));
      last_b = next_backoff_ms(BackoffKind::Exponential, &b, draw + static_cast<uint64_t>(i));
    }
    EXPECT_EQ(last_a, last_b);
    fourth_sleeps.insert(last_a);
  }
  EXPECT_GT(fourth_sleeps.size(), 1u);  // the random addition is drawn, not fixed
}

TEST(Backoff, ConstantIsSixtyFourPlusASmallDraw) {
  std::set<int64_t> seen;
  BackoffState s;
  for (uint64_t draw = 0; draw < 500; ++draw) {
    const int64_t sleep_ms = next_backoff_ms(BackoffKind::Constant, &s, draw);
    EXPECT_GE(sleep_ms, 64);
    EXPECT_LT(sleep_ms, 72);
    seen.insert(sleep_ms);
  }
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_TRUE(s.saturated(BackoffKind::Constant));
}

TEST(Backoff, BoundsForTheCheckers) {
  EXPECT_EQ(backoff_max_sleep_ms(BackoffKind::Exponential), 128);
  EXPECT_EQ(backoff_max_sleep_ms(BackoffKind::Constant), 71);
  // Attempts at 0, 1, 3, 7, 15, 31, 63, 127, 255, 383, 511, 639, 767, 895 ms.
  EXPECT_EQ(backoff_max_polls_per_second(BackoffKind::Exponential), 14);
  // At 0, 64, ..., 960 ms.
  EXPECT_EQ(backoff_max_polls_per_second(BackoffKind::Constant), 16);
}

TEST(Backoff, TheLeastElapsedBeforeAnAttemptIsTheSumOfTheSmallestSleeps) {
  for (BackoffKind kind : {BackoffKind::Exponential, BackoffKind::Constant}) {
    BackoffState s;
    int64_t sum_ms = 0;
    EXPECT_EQ(backoff_min_elapsed_ms(kind, 1), 0);
    for (int64_t attempt = 2; attempt < 40; ++attempt) {
      // Draws that mix to r = 0 are not known here; check against the sum
      // of the draws' lower bounds instead: each sleep >= its smallest.
      BackoffState smallest = s;
      int64_t least_ms = kind == BackoffKind::Constant ? 64
                         : smallest.sleeps == 0        ? 1
                                                       : std::min<int64_t>(128, smallest.last_ms * 2);
      sum_ms += least_ms;
      s.last_ms = least_ms;
      ++s.sleeps;
      EXPECT_EQ(backoff_min_elapsed_ms(kind, attempt), sum_ms) << attempt;
    }
  }
  EXPECT_EQ(backoff_min_elapsed_ms(BackoffKind::Exponential, 9), 255);
  EXPECT_EQ(backoff_min_elapsed_ms(BackoffKind::Exponential, 10), 383);
}

TEST(Backoff, NamesRoundTripAndUnknownIsNone) {
  for (BackoffKind k : {BackoffKind::Exponential, BackoffKind::Constant})
    EXPECT_EQ(backoff_from_name(backoff_name(k)), k);
  EXPECT_FALSE(backoff_from_name("linear").has_value());
  EXPECT_FALSE(backoff_from_name("").has_value());
}

}  // namespace
}  // namespace locksim
