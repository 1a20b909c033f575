-- Runs after lib/drop_conn.lua, which defines drop_conn().
-- KEYS: conns, people. ARGV: connection, now, call token.
-- Returns {player's connections left, the instance's connections left here}, or
-- {-1, -1} when the connection was not attached. May run twice (the store's hot path
-- writes a call again after a lost connection): the answer is kept in the people hash
-- (``d:CONN``, gone with the room's keys) under the call's token, and a second run with
-- the same token answers it again.
local memo_field = 'd:' .. ARGV[1]
local done = drop_conn(ARGV[1], ARGV[2])
if not done then
  local memo = redis.call('HGET', KEYS[2], memo_field)
  if memo then
    local token, n, mine = string.match(memo, '^(%S+) (%d+) (%d+)$')
    if token == ARGV[3] then
      return {tonumber(n), tonumber(mine)}
    end
  end
  return {-1, -1}
end
redis.call('HSET', KEYS[2], memo_field, ARGV[3] .. ' ' .. done[2] .. ' ' .. done[3])
return {done[2], done[3]}
