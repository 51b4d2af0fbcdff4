-- fair_force_release: delete the fair lock whoever holds it and wake the
-- head of the line.
-- KEYS[1] lock hash, KEYS[2] line (list), KEYS[3] deadlines (zset),
-- KEYS[4] channel prefix
-- ARGV[1] message, ARGV[2] now_ms (client clock)
-- Returns 1 when a lock was deleted, else 0.
local lock = KEYS[1]
local line = KEYS[2]
local deadlines = KEYS[3]
local channel_prefix = KEYS[4]
local message = ARGV[1]
local now_ms = tonumber(ARGV[2])

-- Purge stale waiters (see fair_acquire.lua).
while true do
  local head = redis.call('lindex', line, 0)
  if head == false then break end
  local deadline = redis.call('zscore', deadlines, head)
  if deadline == false or tonumber(deadline) > now_ms then break end
  redis.call('zrem', deadlines, head)
  redis.call('lpop', line)
end

if redis.call('del', lock) == 1 then
  local head = redis.call('lindex', line, 0)
  if head ~= false then
    redis.call('publish', channel_prefix .. ':' .. head, message)
  end
  return 1
end
return 0
