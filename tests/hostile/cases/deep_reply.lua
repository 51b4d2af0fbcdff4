-- Class: replies. A reply nested 20,000 tables deep (built once per
-- run: the lock then answers an error).
-- Redis 7.0.15: nested arrays 7,994 deep, then "ERR reached lua stack
-- limit" in place of the rest.
-- commands: run (a failing campaign shrinks and re-runs: each run builds the reply again)
-- expect: reply reached lua stack limit
if redis.call('incr', 'hostile:deep') > 1 then return redis.error_reply('deep reply already sent') end
local t = {}
local c = t
for i = 1, 20000 do c[1] = {} c = c[1] end
return t
