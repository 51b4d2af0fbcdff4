// Script case table: named sequences of script executions with the replies,
// publishes and final keys that lock-semantics.md (as pinned down in
// model/scripts.h and model/variant.h) requires. tests/model/ runs them on the
// model; tests/sim/ replays the same table on a live redis-server (fresh,
// empty server per case, clock set to each step's server_now_ms) against the
// Lua script packs, so the two are held to one standard.
//
// Conventions:
//  - Key names are unprefixed: lock "L", keys from LockKeys (model/script_call.h).
//    A replayer that prefixes keys must prefix the expectations the same way.
//  - An expected Reply of kind Error matches any error (text is not compared):
//    use reply_matches().
//  - `final_state`, when present, is the full snapshot (every key) at its time.
//  - `differs_from_correct` (variant cases only): running the same steps with
//    the Correct scripts must NOT meet the expectations.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "redis/exec_result.h"
#include "redis/reply.h"
#include "redis/score_format.h"
#include "model/script_call.h"
#include "model/variant.h"

namespace locksim::cases {

struct CaseStep {
  ScriptCall call;
  int64_t server_now_ms = 0;
  Reply expected;
  std::vector<Published> published;
};

struct FinalState {
  int64_t server_now_ms = 0;
  std::vector<KeyState> keys;  // sorted by key
};

struct ScriptCase {
  std::string name;
  ModelVariant variant = ModelVariant::Correct;
  std::vector<CaseStep> steps;
  std::optional<FinalState> final_state;
  bool differs_from_correct = false;
};

// Test names print as the case name (GoogleTest looks this up).
inline void PrintTo(const ScriptCase& c, std::ostream* os) { *os << c.name; }

// Error replies match any error; everything else must be equal.
inline bool reply_matches(const Reply& expected, const Reply& actual) {
  if (expected.is_error()) return actual.is_error();
  return expected == actual;
}

// ---- builders -------------------------------------------------------------

inline constexpr int64_t kT = 1'700'000'000'000;  // base server time (ms)
inline constexpr int64_t kC = 1'800'000'000'000;  // base client clock (ms), fair lock now_ms
inline constexpr int64_t kLease = 30'000;
inline constexpr int64_t kWait = 5'000;
inline constexpr int64_t kLatchTtl = 10'000;
inline const std::string kLock = "L";
inline const std::string kA = "A:1";
inline const std::string kB = "B:1";
inline const std::string kCo = "C:1";  // third owner
inline const std::string kD = "D:1";

inline std::string channel() { return LockKeys::channel(kLock); }
inline std::string line() { return LockKeys::line(kLock); }
inline std::string deadlines() { return LockKeys::deadlines(kLock); }
inline std::string latch(const std::string& rid) { return LockKeys::latch(kLock, rid); }
inline std::string waiter_channel(const std::string& owner) { return LockKeys::waiter_channel(kLock, owner); }

inline ScriptCall make(ScriptKind kind, ScriptParams p) { return ScriptCall{kind, std::move(p)}; }

inline ScriptCall acquire(const std::string& owner, int64_t lease_ms = kLease) {
  ScriptParams p;
  p.lock = kLock;
  p.owner = owner;
  p.lease_ms = lease_ms;
  return make(ScriptKind::RlockAcquire, p);
}
inline ScriptCall release(const std::string& owner, const std::string& rid, int64_t lease_ms = kLease,
                          int64_t latch_ttl_ms = kLatchTtl) {
  ScriptParams p;
  p.lock = kLock;
  p.channel = channel();
  p.latch = latch(rid);
  p.owner = owner;
  p.lease_ms = lease_ms;
  p.latch_ttl_ms = latch_ttl_ms;
  return make(ScriptKind::RlockRelease, p);
}
inline ScriptCall renew(const std::string& owner, int64_t lease_ms = kLease) {
  ScriptParams p;
  p.lock = kLock;
  p.owner = owner;
  p.lease_ms = lease_ms;
  return make(ScriptKind::RlockRenew, p);
}
inline ScriptCall force_release() {
  ScriptParams p;
  p.lock = kLock;
  p.channel = channel();
  return make(ScriptKind::RlockForceRelease, p);
}
// The spin lock's release and force release (section 4b): no channel.
inline ScriptCall spin_release(const std::string& owner, const std::string& rid, int64_t lease_ms = kLease,
                               int64_t latch_ttl_ms = kLatchTtl) {
  ScriptParams p;
  p.lock = kLock;
  p.latch = latch(rid);
  p.owner = owner;
  p.lease_ms = lease_ms;
  p.latch_ttl_ms = latch_ttl_ms;
  return make(ScriptKind::SpinRelease, p);
}
inline ScriptCall spin_force_release() {
  ScriptParams p;
  p.lock = kLock;
  return make(ScriptKind::SpinForceRelease, p);
}
// The faster multi-lock (section 4b): kLock is the group's hash, client_now_ms
// the caller's clock, `values` comma-separated.
inline ScriptParams faster_multi_params(const std::string& owner, int64_t client_now_ms, const std::string& values,
                                        int64_t lease_ms) {
  ScriptParams p;
  p.lock = kLock;
  p.owner = owner;
  p.now_ms = client_now_ms;
  p.values = values;
  p.lease_ms = lease_ms;
  return p;
}
inline ScriptCall fm_acquire(const std::string& owner, int64_t client_now_ms, const std::string& values,
                             int64_t lease_ms = kLease) {
  return make(ScriptKind::FasterMultiAcquire, faster_multi_params(owner, client_now_ms, values, lease_ms));
}
inline ScriptCall fm_release(const std::string& owner, const std::string& rid, int64_t client_now_ms,
                             const std::string& values, int64_t lease_ms = kLease, int64_t latch_ttl_ms = kLatchTtl) {
  ScriptParams p = faster_multi_params(owner, client_now_ms, values, lease_ms);
  p.channel = channel();
  p.latch = latch(rid);
  p.latch_ttl_ms = latch_ttl_ms;
  return make(ScriptKind::FasterMultiRelease, p);
}
inline ScriptCall fm_renew(const std::string& owner, int64_t client_now_ms, const std::string& values,
                           int64_t lease_ms = kLease) {
  return make(ScriptKind::FasterMultiRenew, faster_multi_params(owner, client_now_ms, values, lease_ms));
}
inline ScriptCall fm_force_release() {
  ScriptParams p;
  p.lock = kLock;
  p.channel = channel();
  return make(ScriptKind::FasterMultiForceRelease, p);
}
// One value of a faster multi-lock's hash: its owner, the owner's deadline
// (caller's clock) and hold count.
struct FmHold {
  std::string value;
  std::string owner;
  int64_t deadline_ms = 0;
  int64_t count = 0;
};
// The hash's fields as a final state renders them (sorted by field).
// `extra`: fields beside the holds' (field, value), as a broken script leaves them.
std::string fm_hash(const std::vector<FmHold>& holds,
                    const std::vector<std::pair<std::string, std::string>>& extra = {});

inline ScriptParams fair_params(const std::string& owner, int64_t client_now_ms, int64_t lease_ms,
                                int64_t wait_ms) {
  ScriptParams p;
  p.lock = kLock;
  p.line = line();
  p.deadlines = deadlines();
  p.owner = owner;
  p.lease_ms = lease_ms;
  p.wait_ms = wait_ms;
  p.now_ms = client_now_ms;
  return p;
}
inline ScriptCall fair_acquire(const std::string& owner, int64_t client_now_ms, int64_t lease_ms = kLease,
                               int64_t wait_ms = kWait) {
  return make(ScriptKind::FairAcquire, fair_params(owner, client_now_ms, lease_ms, wait_ms));
}
inline ScriptCall fair_try_once(const std::string& owner, int64_t client_now_ms, int64_t lease_ms = kLease,
                                int64_t wait_ms = kWait) {
  return make(ScriptKind::FairTryOnce, fair_params(owner, client_now_ms, lease_ms, wait_ms));
}
inline ScriptCall fair_release(const std::string& owner, int64_t client_now_ms, const std::string& rid,
                               int64_t lease_ms = kLease, int64_t latch_ttl_ms = kLatchTtl) {
  ScriptParams p = fair_params(owner, client_now_ms, lease_ms, 0);
  p.channel_prefix = channel();
  p.latch = latch(rid);
  p.latch_ttl_ms = latch_ttl_ms;
  return make(ScriptKind::FairRelease, p);
}
inline ScriptCall fair_acquire_failed(const std::string& owner, int64_t wait_ms = kWait) {
  ScriptParams p;
  p.line = line();
  p.deadlines = deadlines();
  p.owner = owner;
  p.wait_ms = wait_ms;
  return make(ScriptKind::FairAcquireFailed, p);
}
inline ScriptCall fair_force_release(int64_t client_now_ms) {
  ScriptParams p;
  p.lock = kLock;
  p.line = line();
  p.deadlines = deadlines();
  p.channel_prefix = channel();
  p.now_ms = client_now_ms;
  return make(ScriptKind::FairForceRelease, p);
}

inline CaseStep step(ScriptCall call, int64_t server_now_ms, Reply expected,
                     std::vector<Published> published = {}) {
  return CaseStep{std::move(call), server_now_ms, std::move(expected), std::move(published)};
}
inline Reply nil() { return Reply::nil(); }
inline Reply num(int64_t v) { return Reply::of_int(v); }
inline Reply err() { return Reply::error("any error"); }
inline Published unlocked(std::string ch) { return Published{std::move(ch), "0"}; }

inline KeyState hash_key(std::string key, std::string value, int64_t pttl_ms) {
  return KeyState{std::move(key), "hash", std::move(value), pttl_ms};
}
inline KeyState string_key(std::string key, std::string value, int64_t pttl_ms) {
  return KeyState{std::move(key), "string", std::move(value), pttl_ms};
}
inline KeyState list_key(std::string key, std::string value) {
  return KeyState{std::move(key), "list", std::move(value), -1};
}
inline KeyState zset_key(std::string key, std::string value) {
  return KeyState{std::move(key), "zset", std::move(value), -1};
}
inline std::string at(const std::string& member, int64_t score) {
  return member + ":" + format_score(static_cast<double>(score));
}
inline FinalState final_at(int64_t server_now_ms, std::vector<KeyState> keys) {
  return FinalState{server_now_ms, std::move(keys)};
}

// ---- the table (model/script_cases.cc) -----------------------------------
// Key-name order in final states is bytewise: "L" < "redisson_lock_queue..."
// < "redisson_lock_timeout..." < "redisson_unlock_latch...".

std::vector<ScriptCase> reentrant_cases();
std::vector<ScriptCase> fair_cases();
// The spin lock's own scripts (its acquire and renewal are the reentrant lock's).
std::vector<ScriptCase> spin_cases();
// The faster multi-lock's scripts.
std::vector<ScriptCase> faster_multi_cases();
// Cases for the script mutants (variant != Correct, differs_from_correct).
std::vector<ScriptCase> variant_cases();
// Cases for the design variants (impl/variants/).
std::vector<ScriptCase> design_variant_cases();
// Every case: reentrant, fair, spin, faster multi, then variants (design
// variants not included).
std::vector<ScriptCase> all_cases();

}  // namespace locksim::cases
