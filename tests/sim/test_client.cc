// The lock client pinned to lock-semantics.md with small hand-made scenarios.
#include <gtest/gtest.h>

#include "tests/sim/sim_harness.h"

namespace locksim {
namespace {

using testing::fair;
using testing::Harness;
using testing::kMs;
using testing::kSec;
using testing::rlock;

// lock() at 0, unlock at 35 s: renewals every lease/3 (10 s), none after.
std::vector<Event> watchdog_run(Harness& h) {
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });
  h.steps.at(35 * kSec, [&] { w.client(0).unlock(1, rlock(), nullptr); });
  w.run_until(100 * kSec);
  return h.scripts("rlock_renew");
}

TEST(Client, WatchdogRenewsEveryThirdOfLeaseAndStopsAfterFinalUnlock) {
  Harness h(1);
  const auto renews = watchdog_run(h);
  ASSERT_EQ(renews.size(), 3u);
  const auto acquire = h.scripts("rlock_acquire");
  ASSERT_EQ(acquire.size(), 1u);
  int64_t prev = acquire[0].true_us;
  for (const auto& r : renews) {
    EXPECT_EQ(r.reply, EventReply::of_int(1));
    EXPECT_EQ(r.op, Op::Renew);
    EXPECT_GT(r.op_id, 0u);
    // The reply takes 1 ms back, the next renewal 1 ms to arrive.
    EXPECT_EQ(r.true_us - prev, 10'000 * kMs + 2 * kMs);
    prev = r.true_us;
  }
  const auto release = h.scripts("rlock_release");
  ASSERT_EQ(release.size(), 1u);
  EXPECT_EQ(release[0].reply, EventReply::of_int(1));
  EXPECT_LT(renews.back().true_us, release[0].true_us);
  EXPECT_FALSE(h.world->client(0).watchdog().running("lsim:A"));
}

TEST(Client, WatchdogNotCancelledMutantKeepsRenewing) {
  Harness h(1, ClientMutant::WatchdogNotCancelled);
  const auto renews = watchdog_run(h);
  const auto release = h.scripts("rlock_release");
  ASSERT_EQ(release.size(), 1u);
  ASSERT_GT(renews.size(), 3u);
  EXPECT_GT(renews.back().true_us, release[0].true_us);  // a renewal outlived the release
}

TEST(Client, WatchdogPeriodLeaseMutantRenewsTooLate) {
  Harness h(1, ClientMutant::WatchdogPeriodLease);
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });
  w.run_until(40 * kSec);
  const auto renews = h.scripts("rlock_renew");
  ASSERT_EQ(renews.size(), 1u);
  EXPECT_EQ(renews[0].reply, EventReply::of_int(0));  // the key expired just before it arrived
  ASSERT_EQ(h.select(EventKind::Info, Op::HoldLost).size(), 1u);
}

TEST(Client, ExplicitLeaseIsNeverRenewed) {
  Harness h(1);
  World& w = *h.world;
  AcquireResult got = AcquireResult::Unknown;
  UnlockResult unlocked = UnlockResult::Unknown;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), 5'000, [&](AcquireResult r) { got = r; }); });
  h.steps.at(20 * kSec, [&] { w.client(0).unlock(1, rlock(), [&](UnlockResult r) { unlocked = r; }); });
  w.run_until(60 * kSec);
  EXPECT_EQ(got, AcquireResult::Acquired);
  EXPECT_TRUE(h.scripts("rlock_renew").empty());
  EXPECT_EQ(unlocked, UnlockResult::NotHeld);  // it expired after 5 s
  const auto fails = h.select(EventKind::Fail, Op::Unlock);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].reason, EndReason::IllegalMonitorState);
}

TEST(Client, LeaseUnitSecondsMutantExpiresFarTooEarly) {
  Harness h(1, ClientMutant::LeaseUnitSeconds);
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), 5'000, nullptr); });
  w.run_until(1 * kSec);
  const auto acquire = h.scripts("rlock_acquire");
  ASSERT_EQ(acquire.size(), 1u);
  EXPECT_EQ(acquire[0].lease_ms, 5);
  EXPECT_FALSE(h.has_key("lsim:A"));
}

