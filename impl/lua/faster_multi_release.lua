-- faster_multi_release: give back one hold of several values of a group at
-- once, idempotently. Nothing changes unless every value is the caller's
-- and within its deadline (caller's clock).
-- KEYS[1] group hash, KEYS[2] group channel, KEYS[3] unlock latch
-- ARGV[1] message, ARGV[2] lease_ms, ARGV[3] owner, ARGV[4] now_ms,
-- ARGV[5] latch_ttl_ms, ARGV[6] values, comma-separated
-- Returns the latched answer for a retried request; nil when the hash is
-- gone (waiters are told) or some value is not the caller's; 1 when every
-- value was freed; 0 when some value keeps a hold.
local lock = KEYS[1]
local channel = KEYS[2]
local latch = KEYS[3]
local message = ARGV[1]
local lease_ms = tonumber(ARGV[2])
local owner = ARGV[3]
local now_ms = tonumber(ARGV[4])
local latch_ttl_ms = ARGV[5]

local latched = redis.call('get', latch)
if latched ~= false then
  return tonumber(latched)
end
if redis.call('exists', lock) == 0 then
  redis.call('publish', channel, message)
  return nil
end

local values = {}
if ARGV[6] ~= '' then
  local start = 1
  while true do
    local comma = string.find(ARGV[6], ',', start, true)
    if comma == nil then
      values[#values + 1] = string.sub(ARGV[6], start)
      break
    end
    values[#values + 1] = string.sub(ARGV[6], start, comma - 1)
    start = comma + 1
  end
end

for _, value in ipairs(values) do
  local deadline = redis.call('hget', lock, value .. ':' .. owner .. ':expire_time')
  if deadline == false or tonumber(deadline) < now_ms then
    return nil
  end
end

local deadline = now_ms + lease_ms
local freed_any = false
local freed_all = true
for _, value in ipairs(values) do
  if redis.call('hincrby', lock, value .. ':' .. owner .. ':lock_count', -1) > 0 then
    local mine = redis.call('hget', lock, value .. ':' .. owner .. ':expire_time')
    if mine == false or tonumber(mine) < deadline then
      redis.call('hset', lock, value .. ':' .. owner .. ':expire_time', deadline)
    end
    freed_all = false
  else
    redis.call('hdel', lock, value)
    redis.call('hdel', lock, value .. ':' .. owner .. ':expire_time')
    redis.call('hdel', lock, value .. ':' .. owner .. ':lock_count')
    freed_any = true
  end
end
if freed_any then
  redis.call('publish', channel, message)
end
if freed_all then
  redis.call('set', latch, 1, 'px', latch_ttl_ms)
  return 1
end
if redis.call('pttl', lock) < lease_ms then
  redis.call('pexpire', lock, lease_ms)
end
redis.call('set', latch, 0, 'px', latch_ttl_ms)
return 0
