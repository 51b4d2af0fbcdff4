-- faster_multi_renew: the watchdog's renewal of several values of a group.
-- Renews only when every value is the caller's; otherwise changes nothing.
-- KEYS[1] group hash
-- ARGV[1] lease_ms, ARGV[2] owner, ARGV[3] now_ms (caller's clock),
-- ARGV[4] values, comma-separated
-- Returns 1 when renewed, 0 when some value is not the caller's.
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

if #values == 0 then
  return 0
end
for _, value in ipairs(values) do
  if redis.call('hget', lock, value) ~= owner then
    return 0
  end
end
local deadline = now_ms + lease_ms
for _, value in ipairs(values) do
  local mine = redis.call('hget', lock, value .. ':' .. owner .. ':expire_time')
  if mine == false or tonumber(mine) < deadline then
    redis.call('hset', lock, value .. ':' .. owner .. ':expire_time', deadline)
  end
end
redis.call('pexpire', lock, lease_ms)
return 1
