-- rlock_renew (RARE-SCHEDULE MUTANT rlock_renew_recreates): the watchdog's
-- renewal, written to "heal" a lock that vanished under its holder: when
-- the lock key is gone it is written back for the caller. A renewal sent
-- just before its holder's release, and overtaken by it, then puts back a
-- lock nobody holds any more.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
-- Returns 1 when renewed, 0 when another owner holds the lock.
local lock = KEYS[1]
local lease_ms = ARGV[1]
local owner = ARGV[2]

if redis.call('hexists', lock, owner) == 1 then
  redis.call('pexpire', lock, lease_ms)
  return 1
end
-- MUTANT: a missing lock is re-created for the renewing owner.
if redis.call('exists', lock) == 0 then
  redis.call('hset', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  return 1
end
return 0
