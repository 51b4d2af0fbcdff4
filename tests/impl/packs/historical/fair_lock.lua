-- Fair acquire of an older release. The line and the deadlines are named by
-- the script's caller from the lock name; every slot is 5 s long, whatever
-- the caller's wait (ARGV[3] is always 5000).
-- KEYS: lock, line, deadlines. ARGV: lease, holder, slot ms, now ms.
local slot = tonumber(ARGV[3]);
local now = tonumber(ARGV[4]);
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
  if (first == false) or (first == ARGV[2]) then
    redis.call('lpop', KEYS[2]);
    redis.call('zrem', KEYS[3], ARGV[2]);
    for _, who in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do
      redis.call('zincrby', KEYS[3], -slot, who);
    end;
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
  end;
end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1);
  redis.call('pexpire', KEYS[1], ARGV[1]);
  return nil;
end;
if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
  local left = redis.call('pttl', KEYS[1]);
  if left < 0 then return 0; end;
  return left;
end;
local last = redis.call('lindex', KEYS[2], -1);
local wait;
if last ~= false and last ~= ARGV[2] and redis.call('zscore', KEYS[3], last) ~= false then
  wait = tonumber(redis.call('zscore', KEYS[3], last)) - now;
else
  wait = redis.call('pttl', KEYS[1]);
end;
if redis.call('zadd', KEYS[3], wait + slot + now, ARGV[2]) == 1 then
  redis.call('rpush', KEYS[2], ARGV[2]);
end;
return wait;
