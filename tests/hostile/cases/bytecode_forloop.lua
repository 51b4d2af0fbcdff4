-- Class: binary chunks. A chunk of the shape the published Lua 5.1
-- bytecode exploits start from (a Lua 5.1 header, then a function whose
-- code runs FORLOOP without its FORPREP): on a Lua that loads bytecode,
-- such code hands the script a heap address. Well formed or not, it must
-- never reach an undumper: fed whole to loadstring and byte by byte
-- through load's reader.
-- Redis 7.0.15: the parser sees the escape byte and refuses the chunk.
-- expect: reply unexpected symbol near 'char(27)'
local header = "\27LuaQ\0\1\4\8\4\8\0"
local body = string.rep("\0", 12) .. "\2\0\0\0\2\3\0\0\0" .. "\1\0\0\0\31\0\0\0\30\0\128\0" ..
             "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
local chunk = header .. body
local i = 0
local f, e = load(function() i = i + 1 if i > #chunk then return nil end return chunk:sub(i, i) end)
local g, e2 = loadstring(chunk)
return redis.error_reply(tostring(e) .. ' / ' .. tostring(e2))
