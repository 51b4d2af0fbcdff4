// CheckConfig: the tolerances the checkers use. Every bound is explicit and in
// milliseconds of true (simulated) time unless named otherwise. The defaults
// match the client's defaults (lock-semantics.md section 2) and the simulator's
// request timeout; a campaign may override them from its scenario.
#pragma once

#include <cstdint>

#include "impl/lock_design.h"
#include "properties/property_selection.h"

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
  // The lock's declared design (impl/lock_design.h; with_design() below):
  // whether it is reentrant (if not, reentrancy checks only that a release
  // by a non-owner changes nothing) and how waiters are woken (pub/sub:
  // every release publishes a wake-up; polling: liveness and busy_poll
  // follow the declared interval).
  bool reentrant = true;
  WakeUp wake;
  // busy_poll: a waiter may poll at most this often in any second.
  int max_polls_per_second = 20;
  // The locks are a faster multi-lock's values, whose expiry each caller
  // judges by its own clock (section 4b): any client's clock, not only the
  // holders', may explain a value taken over (Checker::report widens a
  // scope that lists clients to every client).
  bool caller_clock_expiry = false;
  // The properties checked: the other checkers do not run.
  PropertySelection properties;
};

// `c` for a lock of design `d`: the design's fields, and for a polling
// design the bounds its interval gives: a waiter on a free lock tries again
// within interval + jitter (+ wait_slack_ms for the request), and polls at
// most 1000 / interval + 1 times in a second.
inline CheckConfig with_design(CheckConfig c, const LockDesign& d) {
  c.reentrant = d.reentrant;
  c.wake = d.wake;
  if (d.wake.mode == WakeMode::Poll) {
    c.free_lock_bound_ms = d.wake.interval_ms + d.wake.jitter_ms + c.wait_slack_ms;
    c.max_polls_per_second = static_cast<int>(1000 / d.wake.interval_ms + 1);
  }
  return c;
}

// The same for a scenario's locks: with_design(), and for spin locks
// (section 4b) their back-off instead of the design's wake-up: a waiter on
// a free lock tries again within the back-off's longest sleep (+
// wait_slack_ms), and polls at most as often as its smallest sleeps allow
// (impl/backoff.h), plus one for a clock that runs fast; for a faster
// multi-lock, caller_clock_expiry.
inline CheckConfig with_scenario_locks(CheckConfig c, const LockDesign& d, ScenarioLockKind kind,
                                       BackoffKind backoff) {
  c = with_design(c, d);
  if (kind == ScenarioLockKind::Spin) {
    c.wake = WakeUp{WakeMode::Backoff, 0, 0, backoff};
    c.free_lock_bound_ms = backoff_max_sleep_ms(backoff) + c.wait_slack_ms;
    c.max_polls_per_second = backoff_max_polls_per_second(backoff) + 1;
  }
  c.caller_clock_expiry = kind == ScenarioLockKind::FasterMulti;
  return c;
}

}  // namespace locksim
