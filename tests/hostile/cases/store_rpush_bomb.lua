-- Class: memory. A list growing without end (5.5 GB resident, then
-- std::bad_alloc, before the store was charged).
-- Redis 7.0.15: grows until the host runs out of memory.
-- expect: stop MiB of memory
local v = string.rep('y', 100000)
while true do redis.call('rpush', KEYS[1], v) end
