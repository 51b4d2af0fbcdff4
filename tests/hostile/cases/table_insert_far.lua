-- Class: sizes and counts. table.insert at position -2^31 + 1 moves
-- every slot between it and the end: 2^31 moves in one C call.
-- Redis 7.0.15: busy (more than 20 s).
-- expect: stop budget of 100000000 steps
local t = {1}
table.insert(t, -2147483647, 'x')
return #t
