-- release: the holder gives the lock back. The key holds the token of
-- whoever took it; only a caller presenting that same token may delete it,
-- so a caller whose lease ran out cannot free a lock someone else took since.
-- KEYS[1] the lock key; ARGV[1] the caller's token.
-- Answers 1 when the caller held the lock (now deleted), 0 otherwise.
local holder = redis.call('get', KEYS[1])
if holder ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
return 1
