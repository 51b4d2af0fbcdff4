// The lock scripts of lock-semantics.md sections 2-3 as C++ over a Store: the
// reference model that the Lua scripts (impl/lua/) are checked against.
//
// run_script executes one ScriptCall atomically at server time server_now_ms
// (Redis's clock, used for expiry: frozen for the whole script). The fair
// lock's `now_ms` *parameter* is the client's clock and is only compared with
// deadlines. Replies are what the Lua script returns on Redis 7.0 over RESP2:
// Lua nil -> nil, Lua numbers -> integers truncated toward zero.
//
// Errors: a failing Redis command aborts the script with an error reply; the
// writes and publishes done before it are kept (Redis has no rollback), and
// ExecResult::published still lists those messages. The error *text* is not
// specified (the differential checker compares only "is an error").
//
// Exact command sequence of each script (Correct variant; model/variant.h
// lists the mutants and design variants). Lua `false` of a nil reply is written "nil".
//
// purge(line, deadlines, now_ms)  -- "purge stale waiters":
//     loop: head = LINDEX(line, 0); if head == nil: stop
//           d = ZSCORE(deadlines, head); if d == nil or d > now_ms: stop
//           ZREM(deadlines, head); LPOP(line)
//
// rlock_acquire(lock, owner, lease_ms):
//   1. if EXISTS(lock) == 0 or HEXISTS(lock, owner) == 1:
//        HINCRBY(lock, owner, 1); PEXPIRE(lock, lease_ms); return nil
//   2. return PTTL(lock)
//
// rlock_release(lock, channel, latch, owner, lease_ms, latch_ttl_ms, message):
//   1. v = GET(latch); if v != nil: return v as an integer
//   2. if HEXISTS(lock, owner) == 0: return nil
//   3. if HINCRBY(lock, owner, -1) > 0:
//        PEXPIRE(lock, lease_ms); SET(latch, "0", PX latch_ttl_ms); return 0
//   4. DEL(lock); PUBLISH(channel, message); SET(latch, "1", PX latch_ttl_ms); return 1
//   (latch_ttl_ms <= 0: the SET fails -> error reply, earlier writes and the
//   publish are kept.)
//
// rlock_renew(lock, owner, lease_ms):
//   if HEXISTS(lock, owner) == 1: PEXPIRE(lock, lease_ms); return 1
//   return 0
//
// rlock_force_release(lock, channel, message):
//   if DEL(lock) == 1: PUBLISH(channel, message); return 1
//   return 0
//
// fair_acquire(lock, line, deadlines, owner, lease_ms, wait_ms, now_ms):
//   1. purge
//   2. if EXISTS(lock) == 0 and (EXISTS(line) == 0 or LINDEX(line, 0) == owner):
//        LPOP(line); ZREM(deadlines, owner)
//        for m in ZRANGE(deadlines, 0, -1): ZINCRBY(deadlines, -wait_ms, m)
//        HSET(lock, owner, 1); PEXPIRE(lock, lease_ms); return nil
//   3. if HEXISTS(lock, owner) == 1:
//        HINCRBY(lock, owner, 1); PEXPIRE(lock, lease_ms); return nil
//   4. if ZSCORE(deadlines, owner) != nil: return max(0, PTTL(lock))
//   5. last = LINDEX(line, -1)
//      if last != nil and last != owner and (d = ZSCORE(deadlines, last)) != nil:
//        ttl = d - now_ms            (a double)
//      else: ttl = PTTL(lock)
//      if ZADD(deadlines, ttl + wait_ms + now_ms, owner) == 1: RPUSH(line, owner)
//      return ttl                    (truncated toward zero)
//
// fair_try_once(same parameters): steps 1-3 of fair_acquire; otherwise return 1
//   ("not acquired"), enqueuing nothing.
//
// fair_release(lock, line, deadlines, channel_prefix, latch, owner, lease_ms,
//              now_ms, latch_ttl_ms, message):
//   1. v = GET(latch); if v != nil: return v as an integer
//   2. purge
//   3. if EXISTS(lock) == 0:
//        head = LINDEX(line, 0); if head != nil: PUBLISH(channel_prefix .. ":" .. head, message)
//        SET(latch, "1", PX latch_ttl_ms); return 1
//   4. if HEXISTS(lock, owner) == 0: return nil
//   5. if HINCRBY(lock, owner, -1) > 0:
//        PEXPIRE(lock, lease_ms); SET(latch, "0", PX latch_ttl_ms); return 0
//   6. DEL(lock); SET(latch, "1", PX latch_ttl_ms)
//      head = LINDEX(line, 0); if head != nil: PUBLISH(channel_prefix .. ":" .. head, message)
//      return 1
//
// fair_force_release(lock, line, deadlines, channel_prefix, now_ms, message):
//   purge
//   if DEL(lock) == 1:
//     head = LINDEX(line, 0); if head != nil: PUBLISH(channel_prefix .. ":" .. head, message)
//     return 1
//   return 0
//
// fair_acquire_failed(line, deadlines, owner, wait_ms):
//   members = LRANGE(line, 0, -1)
//   for every member after the first occurrence of owner (none if owner is
//   not in the line): ZINCRBY(deadlines, -wait_ms, member)
//   ZREM(deadlines, owner); LREM(line, 0, owner); return nil
//
// spin_release(lock, latch, owner, lease_ms, latch_ttl_ms)  -- section 4b:
//   rlock_release without the PUBLISH of step 4 (nobody subscribes to a
//   spin lock); the same latch, replies and errors.
//
// spin_force_release(lock):
//   if DEL(lock) == 1: return 1
//   return 0
// The spin scripts take no mutant: every variant runs them as written here.
//
// The faster multi-lock (section 4b; field names in model/faster_multi_fields.h:
// F(v) = "<v>", E(v, o) = "<v>:<o>:expire_time", C(v, o) = "<v>:<o>:lock_count").
// `values` is split at ',' and visited in its order; now_ms is the caller's
// clock; deadlines are compared as numbers and written as now_ms + lease_ms.
// raise(f) = if HGET(lock, f) == nil or its number < now_ms + lease_ms:
//              HSET(lock, f, now_ms + lease_ms)
// pexpire_if_shorter = if PTTL(lock) < lease_ms: PEXPIRE(lock, lease_ms)
//
// faster_multi_acquire(lock, owner, lease_ms, now_ms, values):
//   1. if EXISTS(lock) == 1: for v in values:
//        o = HGET(lock, F(v)); if o != nil and o != owner
//           and (d = HGET(lock, E(v, o))) != nil and d > now_ms: return PTTL(lock)
//   2. for v in values:
//        o = HGET(lock, F(v)); if o != nil and o != owner:
//          HDEL(lock, E(v, o)); HDEL(lock, C(v, o))      (an expired value taken over)
//        HSET(lock, F(v), owner); raise(E(v, owner)); HINCRBY(lock, C(v, owner), 1)
//   3. pexpire_if_shorter; return nil
//
// faster_multi_release(lock, channel, latch, owner, lease_ms, now_ms,
//                      latch_ttl_ms, message, values):
//   1. v = GET(latch); if v != nil: return v as an integer
//   2. if EXISTS(lock) == 0: PUBLISH(channel, message); return nil
//   3. for v in values: d = HGET(lock, E(v, owner))
//        if d == nil or d < now_ms: return nil          (nothing changed)
//   4. for v in values:
//        if HINCRBY(lock, C(v, owner), -1) > 0: raise(E(v, owner))
//        else: HDEL(lock, F(v)); HDEL(lock, E(v, owner)); HDEL(lock, C(v, owner))
//   5. if a value was freed: PUBLISH(channel, message)
//      every value freed: SET(latch, "1", PX latch_ttl_ms); return 1
//      else: pexpire_if_shorter; SET(latch, "0", PX latch_ttl_ms); return 0
//
// faster_multi_renew(lock, owner, lease_ms, now_ms, values):
//   if values is empty or some HGET(lock, F(v)) != owner: return 0  (nothing changed)
//   for v in values: raise(E(v, owner))
//   PEXPIRE(lock, lease_ms); return 1
//
// faster_multi_force_release(lock, channel, message):
//   if DEL(lock) == 1: PUBLISH(channel, message); return 1
//   return 0
#pragma once

#include <cstdint>

#include "redis/exec_result.h"
#include "model/script_call.h"
#include "redis/store.h"
#include "model/variant.h"

namespace locksim {

// Runs one script on `store` at server time `server_now_ms`. Published
// messages are taken from the store's log (which must be empty on entry).
ExecResult run_script(Store& store, const ScriptCall& call, int64_t server_now_ms,
                      ModelVariant variant = ModelVariant::Correct);

// The answer of a script a version does not have (a pack's "absent"
// script, the FairNoAcquireFailed variant's fair_acquire_failed): an error
// naming it. It touches nothing.
Reply absent_script_reply(ScriptKind kind);

// run_script into *out, reusing its buffers so that a caller running many
// scripts allocates little. Sets reply, published and holders_after, and
// error_declared (only an absent script's answer), line_known = false;
// leaves line_after alone (the caller owns it).
void run_script_into(Store& store, const ScriptCall& call, int64_t server_now_ms, ModelVariant variant,
                     ExecResult* out);

}  // namespace locksim
