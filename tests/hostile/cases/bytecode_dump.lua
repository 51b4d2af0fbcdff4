-- Class: binary chunks. string.dump's output loaded back as code.
-- Redis 7.0.15: loadstring gives nil (its Lua has no undump), so calling
-- the result is an error reply.
-- expect: reply (a nil value)
local f = loadstring(string.dump(function() return 5 end))
return f()
