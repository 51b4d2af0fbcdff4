// ZeroedSlots (search/zeroed_slots.h): zero-filled slot arrays, small ones
// from calloc, large ones mapped on huge-page boundaries; moves hand the
// array over, clear() zeroes it again.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "search/zeroed_slots.h"

namespace locksim {
namespace {

struct Slot {
  uint64_t digest;
  uint32_t depth;
  uint32_t holder_depth;
};

bool all_zero(const ZeroedSlots<Slot>& slots) {
  for (const Slot& s : slots) {
    if (s.digest != 0 || s.depth != 0 || s.holder_depth != 0) return false;
  }
  return true;
}

TEST(ZeroedSlots, SmallAndLargeArraysStartZeroed) {
  for (const size_t count : {size_t{16}, kHugePageBytes / sizeof(Slot), 2 * kHugePageBytes / sizeof(Slot)}) {
    SCOPED_TRACE(count);
    ZeroedSlots<Slot> slots(count);
    ASSERT_EQ(slots.size(), count);
    EXPECT_EQ(slots.bytes(), count * sizeof(Slot));
    EXPECT_TRUE(all_zero(slots));
    slots[count - 1].digest = 7;
    EXPECT_EQ(slots[count - 1].digest, 7u);
    if (slots.bytes() >= kHugePageBytes) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(slots.begin()) % kHugePageBytes, 0u) << "on a huge page boundary";
    }
  }
}

TEST(ZeroedSlots, MovesHandTheArrayOverAndClearZeroesIt) {
  ZeroedSlots<Slot> a(kHugePageBytes / sizeof(Slot));
  a[3] = Slot{42, 1, 2};
  const Slot* held = a.begin();
  ZeroedSlots<Slot> b(std::move(a));
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved from is empty
  EXPECT_EQ(b.begin(), held);
  EXPECT_EQ(b[3].digest, 42u);
  ZeroedSlots<Slot> c(8);
  c = std::move(b);
  EXPECT_EQ(c.begin(), held);
  EXPECT_FALSE(all_zero(c));
  c.clear();
  EXPECT_TRUE(all_zero(c));
}

}  // namespace
}  // namespace locksim
