-- extend: the record's holder gets lease_ms more on the record and its
-- two copies; the record is rewritten with the new lease.
-- KEYS[1] the lock key; ARGV[1] the caller's token, ARGV[2] lease_ms.
-- Answers 1 when extended, 0 when the caller no longer holds the lock.
local raw = redis.call('get', KEYS[1])
if not raw then
  return 0
end
local record = cjson.decode(raw)
if record.token ~= ARGV[1] then
  return 0
end
record.lease = tonumber(ARGV[2])
record.slot = bit.band(record.lease, 0xff)
redis.call('set', KEYS[1], cjson.encode(record), 'PX', ARGV[2])
redis.call('pexpire', KEYS[1] .. ':bin', ARGV[2])
redis.call('pexpire', KEYS[1] .. ':msgpack', ARGV[2])
return 1
