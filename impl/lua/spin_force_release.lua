-- spin_force_release: delete the spin lock whoever holds it; nobody is told.
-- KEYS[1] lock hash
-- Returns 1 when a lock was deleted, else 0.
if redis.call('del', KEYS[1]) == 1 then
  return 1
end
return 0
