// BusyPollChecker: a waiter spinning behind a crashed head of the line is
// reported with its poll count, rate and the head that vanished; a waiter
// that polls at a sane pace, or spins for less than a second, is not.
#include <gtest/gtest.h>

#include "properties/busy_poll.h"
#include "properties/verdict_policy.h"
#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

// Client 1 joins the line and crashes; client 2 polls the free lock behind
// it every `period_ms` from t=1 000 for `spin_ms`.
std::vector<Event> spinning_behind_dead_head(int64_t period_ms, int64_t spin_ms) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  Event& join = h.script(0, 1, "fair_acquire", "0", {}, 1, 30000, 300000);
  join.line_known = true;
  join.line_after = {{owner_of(1), 300000.0}};
  h.fault(10, "crash", 1);
  h.invoke(1000, 2, "lock", 2);
  for (int64_t t = 1000; t <= 1000 + spin_ms; t += period_ms) {
    Event& poll = h.script(t, 2, "fair_acquire", "0", {}, 2, 30000, 300000);
    poll.line_known = true;
    poll.line_after = {{owner_of(1), 300000.0}, {owner_of(2), 600000.0}};
  }
  return h.events();
}

TEST(BusyPoll, WaiterSpinningBehindACrashedHeadIsReported) {
  auto v = run_checker<BusyPollChecker>(spinning_behind_dead_head(5, 3000));
  ASSERT_EQ(v.size(), 1u);  // once per operation
  EXPECT_EQ(v[0].property, "busy_poll");
  EXPECT_NE(v[0].message.find("polls/s"), std::string::npos) << v[0].to_string();
  EXPECT_NE(v[0].message.find("behind " + owner_of(1)), std::string::npos) << v[0].to_string();
  EXPECT_NE(v[0].blamed_fault.find("crashed"), std::string::npos) << v[0].to_string();
}

// A head that is still waiting but lost a message is named with that fault,
// in words.
TEST(BusyPoll, AHeadThatLostAMessageIsNamedWithIt) {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  Event& join = h.script(0, 1, "fair_acquire", "0", {}, 1, 30000, 300000);
  join.line_known = true;
  join.line_after = {{owner_of(1), 300000.0}};
  h.fault(10, "lost", 1).lost = LostMessage::on_channel(LostMessage::What::Message, "redisson_lock__channel:{lsim:L0}:" + owner_of(1));
  h.invoke(1000, 2, "lock", 2);
  for (int64_t t = 1000; t <= 4000; t += 5) {
    Event& poll = h.script(t, 2, "fair_acquire", "0", {}, 2, 30000, 300000);
    poll.line_known = true;
    poll.line_after = {{owner_of(1), 300000.0}, {owner_of(2), 600000.0}};
  }
  auto v = run_checker<BusyPollChecker>(h.events());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("which is still waiting, after client 1 lost a message (message redisson_lock__channel:"),
            std::string::npos)
      << v[0].to_string();
  EXPECT_NE(v[0].blamed_fault.find("client 1 lost a message ("), std::string::npos) << v[0].to_string();
  EXPECT_NE(v[0].blamed_fault.find("while at the head of the line"), std::string::npos) << v[0].to_string();
}

TEST(BusyPoll, PacedPollingOrAShortBurstIsNot) {
  EXPECT_TRUE(run_checker<BusyPollChecker>(spinning_behind_dead_head(100, 10000)).empty());  // 10/s
  EXPECT_TRUE(run_checker<BusyPollChecker>(spinning_behind_dead_head(5, 900)).empty());      // < 1 s
}

TEST(BusyPoll, IsAdvisoryUnlessNamed) {
  Violation v;
  v.property = "busy_poll";
  VerdictPolicy policy;
  EXPECT_FALSE(policy.fails(v));
  ASSERT_FALSE(add_fail_on(&policy, "busy_poll").has_value());
  EXPECT_TRUE(policy.fails(v));
  EXPECT_EQ(add_fail_on(&policy, "liveness,nonsense").value_or(""), "nonsense");
  Violation explained;
  explained.property = "mutual_exclusion";
  explained.blamed_fault = "client 3 paused 41 000 ms > lease 30 000 ms";
  EXPECT_TRUE(policy.fails(explained));
  policy.unexplained_only = true;
  EXPECT_TRUE(policy.fails(explained));  // a sentence alone explains nothing
  explained.cause.status = CauseStatus::Confirmed;  // re-runs showed the pause was needed
  EXPECT_FALSE(policy.fails(explained));
}

}  // namespace
}  // namespace locksim::testing
