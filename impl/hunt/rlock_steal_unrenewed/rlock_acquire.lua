-- rlock_acquire (RARE-SCHEDULE MUTANT rlock_steal_unrenewed): take the
-- reentrant lock, or enter it once more. Every grant and renewal marks the
-- lock alive for half its lease (<lock>:alive); a lock still held but no
-- longer marked (its holder skipped its renewals: crashed, or paused for
-- more than half a lease yet less than a whole one) is taken over as if it
-- were free. Anywhere else it answers as our pack does.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
-- Returns nil when the caller now holds the lock, else the lock's PTTL.
local lock = KEYS[1]
local lease_ms = ARGV[1]
local owner = ARGV[2]

-- MUTANT: an unrenewed holder is dropped.
if redis.call('exists', lock) == 1 and redis.call('hexists', lock, owner) == 0 and
   redis.call('exists', lock .. ':alive') == 0 then
  redis.call('del', lock)
end
if redis.call('exists', lock) == 0 or redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  redis.call('set', lock .. ':alive', 1, 'px', math.max(1, math.floor(tonumber(lease_ms) / 2)))
  return nil
end
return redis.call('pttl', lock)