// Client 0 holds; client 1 waits with a budget of 60 s; client 0 releases at 1 s.
int64_t waiter_ok_us(Harness& h) {
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });
  h.steps.at(100 * kMs, [&] { w.client(1).try_lock(1, rlock(), 60'000, -1, nullptr); });
  h.steps.at(1 * kSec, [&] { w.client(0).unlock(1, rlock(), nullptr); });
  w.run_until(70 * kSec);
  const auto oks = h.select(EventKind::Ok, Op::TryLock);
  EXPECT_EQ(oks.size(), 1u);
  return oks.empty() ? -1 : oks[0].true_us;
}

TEST(Client, WaiterWakesOnReleaseMessageBeforeItsTtl) {
  Harness h(2);
  const int64_t ok_us = waiter_ok_us(h);
  EXPECT_GE(ok_us, 1 * kSec);
  EXPECT_LT(ok_us, 1 * kSec + 10 * kMs);  // woken by the message, not by the ~30 s ttl
  const auto delivered = h.select(EventKind::Deliver);
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].client, 1);
  EXPECT_EQ(delivered[0].published[0], LockKeys::channel("lsim:A") + " 0");
  // Unsubscribed on exit: a later release reaches nobody.
  h.steps.at(h.world->now_us(), [&] { h.world->client(1).unlock(1, rlock(), nullptr); });
  h.world->run_until(80 * kSec);
  EXPECT_EQ(h.select(EventKind::Deliver).size(), 1u);
}

TEST(Client, UnlockNoWakeMutantLeavesWaiterSleepingUntilTtl) {
  Harness h(2, ClientMutant::UnlockNoWake);
  const int64_t ok_us = waiter_ok_us(h);
  EXPECT_GT(ok_us, 29 * kSec);
}

// Fair lock: client 0 holds; client 1 tries for 2 s and gives up.
void fair_giveup_run(Harness& h) {
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, fair(), -1, nullptr); });
  h.steps.at(100 * kMs, [&] { w.client(1).try_lock(1, fair(), 2'000, -1, nullptr); });
  w.run_until(5 * kSec);
}

TEST(Client, FairWaiterGivingUpCallsAcquireFailed) {
  Harness h(2);
  fair_giveup_run(h);
  const auto fails = h.select(EventKind::Fail, Op::TryLock);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].detail, "wait budget exhausted");
  EXPECT_GE(fails[0].true_us, 2'100 * kMs);
  const auto failed = h.scripts("fair_acquire_failed");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].owner, fails[0].owner);
  EXPECT_EQ(failed[0].op_id, fails[0].op_id);
  ASSERT_EQ(h.select(EventKind::Info, Op::AcquireFailed).size(), 1u);
  EXPECT_FALSE(h.has_key(LockKeys::line("lsim:F")));
  EXPECT_FALSE(h.has_key(LockKeys::deadlines("lsim:F")));
}

