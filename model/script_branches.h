// ScriptBranch: every branch the model's scripts (model/scripts.h) can take,
// by a stable name "<script>:<branch>", so that a run can say which ones it
// exercised (coverage) and a report which ones it never did. One execution
// takes one or more of them: its own outcome, plus the purge's steps for the
// fair scripts that purge. A set of branches is a 64-bit mask
// (branch_bit()); ExecResult::branches carries one per execution.
//
// The names follow scripts.h's steps:
//   rlock_acquire:        free (granted, the lock was absent), reentry (the
//                         owner's count raised), held (answered the PTTL)
//   rlock_release:        latch (a repeated request answered from its latch),
//                         not_owner (nil), still_held (count lowered, > 0),
//                         released (deleted and published)
//   rlock_renew:          renewed (1), refused (0)
//   rlock_force_release:  deleted (1), absent (0)
//   purge:                popped (a stale head removed), live_head (stopped
//                         at a head whose deadline is ahead), no_deadline
//                         (stopped at a head without a deadline), empty
//                         (stopped at an empty line)
//   fair_acquire:         free_line (granted: lock and line empty), head
//                         (granted to the line's head), behind_head (lock
//                         free but another owner heads the line), reentry,
//                         waiting (step 4: already in line), enqueue_after
//                         (step 5: behind a waiter with a deadline),
//                         enqueue_first (step 5: the PTTL answered)
//   fair_try_once:        free_line, head, reentry, not_acquired
//   fair_release:         latch, free_notify (the lock was gone: the head
//                         woken), free_no_waiter, not_owner, still_held,
//                         released_notify, released_no_waiter
//   fair_force_release:   deleted_notify, deleted_no_waiter, absent
//   fair_acquire_failed:  with_followers (left a line with waiters behind),
//                         last (left the line's tail), not_in_line
//   spin_release:         latch, not_owner, still_held, released (deleted,
//                         nothing published)
//   spin_force_release:   deleted, absent
//   faster_multi_acquire: new (the group's hash was absent), granted (every
//                         value free or the caller's), took_expired (a
//                         value whose other owner's deadline had passed was
//                         taken over), refused (answered the PTTL)
//   faster_multi_release: latch, gone (the hash was absent: published, nil),
//                         not_owned (a value not the caller's or past its
//                         deadline: nil, nothing changed), still_held (a
//                         value kept a hold), released (every value freed)
//   faster_multi_renew:   renewed (1), refused (0: no value the caller's)
//   faster_multi_force_release: deleted (1), absent (0)
// A mutant (model/variant.h) records the branch its changed step stands in
// for (a renewal without owner check: renewed or refused by its reply).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/script_call.h"

namespace locksim {

enum class ScriptBranch : uint8_t {
  RlockAcquireFree, RlockAcquireReentry, RlockAcquireHeld,
  RlockReleaseLatch, RlockReleaseNotOwner, RlockReleaseStillHeld, RlockReleaseReleased,
  RlockRenewRenewed, RlockRenewRefused,
  RlockForceReleaseDeleted, RlockForceReleaseAbsent,
  PurgePopped, PurgeLiveHead, PurgeNoDeadline, PurgeEmpty,
  FairAcquireFreeLine, FairAcquireHead, FairAcquireBehindHead, FairAcquireReentry, FairAcquireWaiting,
  FairAcquireEnqueueAfter, FairAcquireEnqueueFirst,
  FairTryOnceFreeLine, FairTryOnceHead, FairTryOnceReentry, FairTryOnceNotAcquired,
  FairReleaseLatch, FairReleaseFreeNotify, FairReleaseFreeNoWaiter, FairReleaseNotOwner, FairReleaseStillHeld,
  FairReleaseReleasedNotify, FairReleaseReleasedNoWaiter,
  FairForceReleaseDeletedNotify, FairForceReleaseDeletedNoWaiter, FairForceReleaseAbsent,
  FairAcquireFailedWithFollowers, FairAcquireFailedLast, FairAcquireFailedNotInLine,
  SpinReleaseLatch, SpinReleaseNotOwner, SpinReleaseStillHeld, SpinReleaseReleased,
  SpinForceReleaseDeleted, SpinForceReleaseAbsent,
  FasterMultiAcquireNew, FasterMultiAcquireGranted, FasterMultiAcquireTookExpired, FasterMultiAcquireRefused,
  FasterMultiReleaseLatch, FasterMultiReleaseGone, FasterMultiReleaseNotOwned, FasterMultiReleaseStillHeld,
  FasterMultiReleaseReleased,
  FasterMultiRenewRenewed, FasterMultiRenewRefused,
  FasterMultiForceReleaseDeleted, FasterMultiForceReleaseAbsent,
};
inline constexpr int kScriptBranchCount = 58;
static_assert(kScriptBranchCount <= 64, "a set of branches is a 64-bit mask");

inline constexpr uint64_t branch_bit(ScriptBranch b) { return uint64_t{1} << static_cast<unsigned>(b); }

// "rlock_acquire:free", ...
const char* script_branch_name(ScriptBranch b);
// The branch in words: "rlock_acquire granted a free lock".
const char* script_branch_words(ScriptBranch b);
std::optional<ScriptBranch> script_branch_from_name(std::string_view name);
// Every branch, in declaration order.
std::vector<ScriptBranch> all_script_branches();
// The script a branch belongs to; nullopt for the purge's (every fair
// script but fair_acquire_failed runs it).
std::optional<ScriptKind> script_of_branch(ScriptBranch b);
// The names of the branches in `mask`, in declaration order.
std::vector<std::string> script_branch_names(uint64_t mask);

}  // namespace locksim
