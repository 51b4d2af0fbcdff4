-- fair_acquire_failed, older layout (test pack): other ARGV order; channels in ARGV;
-- the fair acquire scripts take now_ms + wait_ms precomputed.
-- KEYS: line, deadlines / ARGV: wait_ms, owner
local line = KEYS[1]
local deadlines = KEYS[2]
local wait_ms = tonumber(ARGV[1])
local owner = ARGV[2]

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