// The give-up returns once acquire_failed has answered: the Fail comes
// after that script ran (a round trip after the info), so the task's next
// acquire under the same owner cannot overtake it and be taken out of the
// line by it. With its reply lost, the give-up waits out the request timeout.
TEST(Client, FairGiveUpEndsWhenAcquireFailedAnswers) {
  Harness h(2);
  fair_giveup_run(h);
  const auto info = h.select(EventKind::Info, Op::AcquireFailed);
  const auto failed = h.scripts("fair_acquire_failed");
  const auto fails = h.select(EventKind::Fail, Op::TryLock);
  ASSERT_EQ(info.size(), 1u);
  ASSERT_EQ(failed.size(), 1u);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_LT(info[0].id, failed[0].id);
  EXPECT_LT(failed[0].id, fails[0].id);
  EXPECT_EQ(fails[0].true_us - info[0].true_us, 2 * kMs);  // 1 ms there, 1 ms back

  Harness lost(2);
  World& w = *lost.world;
  w.lose_reply = [](const Event& e) { return e.script == "fair_acquire_failed"; };
  lost.steps.at(0, [&] { w.client(0).lock(1, fair(), -1, nullptr); });
  lost.steps.at(100 * kMs, [&] { w.client(1).try_lock(1, fair(), 2'000, -1, nullptr); });
  w.run_until(10 * kSec);
  const auto lost_info = lost.select(EventKind::Info, Op::AcquireFailed);
  const auto lost_fails = lost.select(EventKind::Fail, Op::TryLock);
  ASSERT_EQ(lost_info.size(), 1u);
  ASSERT_EQ(lost_fails.size(), 1u);
  EXPECT_EQ(lost_fails[0].true_us - lost_info[0].true_us, 3'000 * kMs);  // the request timeout
}

TEST(Client, FairGiveupMutantLeavesWaiterInLine) {
  Harness h(2, ClientMutant::FairGiveupNoAcquireFailed);
  fair_giveup_run(h);
  EXPECT_TRUE(h.scripts("fair_acquire_failed").empty());
  EXPECT_TRUE(h.has_key(LockKeys::line("lsim:F")));
}

TEST(Client, RetriedUnlockReusesRequestIdAndIsIdempotent) {
  Harness h(2);
  World& w = *h.world;
  int dropped = 0;
  w.lose_reply = [&](const Event& e) {
    if (e.script == "rlock_release" && dropped == 0) {
      ++dropped;
      return true;
    }
    return false;
  };
  std::vector<UnlockResult> results;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });
  h.steps.at(10 * kMs, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });  // count 2
  h.steps.at(1 * kSec, [&] { w.client(0).unlock(1, rlock(), [&](UnlockResult r) { results.push_back(r); }); });
  h.steps.at(6 * kSec, [&] { w.client(0).unlock(1, rlock(), [&](UnlockResult r) { results.push_back(r); }); });
  h.steps.at(7 * kSec, [&] { w.client(1).try_lock_once(1, rlock(), -1, nullptr); });
  w.run_until(10 * kSec);
  const auto release = h.scripts("rlock_release");
  ASSERT_EQ(release.size(), 3u);
  EXPECT_EQ(release[0].request_id, release[1].request_id);   // the retry
  EXPECT_NE(release[1].request_id, release[2].request_id);   // a new unlock
  EXPECT_EQ(release[0].reply, EventReply::of_int(0));
  EXPECT_EQ(release[1].reply, EventReply::of_int(0));  // answered from the latch: not decremented twice
  EXPECT_EQ(release[1].holders_after.size(), 1u);
  EXPECT_EQ(release[2].reply, EventReply::of_int(1));
  EXPECT_EQ(results, (std::vector<UnlockResult>{UnlockResult::StillHeld, UnlockResult::Released}));
  EXPECT_EQ(h.select(EventKind::Ok, Op::TryLock).size(), 1u);
}

TEST(Client, AcquireIsNeverRetried) {
  Harness h(1);
  World& w = *h.world;
  w.lose_reply = [](const Event& e) { return e.script == "rlock_acquire"; };
  AcquireResult got = AcquireResult::Acquired;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, [&](AcquireResult r) { got = r; }); });
  w.run_until(20 * kSec);
  EXPECT_EQ(got, AcquireResult::Unknown);
  EXPECT_EQ(h.scripts("rlock_acquire").size(), 1u);
  const auto infos = h.select(EventKind::Info, Op::Lock);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].reason, EndReason::Timeout);
  EXPECT_TRUE(h.scripts("rlock_renew").empty());  // not armed: the client does not believe it holds
}

