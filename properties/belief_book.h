// BeliefBook: what the clients believe they hold, read once from a history
// for every consumer: the mutual-exclusion checker, the violation window and
// the timelines (properties/history_recording.h) all take their believed
// holds from here, so a drawn hold or overlap is the checker's.
//
// A believed hold of `owner` on `lock` (traces/event.h) starts at the Ok of
// an acquire with value 1 that takes the owner's count from 0 to 1, and ends
// at the Invoke of the unlock that brings the count back to 0, at a
// hold_lost or validity_end notice, or when the owner's client crashes. A
// further acquire Ok of a held owner is a reentry: the same hold, count + 1.
// A failed operation (an acquire that gave up, an unlock answered "illegal
// monitor state") neither starts nor ends a hold; an unlock of an owner that
// holds nothing changes nothing.
// Pending acquires (Invoke to its Ok, a Fail, an Info of the acquire's op, or
// the client's crash) give each hold the lease and the invoke time of the
// acquire that started it.
// Per event, after on_event(): the hold it started, with every other owner's
// hold of that lock open at that moment (the overlaps, in owner order), the
// holds it ended, and the pending acquires it closed.
// Memory: per lock its open holds, per pending acquire one record, and the
// server time of the latest grant of at most kMaxGrants (lock, owner) pairs.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "properties/event_facts.h"
#include "traces/event.h"

namespace locksim {

class BeliefBook {
 public:
  static constexpr size_t kMaxGrants = 4096;

  struct Hold {
    int client = -1;
    int64_t count = 0;
    uint64_t start_event = 0;  // the acquire Ok that started it
    int64_t start_us = 0;
    int64_t lease_ms = -1;     // of the acquire that started it, or of the latest reentry (-1: watchdog)
    int64_t granted_server_ms = INT64_MIN;  // server clock of its latest grant (explicit lease runs from it)
    int64_t invoke_us = 0;     // invoke of the acquire that started it
  };
  enum class End { Released, Lost, Crashed };
  struct Ended {
    LockRef lock;
    std::string owner;
    Hold hold;
    End how = End::Released;
  };
  struct Other {  // another owner's hold open when a hold started
    std::string owner;
    Hold hold;
  };
  struct Started {
    LockRef lock;
    OwnerId owner;
    Hold hold;
    std::vector<Other> overlapped;  // other owners' open holds of the lock, in owner order
  };
  struct PendingAcquire {
    int client = -1;
    int64_t lease_ms = -1;
    int64_t invoke_us = 0;
  };

  void on_event(const Event& e) { on_event(e, facts_of(e)); }
  void on_event(const Event& e, const EventFacts& facts);

  // After on_event: the hold the event started (an acquire Ok, not a reentry).
  const std::optional<Started>& started() const { return started_; }
  // After on_event: whether the event was a reentry (an acquire Ok of a held owner).
  bool reentered() const { return reentered_; }
  // After on_event: the holds the event ended (several for a crash).
  const std::vector<Ended>& ended() const { return ended_; }
  // After on_event: the op_ids of the pending acquires it closed (several for a crash).
  const std::vector<uint64_t>& acquires_closed() const { return acquires_closed_; }

  // The open hold of `owner` on `lock`, if any.
  const Hold* hold(const LockRef& lock, const std::string& owner) const;
  // Every open hold of `lock`, by owner.
  const std::map<std::string, Hold>* holds_of(const LockRef& lock) const;
  // Calls fn(lock, owner, hold) for every open hold, in lock then owner order.
  template <typename Fn>
  void for_each_hold(Fn&& fn) const {
    for (const auto& [lock, by_owner] : holds_)
      for (const auto& [owner, h] : by_owner) fn(lock, owner, h);
  }
  const PendingAcquire* pending(uint64_t op_id) const {
    auto it = pending_.find(op_id);
    return it == pending_.end() ? nullptr : &it->second;
  }

 private:
  void start_or_reenter(const Event& ok, int64_t lease_ms, int64_t invoke_us);

  std::map<uint64_t, PendingAcquire> pending_;                 // op_id -> acquire
  std::map<LockRef, std::map<std::string, Hold>> holds_;       // lock -> owner -> hold
  // (lock, owner) -> server ms of the latest script that granted or reentered it.
  std::map<std::pair<std::string, std::string>, int64_t> granted_server_ms_;
  std::optional<Started> started_;
  bool reentered_ = false;
  std::vector<Ended> ended_;
  std::vector<uint64_t> acquires_closed_;
};

}  // namespace locksim
