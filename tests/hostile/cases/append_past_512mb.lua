-- Class: memory / Redis's limits. 6,000 APPENDs of 100 KB go past
-- proto-max-bulk-len (512 MB).
-- Redis 7.0.15: "ERR string exceeds maximum allowed size
-- (proto-max-bulk-len)" at the APPEND that would pass it.
-- commands: run (every call builds 512 MB: once is enough; the other
-- commands reach the same APPEND)
-- memory-limit: 1536M
-- expect: reply string exceeds maximum allowed size (proto-max-bulk-len)
local v = string.rep('a', 100000)
for i = 1, 6000 do redis.call('append', KEYS[1] .. ':blob', v) end
return 1