TEST(Client, CrashedHoldersLockFreesWithinTheLease) {
  Harness h(2);
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });
  h.steps.at(5 * kSec, [&] { w.crash(0); });
  h.steps.at(6 * kSec, [&] { w.client(1).lock(1, rlock(), -1, nullptr); });
  w.run_until(60 * kSec);
  const auto acquired = h.scripts("rlock_acquire");
  ASSERT_GE(acquired.size(), 2u);
  const int64_t held_from_us = acquired[0].true_us;  // the last successful acquire/renew
  for (const auto& r : h.scripts("rlock_renew")) EXPECT_EQ(r.client, 1);  // none by the dead one
  const auto oks = h.select(EventKind::Ok, Op::Lock);
  ASSERT_EQ(oks.size(), 2u);
  EXPECT_EQ(oks[1].client, 1);
  EXPECT_LE(oks[1].true_us, held_from_us + 30 * kSec + 10 * kMs);
  EXPECT_GT(oks[1].true_us, held_from_us + 30 * kSec);  // and not before it expired
  ASSERT_EQ(h.select(EventKind::Fault, Op::Crash).size(), 1u);
}

TEST(Client, PausedClientDefersItsTimers) {
  Harness h(1);
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });
  h.steps.at(5 * kSec, [&] { w.pause(0, 40'000); });
  w.run_until(60 * kSec);
  const auto renews = h.scripts("rlock_renew");
  ASSERT_GE(renews.size(), 1u);
  EXPECT_GE(renews[0].true_us, 45 * kSec);  // the 10 s renewal waited for the resume
  EXPECT_EQ(renews[0].reply, EventReply::of_int(0));          // too late: the lease ran out at ~30 s
  EXPECT_EQ(h.select(EventKind::Info, Op::HoldLost).size(), 1u);
  EXPECT_EQ(h.select(EventKind::Fault, Op::Resume).size(), 1u);
}

// Two tasks of client 0 on one lock: task `stale` takes it with the watchdog
// at 0; the client is paused 5 s .. 45 s, so its lease (renewed last at
// ~0 s) runs out at ~30 s; task `fresh` calls lock() during the pause, so at
// the resume its acquire goes out just before the stale task's deferred
// renewal. It gets the free lock; the stale renewal is refused. At 90 s
// `fresh` unlocks.
struct StaleCoTaskRun {
  std::vector<Event> renews_after_resume;  // renewal scripts from 45 s on
  UnlockResult fresh_unlock = UnlockResult::Unknown;
  bool key_at_80s = false;
};

StaleCoTaskRun stale_co_task_run(Harness& h, int stale, int fresh) {
  World& w = *h.world;
  StaleCoTaskRun run;
  h.steps.at(0, [&] { w.client(0).lock(stale, rlock(), -1, nullptr); });
  h.steps.at(5 * kSec, [&] { w.pause(0, 40'000); });
  h.steps.at_client(0, 10 * kSec, [&] { w.client(0).lock(fresh, rlock(), -1, nullptr); });
  w.run_until(80 * kSec);
  run.key_at_80s = h.has_key("lsim:A");
  h.steps.at(90 * kSec, [&] { w.client(0).unlock(fresh, rlock(), [&](UnlockResult r) { run.fresh_unlock = r; }); });
  w.run_until(100 * kSec);
  for (const auto& r : h.scripts("rlock_renew")) {
    if (r.true_us >= 45 * kSec) run.renews_after_resume.push_back(r);
  }
  return run;
}

TEST(Client, WatchdogRenewsEachOwnerWithItsOwnIdAfterAStaleCoTaskLostItsHold) {
  for (const auto& [stale, fresh] : std::vector<std::pair<int, int>>{{1, 2}, {2, 1}}) {
    Harness h(1);
    const StaleCoTaskRun run = stale_co_task_run(h, stale, fresh);
    const std::string stale_owner = h.world->client(0).owner(stale);
    const std::string fresh_owner = h.world->client(0).owner(fresh);
    ASSERT_EQ(h.select(EventKind::Ok, Op::Lock).size(), 2u);
    // The stale task alone is told: its own renewal answered 0.
    const auto lost = h.select(EventKind::Info, Op::HoldLost);
    ASSERT_EQ(lost.size(), 1u);
    EXPECT_EQ(lost[0].owner, stale_owner);
    EXPECT_TRUE(h.select(EventKind::Info, Op::WatchdogStop).empty());
    // The fresh holder keeps being renewed with its own id.
    ASSERT_GE(run.renews_after_resume.size(), 4u);
    EXPECT_EQ(run.renews_after_resume[0].owner, stale_owner);
    EXPECT_EQ(run.renews_after_resume[0].reply, EventReply::of_int(0));
    for (size_t i = 1; i < run.renews_after_resume.size(); ++i) {
      EXPECT_EQ(run.renews_after_resume[i].owner, fresh_owner);
      EXPECT_EQ(run.renews_after_resume[i].reply, EventReply::of_int(1));
    }
    EXPECT_TRUE(run.key_at_80s);
    EXPECT_EQ(run.fresh_unlock, UnlockResult::Released);
    EXPECT_FALSE(h.world->client(0).watchdog().running("lsim:A"));
  }
}

// The older design: one entry per client and lock renewed with the FIRST
// task's id (insertion order: also when the fresh task's id sorts first).
// The stale renewal is refused, the shared entry stops, and nobody renews the
// lock the fresh task legitimately holds: it expires ~30 s later.
TEST(Client, WatchdogFirstThreadEntryMutantStopsRenewingTheCoTasksLock) {
  for (const auto& [stale, fresh] : std::vector<std::pair<int, int>>{{1, 2}, {2, 1}}) {
    Harness h(1, ClientMutant::WatchdogFirstThreadEntry);
    const StaleCoTaskRun run = stale_co_task_run(h, stale, fresh);
    const std::string stale_owner = h.world->client(0).owner(stale);
    const std::string fresh_owner = h.world->client(0).owner(fresh);
    ASSERT_EQ(h.select(EventKind::Ok, Op::Lock).size(), 2u);
    ASSERT_EQ(run.renews_after_resume.size(), 1u);
    EXPECT_EQ(run.renews_after_resume[0].owner, stale_owner);
    EXPECT_EQ(run.renews_after_resume[0].reply, EventReply::of_int(0));
    // Honest notices: hold_lost for the refused owner only; the fresh holder
    // is not told it lost anything, only that the lock is no longer renewed.
    const auto lost = h.select(EventKind::Info, Op::HoldLost);
    ASSERT_EQ(lost.size(), 1u);
    EXPECT_EQ(lost[0].owner, stale_owner);
    const auto stops = h.select(EventKind::Info, Op::WatchdogStop);
    ASSERT_EQ(stops.size(), 1u);
    EXPECT_EQ(stops[0].owner, fresh_owner);
    EXPECT_EQ(stops[0].lock, "lsim:A");
    EXPECT_NE(stops[0].detail.find("lsim:A"), std::string::npos);
    EXPECT_FALSE(run.key_at_80s);
    EXPECT_EQ(run.fresh_unlock, UnlockResult::NotHeld);
  }
}

TEST(Client, WatchdogFirstThreadEntryMutantSharesAnEntryPerLockOnly) {
  // Tasks 2 then 1 hold two different locks: each lock has its own entry.
  Harness h(1, ClientMutant::WatchdogFirstThreadEntry);
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(2, rlock("lsim:A"), -1, nullptr); });
  h.steps.at(1 * kMs, [&] { w.client(0).lock(1, rlock("lsim:B"), -1, nullptr); });
  w.run_until(15 * kSec);
  const Watchdog& dog = w.client(0).watchdog();
  EXPECT_EQ(dog.renewing_owner("lsim:A", w.client(0).owner(2)), w.client(0).owner(2));
  EXPECT_EQ(dog.renewing_owner("lsim:B", w.client(0).owner(1)), w.client(0).owner(1));
  for (const auto& r : h.scripts("rlock_renew")) EXPECT_EQ(r.reply, EventReply::of_int(1));
  EXPECT_EQ(h.scripts("rlock_renew").size(), 2u);
}

TEST(Client, ForceUnlockCancelsEveryWatchdogEntryOfTheLock) {
  Harness h(1);
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });
  h.steps.at(1 * kSec, [&] { w.client(0).force_unlock(2, rlock(), nullptr); });
  w.run_until(40 * kSec);
  EXPECT_FALSE(w.client(0).watchdog().running("lsim:A"));
  EXPECT_TRUE(h.scripts("rlock_renew").empty());
}

// A World over a model running `variant`'s scripts (fixed 1 ms latency).
struct VariantWorld {
  explicit VariantWorld(ModelVariant variant, int clients) : backend(1, variant) {
    WorldConfig wc;
    wc.seed = 7;
    wc.clients = clients;
    wc.link = LinkProfile{1000, 1000, 0.0, 0, 0.0};
    world = std::make_unique<World>(wc, backend, sink);
    steps.attach(*world);
  }
  std::vector<Event> polls_of(int client) const {
    std::vector<Event> out;
    for (const auto& e : sink.events) {
      if (e.kind == EventKind::Script && e.script == "fair_acquire" && e.client == client) out.push_back(e);
    }
    return out;
  }
  std::vector<Event> completions(EventKind kind, int client) const {
    std::vector<Event> out;
    for (const auto& e : sink.events) {
      if (e.kind == kind && e.client == client && (e.op == Op::Lock || e.op == Op::TryLock)) out.push_back(e);
    }
    return out;
  }
  ModelBackend backend;
  VectorSink sink;
  std::unique_ptr<World> world;
  testing::Steps steps;
};

// Client 0 takes the fair lock with a 2 s lease at 0 and again (reentry,
// expiry reset to ~3 s) at 1 s, and never unlocks. Client 1 joins the line at
// 100 ms (estimate: ~1.9 s) with `wait_ms` (-1: lock()) and polls again when
// that estimate runs out, at ~2 s, while client 0 still holds the lock.
void late_poll_run(VariantWorld& v, int64_t wait_ms) {
  World& w = *v.world;
  v.steps.at(0, [&] { w.client(0).lock(1, fair(), 2'000, nullptr); });
  v.steps.at(1 * kSec, [&] { w.client(0).lock(1, fair(), 2'000, nullptr); });
  v.steps.at(100 * kMs, [&, wait_ms] {
    if (wait_ms < 0) w.client(1).lock(1, fair(), -1, nullptr);
    else w.client(1).try_lock(1, fair(), wait_ms, -1, nullptr);
  });
}

TEST(Client, FairLockPollsAgainAfterTheLocksRemainingTime) {
  VariantWorld v(ModelVariant::Correct, 2);
  late_poll_run(v, -1);
  v.world->run_until(10 * kSec);
  const auto polls = v.polls_of(1);
  ASSERT_EQ(polls.size(), 4u);
  EXPECT_EQ(polls[2].reply, EventReply::of_int(998));  // max(0, PTTL): the reentry reset the expiry to ~3 s
  EXPECT_EQ(polls[3].reply, EventReply::nil());
  const auto oks = v.completions(EventKind::Ok, 1);
  ASSERT_EQ(oks.size(), 1u);
  EXPECT_LT(oks[0].true_us, 3'100 * kMs);
}

// fair_ttl_from_deadline: the late poll is answered deadline - wait - now < 0.
// lock() then waits for a wake-up message with no time limit: nobody polls
// although the lock expires at ~3 s, until a release publishes to the head.
TEST(Client, NegativeFairAnswerMakesLockWaitForAMessageWithoutTimeLimit) {
  VariantWorld v(ModelVariant::FairTtlFromDeadline, 3);
  World& w = *v.world;
  late_poll_run(v, -1);
  w.run_until(120 * kSec);
  const auto polls = v.polls_of(1);
  ASSERT_EQ(polls.size(), 3u);
  EXPECT_EQ(polls[2].reply, EventReply::of_int(-2));
  EXPECT_LT(polls[2].true_us, 2'100 * kMs);
  EXPECT_TRUE(v.completions(EventKind::Ok, 1).empty());
  EXPECT_EQ(w.client(1).pending_operations(), 1u);
  // A release of the free fair lock publishes to the head of the line.
  v.steps.at(w.now_us(), [&] { w.client(2).unlock(1, fair(), nullptr); });
  w.run_until(125 * kSec);
  ASSERT_EQ(v.polls_of(1).size(), 4u);
  EXPECT_EQ(v.polls_of(1)[3].reply, EventReply::nil());
  EXPECT_EQ(v.completions(EventKind::Ok, 1).size(), 1u);
}

// tryLock on a negative answer waits the rest of its budget (no poll before).
TEST(Client, NegativeFairAnswerMakesTryLockWaitTheRestOfItsBudget) {
  VariantWorld v(ModelVariant::FairTtlFromDeadline, 2);
  late_poll_run(v, 10'000);
  v.world->run_until(20 * kSec);
  const auto polls = v.polls_of(1);
  ASSERT_EQ(polls.size(), 3u);
  EXPECT_EQ(polls[2].reply, EventReply::of_int(-2));
  const auto fails = v.completions(EventKind::Fail, 1);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].detail, "wait budget exhausted");
  EXPECT_GE(fails[0].true_us, 10'100 * kMs);
  EXPECT_LT(fails[0].true_us, 10'110 * kMs);
  size_t left = 0;
  for (const auto& e : v.sink.events) left += e.kind == EventKind::Script && e.script == "fair_acquire_failed";
  EXPECT_EQ(left, 1u);
}

// Behind a dead head: client 0 takes the fair lock with a 1 s lease and never
// unlocks; client 1 joins the line with tryLock(5 s) at 100 ms (slot ends at
// ~6 s) and crashes at 500 ms, leaving the line only when its slot ends;
// client 2 calls lock() at 200 ms behind it. Returns client 2's polls.
std::vector<Event> dead_head_run(VariantWorld& v) {
  World& w = *v.world;
  v.steps.at(0, [&] { w.client(0).lock(1, fair(), 1'000, nullptr); });
  v.steps.at(100 * kMs, [&] { w.client(1).try_lock(1, fair(), 5'000, -1, nullptr); });
  v.steps.at(200 * kMs, [&] { w.client(2).lock(1, fair(), -1, nullptr); });
  v.steps.at(500 * kMs, [&] { w.crash(1); });
  w.run_until(10 * kSec);
  return v.polls_of(2);
}

TEST(Client, OursPollsOncePerRoundTripBehindADeadHead) {
  VariantWorld v(ModelVariant::Correct, 3);
  const auto polls = dead_head_run(v);
  const auto oks = v.completions(EventKind::Ok, 2);
  ASSERT_EQ(oks.size(), 1u);
  EXPECT_GE(oks[0].true_us, 6'000 * kMs);
  EXPECT_LT(oks[0].true_us, 6'010 * kMs);
  EXPECT_GT(polls.size(), 1'000u);  // ~5 s of 2 ms round trips answered 0
}

// fair_wait_for_head: the waiter sleeps until the dead head's slot ends
// (re-checking once a second), then takes the lock just as soon.
TEST(Client, FairWaitForHeadSleepsUntilTheDeadHeadsSlotEnds) {
  VariantWorld v(ModelVariant::FairWaitForHead, 3);
  const auto polls = dead_head_run(v);
  const auto oks = v.completions(EventKind::Ok, 2);
  ASSERT_EQ(oks.size(), 1u);
  EXPECT_GE(oks[0].true_us, 6'000 * kMs);
  EXPECT_LT(oks[0].true_us, 6'010 * kMs);
  EXPECT_LE(polls.size(), 10u);  // ~5 s behind the dead head: about one poll a second
  bool slept = false;
  for (const auto& p : polls) slept = slept || (p.holders_after.empty() && !p.reply.is_nil() && !p.reply.is(0));
  EXPECT_TRUE(slept);
}

TEST(Client, CrashReportsPendingOperationsAsUnknown) {
  Harness h(2);
  World& w = *h.world;
  h.steps.at(0, [&] { w.client(0).lock(1, rlock(), -1, nullptr); });
  h.steps.at(100 * kMs, [&] { w.client(1).lock(1, rlock(), -1, nullptr); });
  h.steps.at(1 * kSec, [&] { w.crash(1); });
  w.run_until(2 * kSec);
  const auto infos = h.select(EventKind::Info, Op::Lock);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].reason, EndReason::Crashed);
  EXPECT_EQ(infos[0].client, 1);
}

}  // namespace
}  // namespace locksim
