-- faster_multi_acquire: take several locks of one group (its "values") at
-- once, in the group's one hash. Each value has three fields: the value
-- itself (its owner), "<value>:<owner>:expire_time" (a deadline in the
-- caller's clock) and "<value>:<owner>:lock_count" (re-entries).
-- KEYS[1] group hash
-- ARGV[1] lease_ms, ARGV[2] owner, ARGV[3] now_ms (caller's clock),
-- ARGV[4] values, comma-separated
-- Returns nil when every value is now the caller's; the hash's PTTL when
-- some value belongs to another owner whose deadline is still ahead.
local lock = KEYS[1]
local lease_ms = tonumber(ARGV[1])
local owner = ARGV[2]
local now_ms = tonumber(ARGV[3])

local values = {}
if ARGV[4] ~= '' then
  local start = 1
  while true do
    local comma = string.find(ARGV[4], ',', start, true)
    if comma == nil then
      values[#values + 1] = string.sub(ARGV[4], start)
      break
    end
    values[#values + 1] = string.sub(ARGV[4], start, comma - 1)
    start = comma + 1
  end
end

if redis.call('exists', lock) == 1 then
  for _, value in ipairs(values) do
    local other = redis.call('hget', lock, value)
    if other ~= false and other ~= owner then
      local deadline = redis.call('hget', lock, value .. ':' .. other .. ':expire_time')
      if deadline ~= false and tonumber(deadline) > now_ms then
        return redis.call('pttl', lock)
      end
    end
  end
end

local deadline = now_ms + lease_ms
for _, value in ipairs(values) do
  local other = redis.call('hget', lock, value)
  if other ~= false and other ~= owner then
    -- the other owner's deadline has passed: its value changes hands
    redis.call('hdel', lock, value .. ':' .. other .. ':expire_time')
    redis.call('hdel', lock, value .. ':' .. other .. ':lock_count')
  end
  redis.call('hset', lock, value, owner)
  local mine = redis.call('hget', lock, value .. ':' .. owner .. ':expire_time')
  if mine == false or tonumber(mine) < deadline then
    redis.call('hset', lock, value .. ':' .. owner .. ':expire_time', deadline)
  end
  redis.call('hincrby', lock, value .. ':' .. owner .. ':lock_count', 1)
end
if redis.call('pttl', lock) < lease_ms then
  redis.call('pexpire', lock, lease_ms)
end
return nil
