-- rlock_acquire (RARE-SCHEDULE MUTANT rlock_steal_late_renewal): take the
-- reentrant lock, or enter it once more. It assumes a live holder's
-- watchdog always renews on time (every third of a lease), so a lock taken
-- with a watchdog lease (30 s or more) that has noticeably less than two
-- thirds of it left is taken to be abandoned and is taken over. A holder paused across its renewal, even
-- for a fraction of a second, loses its lock to the next caller.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
-- Returns nil when the caller now holds the lock, else the lock's PTTL.
local lock = KEYS[1]
local lease_ms = tonumber(ARGV[1])
local owner = ARGV[2]

if lease_ms >= 30000 and redis.call('exists', lock) == 1 and redis.call('hexists', lock, owner) == 0 then
  -- MUTANT: between a third and two thirds of a watchdog lease left (a
  -- shorter explicit lease stays below a third), a renewal more than
  -- 100 ms late means the holder is gone.
  local left_ms = redis.call('pttl', lock)
  if left_ms > lease_ms / 3 and left_ms < math.floor(lease_ms * 2 / 3) - 100 then
    redis.call('del', lock)
  end
end
if redis.call('exists', lock) == 0 or redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  return nil
end
return redis.call('pttl', lock)
