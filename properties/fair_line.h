// FairLineMirror: the checker's own copy of each fair lock's waiting line,
// the reference the FIFO and liveness checkers compare the server against.
//
// Exact mode (trace version 2): a fair Script event with line_known carries
// the server's line after it (owners and deadlines) and, in local_ms, the
// `now_ms` the client sent. The mirror then takes the line as it is, with
// exact deadlines, and judges each script by comparing the line before it
// with the line after it: who was removed (purged, granted, left), who was
// added, whether the granted owner had live waiters ahead of it, and whether
// a stale head survived a script that purges. It never relies on reply
// values, so packs with other reply conventions are judged alike.
//
// Bounds mode (version 1 traces, no line_after): the line is rebuilt from
// fair_* Script events as described below.
//
// What the history does not show: the `now_ms` a fair script was given (the
// requesting client's clock when it *sent* the request, not when it arrived)
// and therefore the exact slot deadlines. The mirror never guesses them: it
// keeps *bounds*, and everything it claims holds for every value inside them.
//  - now bounds of a script (client clock, ms): at most the client's clock at
//    arrival; at least the clock at the operation's Invoke (exact, local_ms),
//    at the arrival of the previous poll of the same acquire (polls are
//    sequential), and, while the acquire is still pending and its client was
//    not paused, at arrival minus the request timeout (an older request would
//    have timed out first). Clocks between observations (Invoke/Ok/Fail/
//    Info/Deliver local_ms, clock jumps) are bounded with +-2 ms rounding and
//    kMaxDriftPpm drift. An unobserved client's clock is unbounded.
//  - deadline bounds (client clock, ms): enqueue sets now + ttl + wait_ms from
//    the reply (the reply is ttl truncated toward zero: +-1 ms) and, when the
//    line's tail is known to be on the server, exactly tail deadline + wait_ms;
//    a grant lowers every other deadline by the grantee's wait_ms, exactly;
//    acquire_failed lowers those behind the leaver by the leaver's wait_ms
//    (only the lower bound when the leaver may be gone already).
//  - presence: the mirror's line is always a superset of the server's, in
//    the same order. An entry is *certain* (surely on the server) unless it
//    is maybe_purged (a purge whose outcome the bounds cannot decide, or a
//    purge behind such an entry) or maybe_phantom (an owner that may have
//    been purged polled again: the server either still had it, or appended it
//    anew at the tail, which the mirror then does too, as a phantom). An entry
//    is dropped only when the server surely dropped it.
//  - purge (every fair script but acquire_failed, and not a release whose
//    latch may answer first): drops heads whose deadline is surely <= now.
//  - lock existence before a script: from holders_after of the previous
//    script on the lock and the expiry the scripts set (server ms, exact).
// Reports per event: the grant it made (with the waiters that were ahead of
// the grantee), the waiters it surely purged, and refused_free_lock().
// Memory: per fair lock its line (capped at kMaxLine), per lock its holders
// and expiry, per recent operation a clock bound (kMaxOps), per client one
// clock observation and its recent pauses (kMaxPauses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "redis/key_hash.h"
#include "properties/event_facts.h"
#include "properties/lock_table.h"
#include "properties/owner_table.h"
#include "properties/recent_ids.h"
#include "traces/event.h"

namespace locksim {

class FairLineMirror {
 public:
  static constexpr size_t kMaxLine = 4096;
  static constexpr size_t kMaxOps = 4096;
  static constexpr size_t kMaxPauses = 64;
  static constexpr size_t kMaxReleaseIds = 256;
  // Bound on a client clock's drift between two observations (hostile: 500).
  static constexpr int64_t kMaxDriftPpm = 1000;
  // Clock bounds for a client never observed.
  static constexpr int64_t kUnknownLowMs = INT64_MIN / 4;
  static constexpr int64_t kUnknownHighMs = INT64_MAX / 4;

  // stale_margin_ms: how far past its deadline (upper bound) a waiter must
  // be, by the lower bound of the requester's clock, before the mirror calls
  // it "clearly stale" (refused_free_lock()). request_timeout_ms: the
  // client's per-request timeout (bounds how old a pending poll can be).
  // How exact mode matches a changed line's waiters with the line before:
  // Fast recognises the usual change (heads dropped, newcomers appended)
  // and updates the line in place; Search searches every owner and
  // rebuilds the line. Same results (tests/properties/fair_line_match_test.cc
  // compares them); Search exists as that reference.
  enum class LineMatching { Fast, Search };

  explicit FairLineMirror(int64_t stale_margin_ms = 1000, int64_t request_timeout_ms = 1000,
                          LineMatching matching = LineMatching::Fast)
      : stale_margin_ms_(stale_margin_ms), request_timeout_ms_(request_timeout_ms), matching_(matching) {}

