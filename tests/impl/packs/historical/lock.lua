-- Reentrant acquire, written the way older releases wrote it: KEYS[1] the
-- lock, ARGV[1] the lease, ARGV[2] the holder. nil = held, else the PTTL.
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1);
  redis.call('pexpire', KEYS[1], ARGV[1]);
  return nil;
end;
return redis.call('pttl', KEYS[1]);
