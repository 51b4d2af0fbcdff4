// FairLineMirror: the checker's own copy of each fair lock's waiting line,
// rebuilt from fair_* Script events, the reference the FIFO and liveness
// checkers compare the server against. Deadlines live where the server keeps
// them: in the clients' clocks (each client's clock = true time + its latest
// observed offset, from its Invoke/Ok/Fail local_ms and clock jumps), so the
// mirror purges when the server does, and a checker can ask whether a
// waiter's slot had really ended *by its own clock*.
//  - enqueue: a fair_acquire answering a wait time for an owner not in the
//    line appends it with deadline = its client's now + the answered ttl +
//    wait_ms (the server's own formula: ttl is the previous tail's deadline
//    or the lock's PTTL, minus now);
//  - purge: every fair script but acquire_failed first drops heads whose
//    deadline is <= the requesting client's now;
//  - grant: a fair_acquire / fair_try_once that makes a new owner the holder
//    removes it, lowers the others' deadlines by wait_ms, and reports the
//    waiters that were still ahead of it (the server must have purged them);
//  - acquire_failed: lowers the deadlines behind the owner, removes it;
//  - refusal: a fair_acquire that leaves the lock free without granting it,
//    while every waiter ahead of its owner is clearly stale, is flagged.
// Each owner's pending acquire is tracked so "still waiting" can be told
// from "gave up / crashed". Memory: per fair lock its line (capped at
// kMaxLine), per owner one pending operation, per client one offset.
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
  // stale_margin_ms: how far past its deadline a waiter must be before the
  // mirror calls it "clearly stale" (refused_free_lock()).
  explicit FairLineMirror(int64_t stale_margin_ms = 1000) : stale_margin_ms_(stale_margin_ms) {}

  struct Waiter {
    std::string owner;
    int client = -1;
    uint64_t enqueue_event = 0;
    int64_t enqueue_us = 0;
    int64_t deadline_ms = 0;  // slot deadline, in the clients' clock (as the server stores it)
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

  // After on_event: the event was a fair_acquire that left the lock free and
  // did not grant it although every waiter ahead of its owner (if any) was
  // clearly stale by the owner's clock: the server did not purge them.
  bool refused_free_lock() const { return refused_free_lock_; }

  // Whether `owner` has an acquire of `lock` in progress (invoked, not completed,
  // its client not crashed).
  bool is_waiting(const std::string& owner, const std::string& lock) const;
  bool is_fair(const std::string& lock) const { return lines_.count(lock) > 0; }
  // The mirrored line of `lock`, head first (nullptr if none).
  const std::deque<Waiter>* line(const std::string& lock) const {
    auto it = lines_.find(lock);
    return it == lines_.end() ? nullptr : &it->second;
  }
  // `client`'s clock at true time `true_us` (true ms if never observed).
  int64_t client_now_ms(int client, int64_t true_us) const;
  // Latest slot deadline among the waiters ahead of `owner` in the line of
  // `lock` (all waiters if `owner` is not in it), converted to true ms with
  // each waiter's own clock offset; nullopt when none.
  std::optional<int64_t> latest_deadline_ahead_ms(const std::string& lock, const std::string& owner) const;

 private:
  int64_t stale_margin_ms_;
  bool refused_free_lock_ = false;
  struct Pending {
    uint64_t op_id = 0;
    int client = -1;
    std::string lock;
  };
  std::map<std::string, std::deque<Waiter>> lines_;          // fair lock -> line
  std::map<std::string, std::vector<std::string>> holders_;  // lock -> holders after last script
  std::map<std::string, Pending> pending_;                   // owner -> acquire in progress
  std::map<int, int64_t> offset_ms_;                         // client -> local ms - true ms
};

}  // namespace locksim
