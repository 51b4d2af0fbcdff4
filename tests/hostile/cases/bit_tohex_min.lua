-- Class: sizes and counts. bit.tohex with -2^31 digits: LuaBitOp 1.0.2
-- negates the count into a negative index and writes outside its buffer.
-- Redis 7.0.15: eight digits, upper case ("0000BEEF").
-- expect: reply 0000BEEF
return redis.error_reply(bit.tohex(0xbeef, -2147483648))
