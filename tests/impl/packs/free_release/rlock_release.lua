-- rlock_release with a latch convention that was once shipped: a release of
-- a lock that no longer exists publishes the wake-up and answers 1
-- (released), whoever asks. So a caller that holds nothing is told it
-- released the lock. Test pack for the reentrancy checker's contract rule:
-- no fault can excuse "released" for an owner the server does not list.
-- KEYS[1] lock hash, KEYS[2] wake-up channel, KEYS[3] unlock latch
-- ARGV[1] message, ARGV[2] lease_ms, ARGV[3] owner, ARGV[4] latch_ttl_ms
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
if redis.call('exists', lock) == 0 then
  redis.call('publish', channel, message)
  return 1
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
