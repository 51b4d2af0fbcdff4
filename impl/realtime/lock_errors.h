// The exceptions of the blocking lock API (redis_lock_client.h):
//  - LockError: base of all of them.
//  - LockNotHeldError: unlock() by a thread that does not hold the lock (it
//    never did, or its hold expired): Redisson's "illegal monitor state".
//    Nothing on the server changed.
//  - LockRedisError: the command's outcome is unknown or failed on the
//    server: connection lost or refused, no reply in time, a Redis error
//    reply. The message names the server and the command, e.g.
//    "redis 127.0.0.1:6379: EVALSHA rlock_release: connection lost (...)".
//  - LockGaveUpError: lock() (no wait budget) stopped waiting without the
//    lock (its bound on poll rounds ran out, or it could not subscribe).
#pragma once

#include <stdexcept>

namespace locksim {

struct LockError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct LockNotHeldError : LockError {
  using LockError::LockError;
};
struct LockRedisError : LockError {
  using LockError::LockError;
};
struct LockGaveUpError : LockError {
  using LockError::LockError;
};

}  // namespace locksim