  struct Waiter {
    OwnerName owner;  // in the mirror's owner table (owner_name())
    int client = -1;
    uint64_t enqueue_event = 0;
    int64_t enqueue_us = 0;
    // Bounds on the slot deadline the server stores (the clients' clock).
    int64_t deadline_lo_ms = 0;
    int64_t deadline_hi_ms = 0;
    uint64_t op_id = 0;
    bool maybe_purged = false;   // the server may already have dropped it
    bool maybe_phantom = false;  // the server may never have added it
    bool certain() const { return !maybe_purged && !maybe_phantom; }
  };
  // A line, head first. A vector: a changed line is rebuilt into a second
  // one and swapped in, and both keep their buffers (a deque freed and
  // allocated its blocks on every rebuild). Bounds mode erases heads from
  // the front: lines are short, and capped at kMaxLine.
  using Waiters = std::vector<Waiter>;
  struct Grant {
    LockRef lock;
    std::string owner;
    int client = -1;
    uint64_t event_id = 0;
    int64_t true_us = 0;
    // Waiters that were ahead of `owner`, in line order: the server had
    // dropped each of them by now (those that were ever there: phantoms are
    // not listed).
    std::vector<Waiter> skipped;
  };
  struct ClockBounds {
    int64_t lo_ms = kUnknownLowMs;
    int64_t hi_ms = kUnknownHighMs;
  };
  // One fair lock's mirrored line with what the accessors below tell of it.
  struct Line {
    Waiters waiters;  // head first
    uint64_t version = 0;        // see line_version()
    // The Event::line_token of the exact-mode script that last set the
    // line: an event with this token has this very line (0: none known).
    uint64_t token = 0;
    bool unique_owners = true;  // see owners_unique()
  };

  // Feeds one event. Returns the grant it made on a fair lock, if any.
  std::optional<Grant> on_event(const Event& e) { return on_event(e, facts_of(e)); }
  // The same, with the event's facts already read (HistoryContext).
  std::optional<Grant> on_event(const Event& e, const EventFacts& facts);

  // After on_event: the event was a fair_acquire / fair_try_once on a lock
  // that did not exist, refused, although the server's purge must have left
  // the line empty or headed by its owner (every other waiter ahead was
  // stale by more than the margin for every possible `now`).
  bool refused_free_lock() const { return refused_free_lock_; }
  // After on_event: certain waiters the event's purge surely dropped.
  const std::vector<Waiter>& purged() const { return purged_; }
  // After on_event, exact mode: the head of the line after a script that
  // purges (a refused poll, a release not answered by its latch, a forced
  // release) whose deadline was already <= the script's now_ms: the purge
  // should have dropped it.
  const std::optional<Waiter>& stale_head() const { return stale_head_; }
  // After on_event, exact mode: a refused poll changes no waiter's deadline
  // (step 4 and step 5 only add the poller); the first waiter whose deadline
  // it changed, with its deadline before (deadline_lo_ms) and after
  // (deadline_hi_ms).
  const std::optional<Waiter>& rewritten() const { return rewritten_; }
  // Whether the latest fair script event was judged in exact mode.
  bool exact() const { return exact_; }
  // After on_event on a fair script: the bounds of the `now_ms` it was given.
  ClockBounds script_now() const { return script_now_; }

  // A version of `lock`'s line, new whenever an exact-mode script changes
  // its owners or deadlines, a bounds-mode fair script runs on it, or the
  // line is created (after a Redis restart too): an equal version means the
  // same line. 0: no line.
  uint64_t line_version(const std::string& lock) const {
    const Line* line = find_line(lock);
    return line == nullptr ? 0 : line->version;
  }
  // `lock`'s line (nullptr: not a fair lock): line(), line_version() and
  // owners_unique() in one lookup.
  const Line* find_line(const std::string& lock) const { return find_line(lock_table_.find(lock)); }
  const Line* find_line(LockId lock) const { return lines_.find(lock); }
  // Whether `owner` has an acquire of `lock` in progress (invoked, not completed,
  // its client not crashed).
  bool is_waiting(const std::string& owner, const std::string& lock) const;
  bool is_fair(const std::string& lock) const { return find_line(lock) != nullptr; }
  // Whether no owner is in `lock`'s line twice (false: maybe; a historical
  // bug or, in bounds mode, a phantom). True for no line.
  bool owners_unique(const std::string& lock) const {
    const Line* line = find_line(lock);
    return line == nullptr || line->unique_owners;
  }
  // The mirrored line of `lock`, head first (nullptr if none).
  const Waiters* line(const std::string& lock) const {
    const Line* found = find_line(lock);
    return found == nullptr ? nullptr : &found->waiters;
  }
  // The id of the latest event's lock (kNoLock: it names none), and the
  // table of every lock name seen (see properties/lock_table.h).
  LockId lock_id() const { return lock_id_; }
  const LockTable& locks() const { return lock_table_; }
  // `owner` as named in the mirror's table, which its waiters' names come
  // from (properties/owner_table.h): a name from here equals a waiter's
  // by one pointer comparison. Interning only adds to a cache: const.
  OwnerName owner_name(std::string_view owner) const { return owners_.intern(owner); }
  // `client`'s clock at true time `true_us`: best estimate (true ms if never
  // observed) and bounds.
  int64_t client_now_ms(int client, int64_t true_us) const;
  ClockBounds client_now_bounds(int client, int64_t true_us) const;
  // Latest slot deadline (upper bound) among the waiters ahead of `owner` in
  // the line of `lock` (all waiters if `owner` is not in it), converted to
  // true ms with each waiter's own clock offset; nullopt when none.
  std::optional<int64_t> latest_deadline_ahead_ms(const std::string& lock, const std::string& owner) const;

