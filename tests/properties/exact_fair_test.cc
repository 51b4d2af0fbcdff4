// Regression tests for issue 8's checker findings, each cut down from the
// trace that showed it to the fewest events that still do:
//  - hostile rlock seeds 6 / 122: a retried release answered by its latch
//    does not reset the lock's expiry (watchdog false positive);
//  - hostile fair seed 6: deadlines stop growing along the line after an
//    acquire_failed with another wait; a negative enqueue answer is then
//    legitimate (FIFO false positive in bounds mode);
//  - skew fair seed 115: a waiter purged by a fast clock while inside its
//    slot (missed inversion), caught from server truth (trace version 2);
//  - a pack answering an already-queued waiter with deadline - wait - now
//    (-2 for a waiter alone in the line) is not reported;
//  - a stale head left by a purging script is reported.
// Version 2 fair scripts carry local_ms (the now_ms sent) and line_after.
#include <gtest/gtest.h>

#include "properties/fifo_fairness.h"
#include "properties/watchdog_expiry.h"
#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

// A fair script with server truth: now_ms = `now_ms`, line after = `line`.
Event& fair_script(HistoryBuilder& h, int64_t t_ms, int client, const std::string& script, const std::string& reply,
                   std::vector<std::string> holders, uint64_t op_id, int64_t now_ms, std::vector<LineEntry> line,
                   int64_t wait_ms = 5000) {
  Event& e = h.script(t_ms, client, script, reply, std::move(holders), op_id, 30000, wait_ms);
  e.local_ms = now_ms;
  e.line_known = true;
  e.line_after = std::move(line);
  return e;
}

TEST(LatchedRelease, RetriedReleaseDoesNotResetTheExpiry) {
  // rlock seed 6, events #198-207: the release reaches the server at 61 184
  // (reply lost), its retry at 64 194 is answered "0" by the latch; a refused
  // acquire at 65 826 sees PTTL 25 358 = 61 184 + 30 000 - 65 826: correct.
  HistoryBuilder h;
  h.invoke(59000, 2, "try_lock", 1, "L", 3000);
  h.script(59000, 2, "rlock_acquire", "nil", {owner_of(2)}, 1);
  h.ok(59001, 2, "try_lock", 1);
  h.invoke(60000, 2, "try_lock", 2, "L", 3000);
  h.script(60000, 2, "rlock_acquire", "nil", {owner_of(2)}, 2);
  h.ok(60001, 2, "try_lock", 2);
  h.invoke(61170, 2, "unlock", 3);
  h.script(61184, 2, "rlock_release", "0", {owner_of(2)}, 3).request_id = "r18";
  h.script(64194, 2, "rlock_release", "0", {owner_of(2)}, 3).request_id = "r18";
  h.ok(64210, 2, "unlock", 3, 0);
  h.script(65826, 0, "rlock_acquire", "25358", {owner_of(2)}, 4);
  EXPECT_TRUE(run_checker<WatchdogExpiryChecker>(h.events()).empty());
}

TEST(LatchedRelease, AFreshPartialReleaseStillMustResetTheExpiry) {
  // The same history where the second release has its own request id: it
  // ran, so the expiry was reset at 64 194 and PTTL 25 358 is too short.
  HistoryBuilder h;
  h.invoke(59000, 2, "try_lock", 1, "L", 3000);
  h.script(59000, 2, "rlock_acquire", "nil", {owner_of(2)}, 1);
  h.ok(59001, 2, "try_lock", 1);
  h.invoke(60000, 2, "try_lock", 2, "L", 3000);
  h.script(60000, 2, "rlock_acquire", "nil", {owner_of(2)}, 2);
  h.ok(60001, 2, "try_lock", 2);
  h.script(61184, 2, "rlock_release", "0", {owner_of(2)}, 3).request_id = "r18";
  h.script(64194, 2, "rlock_release", "0", {owner_of(2)}, 5).request_id = "r19";
  h.script(65826, 0, "rlock_acquire", "25358", {owner_of(2)}, 4);
  auto v = run_checker<WatchdogExpiryChecker>(h.events());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("the expiry was not reset"), std::string::npos) << v[0].to_string();
}

TEST(ExactFairLine, NegativeEnqueueAfterAcquireFailedIsLegitimate) {
  // fair seed 6: client 2's entry was made by a request with wait 1 756;
  // its later request (wait 300 000) gives up, and acquire_failed lowers
  // client 3 behind it by 300 000: client 3's deadline (20 000) is now below
  // the live head's (50 000) and below now. Client 5 joins at now 30 000
  // behind client 3 and is answered -10 000: the server follows the scripts
  // exactly, and the head of the line is live, so nothing is stale.
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  fair_script(h, 0, 1, "fair_acquire", "nil", {owner_of(1)}, 1, 0, {});
  h.ok(1, 1, "lock", 1);
  h.invoke(10, 4, "lock", 2);
  fair_script(h, 10, 4, "fair_acquire", "29990", {owner_of(1)}, 2, 10, {{owner_of(4), 50000.0}}, 20000);
  h.invoke(20, 2, "try_lock", 3, "L", 1756);
  fair_script(h, 20, 2, "fair_acquire", "49980", {owner_of(1)}, 3, 20,
              {{owner_of(4), 50000.0}, {owner_of(2), 51756.0}}, 1756);
  h.invoke(30, 3, "lock", 4);
  fair_script(h, 30, 3, "fair_acquire", "51726", {owner_of(1)}, 4, 30,
              {{owner_of(4), 50000.0}, {owner_of(2), 51756.0}, {owner_of(3), 320000.0}}, 268244);
  h.info(40, 2, "try_lock", 3, "timeout");
  h.invoke(50, 2, "lock", 5);
  fair_script(h, 50, 2, "fair_acquire", "29950", {owner_of(1)}, 5, 50,
              {{owner_of(4), 50000.0}, {owner_of(2), 51756.0}, {owner_of(3), 320000.0}}, 300000);
  h.info(60, 2, "acquire_failed", 5);
  fair_script(h, 60, 2, "fair_acquire_failed", "1", {owner_of(1)}, 5, 0,
              {{owner_of(4), 50000.0}, {owner_of(3), 20000.0}}, 300000);
  h.fail(61, 2, "lock", 5, "wait budget exhausted");
  h.invoke(30000, 5, "lock", 6);
  fair_script(h, 30000, 5, "fair_acquire", "-10000", {owner_of(1)}, 6, 30000,
              {{owner_of(4), 50000.0}, {owner_of(3), 20000.0}, {owner_of(5), 320000.0}}, 300000);
  EXPECT_TRUE(run_checker<FifoFairnessChecker>(h.events()).empty());
}

