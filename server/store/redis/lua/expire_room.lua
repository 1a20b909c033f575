-- KEYS: state hash, event stream, conns, people. ARGV: ttl ms. Returns 1 if the room exists.
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 1 then
  for i = 2, #KEYS do
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
  end
  return 1
end
return 0
