-- Class: sizes and counts. unpack over the whole int range (a SIGSEGV in
-- stock Lua 5.1.5: its count overflows).
-- Redis 7.0.15: "too many results to unpack".
-- expect: reply too many results to unpack
return unpack({}, -2147483648, 2147483647)
