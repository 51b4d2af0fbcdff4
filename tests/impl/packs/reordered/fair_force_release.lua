-- fair_force_release, older layout (test pack): other ARGV order; channels in ARGV;
-- the fair acquire scripts take now_ms + wait_ms precomputed.
-- KEYS: lock, line, deadlines / ARGV: channel_prefix, now_ms, message
local lock = KEYS[1]
local line = KEYS[2]
local deadlines = KEYS[3]
local channel_prefix = ARGV[1]
local now_ms = tonumber(ARGV[2])
local message = ARGV[3]

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
