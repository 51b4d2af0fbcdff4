-- Class: memory. Messages published by one script wait for its end:
-- a loop of them holds them all.
-- Redis 7.0.15: keeps them all in its client output buffers.
-- expect: stop MiB of memory
local v = string.rep('z', 1000000)
while true do redis.call('publish', KEYS[1], v) end
