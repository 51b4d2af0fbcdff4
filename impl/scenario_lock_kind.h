// ScenarioLockKind: which locks a scenario runs (lock-semantics.md sections 2-4):
// reentrant ("rlock"), fair ("fair"), both ("mixed": even locks reentrant,
// odd locks fair), the groups of reentrant members ("multi", "redlock") and
// the spin lock ("spin", section 4b: the reentrant lock's hash, waiters that
// back off and poll, a release that publishes nothing) and the faster
// multi-lock ("faster_multi", section 4b: several values of a group taken in
// one script, in one hash, their deadlines in the caller's clock).
// Read from its name once, where a scenario comes in (the command line, a
// trace header); inner layers take the type.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace locksim {

enum class ScenarioLockKind { Rlock, Fair, Mixed, Multi, RedLock, Spin, FasterMulti };

// "rlock", "fair", "mixed", "multi", "redlock", "spin", "faster_multi".
std::string_view lock_kind_name(ScenarioLockKind kind);
std::optional<ScenarioLockKind> lock_kind_from_name(std::string_view name);
std::vector<ScenarioLockKind> all_lock_kinds();  // in the order above
// "rlock, fair, mixed, multi, redlock, spin, faster_multi": for messages
// naming the known kinds.
const char* lock_kind_names_text();
// Multi and RedLock: a lock is a group of reentrant members, one per server.
inline bool is_group_kind(ScenarioLockKind kind) {
  return kind == ScenarioLockKind::Multi || kind == ScenarioLockKind::RedLock;
}
// Fair locks among its locks (fair, mixed).
inline bool has_fair_locks(ScenarioLockKind kind) {
  return kind == ScenarioLockKind::Fair || kind == ScenarioLockKind::Mixed;
}
// Reentrant locks among its locks (every kind but fair; a group's members are).
inline bool has_reentrant_locks(ScenarioLockKind kind) { return kind != ScenarioLockKind::Fair; }

}  // namespace locksim
