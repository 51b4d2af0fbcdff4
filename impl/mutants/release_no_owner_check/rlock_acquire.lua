-- rlock_acquire: take the reentrant lock, or enter it once more.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
-- Returns nil when the caller now holds the lock, else the lock's PTTL.
local lock = KEYS[1]
local lease_ms = ARGV[1]
local owner = ARGV[2]

if redis.call('exists', lock) == 0 or redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  return nil
end
return redis.call('pttl', lock)
