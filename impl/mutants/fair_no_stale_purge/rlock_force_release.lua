-- rlock_force_release: delete the reentrant lock whoever holds it.
-- KEYS[1] lock hash, KEYS[2] wake-up channel
-- ARGV[1] message
-- Returns 1 (and publishes) when a lock was deleted, else 0.
local lock = KEYS[1]
local channel = KEYS[2]
local message = ARGV[1]

if redis.call('del', lock) == 1 then
  redis.call('publish', channel, message)
  return 1
end
return 0
