-- spin_release: give back one hold of the spin lock, idempotently. The spin
-- lock keeps the reentrant lock's hash, but its waiters back off and poll:
-- nobody listens, so nothing is published.
-- KEYS[1] lock hash, KEYS[2] unlock latch
-- ARGV[1] lease_ms, ARGV[2] owner, ARGV[3] latch_ttl_ms
-- Returns the latched answer for a retried request; nil when the caller does
-- not hold the lock; 0 when still held (the lease starts again); 1 when the
-- last hold is gone (the hash deleted).
local lock = KEYS[1]
local latch = KEYS[2]
local lease_ms = ARGV[1]
local owner = ARGV[2]
local latch_ttl_ms = ARGV[3]

local latched = redis.call('get', latch)
if latched ~= false then
  return tonumber(latched)
end
if redis.call('hexists', lock, owner) == 0 then
  return nil
end
if redis.call('hincrby', lock, owner, -1) > 0 then
  redis.call('pexpire', lock, lease_ms)
  redis.call('set', latch, 0, 'px', latch_ttl_ms)
  return 0
end
redis.call('del', lock)
redis.call('set', latch, 1, 'px', latch_ttl_ms)
return 1
