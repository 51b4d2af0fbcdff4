-- rlock_release, older layout (test pack): other ARGV order; channels in ARGV;
-- the fair acquire scripts take now_ms + wait_ms precomputed.
-- KEYS: lock, latch / ARGV: owner, channel, message, latch_ttl_ms, lease_ms
local lock = KEYS[1]
local latch = KEYS[2]
local owner = ARGV[1]
local channel = ARGV[2]
local message = ARGV[3]
local latch_ttl_ms = ARGV[4]
local lease_ms = ARGV[5]

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
