-- release_no_compare (a deliberately broken release): deletes the lock
-- without looking at whose token it holds, so a caller whose lease ran out
-- frees the lock of whoever took it since.
-- KEYS[1] the lock key; ARGV[1] the caller's token (unread).
return redis.call('del', KEYS[1])
