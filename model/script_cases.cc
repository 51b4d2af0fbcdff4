// The script case table itself (declared in model/script_cases.h).
#include "model/script_cases.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "model/faster_multi_fields.h"

namespace locksim::cases {

// ---- the table ------------------------------------------------------------
// Key-name order in final states is bytewise: "L" < "redisson_lock_queue..."
// < "redisson_lock_timeout..." < "redisson_unlock_latch...".

std::vector<ScriptCase> reentrant_cases() {
  std::vector<ScriptCase> c;
  // -- rlock_acquire
  c.push_back({"RlockAcquire_Step1_FreeLockIsTakenWithLease", ModelVariant::Correct,
               {step(acquire(kA), kT, nil())},
               final_at(kT + 100, {hash_key(kLock, "A:1=1", kLease - 100)})});
  c.push_back({"RlockAcquire_Step1_ReentryIncrementsAndResetsExpiry", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT + 10'000, nil())},
               final_at(kT + 10'000, {hash_key(kLock, "A:1=2", kLease)})});
  c.push_back({"RlockAcquire_Step2_HeldByOtherReturnsPttl", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(acquire(kB), kT + 1'000, num(kLease - 1'000))},
               final_at(kT + 1'000, {hash_key(kLock, "A:1=1", kLease - 1'000)})});
  c.push_back({"RlockAcquire_Step2_ExpiryBoundaryHeldAtExpireAtFreeOneMsLater", ModelVariant::Correct,
               {step(acquire(kA, 1'000), kT, nil()), step(acquire(kB), kT + 1'000, num(0)),
                step(acquire(kB), kT + 1'001, nil())},
               final_at(kT + 1'001, {hash_key(kLock, "B:1=1", kLease)})});
  c.push_back({"RlockAcquire_Step1_ZeroLeaseDeletesTheLockAtOnce", ModelVariant::Correct,
               {step(acquire(kA, 0), kT, nil()), step(acquire(kB), kT, nil())},
               final_at(kT, {hash_key(kLock, "B:1=1", kLease)})});
  // -- rlock_release
  c.push_back({"RlockRelease_Step1_LatchReplaysReleasedWithoutSideEffects", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()),
                step(release(kA, "r1"), kT + 100, num(1), {unlocked(channel())}),
                step(acquire(kB), kT + 200, nil()),
                step(release(kA, "r1"), kT + 300, num(1))},
               final_at(kT + 300, {hash_key(kLock, "B:1=1", kLease - 100),
                                   string_key(latch("r1"), "1", kLatchTtl - 200)})});
  c.push_back({"RlockRelease_Step1_LatchReplaysStillHeldWithoutDecrementing", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT, nil()),
                step(release(kA, "r1"), kT + 100, num(0)),
                step(release(kA, "r1"), kT + 200, num(0))},
               final_at(kT + 200, {hash_key(kLock, "A:1=1", kLease - 100),
                                   string_key(latch("r1"), "0", kLatchTtl - 100)})});
  c.push_back({"RlockRelease_Step1_ExpiredLatchNoLongerAnswers", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()),
                step(release(kA, "r1"), kT, num(1), {unlocked(channel())}),
                step(release(kA, "r1"), kT + kLatchTtl, num(1)),
                step(release(kA, "r1"), kT + kLatchTtl + 1, nil())},
               final_at(kT + kLatchTtl + 1, {})});
  c.push_back({"RlockRelease_Step2_NonOwnerGetsNilAndChangesNothing", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(release(kB, "r1"), kT + 100, nil())},
               final_at(kT + 100, {hash_key(kLock, "A:1=1", kLease - 100)})});
  c.push_back({"RlockRelease_Step2_FreeLockGetsNil", ModelVariant::Correct,
               {step(release(kA, "r1"), kT, nil())}, final_at(kT, {})});
  c.push_back({"RlockRelease_Step3_DecrementAboveZeroResetsExpiry", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT + 10, nil()),
                step(release(kA, "r1", 20'000), kT + 5'000, num(0))},
               final_at(kT + 5'000, {hash_key(kLock, "A:1=1", 20'000),
                                     string_key(latch("r1"), "0", kLatchTtl)})});
  c.push_back({"RlockRelease_Step4_LastReleaseDeletesPublishesAndLatches", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()),
                step(release(kA, "r1"), kT + 100, num(1), {unlocked(channel())})},
               final_at(kT + 100, {string_key(latch("r1"), "1", kLatchTtl)})});
  c.push_back({"RlockRelease_Step4_ZeroLatchTtlFailsAfterDeletingAndPublishing", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()),
                step(release(kA, "r1", kLease, 0), kT + 100, err(), {unlocked(channel())}),
                step(release(kA, "r1", kLease, 0), kT + 200, nil())},
               final_at(kT + 200, {})});
  c.push_back({"RlockRelease_Step3_NegativeLatchTtlFailsAfterDecrementing", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT, nil()),
                step(release(kA, "r1", 20'000, -5), kT + 100, err())},
               final_at(kT + 100, {hash_key(kLock, "A:1=1", 20'000)})});
  // -- rlock_renew
  c.push_back({"RlockRenew_OwnerResetsExpiry", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(renew(kA), kT + 10'000, num(1))},
               final_at(kT + 10'000, {hash_key(kLock, "A:1=1", kLease)})});
  c.push_back({"RlockRenew_NonOwnerGetsZeroAndChangesNothing", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(renew(kB), kT + 10'000, num(0))},
               final_at(kT + 10'000, {hash_key(kLock, "A:1=1", kLease - 10'000)})});
  c.push_back({"RlockRenew_ExpiredLockGetsZero", ModelVariant::Correct,
               {step(acquire(kA, 1'000), kT, nil()), step(renew(kA), kT + 1'001, num(0))},
               final_at(kT + 1'001, {})});
  // -- rlock_force_release
  c.push_back({"RlockForceRelease_HeldLockIsDeletedAndPublished", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT, nil()),
                step(force_release(), kT + 100, num(1), {unlocked(channel())})},
               final_at(kT + 100, {})});
  c.push_back({"RlockForceRelease_FreeLockGetsZero", ModelVariant::Correct,
               {step(force_release(), kT, num(0))}, final_at(kT, {})});
  return c;
}

namespace {

// Fair-lock timeline used by several cases (server and client clocks run in
// step, client clock = kC + (server - kT)):
//   A holds from kT (lease 30 s). B polls at +1000: ttl = PTTL = 29000,
//   deadline(B) = kC + 1000 + 29000 + 5000 = kC + 35000.
//   C polls at +2000: ttl = deadline(B) - now = 33000,
//   deadline(C) = kC + 2000 + 33000 + 5000 = kC + 40000.
std::vector<CaseStep> fair_line_abc() {
  return {step(fair_acquire(kA, kC), kT, nil()),
          step(fair_acquire(kB, kC + 1'000), kT + 1'000, num(29'000)),
          step(fair_acquire(kCo, kC + 2'000), kT + 2'000, num(33'000))};
}
std::vector<CaseStep> with(std::vector<CaseStep> head, std::vector<CaseStep> tail) {
  for (auto& s : tail) head.push_back(std::move(s));
  return head;
}

}  // namespace

std::vector<ScriptCase> fair_cases() {
  std::vector<ScriptCase> c;
  const std::string both_waiting = "B:1,C:1";
  const std::string both_deadlines = at(kB, kC + 35'000) + "," + at(kCo, kC + 40'000);
  // -- fair_acquire
  c.push_back({"FairAcquire_Step2_FreeLockEmptyLineIsTaken", ModelVariant::Correct,
               {step(fair_acquire(kA, kC), kT, nil())},
               final_at(kT, {hash_key(kLock, "A:1=1", kLease)})});
  c.push_back({"FairAcquire_Step3_ReentryIncrementsAndResetsExpiry", ModelVariant::Correct,
               {step(fair_acquire(kA, kC), kT, nil()),
                step(fair_acquire(kA, kC + 5'000), kT + 5'000, nil())},
               final_at(kT + 5'000, {hash_key(kLock, "A:1=2", kLease)})});
  c.push_back({"FairAcquire_Step5_EnqueueTtlFromPttlThenFromLastDeadline", ModelVariant::Correct,
               fair_line_abc(),
               final_at(kT + 2'000, {hash_key(kLock, "A:1=1", kLease - 2'000),
                                     list_key(line(), both_waiting),
                                     zset_key(deadlines(), both_deadlines)})});
  c.push_back({"FairAcquire_Step4_AlreadyWaitingReturnsPttlAndKeepsDeadline", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_acquire(kB, kC + 3'000), kT + 3'000, num(27'000))}),
               final_at(kT + 3'000, {hash_key(kLock, "A:1=1", kLease - 3'000),
                                     list_key(line(), both_waiting),
                                     zset_key(deadlines(), both_deadlines)})});
  c.push_back({"FairAcquire_Step2_HeadTakesFreedLockAndOthersDeadlinesDrop", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))}),
                     step(fair_acquire(kB, kC + 3'100), kT + 3'100, nil())}),
               final_at(kT + 3'100, {hash_key(kLock, "B:1=1", kLease), list_key(line(), "C:1"),
                                     zset_key(deadlines(), at(kCo, kC + 35'000)),
                                     string_key(latch("r1"), "1", kLatchTtl - 100)})});
  c.push_back({"FairAcquire_Step4_NonHeadWaitsForFreeLockWithZero", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))}),
                     step(fair_acquire(kCo, kC + 3'100), kT + 3'100, num(0))}),
               final_at(kT + 3'100, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines),
                                     string_key(latch("r1"), "1", kLatchTtl - 100)})});
  c.push_back({"FairAcquire_Step5_NewcomerBehindFreeLockLineQueuesBehindLast", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))}),
                     step(fair_acquire(kD, kC + 4'000), kT + 4'000, num(36'000))}),
               final_at(kT + 4'000, {list_key(line(), "B:1,C:1,D:1"),
                                     zset_key(deadlines(), both_deadlines + "," + at(kD, kC + 45'000)),
                                     string_key(latch("r1"), "1", kLatchTtl - 1'000)})});
  c.push_back({"FairAcquire_Step1_PurgeStopsAtFirstLiveHead", ModelVariant::Correct,
               // Lock expires at kT+30000; B's slot ends at kC+35000, C's at kC+40000.
               // D polls at client time kC+35000: B (deadline <= now) is purged,
               // C is live so the purge stops; C heads the line, D queues.
               with(fair_line_abc(), {step(fair_acquire(kD, kC + 35'000), kT + 35'000, num(5'000))}),
               final_at(kT + 35'000, {list_key(line(), "C:1,D:1"),
                                      zset_key(deadlines(), at(kCo, kC + 40'000) + "," + at(kD, kC + 45'000))})});
  c.push_back({"FairAcquire_Step1_DeadlineOneMsAheadIsNotPurged", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_acquire(kCo, kC + 34'999), kT + 34'999, num(0))}),
               final_at(kT + 34'999, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines)})});
  c.push_back({"FairAcquire_Step1_PurgeThenStep2_NextWaiterTakesLock", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_acquire(kCo, kC + 35'000), kT + 35'000, nil())}),
               final_at(kT + 35'000, {hash_key(kLock, "C:1=1", kLease)})});
  // -- fair_try_once
  c.push_back({"FairTryOnce_Step2_FreeLockIsTaken", ModelVariant::Correct,
               {step(fair_try_once(kA, kC), kT, nil())},
               final_at(kT, {hash_key(kLock, "A:1=1", kLease)})});
  c.push_back({"FairTryOnce_Step3_ReentryIncrements", ModelVariant::Correct,
               {step(fair_try_once(kA, kC), kT, nil()), step(fair_try_once(kA, kC + 10), kT + 10, nil())},
               final_at(kT + 10, {hash_key(kLock, "A:1=2", kLease)})});
  c.push_back({"FairTryOnce_HeldReturnsOneWithoutEnqueuing", ModelVariant::Correct,
               {step(fair_acquire(kA, kC), kT, nil()), step(fair_try_once(kB, kC + 10), kT + 10, num(1))},
               final_at(kT + 10, {hash_key(kLock, "A:1=1", kLease - 10)})});
  c.push_back({"FairTryOnce_Step2_FreeLockBehindLineReturnsOne", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))}),
                     step(fair_try_once(kD, kC + 3'100), kT + 3'100, num(1))}),
               final_at(kT + 3'100, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines),
                                     string_key(latch("r1"), "1", kLatchTtl - 100)})});
  c.push_back({"FairTryOnce_Step1_PurgesStaleWaiters", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_try_once(kCo, kC + 35'000), kT + 35'000, nil())}),
               final_at(kT + 35'000, {hash_key(kLock, "C:1=1", kLease)})});
  // -- fair_release
  c.push_back({"FairRelease_Step1_LatchReplaysWithoutSideEffects", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))}),
                     step(fair_release(kA, kC + 3'100, "r1"), kT + 3'100, num(1))}),
               final_at(kT + 3'100, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines),
                                     string_key(latch("r1"), "1", kLatchTtl - 100)})});
  c.push_back({"FairRelease_Step3_FreeLockWakesHeadAndAnswersOne", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 30'001, "r1"), kT + 30'001, num(1), {unlocked(waiter_channel(kB))})}),
               final_at(kT + 30'001, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines),
                                      string_key(latch("r1"), "1", kLatchTtl)})});
  c.push_back({"FairRelease_Step3_FreeLockEmptyLineAnswersOneSilently", ModelVariant::Correct,
               {step(fair_release(kA, kC, "r1"), kT, num(1))},
               final_at(kT, {string_key(latch("r1"), "1", kLatchTtl)})});
  c.push_back({"FairRelease_Step2_PurgedLineLeavesNobodyToWake", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_release(kA, kC + 40'000, "r1"), kT + 40'000, num(1))}),
               final_at(kT + 40'000, {string_key(latch("r1"), "1", kLatchTtl)})});
  c.push_back({"FairRelease_Step4_NonOwnerGetsNil", ModelVariant::Correct,
               {step(fair_acquire(kA, kC), kT, nil()), step(fair_release(kB, kC + 10, "r1"), kT + 10, nil())},
               final_at(kT + 10, {hash_key(kLock, "A:1=1", kLease - 10)})});
  c.push_back({"FairRelease_Step5_DecrementAboveZeroResetsExpiry", ModelVariant::Correct,
               {step(fair_acquire(kA, kC), kT, nil()), step(fair_acquire(kA, kC), kT, nil()),
                step(fair_release(kA, kC + 10, "r1", 20'000), kT + 10, num(0))},
               final_at(kT + 10, {hash_key(kLock, "A:1=1", 20'000), string_key(latch("r1"), "0", kLatchTtl)})});
  c.push_back({"FairRelease_Step6_LastReleaseDeletesLatchesAndWakesHead", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))})}),
               final_at(kT + 3'000, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines),
                                     string_key(latch("r1"), "1", kLatchTtl)})});
  c.push_back({"FairRelease_Step6_ZeroLatchTtlFailsAfterDeleteBeforePublish", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_release(kA, kC + 3'000, "r1", kLease, 0), kT + 3'000, err())}),
               final_at(kT + 3'000, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines)})});
  c.push_back({"FairRelease_Step3_ZeroLatchTtlFailsAfterPublish", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 30'001, "r1", kLease, 0), kT + 30'001, err(),
                          {unlocked(waiter_channel(kB))})}),
               final_at(kT + 30'001, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines)})});
  // -- fair_force_release
  c.push_back({"FairForceRelease_HeldLockIsDeletedAndHeadWoken", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_force_release(kC + 3'000), kT + 3'000, num(1), {unlocked(waiter_channel(kB))})}),
               final_at(kT + 3'000, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines)})});
  c.push_back({"FairForceRelease_PurgesBeforeChoosingWhomToWake", ModelVariant::Correct,
               with(fair_line_abc(),
                    {step(fair_acquire(kA, kC + 29'000), kT + 29'000, nil()),
                     step(fair_force_release(kC + 35'000), kT + 35'000, num(1), {unlocked(waiter_channel(kCo))})}),
               final_at(kT + 35'000, {list_key(line(), "C:1"), zset_key(deadlines(), at(kCo, kC + 40'000))})});
  c.push_back({"FairForceRelease_FreeLockGetsZero", ModelVariant::Correct,
               {step(fair_force_release(kC), kT, num(0))}, final_at(kT, {})});
  // -- fair_acquire_failed
  c.push_back({"FairAcquireFailed_LowersDeadlinesBehindAndLeavesLine", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_acquire(kD, kC + 2'500), kT + 2'500, num(37'500)),
                                      step(fair_acquire_failed(kB), kT + 3'000, nil())}),
               final_at(kT + 3'000, {hash_key(kLock, "A:1=1", kLease - 3'000), list_key(line(), "C:1,D:1"),
                                     zset_key(deadlines(), at(kCo, kC + 35'000) + "," + at(kD, kC + 40'000))})});
  c.push_back({"FairAcquireFailed_LastWaiterLowersNobody", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_acquire_failed(kCo), kT + 3'000, nil())}),
               final_at(kT + 3'000, {hash_key(kLock, "A:1=1", kLease - 3'000), list_key(line(), "B:1"),
                                     zset_key(deadlines(), at(kB, kC + 35'000))})});
  c.push_back({"FairAcquireFailed_OwnerNotInLineChangesNothing", ModelVariant::Correct,
               with(fair_line_abc(), {step(fair_acquire_failed(kD), kT + 3'000, nil())}),
               final_at(kT + 3'000, {hash_key(kLock, "A:1=1", kLease - 3'000), list_key(line(), both_waiting),
                                     zset_key(deadlines(), both_deadlines)})});
  return c;
}

std::vector<ScriptCase> variant_cases() {
  std::vector<ScriptCase> c;
  c.push_back({"Variant_RenewNoOwnerCheck_NonOwnerKeepsLockAlive", ModelVariant::RenewNoOwnerCheck,
               {step(acquire(kA), kT, nil()), step(renew(kB), kT + 10'000, num(1)),
                step(renew(kB), kT + 40'000, num(1)), step(renew(kB), kT + 70'001, num(0))},
               final_at(kT + 70'001, {}), true});
  c.push_back({"Variant_ReleaseNoOwnerCheck_NonOwnerDeletesLock", ModelVariant::ReleaseNoOwnerCheck,
               {step(acquire(kA), kT, nil()),
                step(release(kB, "r1"), kT + 100, num(1), {unlocked(channel())}),
                step(release(kB, "r2"), kT + 200, num(1), {unlocked(channel())})},
               final_at(kT + 200, {string_key(latch("r1"), "1", kLatchTtl - 100),
                                   string_key(latch("r2"), "1", kLatchTtl)}),
               true});
  c.push_back({"Variant_ReleaseNoOwnerCheck_OwnerReleaseUnchanged", ModelVariant::ReleaseNoOwnerCheck,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT, nil()),
                step(release(kA, "r1"), kT + 100, num(0)),
                step(release(kA, "r2"), kT + 200, num(1), {unlocked(channel())})},
               final_at(kT + 200, {string_key(latch("r1"), "0", kLatchTtl - 100),
                                   string_key(latch("r2"), "1", kLatchTtl)}),
               false});
  c.push_back({"Variant_ReentryNoExpiryReset_ReentryKeepsOldExpiry", ModelVariant::ReentryNoExpiryReset,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT + 10'000, nil())},
               final_at(kT + 10'000, {hash_key(kLock, "A:1=2", kLease - 10'000)}), true});
  c.push_back({"Variant_ReentryNoExpiryReset_FirstAcquireSetsExpiry", ModelVariant::ReentryNoExpiryReset,
               {step(acquire(kA), kT, nil())}, final_at(kT + 5, {hash_key(kLock, "A:1=1", kLease - 5)}), false});
  c.push_back({"Variant_FairNoStalePurge_StaleHeadBlocksNextWaiter", ModelVariant::FairNoStalePurge,
               with(fair_line_abc(), {step(fair_acquire(kCo, kC + 35'000), kT + 35'000, num(0))}),
               final_at(kT + 35'000, {list_key(line(), "B:1,C:1"),
                                      zset_key(deadlines(), at(kB, kC + 35'000) + "," + at(kCo, kC + 40'000))}),
               true});
  c.push_back({"Variant_FairNoStalePurge_TryOnceStillPurges", ModelVariant::FairNoStalePurge,
               with(fair_line_abc(), {step(fair_try_once(kCo, kC + 35'000), kT + 35'000, nil())}),
               final_at(kT + 35'000, {hash_key(kLock, "C:1=1", kLease)}), false});
  c.push_back({"Variant_FairSameDeadline_EveryWaiterGetsNowPlusWaitRewrittenOnPoll",
               ModelVariant::FairSameDeadline,
               {step(fair_acquire(kA, kC), kT, nil()),
                step(fair_acquire(kB, kC + 1'000), kT + 1'000, num(29'000)),
                step(fair_acquire(kCo, kC + 2'000), kT + 2'000, num(28'000)),
                step(fair_acquire(kB, kC + 3'000), kT + 3'000, num(27'000))},
               final_at(kT + 3'000, {hash_key(kLock, "A:1=1", kLease - 3'000), list_key(line(), "B:1,C:1"),
                                     zset_key(deadlines(), at(kCo, kC + 7'000) + "," + at(kB, kC + 8'000))}),
               true});
  c.push_back({"Variant_ReleaseNoPublish_ReleaseIsSilent", ModelVariant::ReleaseNoPublish,
               {step(acquire(kA), kT, nil()), step(release(kA, "r1"), kT + 100, num(1))},
               final_at(kT + 100, {string_key(latch("r1"), "1", kLatchTtl)}), true});
  c.push_back({"Variant_ReleaseNoPublish_FairReleaseIsSilent", ModelVariant::ReleaseNoPublish,
               with(fair_line_abc(), {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1))}),
               final_at(kT + 3'000, {list_key(line(), "B:1,C:1"),
                                     zset_key(deadlines(), at(kB, kC + 35'000) + "," + at(kCo, kC + 40'000)),
                                     string_key(latch("r1"), "1", kLatchTtl)}),
               true});
  c.push_back({"Variant_ReleaseNoPublish_ForceReleaseStillPublishes", ModelVariant::ReleaseNoPublish,
               {step(acquire(kA), kT, nil()), step(force_release(), kT + 100, num(1), {unlocked(channel())})},
               final_at(kT + 100, {}), false});
  // fair_line_abc, A releases at +3000 and B takes the lock at +3100, which
  // lowers C's deadline by wait_ms to kC + 35000. C polls: the old answer is
  // deadline - wait_ms - now = 30000 - (now - kC), not B's PTTL, and once C
  // polls after that estimate it is negative although B still holds the lock.
  c.push_back({"Variant_FairTtlFromDeadline_AnswerIgnoresPttlAndGoesNegative", ModelVariant::FairTtlFromDeadline,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))}),
                     step(fair_acquire(kB, kC + 3'100), kT + 3'100, nil()),
                     step(fair_acquire(kCo, kC + 3'200), kT + 3'200, num(26'800)),
                     step(fair_acquire(kCo, kC + 31'000), kT + 31'000, num(-1'000))}),
               final_at(kT + 31'000, {hash_key(kLock, "B:1=1", 2'100), list_key(line(), "C:1"),
                                      zset_key(deadlines(), at(kCo, kC + 35'000))}),
               true});
  // The absent acquire_failed answers an error and leaves the waiter in the
  // line with its slot: those behind it keep their deadlines.
  c.push_back({"Variant_FairNoAcquireFailed_LeaverStaysInTheLine", ModelVariant::FairNoAcquireFailed,
               with(fair_line_abc(), {step(fair_acquire_failed(kB), kT + 3'000, err())}),
               final_at(kT + 3'000, {hash_key(kLock, "A:1=1", kLease - 3'000), list_key(line(), "B:1,C:1"),
                                     zset_key(deadlines(), at(kB, kC + 35'000) + "," + at(kCo, kC + 40'000))}),
               true});
  // The faster multi-lock's mutants.
  c.push_back({"Variant_FasterMultiReleaseFreesEarly_FreesTheValuesBeforeOneNotTheCallers",
               ModelVariant::FasterMultiReleaseFreesEarly,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC, "1"), kT, nil()),
                step(fm_release(kA, "r1", kC + 100, "0,1"), kT + 100, nil())},
               final_at(kT + 100, {hash_key(kLock, fm_hash({{"1", kB, kC + kLease, 1}}), kLease - 100)}),
               true});
  c.push_back({"Variant_FasterMultiExpiryInverted_TakesAValueWithinItsDeadline", ModelVariant::FasterMultiExpiryInverted,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC + 1'000, "0"), kT + 1'000, nil())},
               final_at(kT + 1'000, {hash_key(kLock, fm_hash({{"0", kB, kC + 1'000 + kLease, 1}}), kLease)}),
               true});
  c.push_back({"Variant_FasterMultiExpiryInverted_APassedDeadlineRefuses", ModelVariant::FasterMultiExpiryInverted,
               {step(fm_acquire(kA, kC, "0"), kT, nil()),
                step(fm_acquire(kB, kC + kLease + 1, "0"), kT + 1'000, num(kLease - 1'000))},
               final_at(kT + 1'000, {hash_key(kLock, fm_hash({{"0", kA, kC + kLease, 1}}), kLease - 1'000)}),
               true});
  c.push_back({"Variant_FasterMultiRenewUnheld_WritesADeadlineForAnotherOwnersValue",
               ModelVariant::FasterMultiRenewUnheld,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC, "1"), kT, nil()),
                step(fm_renew(kA, kC + 10'000, "0,1"), kT + 10'000, num(1))},
               final_at(kT + 10'000,
                        {hash_key(kLock,
                                  fm_hash({{"0", kA, kC + 10'000 + kLease, 1}, {"1", kB, kC + kLease, 1}},
                                          {{value_expire_field("1", kA), std::to_string(kC + 10'000 + kLease)}}),
                                  kLease)}),
               true});
  c.push_back({"Variant_FasterMultiRenewUnheld_GoneHashStillGetsZero", ModelVariant::FasterMultiRenewUnheld,
               {step(fm_renew(kA, kC, "0"), kT, num(0))}, final_at(kT, {}), false});
  c.push_back({"Variant_FairTtlFromDeadline_EnqueueUnchanged", ModelVariant::FairTtlFromDeadline,
               fair_line_abc(),
               final_at(kT + 2'000, {hash_key(kLock, "A:1=1", kLease - 2'000), list_key(line(), "B:1,C:1"),
                                     zset_key(deadlines(), at(kB, kC + 35'000) + "," + at(kCo, kC + 40'000))}),
               false});
  return c;
}

// Design variants (alternative designs, packs in impl/variants/, never
// mutants): kept out of all_cases(), whose variant cases run on
// impl/mutants/<name>.
std::vector<ScriptCase> design_variant_cases() {
  std::vector<ScriptCase> c;
  const std::string both_waiting = "B:1,C:1";
  const std::string both_deadlines = at(kB, kC + 35'000) + "," + at(kCo, kC + 40'000);
  // A releases at +3000 and B has not come yet: C polls the free lock behind
  // B and sleeps until B's slot ends (kC + 35000), re-checking every 1 000 ms,
  // instead of polling at once.
  c.push_back({"Design_FairWaitForHead_FreeLockBehindHeadWaitsForHeadSlotEnd", ModelVariant::FairWaitForHead,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))}),
                     step(fair_acquire(kCo, kC + 3'100), kT + 3'100, num(1'000))}),
               final_at(kT + 3'100, {list_key(line(), both_waiting), zset_key(deadlines(), both_deadlines),
                                     string_key(latch("r1"), "1", kLatchTtl - 100)}),
               true});
  // The head itself takes the free lock (step 2); a waiter behind a holder
  // still gets the lock's PTTL.
  c.push_back({"Design_FairWaitForHead_HeldLockStillAnswersPttl", ModelVariant::FairWaitForHead,
               with(fair_line_abc(), {step(fair_acquire(kCo, kC + 3'000), kT + 3'000, num(27'000))}),
               final_at(kT + 3'000, {hash_key(kLock, "A:1=1", kLease - 3'000), list_key(line(), both_waiting),
                                     zset_key(deadlines(), both_deadlines)}),
               false});
  // Once the head's slot ended the purge drops it and the next waiter takes
  // the lock, as in ours.
  c.push_back({"Design_FairWaitForHead_AfterTheHeadsSlotTheNextWaiterTakesTheLock", ModelVariant::FairWaitForHead,
               with(fair_line_abc(),
                    {step(fair_release(kA, kC + 3'000, "r1"), kT + 3'000, num(1), {unlocked(waiter_channel(kB))}),
                     step(fair_acquire(kCo, kC + 3'100), kT + 3'100, num(1'000)),
                     step(fair_acquire(kCo, kC + 35'000), kT + 35'000, nil())}),
               final_at(kT + 35'000, {hash_key(kLock, "C:1=1", kLease)}),
               false});
  return c;
}

std::vector<ScriptCase> spin_cases() {
  std::vector<ScriptCase> c;
  // -- spin_release: rlock_release's steps, nothing published
  c.push_back({"SpinRelease_LatchReplaysReleasedWithoutSideEffects", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(spin_release(kA, "r1"), kT + 100, num(1)),
                step(acquire(kB), kT + 200, nil()), step(spin_release(kA, "r1"), kT + 300, num(1))},
               final_at(kT + 300, {hash_key(kLock, "B:1=1", kLease - 100),
                                   string_key(latch("r1"), "1", kLatchTtl - 200)})});
  c.push_back({"SpinRelease_NonOwnerGetsNilAndChangesNothing", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(spin_release(kB, "r1"), kT + 100, nil())},
               final_at(kT + 100, {hash_key(kLock, "A:1=1", kLease - 100)})});
  c.push_back({"SpinRelease_FreeLockGetsNil", ModelVariant::Correct,
               {step(spin_release(kA, "r1"), kT, nil())}, final_at(kT, {})});
  c.push_back({"SpinRelease_DecrementAboveZeroResetsExpiry", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT + 10, nil()),
                step(spin_release(kA, "r1", 20'000), kT + 5'000, num(0))},
               final_at(kT + 5'000, {hash_key(kLock, "A:1=1", 20'000),
                                     string_key(latch("r1"), "0", kLatchTtl)})});
  c.push_back({"SpinRelease_LastReleaseDeletesAndLatchesPublishingNothing", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(spin_release(kA, "r1"), kT + 100, num(1))},
               final_at(kT + 100, {string_key(latch("r1"), "1", kLatchTtl)})});
  c.push_back({"SpinRelease_ZeroLatchTtlFailsAfterDeleting", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(spin_release(kA, "r1", kLease, 0), kT + 100, err()),
                step(spin_release(kA, "r1", kLease, 0), kT + 200, nil())},
               final_at(kT + 200, {})});
  // -- spin_force_release
  c.push_back({"SpinForceRelease_HeldLockIsDeletedPublishingNothing", ModelVariant::Correct,
               {step(acquire(kA), kT, nil()), step(acquire(kA), kT, nil()),
                step(spin_force_release(), kT + 100, num(1))},
               final_at(kT + 100, {})});
  c.push_back({"SpinForceRelease_FreeLockGetsZero", ModelVariant::Correct,
               {step(spin_force_release(), kT, num(0))}, final_at(kT, {})});
  return c;
}

std::string fm_hash(const std::vector<FmHold>& holds, const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::pair<std::string, std::string>> fields = extra;
  for (const FmHold& h : holds) {
    fields.emplace_back(h.value, h.owner);
    fields.emplace_back(value_expire_field(h.value, h.owner), std::to_string(h.deadline_ms));
    fields.emplace_back(value_count_field(h.value, h.owner), std::to_string(h.count));
  }
  std::sort(fields.begin(), fields.end());
  std::string out;
  for (const auto& [field, value] : fields) {
    if (!out.empty()) out += ',';
    out += field + "=" + value;
  }
  return out;
}

std::vector<ScriptCase> faster_multi_cases() {
  std::vector<ScriptCase> c;
  const std::string ch = channel();
  // -- faster_multi_acquire
  c.push_back({"FasterMultiAcquire_NewHashTakesEveryValue", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil())},
               final_at(kT, {hash_key(kLock, fm_hash({{"0", kA, kC + kLease, 1}, {"1", kA, kC + kLease, 1}}), kLease)})});
  c.push_back({"FasterMultiAcquire_ReentryRaisesCountDeadlineAndExpiry", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil()), step(fm_acquire(kA, kC + 100, "0,1"), kT + 100, nil())},
               final_at(kT + 100, {hash_key(kLock,
                                            fm_hash({{"0", kA, kC + 100 + kLease, 2}, {"1", kA, kC + 100 + kLease, 2}}),
                                            kLease)})});
  c.push_back({"FasterMultiAcquire_AnotherOwnersLiveValueRefusesWithThePttl", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil()),
                step(fm_acquire(kB, kC + 1'000, "1,2"), kT + 1'000, num(kLease - 1'000))},
               final_at(kT + 1'000, {hash_key(kLock, fm_hash({{"0", kA, kC + kLease, 1}, {"1", kA, kC + kLease, 1}}),
                                              kLease - 1'000)})});
  c.push_back({"FasterMultiAcquire_DisjointValuesShareTheHash", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC + 1'000, "1,2"), kT + 1'000, nil())},
               final_at(kT + 1'000, {hash_key(kLock,
                                              fm_hash({{"0", kA, kC + kLease, 1},
                                                       {"1", kB, kC + 1'000 + kLease, 1},
                                                       {"2", kB, kC + 1'000 + kLease, 1}}),
                                              kLease)})});
  // A caller whose clock runs ahead sees the other owner's deadline passed
  // and takes that value, though the server's hash is alive (section 4b).
  c.push_back({"FasterMultiAcquire_ValuePastItsDeadlineInTheCallersClockIsTakenOver", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil()),
                step(fm_acquire(kB, kC + kLease + 1, "1,2"), kT + 1'000, nil())},
               final_at(kT + 1'000, {hash_key(kLock,
                                              fm_hash({{"0", kA, kC + kLease, 1},
                                                       {"1", kB, kC + 2 * kLease + 1, 1},
                                                       {"2", kB, kC + 2 * kLease + 1, 1}}),
                                              kLease)})});
  c.push_back({"FasterMultiAcquire_DeadlineEqualToTheCallersNowHasPassed", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC + kLease, "0"), kT + 1'000, nil())},
               final_at(kT + 1'000, {hash_key(kLock, fm_hash({{"0", kB, kC + 2 * kLease, 1}}), kLease)})});
  c.push_back({"FasterMultiAcquire_OneLiveValueRefusesThoughAnotherHasPassed", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kA, kC + 5'000, "1"), kT + 5'000, nil()),
                step(fm_acquire(kB, kC + kLease + 1, "0,1"), kT + 6'000, num(kLease - 1'000))},
               final_at(kT + 6'000, {hash_key(kLock,
                                              fm_hash({{"0", kA, kC + kLease, 1}, {"1", kA, kC + 5'000 + kLease, 1}}),
                                              kLease - 1'000)})});
  c.push_back({"FasterMultiAcquire_ShorterLeaseLeavesTheHashsExpiry", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC + 100, "1", 1'000), kT + 100, nil())},
               final_at(kT + 100, {hash_key(kLock,
                                            fm_hash({{"0", kA, kC + kLease, 1}, {"1", kB, kC + 100 + 1'000, 1}}),
                                            kLease - 100)})});
  // -- faster_multi_release
  c.push_back({"FasterMultiRelease_LastHoldFreesEveryValueAndPublishes", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil()),
                step(fm_release(kA, "r1", kC + 100, "0,1"), kT + 100, num(1), {unlocked(ch)})},
               final_at(kT + 100, {string_key(latch("r1"), "1", kLatchTtl)})});
  c.push_back({"FasterMultiRelease_OtherOwnersValuesStay", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC, "1"), kT, nil()),
                step(fm_release(kA, "r1", kC + 100, "0"), kT + 100, num(1), {unlocked(ch)})},
               final_at(kT + 100, {hash_key(kLock, fm_hash({{"1", kB, kC + kLease, 1}}), kLease - 100),
                                   string_key(latch("r1"), "1", kLatchTtl)})});
  c.push_back({"FasterMultiRelease_ReentrantHoldStaysAndItsDeadlineRises", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil()), step(fm_acquire(kA, kC, "0,1"), kT, nil()),
                step(fm_release(kA, "r1", kC + 5'000, "0,1"), kT + 5'000, num(0))},
               final_at(kT + 5'000, {hash_key(kLock,
                                              fm_hash({{"0", kA, kC + 5'000 + kLease, 1},
                                                       {"1", kA, kC + 5'000 + kLease, 1}}),
                                              kLease),
                                     string_key(latch("r1"), "0", kLatchTtl)})});
  c.push_back({"FasterMultiRelease_SomeValuesFreedOthersStillHeld", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kA, kC, "0,1"), kT, nil()),
                step(fm_release(kA, "r1", kC + 100, "0,1"), kT + 100, num(0), {unlocked(ch)})},
               final_at(kT + 100, {hash_key(kLock, fm_hash({{"0", kA, kC + 100 + kLease, 1}}), kLease),
                                   string_key(latch("r1"), "0", kLatchTtl)})});
  // A correct release checks every value before it changes any.
  c.push_back({"FasterMultiRelease_AValueNotTheCallersChangesNothing", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC, "1"), kT, nil()),
                step(fm_release(kA, "r1", kC + 100, "0,1"), kT + 100, nil())},
               final_at(kT + 100, {hash_key(kLock, fm_hash({{"0", kA, kC + kLease, 1}, {"1", kB, kC + kLease, 1}}),
                                            kLease - 100)})});
  c.push_back({"FasterMultiRelease_PastTheDeadlineInTheCallersClockChangesNothing", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil()),
                step(fm_release(kA, "r1", kC + kLease + 1, "0,1"), kT + 100, nil())},
               final_at(kT + 100, {hash_key(kLock, fm_hash({{"0", kA, kC + kLease, 1}, {"1", kA, kC + kLease, 1}}),
                                            kLease - 100)})});
  c.push_back({"FasterMultiRelease_GoneHashPublishesAndAnswersNil", ModelVariant::Correct,
               {step(fm_release(kA, "r1", kC, "0,1"), kT, nil(), {unlocked(ch)})}, final_at(kT, {})});
  c.push_back({"FasterMultiRelease_LatchReplaysWithoutSideEffects", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil()),
                step(fm_release(kA, "r1", kC + 100, "0,1"), kT + 100, num(1), {unlocked(ch)}),
                step(fm_acquire(kB, kC + 200, "0"), kT + 200, nil()),
                step(fm_release(kA, "r1", kC + 300, "0,1"), kT + 300, num(1))},
               final_at(kT + 300, {hash_key(kLock, fm_hash({{"0", kB, kC + 200 + kLease, 1}}), kLease - 100),
                                   string_key(latch("r1"), "1", kLatchTtl - 200)})});
  c.push_back({"FasterMultiRelease_ZeroLatchTtlFailsAfterFreeingAndPublishing", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()),
                step(fm_release(kA, "r1", kC + 100, "0", kLease, 0), kT + 100, err(), {unlocked(ch)}),
                step(fm_release(kA, "r1", kC + 200, "0", kLease, 0), kT + 200, nil(), {unlocked(ch)})},
               final_at(kT + 200, {})});
  // -- faster_multi_renew
  c.push_back({"FasterMultiRenew_RaisesTheDeadlinesAndTheHashsExpiry", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0,1"), kT, nil()), step(fm_renew(kA, kC + 10'000, "0,1"), kT + 10'000, num(1))},
               final_at(kT + 10'000, {hash_key(kLock,
                                               fm_hash({{"0", kA, kC + 10'000 + kLease, 1},
                                                        {"1", kA, kC + 10'000 + kLease, 1}}),
                                               kLease)})});
  c.push_back({"FasterMultiRenew_AValueNotTheCallersChangesNothing", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC, "1"), kT, nil()),
                step(fm_renew(kA, kC + 10'000, "0,1"), kT + 10'000, num(0))},
               final_at(kT + 10'000, {hash_key(kLock, fm_hash({{"0", kA, kC + kLease, 1}, {"1", kB, kC + kLease, 1}}),
                                               kLease - 10'000)})});
  c.push_back({"FasterMultiRenew_GoneHashGetsZero", ModelVariant::Correct,
               {step(fm_renew(kA, kC, "0"), kT, num(0))}, final_at(kT, {})});
  // -- faster_multi_force_release
  c.push_back({"FasterMultiForceRelease_DeletesTheGroupAndPublishes", ModelVariant::Correct,
               {step(fm_acquire(kA, kC, "0"), kT, nil()), step(fm_acquire(kB, kC, "1"), kT, nil()),
                step(fm_force_release(), kT + 100, num(1), {unlocked(ch)})},
               final_at(kT + 100, {})});
  c.push_back({"FasterMultiForceRelease_AbsentHashGetsZero", ModelVariant::Correct,
               {step(fm_force_release(), kT, num(0))}, final_at(kT, {})});
  return c;
}

// Every case: reentrant, fair, spin, faster multi, then variants.
std::vector<ScriptCase> all_cases() {
  std::vector<ScriptCase> out = reentrant_cases();
  for (auto& c : fair_cases()) out.push_back(std::move(c));
  for (auto& c : spin_cases()) out.push_back(std::move(c));
  for (auto& c : faster_multi_cases()) out.push_back(std::move(c));
  for (auto& c : variant_cases()) out.push_back(std::move(c));
  return out;
}

}  // namespace locksim::cases
