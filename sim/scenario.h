// Scenario: everything that determines a run, apart from the backend (which
// the trace header records separately, so a model run and a live run of the
// same scenario have identical histories). Serialised as the trace header's
// `scenario` object:
//   {"seed":S,"clients":N,"locks":K,"servers":M,"lock":"rlock|fair|mixed",
//    "duration_ms":D,"profile":"none","mutant":"none","scripts":"<dir or empty>",
//    "model_variant":"correct"}
// and, only when not at their defaults (so older traces read unchanged):
//   "persistence":"always" (default "none"), "restart_delay_ms":D (default 0),
//   "validity":true (RedLock validity check; default false),
//   "fair_slot_ms":S (a fixed fair-lock slot, ClientConfig::fair_slot_fixed_ms;
//   default 0: the caller's wait),
//   "design":{...} (the script pack's declared lock design, impl/lock_design.h;
//   default: ours, a reentrant hash lock with pub/sub wake-ups, every kind),
//   "wakeups":"lost" (a wake-up message that reaches a waiter while its poll
//   is in flight is dropped: the client that wrote trace versions 1 to 4,
//   whose scenarios read so; default "kept", ClientConfig::remember_wakeups),
//   "focus":{...} (a focused run's trigger, sim/focus.h; default none),
//   "backoff":"constant" (a spin lock's waiters back off by a constant
//   64 ms + jitter, impl/backoff.h; default "exponential"),
//   "values":N (a faster multi-lock's values per group; present exactly when
//   the lock is "faster_multi").
// Locks are named "lsim:L<i>"; lock i lives on server i % servers; with
// "mixed", even locks are reentrant and odd locks fair. With "multi" or
// "redlock", lock i is a group of `servers` reentrant members, member j named
// "lsim:L<i>@<j>" on server j (lock-semantics.md section 4). With "spin",
// every lock is a spin lock (section 4b). With "faster_multi" (one server),
// lock i is a group hash of `values` values; a task takes the window of
// values operation_values() gives it, each recorded as "lsim:L<i>@<v>".
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "impl/client_config.h"
#include "impl/client_mutant.h"
#include "impl/lock_design.h"
#include "impl/multi_lock.h"
#include "impl/scenario_lock_kind.h"
#include "model/variant.h"
#include "sim/focus.h"
#include "sim/profiles.h"
#include "sim/server_faults.h"

namespace locksim {

struct ScenarioError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct Scenario {
  uint64_t seed = 1;
  int clients = 4;
  int locks = 1;
  int servers = 1;
  ScenarioLockKind lock_kind = ScenarioLockKind::Rlock;  // the trace header's "lock" (by name)
  int64_t duration_ms = 60'000;
  Profile profile;  // the trace header's "profile" (by name); default none
  ClientMutant mutant = ClientMutant::None;             // the trace header's "mutant" (by name)
  std::string scripts;                                  // script pack dir; empty: the default pack
  ModelVariant model_variant = ModelVariant::Correct;   // the trace header's "model_variant" (by name)
  Persistence persistence = Persistence::None;  // what a server restart keeps
  int64_t restart_delay_ms = 0;                 // a restarted server stays down this long
  bool validity = false;                        // RedLock: the validity check
  int64_t fair_slot_ms = 0;                     // > 0: every fair slot this long (older versions: 5 000)
  LockDesign design;                            // the pack's declared design (set from the pack)
  bool lost_wakeups = false;                    // the header's "wakeups":"lost" (see above)
  std::optional<Focus> focus;                   // a focused run's trigger (sim/focus.h); none: a plain run
  BackoffKind backoff = BackoffKind::Exponential;  // spin lock: how a refused waiter sleeps
  int values = 0;  // faster multi-lock: values per group (0 for every other kind)

  bool operator==(const Scenario&) const = default;
};

constexpr int kMaxClients = 4096;
constexpr int kMaxLocks = 1024;
constexpr int kMaxServers = 16;
constexpr int64_t kMaxDurationMs = 7LL * 24 * 3600 * 1000;
constexpr int64_t kMaxRestartDelayMs = 24LL * 3600 * 1000;
constexpr int64_t kMaxFairSlotMs = 24LL * 3600 * 1000;
constexpr int kMaxValues = 16;
constexpr int kDefaultValues = 3;

// Throws ScenarioError naming the first bad field, or the lock kind the
// design does not provide.
void validate_scenario(const Scenario& s);
nlohmann::json scenario_to_json(const Scenario& s);
// Throws ScenarioError naming the field on a missing, unknown or mistyped
// field (an integer field takes only a JSON integer in range: never a float,
// a boolean, or a value that would be narrowed), or an invalid scenario.
Scenario scenario_from_json(const nlohmann::json& j);

std::string lock_name(int index);  // "lsim:L<index>"
constexpr const char* kKeyPrefix = "lsim:";
// One LockSpec per lock; for a group kind, one per group (its name; the
// members come from scenario_groups).
std::vector<LockSpec> scenario_locks(const Scenario& s);
// The groups of a multi / redlock scenario (empty for other kinds).
std::vector<GroupRef> scenario_groups(const Scenario& s);
// Faster multi-lock: the values a task of `client` takes of a group of
// `values` values: values - 1 of them (all of a group of one) in a window
// that starts at (client + task) % values, so that tasks' windows overlap.
std::vector<int> operation_values(int values, int client, int task);
// The lock a task of `client` operates on: `lock` itself, or for a faster
// multi-lock the group with the task's window of values.
LockSpec operation_lock(const LockSpec& lock, int client, int task);

}  // namespace locksim
