-- Class: the budget. Commands whose walk grows with a value: ZRANK over a
-- 100,000-member sorted set (a walk of the whole set here, a skip list on
-- Redis), again and again.
-- Redis 7.0.15: busy for good.
-- expect: stop budget of 100000000 steps
local z = KEYS[1] .. ':z'
for i = 1, 100000 do redis.call('zadd', z, i, 'm' .. i) end
while true do redis.call('zrank', z, 'm100000') end
