#include "properties/ghost_waiter.h"

#include <gtest/gtest.h>

#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

// A fair script with the server's line after it (trace version 2).
Event& fair(HistoryBuilder& h, int64_t t_ms, int client, const std::string& script, const std::string& reply,
            std::vector<std::string> line, uint64_t op_id) {
  Event& e = h.script(t_ms, client, script, reply, {owner_of(1)}, op_id, 30000, 5000);
  e.line_known = true;
  SharedLine::Entries entries;
  for (const std::string& o : line) entries.push_back(LineEntry{o, 1e6});
  e.line_after = SharedLine(std::move(entries));
  return e;
}

enum class Leave { Sent, NotSent, Absent, Lost };

// Client 1 holds the fair lock; client 2's try_lock joins the line and runs
// out of time at 5 s. Then, as `how` says: its acquire_failed removes it
// (Sent), none is sent (NotSent), the script answers an error and leaves it
// (Absent: the fair_no_acquire_failed pack), or the request is lost (Lost).
// Client 1's renewal at 5.1 s and its release at 9 s show the line.
std::vector<Event> give_up(Leave how) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  fair(h, 1, 1, "fair_acquire", "nil", {}, 1);
  h.ok(2, 1, "lock", 1);
  h.invoke(10, 2, "try_lock", 2, "L", 5000);
  fair(h, 11, 2, "fair_acquire", "29990", {owner_of(2)}, 2);
  if (how != Leave::NotSent) h.info(5000, 2, "acquire_failed", 2);
  h.fail(5000, 2, "try_lock", 2, "wait budget exhausted");
  if (how == Leave::Sent) fair(h, 5001, 2, "fair_acquire_failed", "nil", {}, 2);
  if (how == Leave::Absent) {
    fair(h, 5001, 2, "fair_acquire_failed", "error: ERR locksim: fair_acquire_failed is absent from this script pack",
         {owner_of(2)}, 2);
  }
  if (how == Leave::Lost) {
    Event& lost = h.fault(5000, "lost", 2);
    lost.client = 2;
    lost.lost = LostMessage::request("fair_acquire_failed", "L");
  }
  h.invoke(5100, 1, "renew", 3);
  fair(h, 5101, 1, "fair_acquire", "nil", how == Leave::Sent ? std::vector<std::string>{} : std::vector{owner_of(2)},
       3);
  h.invoke(16000, 1, "unlock", 4);
  fair(h, 16001, 1, "fair_release", "1", how == Leave::Sent ? std::vector<std::string>{} : std::vector{owner_of(2)}, 4);
  h.ok(16002, 1, "unlock", 4, 1);
  return h.events();
}

TEST(GhostWaiter, AWaiterThatLeavesWithAcquireFailedPasses) {
  EXPECT_TRUE(run_checker<GhostWaiterChecker>(give_up(Leave::Sent)).empty());
  EXPECT_TRUE(check_history(give_up(Leave::Sent)).empty());
}

// No acquire_failed: the first line after the give-up that holds the owner.
TEST(GhostWaiter, NoAcquireFailedIsAGhostAtTheNextLine) {
  const auto v = run_checker<GhostWaiterChecker>(give_up(Leave::NotSent));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "ghost_waiter");
  EXPECT_EQ(v[0].owners, std::vector<std::string>{owner_of(2)});
  EXPECT_EQ(v[0].event_ids, (std::vector<uint64_t>{5, 7}));
  EXPECT_NE(v[0].message.find("it sent no acquire_failed"), std::string::npos) << v[0].message;
  EXPECT_EQ(v[0].blamed_fault, "");
}

// An absent acquire_failed answers an error and leaves the owner: a ghost
// at that very script.
TEST(GhostWaiter, AnAbsentAcquireFailedIsAGhostAtItsScript) {
  const auto v = run_checker<GhostWaiterChecker>(give_up(Leave::Absent));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].event_ids, (std::vector<uint64_t>{6, 7}));
  EXPECT_NE(v[0].message.find("its acquire_failed answered error: ERR locksim"), std::string::npos) << v[0].message;
  EXPECT_FALSE(v[0].scope.excusable() && v[0].blamed_fault.find("lost") != std::string::npos);
}

// A lost acquire_failed: the owner may stay until the request would surely
// have arrived (2 x the request timeout): at 16 s the line last shown at
// 5.1 s still holds it.
// Its sentence names the loss, and the client's faults may explain it.
TEST(GhostWaiter, ALostAcquireFailedIsAGhostOnceItWouldHaveArrived) {
  const auto v = run_checker<GhostWaiterChecker>(give_up(Leave::Lost));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].event_ids.back(), 9u) << v[0].message;  // the line of 5.1 s, judged at 16 s
  EXPECT_NE(v[0].blamed_fault.find("acquire_failed request was lost at event #7"), std::string::npos)
      << v[0].blamed_fault;
  EXPECT_TRUE(v[0].scope.has_client(2));
  EXPECT_FALSE(v[0].scope.has_client(1));
}

// A crashed waiter keeps its slot: no ghost.
TEST(GhostWaiter, ACrashedWaiterIsNoGhost) {
  HistoryBuilder h;
  fair(h, 1, 1, "fair_acquire", "nil", {}, 1);
  h.invoke(10, 2, "lock", 2);
  fair(h, 11, 2, "fair_acquire", "29990", {owner_of(2)}, 2);
  h.fault(100, "crash", 2);
  h.info(100, 2, "lock", 2, "crashed");
  fair(h, 5000, 1, "fair_release", "1", {owner_of(2)}, 3);
  EXPECT_TRUE(run_checker<GhostWaiterChecker>(h.events()).empty());
}

// The line is server truth: without it (a version 1 trace) nothing is judged.
TEST(GhostWaiter, NoLineNoVerdict) {
  std::vector<Event> events = give_up(Leave::NotSent);
  for (Event& e : events) {
    e.line_known = false;
    e.line_after.clear();
  }
  EXPECT_TRUE(run_checker<GhostWaiterChecker>(events).empty());
}

}  // namespace
}  // namespace locksim::testing
