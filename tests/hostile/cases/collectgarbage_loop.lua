-- Class: the budget. Full collections of a large heap, one after another.
-- Redis 7.0.15: busy for good.
-- expect: stop budget of 100000000 steps
local keep = {}
for i = 1, 200 do keep[i] = string.rep(string.char(65 + i % 26), 1e5) .. i end
while true do collectgarbage('collect') end
