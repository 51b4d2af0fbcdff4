#include "model/script_branches.h"

#include <array>
#include <cassert>

namespace locksim {

namespace {

struct BranchInfo {
  const char* name;
  const char* words;
  std::optional<ScriptKind> script;
};

constexpr std::array<BranchInfo, kScriptBranchCount> kBranches = {{
    {"rlock_acquire:free", "rlock_acquire granted a free lock", ScriptKind::RlockAcquire},
    {"rlock_acquire:reentry", "rlock_acquire raised its owner's hold count (reentrant)", ScriptKind::RlockAcquire},
    {"rlock_acquire:held", "rlock_acquire found the lock held by another owner and answered its PTTL", ScriptKind::RlockAcquire},
    {"rlock_release:latch", "rlock_release answered a repeated request from its latch", ScriptKind::RlockRelease},
    {"rlock_release:not_owner", "rlock_release refused a caller that does not hold the lock (nil)", ScriptKind::RlockRelease},
    {"rlock_release:still_held", "rlock_release lowered a reentrant hold count that stays above 0", ScriptKind::RlockRelease},
    {"rlock_release:released", "rlock_release deleted the lock and published the wake-up", ScriptKind::RlockRelease},
    {"rlock_renew:renewed", "rlock_renew extended its owner's lease", ScriptKind::RlockRenew},
    {"rlock_renew:refused", "rlock_renew refused: the caller no longer holds the lock", ScriptKind::RlockRenew},
    {"rlock_force_release:deleted", "rlock_force_release deleted a held lock", ScriptKind::RlockForceRelease},
    {"rlock_force_release:absent", "rlock_force_release found no lock to delete", ScriptKind::RlockForceRelease},
    {"purge:popped", "a fair script's purge removed a stale head from the line", std::nullopt},
    {"purge:live_head", "a fair script's purge stopped at a head whose slot is still open", std::nullopt},
    {"purge:no_deadline", "a fair script's purge stopped at a head that has no deadline", std::nullopt},
    {"purge:empty", "a fair script's purge found the line empty", std::nullopt},
    {"fair_acquire:free_line", "fair_acquire granted a free lock with an empty line", ScriptKind::FairAcquire},
    {"fair_acquire:head", "fair_acquire granted the lock to the head of the line", ScriptKind::FairAcquire},
    {"fair_acquire:behind_head", "fair_acquire found the lock free but another owner heading the line", ScriptKind::FairAcquire},
    {"fair_acquire:reentry", "fair_acquire raised its owner's hold count (reentrant)", ScriptKind::FairAcquire},
    {"fair_acquire:waiting", "fair_acquire answered a waiter already in line", ScriptKind::FairAcquire},
    {"fair_acquire:enqueue_after", "fair_acquire put a new waiter in line behind a waiter with a deadline", ScriptKind::FairAcquire},
    {"fair_acquire:enqueue_first", "fair_acquire put a new waiter in line with the lock's PTTL as its wait", ScriptKind::FairAcquire},
    {"fair_try_once:free_line", "fair_try_once granted a free lock with an empty line", ScriptKind::FairTryOnce},
    {"fair_try_once:head", "fair_try_once granted the lock to the head of the line", ScriptKind::FairTryOnce},
    {"fair_try_once:reentry", "fair_try_once raised its owner's hold count (reentrant)", ScriptKind::FairTryOnce},
    {"fair_try_once:not_acquired", "fair_try_once did not get the lock (1)", ScriptKind::FairTryOnce},
    {"fair_release:latch", "fair_release answered a repeated request from its latch", ScriptKind::FairRelease},
    {"fair_release:free_notify", "fair_release found the lock gone and woke the line's head", ScriptKind::FairRelease},
    {"fair_release:free_no_waiter", "fair_release found the lock gone and nobody in line", ScriptKind::FairRelease},
    {"fair_release:not_owner", "fair_release refused a caller that does not hold the lock (nil)", ScriptKind::FairRelease},
    {"fair_release:still_held", "fair_release lowered a reentrant hold count that stays above 0", ScriptKind::FairRelease},
    {"fair_release:released_notify", "fair_release deleted the lock and woke the line's head", ScriptKind::FairRelease},
    {"fair_release:released_no_waiter", "fair_release deleted the lock with nobody in line", ScriptKind::FairRelease},
    {"fair_force_release:deleted_notify", "fair_force_release deleted a held lock and woke the line's head", ScriptKind::FairForceRelease},
    {"fair_force_release:deleted_no_waiter", "fair_force_release deleted a held lock with nobody in line", ScriptKind::FairForceRelease},
    {"fair_force_release:absent", "fair_force_release found no lock to delete", ScriptKind::FairForceRelease},
    {"fair_acquire_failed:with_followers", "fair_acquire_failed removed a waiter that had waiters behind it", ScriptKind::FairAcquireFailed},
    {"fair_acquire_failed:last", "fair_acquire_failed removed the last waiter of the line", ScriptKind::FairAcquireFailed},
    {"fair_acquire_failed:not_in_line", "fair_acquire_failed found its owner no longer in line", ScriptKind::FairAcquireFailed},
    {"spin_release:latch", "spin_release answered a repeated request from its latch", ScriptKind::SpinRelease},
    {"spin_release:not_owner", "spin_release refused a caller that does not hold the lock (nil)", ScriptKind::SpinRelease},
    {"spin_release:still_held", "spin_release lowered a reentrant hold count that stays above 0", ScriptKind::SpinRelease},
    {"spin_release:released", "spin_release deleted the lock, publishing nothing", ScriptKind::SpinRelease},
    {"spin_force_release:deleted", "spin_force_release deleted a held lock", ScriptKind::SpinForceRelease},
    {"spin_force_release:absent", "spin_force_release found no lock to delete", ScriptKind::SpinForceRelease},
    {"faster_multi_acquire:new", "faster_multi_acquire created the group's hash", ScriptKind::FasterMultiAcquire},
    {"faster_multi_acquire:granted", "faster_multi_acquire granted values that were free or the caller's", ScriptKind::FasterMultiAcquire},
    {"faster_multi_acquire:took_expired", "faster_multi_acquire took over a value whose owner's deadline had passed (caller's clock)", ScriptKind::FasterMultiAcquire},
    {"faster_multi_acquire:refused", "faster_multi_acquire found a value of another owner within its deadline and answered the PTTL", ScriptKind::FasterMultiAcquire},
    {"faster_multi_release:latch", "faster_multi_release answered a repeated request from its latch", ScriptKind::FasterMultiRelease},
    {"faster_multi_release:gone", "faster_multi_release found the group's hash gone (published, nil)", ScriptKind::FasterMultiRelease},
    {"faster_multi_release:not_owned", "faster_multi_release found a value not the caller's or past its deadline and changed nothing (nil)", ScriptKind::FasterMultiRelease},
    {"faster_multi_release:still_held", "faster_multi_release left a value with a hold count above 0", ScriptKind::FasterMultiRelease},
    {"faster_multi_release:released", "faster_multi_release freed every value it was given", ScriptKind::FasterMultiRelease},
    {"faster_multi_renew:renewed", "faster_multi_renew raised the caller's deadlines and the hash's expiry", ScriptKind::FasterMultiRenew},
    {"faster_multi_renew:refused", "faster_multi_renew found no value held by the caller", ScriptKind::FasterMultiRenew},
    {"faster_multi_force_release:deleted", "faster_multi_force_release deleted the group's hash", ScriptKind::FasterMultiForceRelease},
    {"faster_multi_force_release:absent", "faster_multi_force_release found no hash to delete", ScriptKind::FasterMultiForceRelease},
}};

}  // namespace

const char* script_branch_name(ScriptBranch b) {
  const auto i = static_cast<size_t>(b);
  assert(i < kBranches.size());
  return kBranches[i].name;
}

const char* script_branch_words(ScriptBranch b) {
  const auto i = static_cast<size_t>(b);
  assert(i < kBranches.size());
  return kBranches[i].words;
}

std::optional<ScriptBranch> script_branch_from_name(std::string_view name) {
  for (size_t i = 0; i < kBranches.size(); ++i)
    if (name == kBranches[i].name) return static_cast<ScriptBranch>(i);
  return std::nullopt;
}

std::vector<ScriptBranch> all_script_branches() {
  std::vector<ScriptBranch> out;
  for (int i = 0; i < kScriptBranchCount; ++i) out.push_back(static_cast<ScriptBranch>(i));
  return out;
}

std::optional<ScriptKind> script_of_branch(ScriptBranch b) {
  const auto i = static_cast<size_t>(b);
  assert(i < kBranches.size());
  return kBranches[i].script;
}

std::vector<std::string> script_branch_names(uint64_t mask) {
  std::vector<std::string> out;
  for (int i = 0; i < kScriptBranchCount; ++i)
    if ((mask >> i) & 1) out.emplace_back(kBranches[static_cast<size_t>(i)].name);
  return out;
}

}  // namespace locksim
