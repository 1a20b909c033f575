-- KEYS: a player's owned rooms. ARGV: room, now ms, limit, ttl ms. Counts the room if the
-- player owns fewer than `limit` (or it is counted already); the key outlives its last
-- room by `ttl` (a room whose end was never released cannot hold a slot for ever).
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
    return 0
  end
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
