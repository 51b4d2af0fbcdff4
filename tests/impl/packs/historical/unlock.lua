-- Reentrant release with an unlock latch. The caller names the publish
-- command (ARGV[5]) so the same text runs on a cluster ('spublish').
-- KEYS: lock, channel, latch. ARGV: message, lease, holder, latch ttl, command.
local done = redis.call('get', KEYS[3]);
if done ~= false then return tonumber(done); end;
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end;
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (left > 0) then
  redis.call('pexpire', KEYS[1], ARGV[2]);
  redis.call('set', KEYS[3], 0, 'px', ARGV[4]);
  return 0;
end;
redis.call('del', KEYS[1]);
redis.call(ARGV[5], KEYS[2], ARGV[1]);
redis.call('set', KEYS[3], 1, 'px', ARGV[4]);
return 1;
