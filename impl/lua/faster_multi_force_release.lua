-- faster_multi_force_release: delete a group's hash whoever holds its values,
-- and tell the waiters.
-- KEYS[1] group hash, KEYS[2] group channel
-- ARGV[1] message
-- Returns 1 when a hash was deleted, else 0.
if redis.call('del', KEYS[1]) == 1 then
  redis.call('publish', KEYS[2], ARGV[1])
  return 1
end
return 0
