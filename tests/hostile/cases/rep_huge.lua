-- Class: memory. One string of 2 GB in one call.
-- Redis 7.0.15: tries to build it (no memory limit for scripts).
-- expect: stop MiB of memory
return #string.rep('x', 2147483647)
