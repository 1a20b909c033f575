-- KEYS: state hash, followers set. ARGV: the store's follower id. Registers the store as
-- a follower of the room's bell and returns the room's seq; nil (and nothing written) if
-- there is no room. The set lives as long as the room: it takes the state's expiry.
local seq = redis.call('HGET', KEYS[1], 'seq')
if not seq then
  return false
end
redis.call('SADD', KEYS[2], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return seq
