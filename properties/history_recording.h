// HistoryRecording: what a timeline draws of a window of a history, taken
// from the reading the checkers judge by (properties/history_context.h), so a
// picture shows exactly what the checkers saw:
//  - believed holds, one per hold however deep its reentries (BeliefBook),
//    and their overlaps, each the one the mutual-exclusion checker reports
//    (same owners, same events; `nth` is its place among the checker's
//    reports, which keep the first CheckConfig::max_violations_per_checker);
//  - waits: each acquire from its Invoke to its completion (or the client's
//    crash), with its polls (the acquire scripts it ran), the wake-up
//    messages its client got meanwhile and, on a fair lock, who headed the
//    line at its polls;
//  - leases of the lock keys on each server (LeaseBook): from the script that
//    set the expiry to the expiry (server ms mapped to true time through the
//    server's clock), the deleting script or the restart or failover after
//    which the server's state is unknown; renewals as ticks;
//  - fair lines (FairLineMirror): each waiter's stay in a fair lock's line,
//    from the script that put it there to the one that took it out (granted,
//    purged, left, or the server restarted), with its place in the line over
//    time and its slot deadline (the client's clock, and that instant in
//    true time by its client's offset);
//  - faults as spans or instants, and each client's clock offset.
// The recorder reads the whole history from its first event (what is open at
// the window's start is known, never guessed) and keeps what meets the window
// [from_id, to_id]; an item that began before it says so (its start events
// are real). Memory: what is open at a time, plus what meets the window.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/check_config.h"
#include "properties/history_context.h"
#include "traces/event.h"

