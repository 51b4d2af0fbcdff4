// ReentrancyChecker: hold counts and release ownership.
//  1. The hold count follows nested lock/unlock: per (lock, owner) the checker
//     counts successful acquires; an unlock that leaves the client count above
//     0 must answer 0 (still held) and the one that brings it to 0 must answer
//     1 (released). Counts become unknown after an acquire whose outcome is
//     unknown (timeout) until the hold ends.
//  2. A release by a non-owner changes nothing: a release script by an owner
//     that the server's last known holders (latest script on that server and
//     lock) do not include must answer nil and add no owner (a fair release on
//     an absent lock answers 1 by design, so such an answer says nothing about
//     the count); an unlock by an owner that never acquired must fail with
//     "illegal monitor state". The last known holders forget a key once its
//     expiry (from the lease of its last acquire/renewal) has passed.
//  3. A retried release (same request id) is idempotent: same reply as the
//     first, and no owner added.
// A lock whose design is not reentrant (CheckConfig::reentrant false) is
// never re-entered, so 1 is about single holds; 2 also requires that a
// non-owner's release removes no holder; 3 does not apply (such a lock
// keeps no latch: a retry may answer "not owned" after its first try
// released the lock).
// Only a server fault (a restart that lost data, a failover that rolled it
// back) or a fault of the owner's client (a retried release held back past
// its latch's lifetime) may explain a violation of 1 or 3 (FaultScope,
// properties/cause.h). A violation of 2 is a break of the script's
// contract (ViolationFacts::contract_break): its first execution answered
// "released" to, or changed the holders for, an owner that the server's own
// state at that instant did not list, which no client or network fault can
// make right; it is judged only while the holders are known (no restart or
// failover since the last script showed them), so no server fault can
// either. Its scope is empty: nothing explains it.
// After a failover the promoted replica may hold older counts: violations
// then name it as their cause.
// Memory: per (lock, owner) a count; per (server, lock) the last holders and
// the replies of its latest kRequestsPerLock release request ids; a
// HistoryContext of its own only when built without the suite's (for the
// lock id of each event).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "properties/checker.h"
#include "properties/group_hash_expiry.h"
#include "properties/history_context.h"
#include "properties/lock_table.h"
#include "properties/name_hash.h"
#include "properties/recent_ids.h"

namespace locksim {

class ReentrancyChecker : public Checker {
 public:
  static constexpr size_t kRequestsPerLock = 256;
  // shared: the suite's HistoryContext (fed by the suite); null: a private one.
  explicit ReentrancyChecker(const CheckConfig& config, const HistoryContext* shared = nullptr)
      : Checker(config), ctx_(config, shared) {}
  std::string_view name() const override { return property::kReentrancy; }
  void on_event(const Event& e) override;

 private:
  struct Count {
    int client = -1;
    int64_t count = 0;
    bool unknown = false;
  };
  struct Release {  // the first execution of a release request id
    EventReply reply;
    uint64_t event_id = 0;
    int64_t true_us = 0;
  };
  struct ServerLock {
    std::vector<std::string> holders;
    int64_t expire_at_ms = INT64_MAX;  // server ms after which the key is gone
    RecentIds<Release> releases{kRequestsPerLock};  // by request id
    bool unknown = false;  // after a failover or a restart that kept data: holders not known
  };
  void on_script(const Event& e);
  // A report on `e`'s lock and owner, citing `ids` then `e`.
  static Violation at(const Event& e, std::string message, std::vector<uint64_t> ids = {},
                      std::vector<int64_t> times = {});
  // A break of the script's contract (2 above): explained by no fault.
  void contract_break(const Event& e, std::string message);
  void violation(const Event& e, std::string message, std::vector<uint64_t> ids = {},
                 std::vector<int64_t> times = {});

  CheckerContext ctx_;  // for the lock id of each event
  // Looked up and pruned, never iterated for a report: unordered.
  std::unordered_map<std::pair<std::string, std::string>, Count, NamePairHash, NamePairEq> counts_;  // (lock, owner)
  std::unordered_map<uint64_t, ServerLock> server_;  // server_lock_key(server, context lock id)
  GroupHashExpiry group_expiry_;                     // faster multi-lock values: their hash's expiry
  std::unordered_map<uint64_t, Count> unlock_snapshots_;  // unlock op_id -> count at invoke
  std::set<uint64_t> absent_lock_releases_;                      // fair releases of an absent lock
  // Groups (multi-lock, RedLock) whose members' scripts were seen: a group's
  // unlock releases every member and ignores their failures
  // (lock-semantics.md section 4), so it answers "released" even when the
  // owner held nothing; only its members' scripts are judged.
  std::set<std::string, std::less<>> groups_;
  Blame rollback_;  // the latest failover: the cause of count mismatches after it
};

}  // namespace locksim
