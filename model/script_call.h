// ScriptCall: one invocation of a lock script, in terms of *named parameters*
// (lock, owner, lease_ms, ...) rather than KEYS/ARGV positions. The model runs
// a ScriptCall directly; the live backend maps it to KEYS/ARGV through the
// script pack's manifest (impl/script_pack.h), so packs with other argument
// orders can be checked against the same model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

enum class ScriptKind {
  RlockAcquire,       // lock, owner, lease_ms
  RlockRelease,       // lock, channel, latch, owner, lease_ms, latch_ttl_ms, message
  RlockRenew,         // lock, owner, lease_ms   (also used by the fair lock's watchdog)
  RlockForceRelease,  // lock, channel, message
  FairAcquire,        // lock, line, deadlines, owner, lease_ms, wait_ms, now_ms
  FairTryOnce,        // lock, line, deadlines, owner, lease_ms, wait_ms, now_ms
  FairRelease,        // lock, line, deadlines, channel_prefix, latch, owner, lease_ms, now_ms, latch_ttl_ms, message
  FairAcquireFailed,  // line, deadlines, owner, wait_ms
  FairForceRelease,   // lock, line, deadlines, channel_prefix, now_ms, message
  SpinRelease,        // lock, latch, owner, lease_ms, latch_ttl_ms   (spin lock: publishes nothing)
  SpinForceRelease,   // lock                                         (spin lock: publishes nothing)
  // The faster multi-lock (section 4b): one hash per group, `values` names
  // the group's locks taken or given back together; now_ms is the caller's clock.
  FasterMultiAcquire,       // lock, owner, lease_ms, now_ms, values
  FasterMultiRelease,       // lock, channel, latch, owner, lease_ms, now_ms, latch_ttl_ms, message, values
  FasterMultiRenew,         // lock, owner, lease_ms, now_ms, values
  FasterMultiForceRelease,  // lock, channel, message
};

constexpr int kScriptKindCount = 15;

// The spin lock's own scripts (section 4b), which a pack may leave out.
inline bool is_spin_script(ScriptKind kind) {
  return kind == ScriptKind::SpinRelease || kind == ScriptKind::SpinForceRelease;
}
// The faster multi-lock's scripts (section 4b).
inline bool is_faster_multi_script(ScriptKind kind) {
  return kind == ScriptKind::FasterMultiAcquire || kind == ScriptKind::FasterMultiRelease ||
         kind == ScriptKind::FasterMultiRenew || kind == ScriptKind::FasterMultiForceRelease;
}
// The scripts of the locks added after the first packs were written (the spin
// lock's and the faster multi-lock's): every pack may leave them out, and the
// lock kind that needs them then refuses the pack, naming them.
inline bool is_optional_script(ScriptKind kind) { return is_spin_script(kind) || is_faster_multi_script(kind); }

// Stable snake_case names: used in manifests, traces and reports.
std::string_view script_name(ScriptKind kind);
std::optional<ScriptKind> script_from_name(std::string_view name);
std::vector<ScriptKind> all_script_kinds();

// Every named parameter a script may take. Unused ones stay empty/zero.
struct ScriptParams {
  std::string lock;            // the lock hash key, e.g. "lsim:L0"
  std::string owner;           // "<client-uuid>:<thread-id>"
  std::string channel;         // reentrant wake-up channel
  std::string channel_prefix;  // fair lock: per-waiter channel prefix
  std::string line;            // fair lock: waiting line (list)
  std::string deadlines;       // fair lock: slot deadlines (sorted set)
  std::string latch;           // unlock latch key (includes the request id)
  std::string message = "0";   // payload published on release
  // What marks this hold on the server (the pack's design, impl/lock_design.h):
  // the owner id, or a fresh token per acquire. Our scripts use `owner`.
  std::string token;
  int64_t lease_ms = 0;
  int64_t wait_ms = 0;
  int64_t now_ms = 0;          // the *client's* clock (fair lock only)
  int64_t latch_ttl_ms = 0;
  // Faster multi-lock: the values of the group this call takes, renews or
  // gives back, comma-separated ("0,2"), in the order the script visits them.
  std::string values;

  bool operator==(const ScriptParams&) const = default;
};

// Value of a named parameter as the string passed to Redis ("lease_ms" ->
// "30000"). Returns nullopt for an unknown name.
std::optional<std::string> param_value(const ScriptParams& p, std::string_view name);
// The same by position in param_names() (-1: no such name), appended to *out
// without a temporary: for callers that build arguments call after call.
int param_index(std::string_view name);
void append_param_value(const ScriptParams& p, int index, std::string* out);
// Names accepted by param_value, for manifests and error messages.
const std::vector<std::string>& param_names();
// Whether a named parameter is an integer (usable in a sum like now_ms + wait_ms).
bool param_is_integer(std::string_view name);
std::optional<int64_t> param_integer(const ScriptParams& p, std::string_view name);

struct ScriptCall {
  ScriptKind kind = ScriptKind::RlockAcquire;
  ScriptParams params;
  bool operator==(const ScriptCall&) const = default;
};

// Key naming of lock-semantics.md section 1, derived from the lock name.
struct LockKeys {
  static std::string channel(const std::string& lock) { return "redisson_lock__channel:{" + lock + "}"; }
  static std::string line(const std::string& lock) { return "redisson_lock_queue:{" + lock + "}"; }
  static std::string deadlines(const std::string& lock) { return "redisson_lock_timeout:{" + lock + "}"; }
  static std::string latch(const std::string& lock, const std::string& request_id) {
    return "redisson_unlock_latch:{" + lock + "}:" + request_id;
  }
  // Per-waiter fair-lock channel = channel(lock) + ":" + owner.
  static std::string waiter_channel(const std::string& lock, const std::string& owner) {
    return channel(lock) + ":" + owner;
  }
};

}  // namespace locksim
