// BusyPollChecker: a waiter must not hammer the server. A waiting acquire
// (lock / try_lock) that runs its acquire script more than
// CheckConfig::max_polls_per_second times (20 for a pub/sub lock; for a
// polling design what its declared interval allows) within one second of
// true time, continuously for longer than kMinStormMs, is reported once per
// operation with its poll count and rate.
// A group operation (multi-lock, RedLock) polls its members, each on its own
// server: each member's polls are counted apart.
// On a fair lock the report names the head of the line it is spinning
// behind (server truth from line_after, trace version 2) and what became of
// that head: crashed, gave up, or still waiting; the cause is the head's
// fault when there is one.
// A spin lock's waiter (CheckConfig::wake.mode Backoff) is also held to its
// back-off attempt by attempt: its attempt k must come at least a quarter of
// backoff_min_elapsed_ms(k) after its invoke (the sum of the smallest
// sleeps before it; a quarter leaves room for a client clock that runs
// fast, a jump that cuts one sleep short and a delayed first request), or
// it is reported once, as soon as it is seen (a back-off that does not grow
// shows within a few attempts, long before a storm would).
// busy_poll is advisory: campaigns report it in every summary but fail on it
// only when asked (--fail-on busy_poll); see is_advisory_property().
// Memory: per pending acquire the poll times of the last second (at most
// max_polls_per_second + 1 kept, older ones counted), per owner its client and
// its latest acquire outcome.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include <unordered_map>

#include "redis/key_hash.h"
#include "properties/checker.h"
#include "properties/fault_log.h"
#include "properties/history_context.h"

namespace locksim {

class BusyPollChecker : public Checker {
 public:
  static constexpr int64_t kMinStormMs = 1000;

  // shared: the suite's HistoryContext (fed by the suite); null: a private one.
  explicit BusyPollChecker(const CheckConfig& config, const HistoryContext* shared = nullptr)
      : Checker(config), ctx_(config, shared) {}
  std::string_view name() const override { return property::kBusyPoll; }
  void on_event(const Event& e) override;

 private:
  struct Window {
    // Poll times within the last second: window_us[window_head..]. A vector
    // read from a moving head (a std::deque allocated two blocks for every
    // acquire, polled or not); compacted once the head passes half of it.
    std::vector<int64_t> window_us;
    size_t window_head = 0;
    size_t window_size() const { return window_us.size() - window_head; }
    int64_t storm_start_us = -1;    // first poll of the current dense stretch
    uint64_t storm_first_event = 0;
    int64_t storm_polls = 0;
  };
  struct Waiting {
    std::string owner;
    LockRef lock;
    int client = -1;
    uint64_t invoke_event = 0;
    int64_t invoke_us = 0;
    Window own;  // its polls of its own lock
    int64_t attempts = 0;         // of its own lock (a spin waiter's back-off)
    bool backoff_reported = false;
    // A multi-lock or RedLock operation polls each member on its own
    // server: each member's polls are judged apart (by member name).
    std::vector<std::pair<std::string, Window>> members;
    bool reported = false;
  };
  struct OwnerFate {                // what became of an owner's latest acquire
    int client = -1;
    std::string how;                // "" while pending; "gave up", "acquired", ... (words of a sentence)
    uint64_t event_id = 0;
    int64_t true_us = 0;
    bool crashed = false;           // its client crashed while it waited (how: "crashed")
  };
  void on_poll(const Event& e, Waiting& waiting);
  // A spin waiter's attempt on its own lock against its back-off.
  void on_spin_attempt(const Event& e, Waiting& waiting);
  // The head of the line a poll waits behind, and what became of it.
  struct Head {
    std::string text;           // ", behind <head> ..." for the message ("" when no line is known)
    std::string owner;          // the head's owner ("" when none is named)
    std::string cause;          // the head's fault, for blamed_fault ("" when none)
    uint64_t fault_event = 0;   // the event both name for it (0: none)
  };
  Head describe_head(const Event& e) const;

  CheckerContext ctx_;
  // Looked up and pruned, never iterated for a report: unordered.
  std::unordered_map<uint64_t, Waiting> waiting_;                // op_id -> pending acquire
  std::unordered_map<std::string, OwnerFate, KeyHash> owners_;   // owner -> latest acquire's fate
};

}  // namespace locksim
