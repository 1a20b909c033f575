-- Runs after lib/drop_conn.lua, which defines drop_conn().
-- KEYS: conns, people. ARGV: instance id, now. Detaches every connection of the instance;
-- returns the players whose last connection it was.
local prefix = ARGV[1] .. '/'
local conns = redis.call('HKEYS', KEYS[1])
local gone = {}
for i = 1, #conns do
  if string.sub(conns[i], 1, #prefix) == prefix then
    local done = drop_conn(conns[i], ARGV[2])
    if done[2] == 0 then
      gone[#gone + 1] = done[1]
    end
  end
end
return gone
