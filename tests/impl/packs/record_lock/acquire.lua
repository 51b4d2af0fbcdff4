-- acquire: a token lock whose key holds a record rather than the bare
-- token, written with Redis's script libraries: the record as JSON (cjson),
-- beside it the lease and the token packed as binary (struct) and as
-- MessagePack (cmsgpack), and a slot number cut from the lease (bit).
-- KEYS[1] the lock key; ARGV[1] the caller's token, ARGV[2] lease_ms.
-- Answers OK when taken, nil when someone holds it.
if redis.call('exists', KEYS[1]) == 1 then
  return nil
end
local lease = tonumber(ARGV[2])
local record = cjson.encode({token = ARGV[1], lease = lease, slot = bit.band(lease, 0xff)})
redis.call('set', KEYS[1], record, 'PX', lease)
redis.call('set', KEYS[1] .. ':bin', struct.pack('>I4Bc0', lease, #ARGV[1], ARGV[1]), 'PX', lease)
redis.call('set', KEYS[1] .. ':msgpack', cmsgpack.pack({ARGV[1], lease, bit.bor(bit.lshift(1, 4), 3)}), 'PX', lease)
return redis.status_reply('OK')