namespace locksim {

// One point worth marking on an interval (a renewal, a poll, a message).
struct RecordedTick {
  int64_t true_us = 0;
  uint64_t event_id = 0;
  std::string label;  // "renew", "release -> 0", "message 0"
};

struct RecordedHold {
  enum class End { Released, Lost, Crashed, Open };
  int client = -1;
  OwnerId owner;
  LockRef lock;
  uint64_t start_event = 0;  // the acquire Ok
  int64_t start_us = 0;
  uint64_t end_event = 0;    // the unlock Invoke / hold_lost / validity_end / crash (the window's last event: Open)
  int64_t end_us = 0;
  End end = End::Open;
  int64_t max_count = 1;     // the deepest reentry (1: never reentered)
  int reentries = 0;         // acquires of the held owner
  int64_t lease_ms = -1;     // of the acquire that started it (-1: watchdog)
};

struct RecordedWait {
  enum class Outcome { Acquired, GaveUp, Unknown, Crashed, Open };
  int client = -1;
  OwnerId owner;
  LockRef lock;
  Op op = Op::Lock;          // lock / try_lock
  uint64_t op_id = 0;
  int64_t wait_ms = -1;
  uint64_t start_event = 0;
  int64_t start_us = 0;
  uint64_t end_event = 0;
  int64_t end_us = 0;
  Outcome outcome = Outcome::Open;
  std::string detail;        // the completion's detail ("wait budget exhausted", "timeout")
  int64_t polls = 0;         // acquire scripts it ran (all of them)
  static constexpr size_t kMaxTicks = 4096;
  std::vector<RecordedTick> polls_seen;  // the first kMaxTicks of them, each with its reply as label
                                        // (a refused poll's reply: how long to sleep, or the lock's ttl)
  std::vector<RecordedTick> wakeups;   // messages its client got meanwhile (the first 64)
  // Fair lock: the owner at the head of the line after each poll, when it
  // changed (owner "" for an empty line), the first 64 changes.
  std::vector<std::pair<int64_t, std::string>> heads;
};

struct RecordedLease {
  enum class End { Expired, Deleted, ServerReset, Replaced, Open };
  int server = -1;
  LockRef lock;              // the key as the scripts name it (a group member: "G@1")
  std::string owner;
  uint64_t start_event = 0;  // the script that set the first expiry
  int64_t start_us = 0;
  uint64_t end_event = 0;    // the deleting / replacing script or the restart (0: an expiry)
  int64_t end_us = 0;
  End end = End::Open;
  int64_t lease_ms = 0;      // of the last script that set the expiry
  int64_t expire_server_ms = 0;
  Op reset_by = Op::None;    // ServerReset: redis_restart or failover
  bool data_kept = false;    // ServerReset by a restart that kept the data
  // Expired while its owner still believed it held the lock: the owner's
  // believed hold, as an index into HistoryRecording::holds (-1: none).
  int64_t believed_hold = -1;
  std::vector<RecordedTick> renewals;  // scripts that moved the expiry after the first (the first 256)
};

struct RecordedOverlap {
  size_t first = 0;          // holds[first] started first
  size_t second = 0;         // the hold whose start made the overlap (the checker's "acquired at")
  int64_t start_us = 0;
  int64_t end_us = 0;
  uint64_t start_event = 0;  // == holds[second].start_event
  uint64_t end_event = 0;    // the event that ended the first of the two holds
  bool open = false;         // both still held at the window's end
  uint64_t nth = 0;          // its place among every overlap of the history, from 0
  bool reported = false;     // nth < the checker's cap: the checker lists it
};

struct RecordedFault {
  Op op = Op::None;          // its Fault event's: pause, partition, crash, clock_jump (a server's when server >= 0), lost, ...
  int client = -1;           // the client it hit (-1: a server fault)
  int server = -1;           // the server it hit (-1: a client fault)
  int64_t start_us = 0;
  int64_t end_us = 0;        // == start_us for an instant
  uint64_t start_event = 0;
  uint64_t end_event = 0;    // resume / heal / restart (0: as announced)
  bool instant = false;
  std::string label;         // "pause 41.0 s", "clock +45.0 s", "lost reply"
  LostMessage::What lost = LostMessage::What::None;  // a lost message's kind (None: not a lost message, or not said)
};

// The fault's name in reports: its op's, "server_clock_jump" for a server's clock jump.
inline std::string_view recorded_fault_name(const RecordedFault& f) {
  return f.op == Op::ClockJump && f.server >= 0 ? std::string_view("server_clock_jump") : op_name(f.op);
}

// One waiter's stay in a fair lock's line.
struct RecordedLineStay {
  enum class Left { Granted, Purged, GaveUp, Removed, ServerReset, Open };
  LockRef lock;
  OwnerId owner;
  int client = -1;
  uint64_t join_event = 0;   // the script that put it in the line
  int64_t join_us = 0;
  uint64_t left_event = 0;
  int64_t left_us = 0;
  Left left = Left::Open;
  size_t joined_at = 0;      // its place in the line when it joined (0: head)
  // Its place over time: (true_us, place) at its join and at each change
  // (those ahead left), the first kMaxPlaces of them.
  static constexpr size_t kMaxPlaces = 4096;
  std::vector<std::pair<int64_t, size_t>> places;
  int64_t deadline_ms = 0;   // its slot deadline (its client's clock), the latest
  int64_t deadline_true_us = 0;  // that instant in true time, by its client's clock offset
  int deadline_moves = 0;    // how often the deadline changed (grants lower it)
  int purged_by_client = -1; // Purged: the client whose script purged it
  int64_t purger_now_ms = 0; // Purged: the now_ms that script was given
};

struct ClientClock {
  int64_t min_offset_ms = 0;  // local ms minus true ms, over the window
  int64_t max_offset_ms = 0;
};

// The run over simulated time, for plots: per bucket of `bucket_us` (from
// true time 0) the operations that completed, by outcome, the acquire
// latencies and the polls. A run longer than kMaxBuckets buckets doubles
// the bucket.
struct SeriesBucket {
  int64_t acquired = 0;       // acquire Ok (value 1)
  int64_t gave_up = 0;        // acquire Fail (or Ok without the lock)
  int64_t unknown = 0;        // acquire Info (timeout, crashed) or its client's crash
  int64_t unlocked = 0;       // unlock Ok
  int64_t unlock_refused = 0; // unlock Fail ("illegal monitor state")
  int64_t polls = 0;          // acquire scripts of pending acquires
  int64_t latency_max_us = 0; // of the acquires that got the lock
  static constexpr size_t kMaxSamples = 64;
  std::vector<int64_t> latency_us;  // the first kMaxSamples of them
};
struct RunSeries {
  static constexpr size_t kMaxBuckets = 1200;
  int64_t bucket_us = 1'000'000;
  std::vector<SeriesBucket> buckets;
  SeriesBucket& at(int64_t true_us);
};

struct HistoryRecording {
  uint64_t from_id = 0;      // the window, as asked
  uint64_t to_id = 0;
  uint64_t first_event = 0;  // its first and last events
  uint64_t last_event = 0;
  int64_t first_us = 0;
  int64_t last_us = 0;
  int64_t end_us = 0;        // the horizon: last_us, or a fault's announced end after it
  uint64_t events = 0;       // events in the window
  uint64_t events_read = 0;  // events read, from the history's first
  std::vector<RecordedHold> holds;
  std::vector<RecordedWait> waits;
  std::vector<RecordedLease> leases;
  std::vector<RecordedOverlap> overlaps;
  std::vector<RecordedFault> faults;
  std::vector<RecordedLineStay> line_stays;
  std::map<int, ClientClock> clocks;   // clients seen in the window
  std::set<int> clients;               // every client that appears in the window
  std::set<int> servers;
  std::set<LockRef> fair_locks;        // fair locks with a line in the window
  std::set<LockRef> locks;             // every lock an event of the window names
  uint64_t overlaps_in_history = 0;    // overlaps found up to the window's end, in it or not
  RunSeries series;                    // of the window's events
};

class ReadingRecorder {
 public:
  static constexpr uint64_t kNoEnd = std::numeric_limits<uint64_t>::max();
  ReadingRecorder(const CheckConfig& config, uint64_t from_id = 0, uint64_t to_id = kNoEnd);
  ReadingRecorder(const ReadingRecorder&) = delete;
  ReadingRecorder& operator=(const ReadingRecorder&) = delete;

