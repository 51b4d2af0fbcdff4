-- Class: the budget. Endless loops in coroutines resumed under pcall.
-- Redis 7.0.15: busy for good.
-- expect: stop budget of 100000000 steps
while true do
  pcall(coroutine.resume, coroutine.create(function() while true do end end))
end
