-- rlock_release: give back one hold of the reentrant lock, idempotently.
-- KEYS[1] lock hash, KEYS[2] wake-up channel, KEYS[3] unlock latch
-- ARGV[1] message, ARGV[2] lease_ms, ARGV[3] owner, ARGV[4] latch_ttl_ms
-- Returns the latched answer for a retried request; nil when the caller does
-- not hold the lock; 0 when still held; 1 when released (and published).
-- A latch_ttl_ms <= 0 makes SET fail: the script errors after its earlier
-- writes (Redis does not roll back), exactly as the historical bug did.
local lock = KEYS[1]
local channel = KEYS[2]
local latch = KEYS[3]
local message = ARGV[1]
local lease_ms = ARGV[2]
local owner = ARGV[3]
local latch_ttl_ms = ARGV[4]

local latched = redis.call('get', latch)
if latched ~= false then
  return tonumber(latched)
end
if redis.call('hexists', lock, owner) == 0 then
  return nil
end
local count = redis.call('hincrby', lock, owner, -1)
if count > 0 then
  redis.call('pexpire', lock, lease_ms)
  redis.call('set', latch, 0, 'px', latch_ttl_ms)
  return 0
end
redis.call('del', lock)
redis.call('publish', channel, message)
redis.call('set', latch, 1, 'px', latch_ttl_ms)
return 1
