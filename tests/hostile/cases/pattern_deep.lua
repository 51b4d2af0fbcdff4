-- Class: patterns. One recursion level per 'a?' in Lua 5.1's matcher: a
-- million of them overflow the C stack.
-- Redis 7.0.15: the server crashes (SIGSEGV) past about 175,000 levels.
-- expect: stop a string pattern nested deeper than 175000 levels
return string.find(string.rep('a', 1e6), string.rep('a?', 1e6))