 private:
  EventFacts facts_;  // of the event on_event is reading
  struct Observation {
    int64_t offset_ms = 0;  // local ms - true ms
    int64_t at_us = 0;
  };
  struct OpClock {
    int client = -1;
    LockRef lock;
    bool acquire = false;
    bool pending = true;
    int64_t lo_ms = kUnknownLowMs;  // lower bound of the client's clock at the next send
  };
  struct LockState {
    std::vector<std::string> holders;  // after the latest script
    bool expiry_known = false;
    int64_t expire_at_ms = 0;          // server ms; the key is gone once server ms > this
  };
  struct Pause {
    int64_t from_us = 0;
    int64_t to_us = 0;
  };
  // The line of `lock`, created (empty, with a new version) if need be.
  Line& line_of(LockId lock);

  ClockBounds now_of_script(const Event& e) const;
  // Exact mode: judges one fair Script event that carries line_after.
  std::optional<Grant> on_exact_script(const Event& e, bool granted, bool latch_replay);
  // Whether the server's line after `e` is, owner for owner and deadline
  // for deadline, the mirrored `line` (most polls change nothing).
  static bool same_line(const Line& line, const Event& e);
  std::optional<Grant> on_unchanged_line(const Event& e, Waiters& line, bool granted, bool latch_replay);
  // Whether a fair_release with this request id was seen before (its latch
  // may answer; then the script changes nothing). Remembers the id.
  bool release_seen_before(const Event& e);
  // Purges by the bounds; `sure` false: the script may not have purged at all.
  void purge(Waiters& line, ClockBounds now, bool sure);
  void judge_refusal(const Waiters& line, const Event& e, ClockBounds now);
  bool paused_within(int client, int64_t from_us, int64_t to_us) const;

  int64_t stale_margin_ms_;
  int64_t request_timeout_ms_;
  bool refused_free_lock_ = false;
  bool exact_ = false;
  std::vector<Waiter> purged_;
  std::optional<Waiter> stale_head_;
  std::optional<Waiter> rewritten_;
  ClockBounds script_now_;
  uint64_t last_version_ = 0;      // the latest version given to a line
  // Lookups only (cleared on a Redis restart): unordered.
  LockTable lock_table_;
  mutable OwnerTable owners_;  // every waiter's owner (see owner_name())
  LockId lock_id_ = kNoLock;  // of the latest event
  PerLockId<Line> lines_;  // fair lock -> line
  // on_exact_script's scratch space, kept to avoid allocating per script.
  static constexpr size_t kNewWaiter = SIZE_MAX;
  std::vector<size_t> source_;   // new line position -> old line position
  std::vector<size_t> taken_;    // old line position -> new line position
  LineMatching matching_ = LineMatching::Fast;
  std::vector<uint8_t> kept_;    // old line position -> 1: its owner is in the new line
  std::optional<size_t> match_lines(const Waiters& before, const std::vector<LineEntry>& after, bool before_unique);
  Waiters rebuilt_;
  PerLockId<LockState> locks_;  // lock -> existence
  std::map<uint64_t, OpClock> ops_;  // op_id -> clock bound (recent ops; the oldest is dropped first)
  std::unordered_map<std::string, uint64_t, KeyHash> waiting_;  // owner -> acquire op_id in progress
  std::unordered_map<int, Observation> clocks_;                 // client -> latest clock observation
  std::map<int, std::vector<Pause>> pauses_;         // client -> recent pauses
  RecentIds<> release_ids_{kMaxReleaseIds};          // recent fair release request ids
};

}  // namespace locksim
