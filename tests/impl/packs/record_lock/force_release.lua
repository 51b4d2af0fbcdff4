-- force release: the record and its copies deleted, whoever holds them.
-- KEYS[1] the lock key. Answers 1 when the lock was held, 0 otherwise.
if redis.call('del', KEYS[1], KEYS[1] .. ':bin', KEYS[1] .. ':msgpack') > 0 then
  return 1
end
return 0
