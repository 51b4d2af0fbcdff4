-- fair_acquire (RARE-SCHEDULE MUTANT fair_stale_ttl_crashed_holder): take the
-- fair lock in arrival order, or join the line. Every grant and renewal
-- marks the lock alive for half its lease (<lock>:alive); while the
-- lock is held but no longer marked (its holder stopped renewing: crashed,
-- or paused that long) a waiter already in line gets the older, wrong
-- estimate of when the slot ahead ends, deadline - wait_ms - now_ms, which
-- can be negative (lock() then waits for a wake-up with no time limit, and a
-- crashed holder sends none). Anywhere else it answers as our pack does.
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
while true do
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
    redis.call('set', lock .. ':alive', 1, 'px', math.max(1, math.floor(tonumber(lease_ms) / 2)))
    return nil
  end
end

-- Reentry.
if redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  redis.call('set', lock .. ':alive', 1, 'px', math.max(1, math.floor(tonumber(lease_ms) / 2)))
  return nil
end

-- Already in line: poll again after the lock's remaining time.
local own_deadline = redis.call('zscore', deadlines, owner)
if own_deadline ~= false then
  -- MUTANT: a holder that stopped renewing -> the older estimate.
  if redis.call('exists', lock) == 1 and redis.call('exists', lock .. ':alive') == 0 then
    return tonumber(own_deadline) - wait_ms - now_ms
  end
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
