// World in schedule mode: the live actions next_live_us() finds, and those a
// step leaves at its instant, are held out of the queue for the next step
// (sim/world.h). Whatever happens in between (a pause, an action joining
// the instant), the steps run what they would have run had the actions
// stayed queued, and every reader of the queue sees the held ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/schedule_hook.h"
#include "tests/sim/sim_harness.h"

namespace locksim {
namespace {

using testing::Harness;
using testing::kMs;

// Every message on time; a pick takes the lowest actor.
class FirstActor final : public ScheduleHook {
 public:
  MessageFate message_fate(const World&, const MessageInfo&) override { return MessageFate::on_time(); }
  size_t pick(const World&, size_t) override { return 0; }
};

constexpr int64_t kAtUs = 5 * kMs;
constexpr int64_t kLimitUs = 1'000 * kMs;

struct ScheduledWorld {
  ScheduledWorld() : h(2) { h.world->set_schedule(&hook); }
  // A task action of client c at kAtUs that records `name` and the time it ran.
  void task(int c, const std::string& name, uint64_t id) {
    h.steps.at_operation(c, kAtUs, [this, name] { ran.push_back(name + "@" + std::to_string(h.world->now_us())); },
                         id);
  }
  // Client 0's a0 and client 1's b1 (and b2 when `both`) at kAtUs; true
  // when next_live_us() finds them there.
  bool found(bool both) {
    task(0, "a0", 1);
    task(1, "b1", 2);
    if (both) task(1, "b2", 3);
    return h.world->next_live_us(kLimitUs) == kAtUs;
  }
  // Steps until nothing live is due before the limit.
  void run_out() {
    while (h.world->next_live_us(kLimitUs) >= 0) h.world->step();
  }
  FirstActor hook;
  Harness h;
  std::vector<std::string> ran;
};

TEST(WorldSchedule, HeldActionsAreSeenByReadersAndRunInOrder) {
  ScheduledWorld w;
  const size_t queued_before = w.h.world->queued();
  ASSERT_TRUE(w.found(true));
  const size_t queued = queued_before + 3;
  EXPECT_EQ(w.h.world->queued(), queued);  // the held three still count
  EXPECT_TRUE(w.h.world->client_has_pending(1));
  EXPECT_TRUE(w.h.world->due_pick_pending());
  w.h.world->step();
  EXPECT_EQ(w.ran, (std::vector<std::string>{"a0@5000"}));
  EXPECT_EQ(w.h.world->queued(), queued - 1);  // b1 and b2 held by the step
  EXPECT_TRUE(w.h.world->client_has_pending(1));
  w.run_out();
  EXPECT_EQ(w.ran, (std::vector<std::string>{"a0@5000", "b1@5000", "b2@5000"}));
}

TEST(WorldSchedule, APauseAfterTheActionsWereFoundDefersThem) {
  ScheduledWorld w;
  ASSERT_TRUE(w.found(true));
  w.h.world->pause(1, 10);  // client 1 is paused before the step: its two actions wait for the resume
  w.run_out();
  EXPECT_EQ(w.ran, (std::vector<std::string>{"a0@5000", "b1@15000", "b2@15000"}));
}

TEST(WorldSchedule, AnActionJoiningTheInstantTakesItsTurn) {
  ScheduledWorld w;
  ASSERT_TRUE(w.found(false));
  w.h.world->step();  // a0; b1 held
  w.task(0, "a1", 4);  // joins the instant: client 0 is the lower actor again
  w.run_out();
  EXPECT_EQ(w.ran, (std::vector<std::string>{"a0@5000", "a1@5000", "b1@5000"}));
}

TEST(WorldSchedule, ACrashAfterTheActionsWereFoundDropsThem) {
  ScheduledWorld w;
  ASSERT_TRUE(w.found(false));
  w.h.world->crash(1);
  EXPECT_FALSE(w.h.world->client_has_pending(1));
  w.run_out();
  EXPECT_EQ(w.ran, (std::vector<std::string>{"a0@5000"}));
}

}  // namespace
}  // namespace locksim
