// LockDesign: what a script pack declares about the lock its scripts build
// (manifest "design", impl/script_pack.h), so that the client, the workload
// and the checkers follow that lock instead of assuming ours:
//
//   holders    how the lock's holders are read from the server after each
//              script: the lock hash's fields (ours), the string value as
//              the one holder's token, or a read script of the pack.
//   reentrant  whether an owner may take the lock again while holding it
//              (a hold count); if not, the workload never re-enters.
//   wake_up    how a waiter learns the lock may be free: a pub/sub message
//              (ours), or polling every interval_ms + [0, jitter_ms].
//   token      what marks a hold on the server: the owner id (ours) or a
//              fresh token for each acquire (recorded in the history).
//   kinds      which lock kinds the pack provides (rlock, fair, multi,
//              redlock: the names of --lock); a scenario asking for another
//              is refused, naming it.
//
// The JSON form (the manifest's "design" and the trace header scenario's):
//   {"holders": "hash_fields" | "string_value" | "script",
//    "reentrant": true,
//    "wake_up": {"mode": "pubsub"} | {"mode": "poll", "interval_ms": 100, "jitter_ms": 20},
//    "token": "per_owner" | "fresh_per_acquire",
//    "kinds": ["rlock", "fair", "multi", "redlock"]}
// Every field is optional; a missing one is ours (LockDesign{}). Plain data,
// parsed once at the edge; inner layers take the types.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "impl/backoff.h"
#include "impl/scenario_lock_kind.h"

namespace locksim {

enum class HolderRead { HashFields, StringValue, Script };
// Backoff: the spin lock's waiting (impl/backoff.h, --lock spin), never a
// manifest's: set where a scenario of spin locks configures its client and
// its checkers.
enum class WakeMode { PubSub, Poll, Backoff };
enum class TokenMode { PerOwner, FreshPerAcquire };
// The lock kinds a scenario can ask for (its "lock"; "mixed" needs rlock and fair).
enum class DesignKind { Rlock, Fair, Multi, Redlock };
inline constexpr int kDesignKindCount = 4;

inline constexpr int64_t kMaxPollIntervalMs = 60'000;
inline constexpr int64_t kMaxPollJitterMs = 60'000;

struct WakeUp {
  WakeMode mode = WakeMode::PubSub;
  int64_t interval_ms = 0;  // Poll: the sleep between two attempts, >= 1
  int64_t jitter_ms = 0;    // Poll: plus a deterministic draw in [0, jitter_ms]
  BackoffKind backoff = BackoffKind::Exponential;  // Backoff: which back-off
  bool operator==(const WakeUp&) const = default;
};

struct LockDesign {
  HolderRead holders = HolderRead::HashFields;
  bool reentrant = true;
  WakeUp wake;
  TokenMode token = TokenMode::PerOwner;
  uint8_t kinds = 0b1111;  // bit i: static_cast<int>(DesignKind) i is provided

  bool provides(DesignKind k) const { return (kinds >> static_cast<int>(k)) & 1u; }
  bool operator==(const LockDesign&) const = default;
};

struct DesignError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

std::string_view holder_read_name(HolderRead h);
std::string_view token_mode_name(TokenMode t);
std::string_view design_kind_name(DesignKind k);
std::optional<DesignKind> design_kind_from_name(std::string_view name);
// "rlock, multi, redlock": the kinds a design provides.
std::string design_kinds_text(const LockDesign& d);
// The kinds a scenario's lock kind needs (mixed: rlock and fair).
std::vector<DesignKind> kinds_needed_by(ScenarioLockKind lock_kind);

// The JSON form above, every field written (ordered as above).
nlohmann::json design_to_json(const LockDesign& d);
// Throws DesignError naming the field ("\"wake_up\": \"interval_ms\" must be ...").
// In a manifest (`manifest`), "holders" names a read script as an object
// (a script entry, which the script pack reads itself) and never as the
// word "script"; in a trace's scenario it is the word.
LockDesign design_from_json(const nlohmann::json& j, bool manifest);

// A polling waiter's sleep before its next attempt: interval_ms plus a
// draw in [0, jitter_ms] taken from `draw` (any 64-bit value the caller
// derives deterministically, e.g. from its owner, operation and round).
int64_t poll_sleep_ms(const WakeUp& w, uint64_t draw);

}  // namespace locksim
