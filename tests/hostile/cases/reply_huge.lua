-- Class: memory. A reply of 600 MiB: the string fits in the Lua heap, its
-- copy as the script's reply would not.
-- Redis 7.0.15: builds it and sends it (no limit on a script's reply).
-- commands: run (the other commands stop at the same first call)
-- memory-limit: 1536M
-- expect: stop MiB of memory
return string.rep('r', 600 * 1024 * 1024)
