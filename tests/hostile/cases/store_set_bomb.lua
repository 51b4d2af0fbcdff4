-- Class: memory. 200 keys of 10 MB each: 2 GB of key store.
-- Redis 7.0.15: stores them (no maxmemory by default).
-- expect: stop MiB of memory
local v = string.rep('x', 10 * 1024 * 1024)
for i = 1, 200 do redis.call('set', KEYS[1] .. ':' .. i, v) end
return 1
