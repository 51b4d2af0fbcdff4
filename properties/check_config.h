// CheckConfig: the tolerances the checkers use. Every bound is explicit and in
// milliseconds of true (simulated) time unless named otherwise. The defaults
// match the client's defaults (lock-semantics.md section 2) and the simulator's
// request timeout; a campaign may override them from its scenario.
#pragma once

#include <cstdint>

namespace locksim {

struct CheckConfig {
  // Lease used when an acquire says lease_ms = -1 (watchdog timeout).
  int64_t default_lease_ms = 30000;
  // The client's per-request timeout; the slack below is derived from it.
  int64_t request_timeout_ms = 1000;
  // A waiter with budget w must complete by w + wait_slack_ms (+ its pauses).
  int64_t wait_slack_ms = 2 * 1000 + 1000;
  // A waiter may not stay pending on a lock the server shows free for longer
  // than this (plus, on a fair lock, the slots of the waiters ahead of it).
  int64_t free_lock_bound_ms = 10000;
  // A fair waiter purged before its slot deadline (in true time) by more than
  // this counts as purged while live (a FIFO violation).
  int64_t purge_tolerance_ms = 1000;
  // A watchdog renewal started after the owner's final release completed
  // (newer op_id) and reaching the server more than this after it was not
  // in flight at the release: the watchdog was not cancelled. Covers one
  // retry of a renewal started just before the release answer arrived.
  int64_t renew_grace_ms = 2000;
  // Clients' wall clocks read clock_epoch_ms + true ms when exact
  // (sim/node_clock.h kEpochUs / 1000 for simulated runs); clock offsets in
  // explanations are relative to it.
  int64_t clock_epoch_ms = 0;
  // How many violations each checker keeps (the first ones).
  int max_violations_per_checker = 16;
};

}  // namespace locksim
