-- KEYS: state hash, conns, people. ARGV: connection, player, instance.
-- Returns the player's attached connections, or -1 when there is no such room.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then
  return tonumber(redis.call('HGET', KEYS[3], 'n:' .. ARGV[2]) or '0')
end
local n = redis.call('HINCRBY', KEYS[3], 'n:' .. ARGV[2], 1)
if n == 1 then
  redis.call('HINCRBY', KEYS[3], 'players', 1)
end
redis.call('HINCRBY', KEYS[3], 'i:' .. ARGV[3], 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return n
