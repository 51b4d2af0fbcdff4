-- Class: the budget. The count hook's error leaves hooks off while the
-- error handler runs (Lua 5.1): a looping handler would never be stopped.
-- Redis 7.0.15: busy for good.
-- expect: stop budget of 100000000 steps
xpcall(function() while true do end end, function(e) while true do end end)
return 1
