-- Runs after lib/drop_conn.lua, which defines drop_conn().
-- KEYS: conns, people. ARGV: connection, now. Returns {player's connections left, the
-- instance's connections left here}, or {-1, -1} when the connection was not attached.
local done = drop_conn(ARGV[1], ARGV[2])
if not done then
  return {-1, -1}
end
return {done[2], done[3]}
