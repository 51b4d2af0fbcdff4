// LockTable: dense ids in order of first appearance, the same id for the
// same name; PerLockId: entries stay put as the table grows. And the
// context's lock id follows the events it is fed.
#include <gtest/gtest.h>

#include <string>

#include "properties/history_context.h"
#include "properties/lock_table.h"

namespace locksim {
namespace {

TEST(LockTable, GivesDenseIdsInOrderOfFirstAppearance) {
  LockTable table;
  EXPECT_EQ(table.intern("lsim:L1"), 0u);
  EXPECT_EQ(table.intern("lsim:L0"), 1u);
  EXPECT_EQ(table.intern("lsim:L1"), 0u);
  EXPECT_EQ(table.intern(""), 2u);  // an event without a lock has an id too
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(table.name(1), "lsim:L0");
  EXPECT_EQ(table.find("lsim:L0"), 1u);
  EXPECT_EQ(table.find("never"), kNoLock);
}

TEST(LockTable, PerLockIdEntriesStayPutAsItGrows) {
  PerLockId<std::string> per_lock;
  EXPECT_EQ(per_lock.find(3), nullptr);
  EXPECT_EQ(per_lock.find(kNoLock), nullptr);
  std::string& first = per_lock[0];
  first = "kept";
  for (LockId id = 1; id < 1000; ++id) per_lock[id] = std::to_string(id);
  EXPECT_EQ(&per_lock[0], &first);
  EXPECT_EQ(first, "kept");
  ASSERT_NE(per_lock.find(999), nullptr);
  EXPECT_EQ(*per_lock.find(999), "999");
  int count = 0;
  per_lock.for_each([&](std::string&) { ++count; });
  EXPECT_EQ(count, 1000);
}

TEST(LockTable, ServerLockKeysRoundTripTheServer) {
  EXPECT_EQ(server_of_key(server_lock_key(3, 7)), 3);
  EXPECT_EQ(server_of_key(server_lock_key(-1, 7)), -1);
  EXPECT_NE(server_lock_key(0, 7), server_lock_key(1, 7));
  EXPECT_NE(server_lock_key(0, 7), server_lock_key(0, 8));
}

TEST(LockTable, TheContextNamesTheLatestEventsLock) {
  HistoryContext context{CheckConfig{}};
  Event a;
  a.kind = EventKind::Invoke;
  a.lock.assign("lsim:A");
  Event b = a;
  b.lock.assign("lsim:B");
  context.on_event(a);
  const LockId id_a = context.lock_id();
  context.on_event(b);
  EXPECT_NE(context.lock_id(), id_a);
  context.on_event(a);
  EXPECT_EQ(context.lock_id(), id_a);
  EXPECT_EQ(context.locks().name(id_a), "lsim:A");
}

}  // namespace
}  // namespace locksim
