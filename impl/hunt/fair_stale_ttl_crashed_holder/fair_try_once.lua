-- fair_try_once (RARE-SCHEDULE MUTANT fair_stale_ttl_crashed_holder: its grants mark
-- the lock alive, see fair_acquire.lua): one attempt at the fair lock without joining the line
-- (tryLock() with no wait).
-- KEYS[1] lock hash, KEYS[2] line (list), KEYS[3] deadlines (zset)
-- ARGV[1] lease_ms, ARGV[2] owner, ARGV[3] wait_ms, ARGV[4] now_ms (client clock)
-- Returns nil when the caller now holds the lock, else 1 ("not acquired").
local lock = KEYS[1]
local line = KEYS[2]
local deadlines = KEYS[3]
local lease_ms = ARGV[1]
local owner = ARGV[2]
local wait_ms = tonumber(ARGV[3])
local now_ms = tonumber(ARGV[4])

-- Purge stale waiters (see fair_acquire.lua).
while true do
  local head = redis.call('lindex', line, 0)
  if head == false then break end
  local deadline = redis.call('zscore', deadlines, head)
  if deadline == false or tonumber(deadline) > now_ms then break end
  redis.call('zrem', deadlines, head)
  redis.call('lpop', line)
end

if redis.call('exists', lock) == 0 then
  local head = redis.call('lindex', line, 0)
  if head == false or head == owner then
    redis.call('lpop', line)
    redis.call('zrem', deadlines, owner)
    local waiting = redis.call('zrange', deadlines, 0, -1)
    for i = 1, #waiting do
      redis.call('zincrby', deadlines, -wait_ms, waiting[i])
    end
    redis.call('hset', lock, owner, 1)
    redis.call('pexpire', lock, lease_ms)
    redis.call('set', lock .. ':alive', 1, 'px', math.max(1, math.floor(tonumber(lease_ms) / 2)))
    return nil
  end
end

if redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  redis.call('set', lock .. ':alive', 1, 'px', math.max(1, math.floor(tonumber(lease_ms) / 2)))
  return nil
end

return 1
