-- fair_release, older layout (test pack): other ARGV order; channels in ARGV;
-- the fair acquire scripts take now_ms + wait_ms precomputed.
-- KEYS: lock, line, deadlines, latch / ARGV: owner, channel_prefix, message, now_ms, lease_ms, latch_ttl_ms
local lock = KEYS[1]
local line = KEYS[2]
local deadlines = KEYS[3]
local latch = KEYS[4]
local owner = ARGV[1]
local channel_prefix = ARGV[2]
local message = ARGV[3]
local now_ms = tonumber(ARGV[4])
local lease_ms = ARGV[5]
local latch_ttl_ms = ARGV[6]

local latched = redis.call('get', latch)
if latched ~= false then
  return tonumber(latched)
end

-- Purge stale waiters (see fair_acquire.lua).
while true do
  local head = redis.call('lindex', line, 0)
  if head == false then break end
  local deadline = redis.call('zscore', deadlines, head)
  if deadline == false or tonumber(deadline) > now_ms then break end
  redis.call('zrem', deadlines, head)
  redis.call('lpop', line)
end

if redis.call('exists', lock) == 0 then
  local head = redis.call('lindex', line, 0)
  if head ~= false then
    redis.call('publish', channel_prefix .. ':' .. head, message)
  end
  redis.call('set', latch, 1, 'px', latch_ttl_ms)
  return 1
end

if redis.call('hexists', lock, owner) == 0 then
  return nil
end

local count = redis.call('hincrby', lock, owner, -1)
if count > 0 then
  redis.call('pexpire', lock, lease_ms)
  redis.call('set', latch, 0, 'px', latch_ttl_ms)
  return 0
end

redis.call('del', lock)
redis.call('set', latch, 1, 'px', latch_ttl_ms)
local head = redis.call('lindex', line, 0)
if head ~= false then
  redis.call('publish', channel_prefix .. ':' .. head, message)
end
return 1
