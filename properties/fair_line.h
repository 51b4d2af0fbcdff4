// FairLineMirror: the checker's own copy of each fair lock's waiting line,
// rebuilt from fair_* Script events with *true* time standing in for every
// client's clock (what the line would be with perfect clocks). It is the
// reference the FIFO and liveness checkers compare the server against:
//  - enqueue: a fair_acquire answering a wait time for an owner not in the
//    line appends it; its slot deadline is now + the answered ttl + wait_ms
//    (the server's ttl is the previous tail's deadline, or the lock's PTTL,
//    minus the enqueuer's now, so this is the slot end in the enqueuer's
//    terms, placed on true time);
//  - grant: a fair_acquire / fair_try_once that makes a new owner the holder
//    removes it, lowers the others' deadlines by wait_ms, and reports the
//    waiters that were still ahead of it (the server must have purged them);
//  - acquire_failed: lowers the deadlines behind the owner, removes it;
//  - purge: every other fair script first drops heads whose deadline is
//    more than purge_tolerance_ms in the past (the server purges them by
//    then at the latest).
// It also tracks, per owner, its pending acquire operation, so "still
// waiting" can be told from "gave up / crashed". Memory: per fair lock its
// line (capped at kMaxLine), per owner one pending operation.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "traces/event.h"

namespace locksim {

class FairLineMirror {
 public:
  static constexpr size_t kMaxLine = 4096;
  explicit FairLineMirror(int64_t purge_tolerance_ms) : purge_tolerance_ms_(purge_tolerance_ms) {}

  struct Waiter {
    std::string owner;
    int client = -1;
    uint64_t enqueue_event = 0;
    int64_t enqueue_us = 0;
    int64_t deadline_ms = 0;  // true-time slot deadline
    uint64_t op_id = 0;
  };
  struct Grant {
    std::string lock;
    std::string owner;
    int client = -1;
    uint64_t event_id = 0;
    int64_t true_us = 0;
    std::vector<Waiter> skipped;  // waiters that were ahead of `owner`, in line order
  };

  // Feeds one event. Returns the grant it made on a fair lock, if any.
  std::optional<Grant> on_event(const Event& e);

  // Whether `owner` has an acquire of `lock` in progress (invoked, not completed,
  // its client not crashed).
  bool is_waiting(const std::string& owner, const std::string& lock) const;
  bool is_fair(const std::string& lock) const { return lines_.count(lock) > 0; }
  // The mirrored line of `lock`, head first (nullptr if none).
  const std::deque<Waiter>* line(const std::string& lock) const {
    auto it = lines_.find(lock);
    return it == lines_.end() ? nullptr : &it->second;
  }
  // Latest slot deadline (true ms) among the waiters ahead of `owner` in the
  // line of `lock` (all waiters if `owner` is not in it); nullopt when none.
  std::optional<int64_t> latest_deadline_ahead_ms(const std::string& lock, const std::string& owner) const;

 private:
  int64_t purge_tolerance_ms_;
  struct Pending {
    uint64_t op_id = 0;
    int client = -1;
    std::string lock;
  };
  std::map<std::string, std::deque<Waiter>> lines_;          // fair lock -> line
  std::map<std::string, std::vector<std::string>> holders_;  // lock -> holders after last script
  std::map<std::string, Pending> pending_;                   // owner -> acquire in progress
};

}  // namespace locksim