TEST(ExactFairLine, OtherReplyConventionsAreNotJudged) {
  // A pack answering an already-queued waiter with deadline - wait - now:
  // -2 for a waiter alone in the line, behind a live holder. Server truth
  // shows nothing wrong.
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  fair_script(h, 0, 1, "fair_acquire", "nil", {owner_of(1)}, 1, 0, {});
  h.ok(1, 1, "lock", 1);
  h.invoke(10, 2, "lock", 2);
  fair_script(h, 10, 2, "fair_acquire", "29990", {owner_of(1)}, 2, 10, {{owner_of(2), 35000.0}});
  fair_script(h, 20, 2, "fair_acquire", "-2", {owner_of(1)}, 2, 30002, {{owner_of(2), 35000.0}});
  EXPECT_TRUE(run_checker<FifoFairnessChecker>(h.events()).empty());
}

TEST(ExactFairLine, WaiterPurgedByAFastClockIsReportedWithTheSkew) {
  // skew fair seed 115, events #199-#256: client 3 (clock 2.5 s behind)
  // joins with a slot ending at its 13 000; client 1 (clock 4.7 s ahead)
  // polls with now 16 000 and purges it while client 3 still waits with
  // 1.8 s of its slot left by its own clock; a later grant passes it.
  HistoryBuilder h;
  h.invoke(0, 4, "lock", 1);
  fair_script(h, 0, 4, "fair_acquire", "nil", {owner_of(4)}, 1, 0, {});
  h.ok(1, 4, "lock", 1);
  h.invoke(8000, 3, "lock", 2).local_ms = 5500;
  fair_script(h, 8000, 3, "fair_acquire", "2500", {owner_of(4)}, 2, 5500, {{owner_of(3), 13000.0}});
  h.invoke(11300, 1, "lock", 3).local_ms = 16000;
  fair_script(h, 11300, 1, "fair_acquire", "18700", {owner_of(4)}, 3, 16000, {{owner_of(1), 39700.0}});
  auto v = run_checker<FifoFairnessChecker>(h.events());
  ASSERT_FALSE(v.empty());
  EXPECT_NE(v[0].message.find("was purged as stale"), std::string::npos) << v[0].to_string();
  EXPECT_NE(v[0].blamed_fault.find("ahead"), std::string::npos) << v[0].to_string();
}

TEST(ExactFairLine, PurgeOfAStaleWaiterIsNotReported) {
  // The same purge when client 3's own clock agrees that its slot is over.
  HistoryBuilder h;
  h.invoke(0, 4, "lock", 1);
  fair_script(h, 0, 4, "fair_acquire", "nil", {owner_of(4)}, 1, 0, {});
  h.ok(1, 4, "lock", 1);
  h.invoke(8000, 3, "lock", 2);
  fair_script(h, 8000, 3, "fair_acquire", "2500", {owner_of(4)}, 2, 8000, {{owner_of(3), 13000.0}});
  h.invoke(16000, 1, "lock", 3);
  fair_script(h, 16000, 1, "fair_acquire", "14000", {owner_of(4)}, 3, 16000, {{owner_of(1), 35000.0}});
  EXPECT_TRUE(run_checker<FifoFairnessChecker>(h.events()).empty());
}

TEST(ExactFairLine, StaleHeadLeftByAPurgingScriptIsReported) {
  // fair_no_stale_purge: client 2 died in the line (slot ended at 6 010);
  // client 3 polls at now 9 000 and the script leaves client 2 at the head.
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  fair_script(h, 0, 1, "fair_acquire", "nil", {owner_of(1)}, 1, 0, {});
  h.ok(1, 1, "lock", 1);
  h.invoke(10, 2, "try_lock", 2, "L", 5000);
  fair_script(h, 10, 2, "fair_acquire", "1000", {owner_of(1)}, 2, 10, {{owner_of(2), 6010.0}});
  h.fault(20, "crash", 2);
  h.invoke(9000, 3, "lock", 3);
  fair_script(h, 9000, 3, "fair_acquire", "0", {}, 3, 9000, {{owner_of(2), 6010.0}, {owner_of(3), 11010.0}});
  auto v = run_checker<FifoFairnessChecker>(h.events());
  ASSERT_FALSE(v.empty());
  EXPECT_NE(v[0].message.find("stale waiters were not purged"), std::string::npos) << v[0].to_string();
}

}  // namespace
}  // namespace locksim::testing
