-- rlock_renew (RARE-SCHEDULE MUTANT rlock_renew_refuses_late): the
-- watchdog's renewal, with a guard meant to catch a runaway watchdog: a
-- renewal that comes noticeably late (the lock has less than two thirds of
-- a watchdog lease left, by more than 50 ms) is refused as if the caller no
-- longer held the lock. A holder paused across its renewal time, even for a
-- tenth of a second, is then told its lock is gone and stops renewing,
-- while the server still keeps the lock for it until it expires.
-- KEYS[1] lock hash
-- ARGV[1] lease_ms, ARGV[2] owner
-- Returns 1 when renewed, 0 when refused.
local lock = KEYS[1]
local lease_ms = tonumber(ARGV[1])
local owner = ARGV[2]

if redis.call('hexists', lock, owner) == 1 then
  -- MUTANT: a late renewal is refused.
  local left_ms = redis.call('pttl', lock)
  if lease_ms >= 30000 and left_ms >= 0 and left_ms < math.floor(lease_ms * 2 / 3) - 50 then return 0 end
  redis.call('pexpire', lock, lease_ms)
  return 1
end
return 0
