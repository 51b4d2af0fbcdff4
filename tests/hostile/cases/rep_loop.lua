-- Class: the budget. Work done inside a C function: each string.rep is a
-- few Lua instructions and 50 MB of copying.
-- Redis 7.0.15: busy for good.
-- expect: stop budget of 100000000 steps
while true do local s = string.rep('x', 5e7) end
