-- fair_release: give back one hold of the fair lock, idempotently, and wake
-- the head of the line.
-- KEYS[1] lock hash, KEYS[2] line (list), KEYS[3] deadlines (zset),
-- KEYS[4] channel prefix, KEYS[5] unlock latch
-- ARGV[1] message, ARGV[2] lease_ms, ARGV[3] owner, ARGV[4] now_ms,
-- ARGV[5] latch_ttl_ms
-- Returns the latched answer for a retried request; 1 when the lock is
-- (already) free; nil when the caller does not hold it; 0 when still held.
-- A latch_ttl_ms <= 0 makes SET fail after the earlier writes (no rollback).
local lock = KEYS[1]
local line = KEYS[2]
local deadlines = KEYS[3]
local channel_prefix = KEYS[4]
local latch = KEYS[5]
local message = ARGV[1]
local lease_ms = ARGV[2]
local owner = ARGV[3]
local now_ms = tonumber(ARGV[4])
local latch_ttl_ms = ARGV[5]

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
