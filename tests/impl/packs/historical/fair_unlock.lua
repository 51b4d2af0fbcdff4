-- Fair release of an older release. It wakes the next waiter on
-- "<channel>/<waiter>" (a slash, not a colon) with the fixed text 'unlocked';
-- the caller names the publish command (ARGV[5]).
-- KEYS: lock, line, deadlines, channel, latch.
-- ARGV: lease, holder, now ms, latch ttl, command.
local done = redis.call('get', KEYS[5]);
if done ~= false then return tonumber(done); end;
local now = tonumber(ARGV[3]);
while true do
  local first = redis.call('lindex', KEYS[2], 0);
  if first == false then break; end;
  local until_ms = redis.call('zscore', KEYS[3], first);
  if until_ms == false or tonumber(until_ms) > now then break; end;
  redis.call('zrem', KEYS[3], first);
  redis.call('lpop', KEYS[2]);
end;
if (redis.call('exists', KEYS[1]) == 0) then
  local first = redis.call('lindex', KEYS[2], 0);
  if first ~= false then redis.call(ARGV[5], KEYS[4] .. '/' .. first, 'unlocked'); end;
  redis.call('set', KEYS[5], 1, 'px', ARGV[4]);
  return 1;
end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 0) then return nil; end;
if (redis.call('hincrby', KEYS[1], ARGV[2], -1) > 0) then
  redis.call('pexpire', KEYS[1], ARGV[1]);
  redis.call('set', KEYS[5], 0, 'px', ARGV[4]);
  return 0;
end;
redis.call('del', KEYS[1]);
redis.call('set', KEYS[5], 1, 'px', ARGV[4]);
local first = redis.call('lindex', KEYS[2], 0);
if first ~= false then redis.call(ARGV[5], KEYS[4] .. '/' .. first, 'unlocked'); end;
return 1;
