-- rlock_renew (RARE-SCHEDULE MUTANT rlock_renew_adds_lease): the watchdog's
-- renewal, written as "extend by one lease": it adds a whole lease to what
-- the lock still has instead of setting it to one lease. While the holder
-- lives nothing shows; once a holder that renewed at least once crashes,
-- its lock outlives the lease by what was left at the last renewal.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
-- Returns 1 when renewed, 0 when the caller does not hold the lock.
local lock = KEYS[1]
local lease_ms = tonumber(ARGV[1])
local owner = ARGV[2]

if redis.call('hexists', lock, owner) == 1 then
  local left_ms = redis.call('pttl', lock)
  if left_ms < 0 then left_ms = 0 end
  -- MUTANT: left + lease, where the lock should get exactly one lease.
  redis.call('pexpire', lock, left_ms + lease_ms)
  return 1
end
return 0
