// MutualExclusionChecker: in true time, no two owners' *believed* holds of a
// lock overlap. A believed hold runs from the Ok of the acquire that takes the
// client's hold count from 0 to 1 until the Invoke of the unlock that brings it
// back to 0, a hold_lost notice, or the owner's client crashing (traces/event.h);
// the holds are the history context's BeliefBook (properties/belief_book.h),
// the reading the timelines draw too: each hold that starts while another
// owner's is open is one overlap, reported here.
// Multi-locks and RedLocks (impl/multi_lock.h) are judged per group: the
// group operation's events carry the group's name, and a RedLock hold with
// the validity check also ends at its "validity_end" notice. Server faults
// are blamed only on the servers the lock (or its group's members,
// "<group>@<server>") was seen on, from the acquire's invoke on.
// On an overlap it names both holds (owners, acquire event ids, true times)
// and blames the fault that made it possible, from each client's recent faults
// (e.g. "client 3 paused 41 000 ms > lease 30 000 ms"). What may explain it
// (FaultScope, properties/cause.h): faults of the two clients (no crash: a
// crash ends its process's beliefs) and of the lock's servers since the
// earlier holder asked for it.
// A forward server clock jump is blamed only when it came after the earlier
// holder's latest lease reset on that server (a granting acquire or a
// renewal that answered 1: a reset after the jump starts a whole lease on
// the jumped clock), the largest such jump first.
// Memory: per lock the servers its scripts ran on and its latest server time;
// per lock or group the latest lease resets of its last kResetOwners
// (owner, server) pairs; per lock its latest force-unlock (the holds are the
// BeliefBook's).
#pragma once

#include <map>
#include <set>
#include <utility>
#include <string>
#include <unordered_map>
#include <vector>

#include "redis/key_hash.h"
#include "properties/belief_book.h"
#include "properties/checker.h"
#include "properties/fault_log.h"
#include "properties/history_context.h"
#include "properties/lock_table.h"

namespace locksim {

class MutualExclusionChecker : public Checker {
 public:
  // shared: the suite's HistoryContext (fed by the suite); null: a private one.
  explicit MutualExclusionChecker(const CheckConfig& config, const HistoryContext* shared = nullptr)
      : Checker(config), ctx_(config, shared) {}
  std::string_view name() const override { return property::kMutualExclusion; }
  void on_event(const Event& e) override;

 private:
  using Hold = BeliefBook::Hold;
  struct ForceUnlock {
    uint64_t event_id = 0;
    int64_t true_us = 0;
    int client = -1;
  };

  Blame blame(const Hold& earlier, const std::string& owner, const std::string& lock, int64_t now_us) const;
  Blame blame_server(const Hold& earlier, const std::string& owner, const std::string& lock,
                           int64_t now_us) const;

  // A lease reset on one server: a granting acquire or a renewal that
  // answered 1, by `owner`.
  struct LeaseReset {
    std::string owner;
    int server = -1;
    int64_t true_us = 0;
  };
  static constexpr size_t kResetOwners = 8;
  // A lock or group: the servers its scripts ran on, and the latest lease
  // reset of each of the last kResetOwners (owner, server) pairs.
  struct Group {
    std::set<int> servers;
    std::vector<LeaseReset> resets;  // at most kResetOwners, oldest first
  };
  static void note_reset(Group* group, const std::string& owner, int server, int64_t true_us);

  CheckerContext ctx_;
  std::map<std::string, ForceUnlock> last_force_unlock_;       // lock -> latest
  // Lock or group -> its Group (looked up, never iterated).
  std::unordered_map<std::string, Group, KeyHash> groups_;
  // Per lock (the context's id): server ms of its latest script, and its
  // entry of groups_ (nodes stay put).
  struct LockInfo {
    bool script_seen = false;
    int64_t server_ms = 0;
    Group* group = nullptr;
  };
  PerLockId<LockInfo> lock_info_;
};

}  // namespace locksim
