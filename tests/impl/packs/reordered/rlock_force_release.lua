-- rlock_force_release, older layout (test pack): other ARGV order; channels in ARGV;
-- the fair acquire scripts take now_ms + wait_ms precomputed.
-- KEYS: lock / ARGV: channel, message
local lock = KEYS[1]
local channel = ARGV[1]
local message = ARGV[2]

if redis.call('del', lock) == 1 then
  redis.call('publish', channel, message)
  return 1
end
return 0
