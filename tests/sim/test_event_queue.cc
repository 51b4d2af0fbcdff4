// EventQueue: time order, scheduling order at equal times, and lanes that
// change nothing in the order (only where entries wait).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>
#include <vector>

#include "sim/event_queue.h"

namespace locksim {
namespace {

// The items of these tests: a callable that records when it ran, and a
// label a removal can choose by.
struct Item {
  std::function<void()> run;
  uint64_t label = 0;
};
using EventQueue = BasicEventQueue<Item>;

// Pushes (at_us, lane) in order, where lane -1 means the heap; pops all,
// running each action; returns the labels in the order they ran.
std::vector<int> run_order(const std::vector<std::pair<int64_t, int>>& pushes) {
  EventQueue q;
  std::vector<int> ran;
  for (size_t i = 0; i < pushes.size(); ++i) {
    const auto [at_us, lane] = pushes[i];
    Item a;
    a.run = [&ran, label = static_cast<int>(i)] { ran.push_back(label); };
    if (lane < 0) q.push(at_us, std::move(a));
    else q.push(EventQueue::Lane{static_cast<uint8_t>(lane)}, at_us, std::move(a));
  }
  EXPECT_EQ(q.size(), pushes.size());
  int64_t last_us = -1;
  while (!q.empty()) {
    const int64_t next_us = q.next_at_us();
    const EventQueue::Popped p = q.pop();
    EXPECT_EQ(p.at_us, next_us);
    EXPECT_GE(p.at_us, last_us);
    last_us = p.at_us;
    q.item(p.slot).run();
    q.release(p.slot);
  }
  return ran;
}

TEST(EventQueue, EqualTimesRunInSchedulingOrder) {
  EXPECT_EQ(run_order({{5, -1}, {3, -1}, {5, 0}, {3, 1}, {5, -1}, {1, 0}}), (std::vector<int>{5, 1, 3, 0, 2, 4}));
}

TEST(EventQueue, AnEarlierPushThanTheLaneTailGoesToTheHeapInOrder) {
  // Lane 0 gets 10 then 20; 15 is earlier than 20, so it waits in the heap,
  // and still runs between them.
  EXPECT_EQ(run_order({{10, 0}, {20, 0}, {15, 0}, {20, 0}}), (std::vector<int>{0, 2, 1, 3}));
}

// Lanes only change where entries wait: any mix of lanes gives the order of
// the heap alone, also when pops and pushes interleave.
RC_GTEST_PROP(EventQueue, LanesKeepTheHeapOrder, ()) {
  const auto ops = *rc::gen::container<std::vector<std::tuple<int, int, bool>>>(rc::gen::tuple(
      rc::gen::inRange(0, 50), rc::gen::inRange(-1, static_cast<int>(EventQueue::kLanes)), rc::gen::arbitrary<bool>()));
  // The same schedule twice: once as given, once all in the heap. An entry
  // pushes `delay` after the current time; the bool pops one entry first.
  auto run = [&ops](bool use_lanes) {
    EventQueue q;
    std::vector<std::pair<int64_t, int>> ran;
    int64_t now_us = 0;
    auto pop_one = [&] {
      const EventQueue::Popped p = q.pop();
      now_us = p.at_us;
      q.item(p.slot).run();
      q.release(p.slot);
    };
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto [delay, lane, pop_first] = ops[i];
      if (pop_first && !q.empty()) pop_one();
      Item a;
      a.run = [&ran, &now_us, label = static_cast<int>(i)] { ran.emplace_back(now_us, label); };
      if (lane < 0 || !use_lanes) q.push(now_us + delay, std::move(a));
      else q.push(EventQueue::Lane{static_cast<uint8_t>(lane)}, now_us + delay, std::move(a));
    }
    while (!q.empty()) pop_one();
    return ran;
  };
  RC_ASSERT(run(true) == run(false));
}

TEST(EventQueue, ALongLaneIsCompactedAndKeepsItsOrder) {
  // More than the compaction threshold through one lane, never empty.
  EventQueue q;
  std::vector<int64_t> ran;
  int64_t next_push_us = 0;
  for (int i = 0; i < 4; ++i) {
    q.push(EventQueue::Lane{1}, next_push_us, Item{[&ran, t = next_push_us] { ran.push_back(t); }});
    ++next_push_us;
  }
  for (int i = 0; i < 20'000; ++i) {
    const EventQueue::Popped p = q.pop();
    q.item(p.slot).run();
    q.release(p.slot);
    q.push(EventQueue::Lane{1}, next_push_us, Item{[&ran, t = next_push_us] { ran.push_back(t); }});
    ++next_push_us;
  }
  ASSERT_EQ(ran.size(), 20'000u);
  for (size_t i = 0; i < ran.size(); ++i) ASSERT_EQ(ran[i], static_cast<int64_t>(i));
  EXPECT_EQ(q.size(), 4u);
}

// remove_if drops exactly the entries it is told to (their actions are
// destroyed) and the others run in the order they would have run.
RC_GTEST_PROP(EventQueue, RemoveIfKeepsTheOthersInOrder, ()) {
  const auto pushes = *rc::gen::container<std::vector<std::pair<int64_t, int>>>(
      rc::gen::pair(rc::gen::inRange<int64_t>(0, 50), rc::gen::inRange(-1, 2)));
  const auto drop_every = *rc::gen::inRange(2, 5);
  const auto pops_first = *rc::gen::inRange<size_t>(0, pushes.size() + 1);
  EventQueue q;
  std::vector<int> ran;
  auto alive = std::make_shared<int>(0);
  for (size_t i = 0; i < pushes.size(); ++i) {
    const auto [at_us, lane] = pushes[i];
    Item a;
    a.run = [&ran, label = static_cast<int>(i), keep = alive] { ran.push_back(label); };
    a.label = i;
    if (lane < 0) q.push(at_us, std::move(a), QueueGuard{});
    else q.push(EventQueue::Lane{static_cast<uint8_t>(lane)}, at_us, std::move(a), QueueGuard{});
  }
  // The order without removal, then the same after some pops and a removal.
  std::vector<int> expected = run_order(pushes);
  for (size_t n = 0; n < pops_first && !q.empty(); ++n) {
    const EventQueue::Popped p = q.pop();
    q.item(p.slot).run();
    q.release(p.slot);
  }
  const size_t before = q.size();
  const size_t dropped = q.remove_if([&](int64_t, uint64_t, const QueueGuard&, const Item& item) {
    return item.label % static_cast<uint64_t>(drop_every) == 0;
  });
  RC_ASSERT(q.size() == before - dropped);
  RC_ASSERT(alive.use_count() == static_cast<long>(1 + q.size()));  // the dropped actions are gone
  while (!q.empty()) {
    const EventQueue::Popped p = q.pop();
    q.item(p.slot).run();
    q.release(p.slot);
  }
  const size_t popped = std::min(pops_first, pushes.size());
  std::vector<int> kept(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(popped));
  for (size_t k = popped; k < expected.size(); ++k) {
    if (static_cast<size_t>(expected[k]) % static_cast<size_t>(drop_every) != 0) kept.push_back(expected[k]);
  }
  RC_ASSERT(ran == kept);
}

}  // namespace
}  // namespace locksim
