-- Class: the budget. Sorting a big table again and again: a few Lua
-- instructions per sort, the comparisons in C.
-- Redis 7.0.15: busy for good.
-- expect: stop budget of 100000000 steps
local t = {}
for i = 1, 100000 do t[i] = (i * 7919) % 100003 end
while true do table.sort(t) end
