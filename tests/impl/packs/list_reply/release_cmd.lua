-- Release that is told which publish command to use (ARGV[5]: 'publish' on
-- a single server, 'spublish' on a sharded cluster), so one script serves
-- both. Otherwise the semantics of impl/lua/rlock_release.lua.
-- KEYS[1] lock, KEYS[2] channel, KEYS[3] latch
-- ARGV[1] message, ARGV[2] lease_ms, ARGV[3] owner, ARGV[4] latch_ttl_ms,
-- ARGV[5] publish command
local latched = redis.call('get', KEYS[3])
if latched then return tonumber(latched) end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end
if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('set', KEYS[3], 0, 'px', ARGV[4])
  return 0
end
redis.call('del', KEYS[1])
redis.call(ARGV[5], KEYS[2], ARGV[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[4])
return 1
