-- Detaches one connection: used by detach.lua and reap.lua. KEYS[1] conns, KEYS[2] people.
-- Returns the player, their connections left, and the instance's connections left here.
local function drop_conn(conn, now)
  local player = redis.call('HGET', KEYS[1], conn)
  if not player then
    return nil
  end
  redis.call('HDEL', KEYS[1], conn)
  local n = redis.call('HINCRBY', KEYS[2], 'n:' .. player, -1)
  if n <= 0 then
    redis.call('HDEL', KEYS[2], 'n:' .. player)
    redis.call('HINCRBY', KEYS[2], 'players', -1)
    redis.call('HSET', KEYS[2], 'left:' .. player, now)
    n = 0
  end
  local instance = 'i:' .. string.match(conn, '^[^/]*')
  local mine = redis.call('HINCRBY', KEYS[2], instance, -1)
  if mine <= 0 then
    redis.call('HDEL', KEYS[2], instance)
    mine = 0
  end
  return {player, n, mine}
end
