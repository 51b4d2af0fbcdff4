-- extend: the holder asks for more time. The expiry is reset to lease_ms
-- from now, but only while the key still holds the caller's token.
-- KEYS[1] the lock key; ARGV[1] the caller's token, ARGV[2] lease_ms.
-- Answers 1 when extended, 0 when the caller no longer holds the lock.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('pexpire', KEYS[1], ARGV[2])
return 1
