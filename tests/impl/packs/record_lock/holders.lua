-- holders: the one holder's token, read from the JSON record (an empty list
-- when the lock is free). Read-only: the harness runs it after every script.
local raw = redis.call('get', KEYS[1])
if not raw then
  return {}
end
return {cjson.decode(raw).token}
