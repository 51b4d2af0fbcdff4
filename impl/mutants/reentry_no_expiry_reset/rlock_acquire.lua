-- rlock_acquire (MUTANT reentry_no_expiry_reset): a reentrant acquire does not
-- reset the lease, so the nested hold may expire early.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
local lock = KEYS[1]
local lease_ms = ARGV[1]
local owner = ARGV[2]

if redis.call('exists', lock) == 0 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  return nil
end
if redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  return nil
end
return redis.call('pttl', lock)
