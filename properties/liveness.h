// LivenessChecker: waiters make progress.
//  1. A waiter with a wait budget w (lock/try_lock Invoke with wait_ms >= 0)
//     completes within w + CheckConfig::wait_slack_ms + the time its client was
//     paused meanwhile (a paused client is not blamed). Checked at completion
//     and, for waiters still pending, at finish().
//  2. No waiter stays pending on a lock the server shows free (the latest
//     script on it left no owner) for longer than free_lock_bound_ms; on a fair
//     lock it may in addition wait out the slots of the waiters ahead of it
//     (FairLineMirror, true time), since dead waiters block until purged.
//     Checked as true time advances (every second) and at finish().
//  3. Waiters are woken: a reentrant release answering 1 (released, not a
//     latch replay) publishes on the lock's wake-up channel (a pub/sub
//     design; a polling one publishes nothing, and its free-lock bound in 2
//     is its poll interval + jitter + slack: CheckConfig, with_design()).
// Causes: the sentence (blamed_fault) names the faults that can stall a
// waiter: a message its client lost, or a fault of a waiter that was ahead
// of it in a fair line (it left without acquire_failed, or was purged, and
// nobody publishes to the next one), or its own partition. Only its own
// client's faults and its lock's servers' may explain 1 and 2 (FaultScope,
// properties/cause.h): the bound already runs from the end of the slots
// ahead, which a crashed or silent waiter ahead holds at most, and a
// holder's faults keep the lock held. 3 is the protocol's: nothing explains
// it. Crashed clients' operations are dropped. Memory: per pending operation one record, per
// lock one (its waiters, "free since", recent release ids, servers), the
// fair-line mirror.
#pragma once

#include <cassert>
#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "redis/key_hash.h"
#include "properties/checker.h"
#include "properties/fair_line.h"
#include "properties/fault_log.h"
#include "properties/history_context.h"
#include "properties/recent_ids.h"

namespace locksim {

class LivenessChecker : public Checker {
 public:
  // shared: the suite's HistoryContext (fed by the suite); null: a private one.
  explicit LivenessChecker(const CheckConfig& config, const HistoryContext* shared = nullptr)
      : Checker(config), ctx_(config, shared) {}
  std::string_view name() const override { return property::kLiveness; }
  void on_event(const Event& e) override;
  void finish(int64_t end_true_us) override;

 private:
  struct PerLock;  // below
  struct Waiter {
    OwnerName owner;  // in the mirror's owner table (FairLineMirror::owner_name)
    LockRef lock;
    int client = -1;
    uint64_t invoke_event = 0;
    int64_t invoke_us = 0;
    int64_t wait_ms = -1;
    int64_t paused_at_invoke_ms = 0;
    bool free_reported = false;
    struct Ahead {
      OwnerName owner;  // the mirror's waiter's name
      int64_t since_us = 0;  // when it joined the line
      // The event that put that entry in the line: one event enqueues one
      // owner of a given client, so an equal id means the same entry
      // (compared instead of the owner string).
      uint64_t enqueue_event = 0;
    };
    // client -> a waiter seen ahead in a fair line (capped at kMaxAhead),
    // in the order first seen: a flat map (a tree node per entry was a
    // fifth of this checker's time; keeping it sorted, moving owner
    // strings, another sixth). blame() reads it by client.
    std::vector<std::pair<int, Ahead>> ahead;
    // The enqueue time of its own line entry when `ahead` was last updated.
    static constexpr int64_t kNotInLine = INT64_MIN;
    int64_t noted_enqueue_us = kNotInLine;
    size_t noted_line_pos = 0;  // its place in the line at the last note (a search hint)
    PerLock* at_lock = nullptr;  // its lock's entry of locks_ (entries stay put)
    // The other values of the same acquire (a faster multi-lock's): their
    // entries of locks_. It waits on a free lock only when all are free.
    std::vector<PerLock*> siblings{};
  };
  static constexpr size_t kMaxAhead = 16;
  void check_budget(const Waiter& w, int64_t now_us, uint64_t completion_event, bool completed);
  void check_free_waits(int64_t now_us);
  // Links w (whose Invoke is e) with the waiters invoked just before it at
  // the same instant, by the same owner, on members of the same group.
  void note_siblings(const Event& e, Waiter* w);
  void check_wake_up(const Event& e, PerLock& lock);
  void note_line_ahead(PerLock& lock, const FairLineMirror::Line& line);
  // Forgets a pending acquire (waiters_ and its lock's waiters).
  void erase_waiter(std::map<uint64_t, Waiter>::iterator it);
  // The fault that can explain why w is still waiting at now_us, or "".
  Blame blame(const Waiter& w, int64_t now_us) const;
  FaultScope scope_of(const Waiter& w) const;

  CheckerContext ctx_;
  std::map<uint64_t, Waiter> waiters_;  // op_id -> pending acquire (reports go in op_id order)
  static constexpr size_t kReleaseIdsPerLock = 256;
  // Per lock: its pending acquires, what note_line_ahead last saw of its
  // line, whether the server shows it free, recent release ids, servers.
  struct PerLock {
    std::vector<Waiter*> waiters;  // its entries of waiters_, in no particular order (map nodes stay put)
    // The line's version when note_line_ahead last ran, and whether an
    // acquire of the lock began since. The same version and no new waiter:
    // nothing new to note (this was the checker's hottest loop).
    uint64_t noted_line_version = 0;  // FairLineMirror::line_version() at the note
    bool new_waiter = true;
    bool free = false;                // the server showed it free since free_since_us (event free_event)
    int64_t free_since_us = 0;
    uint64_t free_event = 0;
    RecentIds<> release_ids{kReleaseIdsPerLock};  // recent release request ids
    std::set<int> servers;                          // servers its scripts ran on
  };
  // note_line_ahead's scratch: client -> 1 + place in a waiter's `ahead`
  // (0: absent); all zero between scans.
  std::vector<uint32_t> ahead_index_;
  uint32_t& ahead_index(int client) {
    assert(client >= 0);
    const auto at = static_cast<size_t>(client);
    if (at >= ahead_index_.size()) ahead_index_.resize(at + 1, 0);
    return ahead_index_[at];
  }
  // Indexed by the context's lock id (no name hashed here).
  PerLockId<PerLock> locks_;
  int64_t last_scan_us_ = 0;
  // The acquire whose values note_siblings() links: its waiters so far
  // (entries of waiters_, which are erased only after their acquire ends),
  // and the last Invoke's id, instant and client.
  std::vector<Waiter*> siblings_;
  uint64_t siblings_event_ = 0;
  int64_t siblings_us_ = 0;
  int siblings_client_ = -1;
};

}  // namespace locksim
