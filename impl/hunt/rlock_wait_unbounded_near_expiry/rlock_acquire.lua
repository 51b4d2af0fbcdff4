-- rlock_acquire (RARE-SCHEDULE MUTANT rlock_wait_unbounded_near_expiry):
-- take the reentrant lock, or enter it once more. A refused caller is
-- told the lock's remaining time, except when that is under a second: then
-- it answers -1 ("no expiry": wait for the release message), reasoning that
-- the lock is about to be released anyway. When the holder has crashed,
-- nobody releases it, and a lock() waiter that polled in its last second
-- waits for a message that never comes.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
-- Returns nil when the caller now holds the lock, else the ms to wait (-1: until a message).
local lock = KEYS[1]
local lease_ms = ARGV[1]
local owner = ARGV[2]

if redis.call('exists', lock) == 0 or redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  return nil
end
local left_ms = redis.call('pttl', lock)
-- MUTANT: a lock about to expire is reported as one that never expires.
if left_ms >= 0 and left_ms < 1000 then return -1 end
return left_ms
