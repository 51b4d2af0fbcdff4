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
};

// "none", "watchdog_not_cancelled", "watchdog_period_lease",
// "lease_unit_seconds", "fair_giveup_no_acquire_failed", "unlock_no_wake".
std::string_view client_mutant_name(ClientMutant mutant);
std::optional<ClientMutant> client_mutant_from_name(std::string_view name);
std::vector<ClientMutant> all_client_mutants();  // None first

}  // namespace locksim
