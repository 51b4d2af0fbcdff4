-- Class: memory. gsub doubling a string's size on every pass.
-- Redis 7.0.15: grows until the host runs out of memory.
-- expect: stop MiB of memory|budget of 100000000 steps
local s = 'ab'
while true do s = s:gsub('.', '%0%0') end
