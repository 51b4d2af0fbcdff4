-- Class: the budget. load's reader may answer forever: a number is a
-- string piece, so the parser reads "5555..." without end.
-- Redis 7.0.15: busy for good.
-- expect: stop budget of 100000000 steps
return load(function() return 5 end)
