// StateDigest: strings are fingerprinted by every byte and by their length
// (16 bytes per hashing step, with a partial last step), and values in order.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "redis/state_digest.h"

namespace locksim {
namespace {

uint64_t of(std::string_view s) {
  StateDigest d;
  d.add(s);
  return d.value();
}

TEST(StateDigest, EveryByteOfAStringCounts) {
  // Each length across the step and word boundaries, each byte flipped.
  for (size_t n = 1; n <= 40; ++n) {
    const std::string base(n, 'a');
    std::set<uint64_t> seen{of(base)};
    for (size_t i = 0; i < n; ++i) {
      std::string flipped = base;
      flipped[i] = 'b';
      EXPECT_TRUE(seen.insert(of(flipped)).second) << "length " << n << ", byte " << i;
    }
  }
}

TEST(StateDigest, LengthCountsEvenWithTrailingZeros) {
  std::set<uint64_t> seen;
  for (size_t n = 0; n <= 40; ++n) EXPECT_TRUE(seen.insert(of(std::string(n, '\0'))).second) << n;
}

TEST(StateDigest, HowValuesAreSplitAndOrderedCounts) {
  StateDigest ab;
  ab.add(std::string_view("ab"));
  ab.add(std::string_view("c"));
  StateDigest a_bc;
  a_bc.add(std::string_view("a"));
  a_bc.add(std::string_view("bc"));
  EXPECT_NE(ab.value(), a_bc.value());
  StateDigest one_two;
  one_two.add(uint64_t{1});
  one_two.add(uint64_t{2});
  StateDigest two_one;
  two_one.add(uint64_t{2});
  two_one.add(uint64_t{1});
  EXPECT_NE(one_two.value(), two_one.value());
  EXPECT_EQ(of("lsim:L0"), of(std::string("lsim:L0")));
}

TEST(StateDigest, HowManyValuesCounts) {
  // Values go in by pairs: a last value alone must not read as any pair.
  std::set<uint64_t> seen;
  for (int n = 0; n <= 9; ++n) {
    for (uint64_t last : {uint64_t{0}, uint64_t{1}, ~uint64_t{0}, uint64_t{0x9e3779b97f4a7c15ULL}}) {
      StateDigest d;
      for (int i = 0; i < n; ++i) d.add(uint64_t{0});
      d.add(last);
      EXPECT_TRUE(seen.insert(d.value()).second) << n << " zeros then " << last;
    }
  }
  EXPECT_TRUE(seen.insert(StateDigest().value()).second);
}

TEST(StateDigest, ManyLockNamesAndOwnersAreDistinct) {
  // Names as the simulator makes them: no two of 20,000 collide.
  std::set<uint64_t> seen;
  for (int c = 0; c < 100; ++c) {
    for (int t = 0; t < 200; ++t) {
      const std::string owner = "0f3a9c1e-77b2-4d1a-9e2f-" + std::to_string(100000 + c) + ":" + std::to_string(t);
      EXPECT_TRUE(seen.insert(of(owner)).second) << owner;
    }
  }
}

}  // namespace
}  // namespace locksim
