-- extend_no_compare (a deliberately broken extension): resets the expiry
-- of the lock whoever holds it, so a stale holder's renewals keep someone
-- else's lock alive.
-- KEYS[1] the lock key; ARGV[1] the caller's token (unread), ARGV[2] lease_ms.
return redis.call('pexpire', KEYS[1], ARGV[2])
