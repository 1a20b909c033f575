-- Runs after lib/append_events.lua, which defines append_events().
-- KEYS: state hash, event stream. ARGV: max events, bell channel, events...
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1, 0}
end
local events = {}
for i = 3, #ARGV do
  events[#events + 1] = ARGV[i]
end
return append_events(events, ARGV[1], ARGV[2])
