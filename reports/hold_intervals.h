// HoldIntervals: what a design-review timeline draws, derived from a window
// of a history in one pass: the believed holds and the waits of the clients
// (what they think), the leases of the lock keys on each server (the server's
// truth: grant, every renewal or expiry reset, and the end by expiry, deletion
// or a server restart), the faults as spans (pause..resume, partition..heal,
// crash..restart) or instants (clock jumps, lost messages, server restarts),
// and the overlaps of believed holds of one lock by different owners.
//
// Believed holds follow traces/event.h: Ok of an acquire (count 0 -> 1) to the
// Invoke of the unlock that brings the count to 0, hold_lost/validity_end, or
// the client's crash. A lease's expiry is not an event of the history: it is
// computed from the last script that set it (server_ms + lease_ms on the
// server's clock) and mapped to true time through that server's clock offset
// at the script (moved by later server clock jumps). Times are true µs.
// A bar whose start or end lies outside the window is marked open on that
// side and drawn to the horizon. derive_hold_intervals() is pure and linear
// in the events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/event.h"

namespace locksim {

// One point of an interval worth marking (a renewal, a wake-up message).
struct IntervalTick {
  int64_t true_us = 0;
  uint64_t event_id = 0;
  std::string label;  // "renew", "release -> 0", "message 0"
};

struct BelievedHold {
  enum class End { Released, Lost, Crashed, Open };
  int client = -1;
  std::string owner;
  std::string lock;
  int64_t start_us = 0;
  int64_t end_us = 0;
  uint64_t start_event = 0;    // the acquire Ok (or the window's first event when !start_known)
  uint64_t end_event = 0;      // the unlock Invoke / hold_lost / crash (or the last event when Open)
  bool start_known = true;     // false: held from before the window
  End end = End::Open;
};

struct Wait {
  int client = -1;
  std::string owner;
  std::string lock;
  std::string op;              // "lock" / "try_lock"
  int64_t start_us = 0;
  int64_t end_us = 0;
  uint64_t start_event = 0;
  uint64_t end_event = 0;
  bool acquired = false;
  bool open = false;           // still waiting at the window's end
  bool crashed = false;        // ended by the client's crash
  std::vector<IntervalTick> wakeups;  // pub/sub messages delivered during the wait
};

struct Lease {
  enum class End { Expired, Deleted, ServerReset, Replaced, Open };
  int server = -1;
  std::string lock;            // the key as the scripts name it
  std::string owner;
  int64_t start_us = 0;        // the grant (or the first script seen holding it)
  int64_t end_us = 0;
  uint64_t start_event = 0;
  uint64_t end_event = 0;      // the deleting script / restart (0 for an expiry)
  int64_t lease_ms = 0;        // the lease of the last script that set the expiry
  int64_t expire_server_ms = 0;  // server clock; the key is gone when now > this
  bool start_known = true;     // false: the first script seen already found it held
  End end = End::Open;
  std::string reset_by;        // ServerReset: "redis_restart" or "failover"
  std::vector<IntervalTick> renewals;  // scripts that reset the expiry after the grant
};

struct FaultSpan {
  std::string kind;            // pause, partition, crash, clock_jump, lost, redis_restart, server_clock_jump, failover
  int client = -1;             // the client it hit (-1: a server fault)
  int server = -1;             // the server it hit (-1: a client fault)
  int64_t start_us = 0;
  int64_t end_us = 0;          // == start_us for an instant
  uint64_t start_event = 0;
  uint64_t end_event = 0;      // resume / heal / restart (0: not in the window, end as announced)
  bool instant = false;
  std::string label;           // "pause 41.0 s", "clock +45.0 s", "lost reply"
};

// Two believed holds of one lock by different owners at once.
struct HoldOverlap {
  size_t first = 0;            // indexes into holds; holds[first] started first
  size_t second = 0;
  int64_t start_us = 0;
  int64_t end_us = 0;
};

struct HoldIntervals {
  int64_t first_us = 0;        // the window's first and last event times
  int64_t last_us = 0;
  int64_t end_us = 0;          // the horizon: last_us, or a fault's announced end after it;
                               // bars still open at the end of the window end here
  std::vector<BelievedHold> holds;
  std::vector<Wait> waits;
  std::vector<Lease> leases;
  std::vector<FaultSpan> faults;
  std::vector<HoldOverlap> overlaps;
  std::vector<int> clients;    // every client that appears, ascending
  std::vector<int> servers;    // every server that appears, ascending
};

HoldIntervals derive_hold_intervals(const std::vector<Event>& events);

// "41.0 s", "250 ms", "1.2 ms": a duration for labels.
std::string format_duration_us(int64_t span_us);

}  // namespace locksim
