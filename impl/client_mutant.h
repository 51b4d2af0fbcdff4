// ClientMutant: deliberate bugs in the lock *client* (the scripts' bugs live
// in model/variant.h and impl/mutants/), selectable at run time so the
// checkers can be shown to catch them. `None` is the correct client.
//  - watchdog_not_cancelled: the final unlock leaves the watchdog running.
//  - watchdog_period_lease: renew every lease instead of every lease/3.
//  - lease_unit_seconds: an explicit lease is passed to the script as
//    lease_ms / 1000 (a unit mix-up), so the key expires far too early.
//  - fair_giveup_no_acquire_failed: a fair waiter giving up leaves the line
//    without acquire_failed.
//  - unlock_no_wake: release publishes on a wrong channel; waiters are not woken.
//  - watchdog_first_thread_entry: the older watchdog design (impl/watchdog.h):
//    one renewal entry per client and lock, renewed with the id of the first
//    task that armed it and stopped when that renewal is refused, so a stale
//    co-task (paused past its lease) stops the renewal of a lock another task
//    of the same client legitimately holds.
//  - backoff_no_growth: a spin lock's waiter sleeps the back-off's first
//    step (1 ms) every time, never more: it polls a held lock hundreds of
//    times a second (busy_poll).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace locksim {

enum class ClientMutant {
  None,
  WatchdogNotCancelled,
  WatchdogPeriodLease,
  LeaseUnitSeconds,
  FairGiveupNoAcquireFailed,
  UnlockNoWake,
  WatchdogFirstThreadEntry,
  BackoffNoGrowth,
};

// "none", "watchdog_not_cancelled", "watchdog_period_lease",
// "lease_unit_seconds", "fair_giveup_no_acquire_failed", "unlock_no_wake",
// "watchdog_first_thread_entry", "backoff_no_growth".
std::string_view client_mutant_name(ClientMutant mutant);
std::optional<ClientMutant> client_mutant_from_name(std::string_view name);
std::vector<ClientMutant> all_client_mutants();  // None first

}  // namespace locksim
