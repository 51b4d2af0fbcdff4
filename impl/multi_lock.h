// MultiLockClient: the multi-lock and the RedLock of lock-semantics.md
// section 4, over N reentrant member locks (usually one per Redis server),
// event-driven over a ClientEnv like LockClient. One MultiLockClient is one
// client process (one uuid); owner ids are "<uuid>:<task>", the same on
// every member.
//
//  try_lock(wait, lease)  members in order, each with ONE tryLock(per-lock
//                         wait, lease'): per-lock wait = the remaining wait
//                         (multi) or max(remaining / N, 1 ms) (RedLock).
//                         Failures are counted; above the failure budget
//                         (multi 0, RedLock N - (N/2 + 1)) every member
//                         touched so far is released (timed-out attempts
//                         too), and the round starts again from the first
//                         member while wait remains. RedLock stops once a
//                         majority is held. An explicit lease with a wait is
//                         first taken as 2 * wait, then every held member's
//                         expiry is reset to the lease (rlock_renew).
//  try_lock_once(lease)   no wait: one try per member; above the budget,
//                         release what was touched and give up.
//  lock(lease)            try_lock(N * kLockRoundWaitMs, lease) again until
//                         it succeeds (so an explicit lease is also first
//                         taken as 2 * that wait).
//  An acquire of a group its owner already holds fails at once ("already
//  held (no group reentry)"): re-taking the members would reset their
//  leases under the first hold.
//  unlock()               releases every member, ignoring failures: Ok
//                         (value 1), or Fail "illegal monitor state" when the
//                         client already learned the group was lost.
// Options: RedLock validity (the Redlock authors' check): time left =
// lease - elapsed - drift, drift = lease / 100 + 2 ms, elapsed on the local
// clock since the round started; not positive -> release all, give up.
// With an explicit lease, a timer on the client's monotonic clock ends the
// believed hold after the validity (Info "validity_end"; a paused client
// notices only when it resumes).
//
// History: the group operation is recorded as one operation on the group's
// name (Invoke / Ok / Fail / Info, as LockClient does); the member scripts
// are Script events carrying the group operation's op_id and op. The member
// operations themselves are not recorded. A member that the client learns is
// gone (its watchdog's hold_lost / watchdog_stop notices are kept) makes the
// group lost once fewer than N - budget members are held: Info "hold_lost"
// on the group.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "impl/client.h"
#include "impl/client_config.h"
#include "impl/client_env.h"

namespace locksim {

enum class GroupKind { Multi, RedLock };

struct GroupRef {
  std::string name;              // the group's name in the history, e.g. "lsim:L0"
  GroupKind kind = GroupKind::Multi;
  std::vector<LockSpec> members;  // in acquisition order, reentrant locks
};

struct GroupOptions {
  bool validity = false;  // RedLock: the validity check (and end of belief)
};

class MultiLockClient {
 public:
  using AcquireDone = LockClient::AcquireDone;
  using UnlockDone = std::function<void(bool released)>;
  static constexpr int64_t kLockRoundWaitMs = 1'500;  // lock(): wait per member per round
  static constexpr int kMaxRounds = 100'000;           // bound on one operation's rounds

  MultiLockClient(ClientEnv& env, ClientConfig config, GroupOptions options = {});
  ~MultiLockClient();
  MultiLockClient(const MultiLockClient&) = delete;
  MultiLockClient& operator=(const MultiLockClient&) = delete;

  void lock(int task, const GroupRef& group, int64_t lease_ms, AcquireDone done);
  void try_lock(int task, const GroupRef& group, int64_t wait_ms, int64_t lease_ms, AcquireDone done);
  void try_lock_once(int task, const GroupRef& group, int64_t lease_ms, AcquireDone done);
  void unlock(int task, const GroupRef& group, UnlockDone done);

  void on_message(const std::string& channel, const std::string& payload);
  // Every pending group operation gets Info "crashed" (op_id order).
  void crash();

  std::string owner(int task) const { return config_.client_uuid + ":" + std::to_string(task); }
  const LockClient& members_client() const { return *members_; }

  // The explorer's view (impl/digest_names.h), as LockClient::digest: the
  // member client, which member operation belongs to which group
  // operation, every pending group acquire with where it is (trying a
  // member, releasing the touched ones, resetting the leases, refusing a
  // reentry), every pending unlock, every believed hold. Nothing that
  // decides what the client does next lives outside these (callbacks
  // capture only the records fingerprinted here).
  void digest(const DigestNames& names, StateDigest* out) const;
  // The op ids its pending callbacks name (the member client's among them),
  // ascending.
  void live_op_ids(std::vector<uint64_t>* out) const;

  // Section 4's arithmetic, exposed for tests.
  static int failure_budget(GroupKind kind, int members);
  static int needed(GroupKind kind, int members) { return members - failure_budget(kind, members); }
  static int64_t per_lock_wait_ms(GroupKind kind, int members, int64_t remaining_ms);
  static int64_t drift_ms(int64_t lease_ms) { return lease_ms / 100 + 2; }
  static int64_t validity_ms(int64_t lease_ms, int64_t elapsed_ms) {
    return lease_ms - elapsed_ms - drift_ms(lease_ms);
  }

 private:
  class MemberEnv;
  struct GroupOp;  // a group acquire in flight
  struct Hold;
  struct PendingUnlock {
    std::string key;  // hold_key(owner, group)
    bool lost = false;        // the group was lost before the unlock
    size_t members_left = 0;  // member unlocks not yet answered
    UnlockDone done;
  };

  void start(int task, const GroupRef& group, int64_t wait_ms, int64_t lease_ms, bool once, bool forever,
             AcquireDone done);
  void start_round(const std::shared_ptr<GroupOp>& op);
  void try_member(const std::shared_ptr<GroupOp>& op);
  void on_member(const std::shared_ptr<GroupOp>& op, AcquireResult result);
  // budget_spent: `why` is that the wait budget ran out (else it is named as its cause).
  void round_failed(const std::shared_ptr<GroupOp>& op, const std::string& why, bool budget_spent = false);
  void acquired(const std::shared_ptr<GroupOp>& op);
  // Releases every member touched this round, then after_release().
  void release_touched(const std::shared_ptr<GroupOp>& op);
  void after_release(const std::shared_ptr<GroupOp>& op);
  void succeed(const std::shared_ptr<GroupOp>& op);
  void finish_unlock(uint64_t op_id);
  void finish(const std::shared_ptr<GroupOp>& op, EventKind kind, const OpEnding& why, AcquireResult result);
  int64_t remaining_ms(const GroupOp& op) const;
  void on_member_lost(const std::string& member, const std::string& owner);
  Event group_event(EventKind kind, locksim::Op op, uint64_t op_id, const std::string& owner,
                    const std::string& group) const;

  ClientEnv& env_;
  ClientConfig config_;
  GroupOptions options_;
  std::unique_ptr<MemberEnv> member_env_;
  std::unique_ptr<LockClient> members_;
  std::map<uint64_t, std::shared_ptr<GroupOp>> ops_;        // pending acquires by op_id
  std::map<uint64_t, PendingUnlock> unlocks_;          // pending unlocks by op_id
  std::map<std::string, std::shared_ptr<Hold>> holds_; // "owner\ngroup" -> believed hold
  bool dead_ = false;
};

}  // namespace locksim
