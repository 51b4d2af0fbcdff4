-- fair_acquire_failed: a waiter gives up and leaves the line; everyone behind
-- it moves one slot closer.
-- KEYS[1] line (list), KEYS[2] deadlines (zset)
-- ARGV[1] owner, ARGV[2] wait_ms
-- Returns nil.
local line = KEYS[1]
local deadlines = KEYS[2]
local owner = ARGV[1]
local wait_ms = tonumber(ARGV[2])

local waiting = redis.call('lrange', line, 0, -1)
local i = 1
while i <= #waiting and waiting[i] ~= owner do
  i = i + 1
end
i = i + 1
while i <= #waiting do
  redis.call('zincrby', deadlines, -wait_ms, waiting[i])
  i = i + 1
end
redis.call('zrem', deadlines, owner)
redis.call('lrem', line, 0, owner)
return nil
