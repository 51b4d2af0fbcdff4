-- rlock_renew (MUTANT renew_no_owner_check): the historical renewal that never
-- looks at the owner, so it keeps someone else's lock alive.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner (ignored)
-- Returns 1 when the lock key exists (whoever holds it), else 0.
local lock = KEYS[1]
local lease_ms = ARGV[1]

return redis.call('pexpire', lock, lease_ms)