  // Call with every event in history order, after `context` read it.
  void on_event(const Event& e, const HistoryContext& context);
  // Closes what is still open at the window's end (or the history's).
  HistoryRecording finish();

 private:
  struct OpenLease {
    size_t index = 0;
    int64_t offset_us = 0;  // its server's clock minus true time when last seen
  };
  bool in_window(uint64_t id) const { return id >= from_id_ && id <= to_id_; }
  void expire_leases_before(int64_t now_us);
  void on_holds(const Event& e, const HistoryContext& ctx);
  void on_waits(const Event& e, const HistoryContext& ctx);
  void on_leases(const Event& e, const HistoryContext& ctx);
  void on_line(const Event& e, const HistoryContext& ctx);
  void on_fault(const Event& e);
  void note_actors(const Event& e, const HistoryContext& ctx);
  void close_lease(size_t index, int64_t end_us, uint64_t end_id, RecordedLease::End how);
  void close_stay(size_t index, const Event& e, RecordedLineStay::Left how);
  int64_t lease_expiry_us(const RecordedLease& l, int server) const;
  // Keeps an item that ended: whether it met the window.
  bool met_window(uint64_t start_event, uint64_t end_event) const {
    return start_event <= to_id_ && end_event >= from_id_;
  }

  CheckConfig config_;
  uint64_t from_id_;
  uint64_t to_id_;
  bool done_ = false;        // past the window
  HistoryRecording out_;
  uint64_t last_id_ = 0;
  int64_t last_us_ = 0;
  bool any_ = false;
  // Items still open, by key -> index into out_'s vectors. Items of the
  // history before the window live there too until they end; those that
  // end before the window are dropped at finish().
  std::map<std::pair<std::string, std::string>, size_t> hold_of_;    // (lock, owner)
  std::map<uint64_t, size_t> wait_of_;                               // op_id
  std::map<std::pair<int, std::string>, OpenLease> lease_of_;        // (server, key)
  std::map<int, int64_t> server_offset_us_;                          // server clock minus true time
  std::map<std::string, std::vector<size_t>> stays_of_;             // fair lock -> its line's stays, head first
  std::map<std::string, uint64_t> line_version_;                     // fair lock -> version last seen
  std::map<std::pair<int, Op>, std::vector<size_t>> open_fault_;  // (client, closing op) -> spans
  // Items that ended before the window (dropped at finish()).
  std::vector<char> dead_holds_, dead_waits_, dead_leases_, dead_stays_, dead_overlaps_;
  std::map<std::string, int> client_of_owner_;
  std::map<int, int64_t> latest_offset_ms_;  // client -> its latest clock offset
  std::map<size_t, std::vector<size_t>> overlaps_of_hold_;          // hold -> its open overlaps
};

// Reads `history` from its first event through a context of its own (no
// checkers) and records the window [from_id, to_id].
HistoryRecording record_history(const std::vector<Event>& history, const CheckConfig& config, uint64_t from_id = 0,
                                uint64_t to_id = ReadingRecorder::kNoEnd);

// Whether `name` is `lock` or one of its group's members on a server ("L@2").
bool is_lock_or_member(const LockRef& name, const std::string& lock);
// Keeps only what concerns `lock` (and its members): holds, waits, leases,
// line stays and the overlaps between kept holds; faults and clocks stay.
void keep_only_lock(HistoryRecording* recording, const std::string& lock);

// "41.0 s", "250 ms", "1.2 ms": a duration for labels.
std::string format_duration_us(int64_t span_us);

}  // namespace locksim
