-- rlock_renew (RARE-SCHEDULE MUTANT fair_stale_ttl_crashed_holder: a renewal marks the
-- lock alive, see fair_acquire.lua): the watchdog's renewal; only the holder may extend the lease.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
-- Returns 1 when renewed, 0 when the caller does not hold the lock.
local lock = KEYS[1]
local lease_ms = ARGV[1]
local owner = ARGV[2]

if redis.call('hexists', lock, owner) == 1 then
  redis.call('pexpire', lock, lease_ms)
  redis.call('set', lock .. ':alive', 1, 'px', math.max(1, math.floor(tonumber(lease_ms) / 2)))
  return 1
end
return 0
