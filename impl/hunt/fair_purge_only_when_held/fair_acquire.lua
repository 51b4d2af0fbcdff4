-- fair_acquire (RARE-SCHEDULE MUTANT fair_purge_only_when_held): take the fair
-- lock in arrival order, or join the line. It skips the purge of stale
-- waiters while the lock is free, on the reasoning that a free lock goes to
-- the head at its next poll anyway; but a head that crashed never polls, and
-- the waiters behind it are then told to poll again forever.
-- KEYS[1] lock hash, KEYS[2] line (list), KEYS[3] deadlines (zset)
-- ARGV[1] lease_ms, ARGV[2] owner, ARGV[3] wait_ms, ARGV[4] now_ms (client clock)
-- Returns nil when the caller now holds the lock, else the ms to wait before
-- polling again.
local lock = KEYS[1]
local line = KEYS[2]
local deadlines = KEYS[3]
local lease_ms = ARGV[1]
local owner = ARGV[2]
local wait_ms = tonumber(ARGV[3])
local now_ms = tonumber(ARGV[4])

-- Purge stale waiters: pop heads whose deadline has passed (<= now_ms); stop
-- at the first live head or at a head without a deadline.
-- MUTANT: only while the lock is held.
while redis.call('exists', lock) == 1 do
  local head = redis.call('lindex', line, 0)
  if head == false then break end
  local deadline = redis.call('zscore', deadlines, head)
  if deadline == false or tonumber(deadline) > now_ms then break end
  redis.call('zrem', deadlines, head)
  redis.call('lpop', line)
end

-- Free lock and nobody ahead of us: take it; everyone still waiting moves
-- one slot closer.
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
    return nil
  end
end

-- Reentry.
if redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  return nil
end

-- Already in line: poll again after the lock's remaining time.
if redis.call('zscore', deadlines, owner) ~= false then
  local pttl = redis.call('pttl', lock)
  if pttl < 0 then return 0 end
  return pttl
end

-- Join the line: our slot starts when the last waiter's slot ends (or when
-- the lock expires if nobody waits).
local ttl
local last = redis.call('lindex', line, -1)
local last_deadline = false
if last ~= false and last ~= owner then
  last_deadline = redis.call('zscore', deadlines, last)
end
if last_deadline ~= false then
  ttl = tonumber(last_deadline) - now_ms
else
  ttl = redis.call('pttl', lock)
end
if redis.call('zadd', deadlines, ttl + wait_ms + now_ms, owner) == 1 then
  redis.call('rpush', line, owner)
end
return ttl
