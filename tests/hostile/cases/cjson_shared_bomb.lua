-- Class: memory. cjson.encode of one 1 MB string referenced 4,000 times:
-- 4 GB of JSON, in a buffer cjson mallocs outside the Lua heap.
-- Redis 7.0.15: tries to build it.
-- expect: stop MiB of memory
local s = string.rep('j', 1000000)
local t = {}
for i = 1, 4000 do t[i] = s end
return #cjson.encode(t)
