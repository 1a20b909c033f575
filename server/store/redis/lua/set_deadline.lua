-- KEYS: state hash. ARGV: deadline or "" to clear. Only an existing room gets a deadline.
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'deadline')
elseif redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'deadline', ARGV[1])
end
return 0
