#include "properties/mutual_exclusion.h"

#include <gtest/gtest.h>

#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

// A holds; A's client is paused 41 s (> 30 s lease); B acquires meanwhile.
std::vector<Event> paused_holder_history() {
  HistoryBuilder h;
  h.invoke(0, 3, "lock", 1);
  h.script(1, 3, "rlock_acquire", "nil", {owner_of(3)}, 1);
  h.ok(2, 3, "lock", 1);
  h.fault(1000, "pause", 3, 41000);
  h.invoke(31500, 4, "lock", 2);
  h.script(31501, 4, "rlock_acquire", "nil", {owner_of(4)}, 2);
  h.ok(31502, 4, "lock", 2);
  return h.events();
}

TEST(MutualExclusion, OverlapIsReportedAndBlamedOnThePause) {
  auto v = run_checker<MutualExclusionChecker>(paused_holder_history());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "mutual_exclusion");
  EXPECT_EQ(v[0].event_ids, (std::vector<uint64_t>{2, 6}));
  EXPECT_EQ(v[0].owners, (std::vector<std::string>{owner_of(3), owner_of(4)}));
  EXPECT_EQ(v[0].blamed_fault, "client 3 paused 41 000 ms > lease 30 000 ms");
}

TEST(MutualExclusion, OverlapWithoutFaultBlamesNothing) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.ok(2, 1, "lock", 1);
  h.invoke(3, 2, "lock", 2);
  h.ok(5, 2, "lock", 2);
  auto v = run_checker<MutualExclusionChecker>(h.events());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].blamed_fault, "");
}

TEST(MutualExclusion, SequentialAndReentrantHoldsPass) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.ok(2, 1, "lock", 1);
  h.invoke(3, 1, "lock", 2);   // reentry
  h.ok(4, 1, "lock", 2);
  h.invoke(5, 1, "unlock", 3);
  h.ok(6, 1, "unlock", 3, 0);
  h.invoke(7, 2, "lock", 4);   // B waits
  h.invoke(8, 1, "unlock", 5);  // A's hold ends at this invoke
  h.ok(9, 1, "unlock", 5, 1);
  h.ok(10, 2, "lock", 4);
  h.fault(20, "crash", 2);      // B's hold ends with its client
  h.invoke(30, 3, "lock", 6);
  h.ok(31, 3, "lock", 6);
  EXPECT_TRUE(run_checker<MutualExclusionChecker>(h.events()).empty());
}

TEST(MutualExclusion, HoldLostEndsTheBelief) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.ok(2, 1, "lock", 1);
  h.info(40000, 1, "hold_lost", 0);
  h.invoke(40001, 2, "lock", 2);
  h.ok(40002, 2, "lock", 2);
  EXPECT_TRUE(run_checker<MutualExclusionChecker>(h.events()).empty());
}

// Two forward jumps of the server's clock during A's hold: the larger one,
// 40 s at 5 s, came before A's renewal at 10 s, which set a whole lease on
// the jumped clock; the smaller one, 31 s at 12 s, came after it and is what
// expired the lease before B's acquire. The blamed sentence names the jump
// after the holder's latest lease reset; without that reset (no renewal) it
// names the larger one.
std::vector<Event> two_server_jumps_history(bool renewal) {
  HistoryBuilder h;
  h.invoke(0, 3, "lock", 1);
  h.script(1, 3, "rlock_acquire", "nil", {owner_of(3)}, 1);
  h.ok(2, 3, "lock", 1);
  Event& first = h.fault(5000, "clock_jump", -1, 40000);
  first.client = -1;
  first.server = 0;
  if (renewal) h.script(10000, 3, "rlock_renew", "1", {owner_of(3)}, 1);
  Event& second = h.fault(12000, "clock_jump", -1, 31000);
  second.client = -1;
  second.server = 0;
  h.invoke(12500, 4, "lock", 2);
  h.script(12501, 4, "rlock_acquire", "nil", {owner_of(4)}, 2);
  h.ok(12502, 4, "lock", 2);
  return h.events();
}

TEST(MutualExclusion, AServerJumpIsBlamedOnlyAfterTheHoldersLatestLeaseReset) {
  auto v = run_checker<MutualExclusionChecker>(two_server_jumps_history(true));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].blamed_fault.find("server 0's clock jumped 31 000 ms forward at 12.0 s"), std::string::npos)
      << v[0].blamed_fault;
  auto without_renewal = run_checker<MutualExclusionChecker>(two_server_jumps_history(false));
  ASSERT_EQ(without_renewal.size(), 1u);
  EXPECT_NE(without_renewal[0].blamed_fault.find("server 0's clock jumped 40 000 ms forward at 5.0 s"),
            std::string::npos)
      << without_renewal[0].blamed_fault;
}

}  // namespace
}  // namespace locksim::testing
