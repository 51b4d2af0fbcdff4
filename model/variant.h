// ModelVariant: which version of the lock scripts the model runs. `Correct` is
// lock-semantics.md sections 2-3 exactly (see model/scripts.h for the precise
// command sequence of each script). The other variants are of two sorts:
//  - mutants: deliberately broken scripts (historical bugs), each mirrored by
//    a Lua mutant pack in impl/mutants/<name>/ and run by `locksim mutants`;
//  - design variants (is_design_variant()): alternative designs offered as an
//    opt-in, not bugs, each mirrored by a pack in impl/variants/<name>/; they
//    are never listed or run as mutants (mutant_variants() leaves them out).
// The model and the pack must behave identically (same replies, same writes,
// same publishes, in the same order), so each variant is specified here
// exactly. A variant changes only the scripts it names; all others run as
// Correct.
//
// RenewNoOwnerCheck (rlock_renew; also the fair lock's watchdog):
//     return PEXPIRE(lock, lease_ms)
//   i.e. 1 if the lock key exists (whoever holds it; lease_ms <= 0 deletes it),
//   0 if it does not. The owner field is never looked at.
//
// ReleaseNoOwnerCheck (rlock_release only; fair_release stays Correct):
//   step 2 (owner check) is skipped:
//     1. latch exists -> return its integer value.
//     2. n = HINCRBY(lock, owner, -1)   -- creates the hash / field if missing
//     3. n > 0 -> PEXPIRE(lock, lease_ms); SET latch "0" PX latch_ttl_ms; return 0
//     4. else  -> DEL(lock); PUBLISH(channel, message); SET latch "1" PX latch_ttl_ms; return 1
//   So a non-owner's release of a held lock decrements nothing of the holder's
//   but creates its own field at -1 and then deletes the whole lock (and a
//   release of a free lock creates and deletes it, and publishes).
//
// ReentryNoExpiryReset (rlock_acquire only; fair_acquire stays Correct):
//     lock absent          -> HINCRBY(lock, owner, 1); PEXPIRE(lock, lease_ms); return nil
//     lock has field owner -> HINCRBY(lock, owner, 1); return nil   (expiry NOT reset)
//     else                 -> return PTTL(lock)
//
// FairNoStalePurge (fair_acquire only): step 1 (purge stale waiters) is skipped;
//   steps 2-5 unchanged. fair_try_once, fair_release and fair_force_release
//   still purge.
//
// FairSameDeadline (fair_acquire only): every waiter gets deadline
//   now_ms + wait_ms, rewritten on every poll; the previous waiter's deadline
//   is ignored. Steps 1-3 unchanged; then
//     4'. owner has a deadline -> ZADD(deadlines, now_ms + wait_ms, owner);
//         return max(0, PTTL(lock))
//     5'. ttl = PTTL(lock); if ZADD(deadlines, now_ms + wait_ms, owner) == 1
//         then RPUSH(line, owner); return ttl
//
// ReleaseNoPublish (rlock_release and fair_release): every PUBLISH of the
//   release scripts is left out; everything else unchanged. The
//   force_release scripts still publish.
//
// FairTtlFromDeadline (fair_acquire only): the older step-4 answer, an
//   estimate of when the slot of the waiter ahead ends. Steps 1-3 and 5
//   unchanged; then
//     4'. d = ZSCORE(deadlines, owner); if d != nil:
//           return d - wait_ms - now_ms   (a double, truncated toward zero;
//                                          no PTTL call)
//   Grants lower every deadline by wait_ms, and a waiter polling after its
//   estimate ran out gets a negative answer, so lock() then waits for a
//   wake-up message with no time limit (lock-semantics.md section 3).
//
// FairNoAcquireFailed (fair_acquire_failed only): the script is absent, as
//   in a version that has none (its pack marks it "absent": true): every call
//   answers absent_script_reply() (an error the pack declares, so not a
//   script failure) and touches nothing. A waiter that gives up stays in the
//   line until its slot ends (a ghost waiter).
//
// FairWaitForHead (design variant; fair_acquire only): a waiter that polls
//   while the lock is free but someone else heads the line sleeps until the
//   head's slot ends instead of polling again at once (the current answer, 0,
//   makes every waiter behind a vanished head poll once per round trip until
//   that slot ends). Steps 1-3 and 5 unchanged; then
//     4''. if ZSCORE(deadlines, owner) != nil:
//            if EXISTS(lock) == 0:
//              head = LINDEX(line, 0)
//              if head != nil and head != owner
//                 and (h = ZSCORE(deadlines, head)) != nil:
//                return min(kWaitForHeadRecheckMs, max(0, h - now_ms))
//                                             (a double, truncated toward zero)
//   The re-check bound is needed: a grant lowers every slot behind the
//   grantee and wakes only the new head, so a waiter sleeping to the end of
//   an earlier head's slot can sleep on long after a dead waiter that became
//   head has timed out (a liveness failure at safe fair seed 5593 without it).
//            return max(0, PTTL(lock))
//   The purge just ran, so h > now_ms unless the head has no deadline (then
//   the answer is the current one, 0). Deadlines are the clients' clocks.
//
// FasterMultiReleaseFreesEarly (faster_multi_release only): steps 3 and 4
//   are one loop, as the original library's release: for v in values:
//     d = HGET(lock, E(v, owner)); if d == nil or d < now_ms: return nil
//     (the values before v are already given back, nothing published, no latch)
//     then v's step 4. Steps 1, 2 and 5 unchanged.
//
// FasterMultiExpiryInverted (faster_multi_acquire only): step 1 compares the
//   other owner's deadline the wrong way round: it refuses when
//   now_ms >= d (the deadline has passed) and takes a value whose deadline
//   is still ahead. Steps 2-3 unchanged.
//
// FasterMultiRenewUnheld (faster_multi_renew only): no ownership check:
//   if EXISTS(lock) == 0 or values is empty: return 0
//   for v in values: raise(E(v, owner))   (also values another owner holds)
//   PEXPIRE(lock, lease_ms); return 1
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace locksim {

// FairWaitForHead: the longest sleep it answers behind another head.
inline constexpr int64_t kWaitForHeadRecheckMs = 1000;

enum class ModelVariant {
  Correct,
  RenewNoOwnerCheck,
  ReleaseNoOwnerCheck,
  ReentryNoExpiryReset,
  FairNoStalePurge,
  FairSameDeadline,
  ReleaseNoPublish,
  FairTtlFromDeadline,
  FairNoAcquireFailed,
  FairWaitForHead,  // design variant
  FasterMultiReleaseFreesEarly,
  FasterMultiExpiryInverted,
  FasterMultiRenewUnheld,
};

// Stable snake_case names: "correct", "renew_no_owner_check",
// "release_no_owner_check", "reentry_no_expiry_reset", "fair_no_stale_purge",
// "fair_same_deadline", "release_no_publish", "fair_ttl_from_deadline",
// "fair_no_acquire_failed", "fair_wait_for_head",
// "faster_multi_release_frees_early", "faster_multi_expiry_inverted",
// "faster_multi_renew_unheld".
std::string_view variant_name(ModelVariant variant);
std::optional<ModelVariant> variant_from_name(std::string_view name);
std::vector<ModelVariant> all_variants();  // Correct first, then declaration order

// An alternative design (pack in impl/variants/), not a mutant.
bool is_design_variant(ModelVariant variant);
// The faster multi-lock's mutants (section 4b of lock-semantics.md).
bool is_faster_multi_mutant(ModelVariant variant);
// The script mutants: all_variants() without Correct and the design variants.
std::vector<ModelVariant> mutant_variants();
// Those of the faster multi-lock (their campaigns run --lock faster_multi).
std::vector<ModelVariant> faster_multi_mutant_variants();
// The design variants, in declaration order.
std::vector<ModelVariant> design_variants();

}  // namespace locksim
