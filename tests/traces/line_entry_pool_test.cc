// LineEntryPool: lines changed through it equal the plain vector operations,
// and the owner strings they drop are reused, not freed.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "traces/line_entry_pool.h"

namespace locksim {
namespace {

std::vector<LineEntry> line_of(const std::vector<int>& owners) {
  std::vector<LineEntry> line;
  for (int o : owners) {
    LineEntry entry{"owner-with-a-long-uuid-0000000000-" + std::to_string(o), std::nullopt};
    if (o % 3 != 0) entry.deadline_ms = 1000.0 * o;
    line.push_back(entry);
  }
  return line;
}

// Refills *to with `from` through the pool the way the trace decoder refills
// a line (overwrite what is there, grow, truncate).
void refill(LineEntryPool& pool, std::vector<LineEntry>* to, const std::vector<LineEntry>& from) {
  size_t count = 0;
  for (const LineEntry& entry : from) {
    if (count == to->size()) pool.grow(to);
    (*to)[count++] = entry;
  }
  pool.truncate(to, count);
}

RC_GTEST_PROP(LineEntryPool, RefillEqualsCopyAssignment, ()) {
  const auto lines = *rc::gen::container<std::vector<std::vector<int>>>(
      rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 50)));
  LineEntryPool pool;
  std::vector<LineEntry> through_pool;
  std::vector<LineEntry> plain;
  for (const std::vector<int>& owners : lines) {
    const std::vector<LineEntry> next = line_of(owners);
    refill(pool, &through_pool, next);
    plain = next;
    RC_ASSERT(through_pool == plain);
  }
}

TEST(LineEntryPool, ADroppedEntryKeepsItsBufferForTheNextGrowth) {
  LineEntryPool pool;
  std::vector<LineEntry> line = line_of({1, 2, 3});
  const char* buffer = line[2].owner.data();  // a heap buffer: longer than the SSO
  pool.truncate(&line, 2);
  EXPECT_EQ(line.size(), 2u);
  EXPECT_EQ(pool.spare(), 1u);
  LineEntry& grown = pool.grow(&line);
  EXPECT_EQ(pool.spare(), 0u);
  EXPECT_EQ(grown.owner.data(), buffer);
  grown.owner = "owner-with-a-long-uuid-0000000000-9";
  EXPECT_EQ(line[2].owner.data(), buffer);  // assigned in place: it fits
  pool.truncate(&line, 5);                    // no-op: not that long
  EXPECT_EQ(line.size(), 3u);
}

TEST(LineEntryPool, SparesAreBounded) {
  LineEntryPool pool;
  std::vector<LineEntry> line(LineEntryPool::kMaxEntries + 10);
  pool.truncate(&line, 0);
  EXPECT_TRUE(line.empty());
  EXPECT_EQ(pool.spare(), LineEntryPool::kMaxEntries);
}

}  // namespace
}  // namespace locksim
