// FairLineMirror keeps bounds, not guesses: a purge whose outcome the history
// leaves open (the requester's `now` is known only within a few ms) is not
// assumed, so a refused poll behind a waiter at the edge of its slot is not a
// violation (the seed-717 false positive); a refusal behind a waiter surely
// past its slot, and an enqueue behind a tail past its slot, are. Also: the
// fair_no_stale_purge mutant's counterexample stays short.
#include <gtest/gtest.h>

#include "properties/fair_line.h"
#include "properties/fifo_fairness.h"
#include "search/mutant_suite.h"
#include "tests/properties/checker_test_util.h"
#include "tests/properties/history_builder.h"

namespace locksim::testing {
namespace {

// Client 1 holds (lease 30 s from t=0); client 2 joins with a 5 s slot at t=10
// (ttl 1000: deadline 10 + 1000 + 5000 = 6 010 by its clock) and vanishes;
// client 1 releases at 30; client 3 (clock `skew_ms` ahead) polls the free
// lock at `poll_ms` and is refused.
std::vector<Event> refused_behind_dead_waiter(int64_t poll_ms, int64_t skew_ms, const std::string& reply = "0") {
  HistoryBuilder h;
  h.invoke(0, 1, "lock", 1);
  h.script(0, 1, "fair_acquire", "nil", {owner_of(1)}, 1, 30000, 300000);
  h.ok(1, 1, "lock", 1);
  h.invoke(10, 2, "try_lock", 2, "L", 5000);
  h.script(10, 2, "fair_acquire", "1000", {owner_of(1)}, 2, 30000, 5000);
  h.fault(20, "crash", 2);
  h.invoke(30, 1, "unlock", 3);
  h.script(30, 1, "fair_release", "1", {}, 3).request_id = "r3";
  h.ok(31, 1, "unlock", 3, 1);
  h.invoke(poll_ms, 3, "lock", 4).local_ms += skew_ms;
  h.script(poll_ms, 3, "fair_acquire", reply, {}, 4, 30000, 300000);
  return h.events();
}

TEST(FairLine, RefusalAtTheEdgeOfAStaleSlotIsNotJudged) {
  // By client 3's clock the dead waiter's deadline (6 010) is 1-3 ms away:
  // whether the server purged it depends on when the poll was sent.
  for (int64_t skew_ms : {-3, -1, 0, 1, 3})
    EXPECT_TRUE(run_checker<FifoFairnessChecker>(refused_behind_dead_waiter(6010, skew_ms)).empty()) << skew_ms;
}

TEST(FairLine, RefusalBehindASurelyStaleWaiterIsAViolation) {
  auto v = run_checker<FifoFairnessChecker>(refused_behind_dead_waiter(8000, 0));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("stale waiters were not purged"), std::string::npos);
  // ... even with client 3's clock a few ms behind.
  EXPECT_EQ(run_checker<FifoFairnessChecker>(refused_behind_dead_waiter(8000, -3)).size(), 1u);
}

TEST(FairLine, GrantAfterPurgeIsNotAViolation) {
  std::vector<Event> h = refused_behind_dead_waiter(8000, 0, "nil");
  h.back().holders_after = {owner_of(3)};
  EXPECT_TRUE(run_checker<FifoFairnessChecker>(h).empty());
}

TEST(FairLine, MirrorKeepsAnUndecidedPurgeAsMaybe) {
  FairLineMirror m;
  for (const Event& e : refused_behind_dead_waiter(6010, 0)) m.on_event(e);
  const auto* line = m.line("L");
  ASSERT_NE(line, nullptr);
  ASSERT_EQ(line->size(), 2u);  // client 2's entry may still be there; client 3 joined behind it
  EXPECT_EQ((*line)[0].owner, owner_of(2));
  EXPECT_TRUE((*line)[0].maybe_purged);
  EXPECT_LE((*line)[0].deadline_lo_ms, 6010);
  EXPECT_GE((*line)[0].deadline_hi_ms, 6010);
}

TEST(FairLine, EnqueueBehindAStaleTailIsAViolation) {
  std::vector<Event> h = refused_behind_dead_waiter(8000, 0, "-1990");
  h.back().holders_after = {};
  auto v = run_checker<FifoFairnessChecker>(h);
  ASSERT_FALSE(v.empty());
  bool stale_tail = false;
  for (const Violation& x : v) stale_tail = stale_tail || x.message.find("joined the line") != std::string::npos;
  EXPECT_TRUE(stale_tail) << v.size();
  // The same with the lock held (no refusal of a free lock to report).
  h.back().holders_after = {owner_of(5)};
  v = run_checker<FifoFairnessChecker>(h);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("joined the line"), std::string::npos) << v[0].message;
  // -1 may be the PTTL of a lock without expiry: not judged.
  h.back().reply = EventReply::of_int(-1);
  h.back().holders_after = {owner_of(5)};
  EXPECT_TRUE(run_checker<FifoFairnessChecker>(h).empty());
}

TEST(FairLine, StalePurgeMutantHasAShortCounterexample) {
  for (const MutantSpec& spec : mutant_specs()) {
    if (spec.name != "fair_no_stale_purge") continue;
    const MutantResult r = run_mutant(spec, 200);
    ASSERT_TRUE(r.caught);
    EXPECT_LE(r.counterexample_events, 20u) << r.violation;
    ASSERT_TRUE(r.counterexample.has_value());
    bool crash = false;
    for (const Event& e : r.counterexample->events) crash = crash || (e.kind == EventKind::Fault && e.op == Op::Crash);
    EXPECT_TRUE(crash) << "a waiter that dies in the line";
    return;
  }
  FAIL() << "no fair_no_stale_purge mutant";
}

}  // namespace
}  // namespace locksim::testing
