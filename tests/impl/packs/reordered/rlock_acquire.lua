-- rlock_acquire, older layout (test pack): other ARGV order; channels in ARGV;
-- the fair acquire scripts take now_ms + wait_ms precomputed.
-- KEYS: lock / ARGV: owner, lease_ms
local lock = KEYS[1]
local owner = ARGV[1]
local lease_ms = ARGV[2]

if redis.call('exists', lock) == 0 or redis.call('hexists', lock, owner) == 1 then
  redis.call('hincrby', lock, owner, 1)
  redis.call('pexpire', lock, lease_ms)
  return nil
end
return redis.call('pttl', lock)
