-- Renewal in the "many locks per call" style: KEYS are the locks to renew,
-- ARGV[1] the lease, ARGV[2] the owner. Answers one 0/1 per lock, in KEYS
-- order (1: renewed, 0: the owner does not hold that lock).
local answers = {}
for i = 1, #KEYS do
  if redis.call('hexists', KEYS[i], ARGV[2]) == 1 then
    redis.call('pexpire', KEYS[i], ARGV[1])
    answers[i] = 1
  else
    answers[i] = 0
  end
end
return answers
