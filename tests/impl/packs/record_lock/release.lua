-- release: only the caller whose token the record holds may delete it.
-- The binary and MessagePack copies must name the same token: they are
-- read back and compared, so a library that packs or unpacks differently
-- from Redis's shows here as a different reply.
-- KEYS[1] the lock key; ARGV[1] the caller's token.
-- Answers 1 when the caller held the lock (now deleted), 0 otherwise.
local raw = redis.call('get', KEYS[1])
if not raw or cjson.decode(raw).token ~= ARGV[1] then
  return 0
end
local _, bin_token = struct.unpack('>I4Bc0', redis.call('get', KEYS[1] .. ':bin'))
local packed = cmsgpack.unpack(redis.call('get', KEYS[1] .. ':msgpack'))
if bin_token ~= ARGV[1] or packed[1] ~= ARGV[1] then
  return redis.error_reply('record copies disagree')
end
redis.call('del', KEYS[1], KEYS[1] .. ':bin', KEYS[1] .. ':msgpack')
return 1
