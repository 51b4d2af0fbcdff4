// ClientConfig, LockSpec: how a lock client is set up (its identity, timeouts,
// retry policy, defaults of lock-semantics.md section 2) and how it names a
// lock (name, kind, server). Plain data, no behaviour.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "impl/client_mutant.h"
#include "impl/lock_design.h"

namespace locksim {

// Spin: the reentrant lock's hash and acquire, released by spin_release, and
// waited for by backing off (ClientConfig::spin_backoff), never subscribing.
// FasterMulti: some values of a group taken, renewed and given back together
// by the faster_multi scripts on the group's hash (`name`); its waiters wait
// as the reentrant lock's, on the group's channel.
enum class LockKind { Reentrant, Fair, Spin, FasterMulti };

// A lock as a client is told to use it: its key, its kind, its server. (An
// event names the lock it concerns by a LockRef, traces/lock_ref.h.)
struct LockSpec {
  std::string name;  // the lock hash key, e.g. "L0"
  LockKind kind = LockKind::Reentrant;
  int server = 0;    // Redis server index
  // FasterMulti: the values an operation takes, by index, in the order the
  // scripts visit them; each is recorded as the lock "<name>@<value>".
  std::vector<int> values;
};

struct ClientConfig {
  std::string client_uuid;                 // owner ids are "<uuid>:<task>"
  int64_t watchdog_lease_ms = 30'000;      // default lease ("watchdog timeout")
  int64_t fair_wait_default_ms = 300'000;  // fair-lock slot when no wait is given
  // > 0: every fair-lock slot is this long, whatever the caller's wait (the
  // fixed 5 000 ms slot of older versions); 0: the wait, else the default.
  int64_t fair_slot_fixed_ms = 0;
  int64_t request_timeout_ms = 3'000;      // per script round trip
  int retry_attempts = 3;                  // extra tries of release / renew after a timeout
  int64_t max_wait_rounds = 1'000'000;     // bound on one acquire's poll loop
  ClientMutant mutant = ClientMutant::None;
  // A wake-up message that reaches a subscribed waiter while its poll is in
  // flight is remembered, and the waiter polls again at once instead of
  // sleeping its ttl (Redisson's semaphore permits). Off: such a message is
  // lost and the waiter sleeps until its timer (at most its ttl) while the
  // lock may be free: the client of trace versions 1 to 4 (a scenario's
  // "wakeups":"lost", sim/scenario.h), kept so their traces replay.
  bool remember_wakeups = true;
  // The script pack's declared design (impl/lock_design.h): how a refused
  // waiter waits (a pub/sub wake-up, ours, or polling every interval plus
  // jitter), what token marks a hold (the owner id, ours, or a fresh one
  // per acquire: "<owner>#<n>", n counting the client's acquires), and
  // whether a re-entry keeps its hold's token (reentrant).
  WakeUp wake;
  // How a refused waiter on a spin lock sleeps (impl/backoff.h).
  BackoffKind spin_backoff = BackoffKind::Exponential;
  TokenMode token = TokenMode::PerOwner;
  bool reentrant = true;

  // Lifetime of the unlock latch: it must outlive every retry of one release
  // (timeout x (1 + retries)), with one timeout of margin. Never 0.
  int64_t latch_ttl_ms() const { return request_timeout_ms * (retry_attempts + 2); }
};

}  // namespace locksim
